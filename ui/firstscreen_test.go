package ui_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/ui"
)

// The errors of issue 34's first screen, as the monitor and the command line's advice write them: a master
// that needs a password, a rediss:// master on a plain port, and one that is not there.
const (
	errNoAuth = "NOAUTH Authentication required. The master needs a password: set $REDISCLI_AUTH or give " +
		"--password-file (in a profile: password_env or password_file)"
	errNoTLS = "context deadline exceeded: the server may not speak TLS on this port (a plain port leaves the TLS " +
		"handshake unanswered): use redis:// (in a profile: tls = false), or the port of its tls-port"
	errRefused = "dial tcp 10.0.0.3:6379: connect: connection refused"
)

// unreachableSnapshot is three masters none of which can be used: one needs a password, one is given as
// rediss:// on a plain port, one is not there.
func unreachableSnapshot() monitor.Snapshot {
	ms := mastersUp(3, 0, 1, 2)
	ms[1].Addr = "rediss://10.0.0.2:6379"
	var ws []monitor.Warning
	for i, err := range []string{errNoAuth, errNoTLS, errRefused} {
		ms[i].Err = err
		ws = append(ws, monitor.Warning{Severity: monitor.SeverityWarning, Kind: monitor.WarnMasterDown, Master: ms[i].Addr,
			Text: "down: " + err})
	}
	ws = append(ws, monitor.Warning{Severity: monitor.SeverityError, Kind: monitor.WarnQuorumDown,
		Text: "only 0 of 3 masters answered, quorum is 2: no lock can be acquired"})
	return snapshotOf(ms, ws)
}

// restartedSnapshot is every master up and every lock read, but one master restarted less than the longest
// TTL ago: an error, in the banner.
func restartedSnapshot() monitor.Snapshot {
	s := normalSnapshot()
	const restarted = "started 6.0s ago, less than the longest TTL (4m59s): it may grant a lock others still hold"
	s.Masters[1].Uptime, s.Masters[1].LastRestart = 6*time.Second, s.Time.Add(-6*time.Second)
	s.Masters[1].Warnings = []string{restarted}
	s.Warnings = []monitor.Warning{{Severity: monitor.SeverityError, Kind: monitor.WarnRestart, Master: s.Masters[1].Addr,
		Text: restarted}}
	return s
}

// TestHeaderSaysTheWorstOfWhatIsShown: the header's word is never milder than the banner under it: OK only
// with nothing in it, DEGRADED above a warning, UNSAFE above an error, NO QUORUM when no lock can be taken.
func TestHeaderSaysTheWorstOfWhatIsShown(t *testing.T) {
	warned := normalSnapshot()
	warned.Warnings = []monitor.Warning{{Severity: monitor.SeverityWarning, Kind: monitor.WarnClockDrift,
		Master: "10.0.0.2:6379", Text: "clock runs 1500ppm fast, more than the drift factor allows"}}
	informed := normalSnapshot()
	informed.Warnings = []monitor.Warning{{Severity: monitor.SeverityInfo, Kind: monitor.WarnNotLockShaped,
		Text: "12 keys left out as not lock-shaped"}}
	for _, tc := range []struct {
		name string
		snap monitor.Snapshot
		want string
	}{
		{"nothing in the banner", normalSnapshot(), " OK "},
		{"information in the banner", informed, " OK "},
		{"a warning in the banner", warned, " DEGRADED "},
		{"an error in the banner", restartedSnapshot(), " UNSAFE "},
		{"no quorum", unreachableSnapshot(), " NO QUORUM "},
	} {
		m := newDashboard(ui.Options{}, 120, 40)
		m.Update(ui.SnapshotMsg{Snapshot: tc.snap})
		h := headerLine(m)
		if !strings.Contains(h, tc.want) {
			t.Errorf("%s: header %q, want %q", tc.name, h, tc.want)
		}
		for _, milder := range []string{" OK ", " DEGRADED ", " UNSAFE "} {
			if milder != tc.want && strings.Contains(h, milder) {
				t.Errorf("%s: header %q also says %q", tc.name, h, milder)
			}
		}
	}
}

// TestTheSelectedMastersErrorShowsWholeWithItsNextStep: a master that cannot be used shows its own error at the
// start of its row, in place of figures it does not have; the selected one's continues under its row, whole,
// its next step included, at 80 columns as at 120, and moving the selection moves it.
func TestTheSelectedMastersErrorShowsWholeWithItsNextStep(t *testing.T) {
	for _, w := range []int{80, 120} {
		m := newDashboard(ui.Options{}, w, 40)
		m.Update(ui.SnapshotMsg{Snapshot: unreachableSnapshot()})
		screen := panelText(m.View())
		for _, want := range []string{errNoAuth, "M2  rediss://10.0.0.2:6379", "down   context deadline exceeded",
			"M3  10.0.0.3:6379          down   dial tcp 10.0.0.3:6379"} {
			if !strings.Contains(screen, want) {
				t.Errorf("at %d columns the masters panel does not show %q whole:\n%s", w, want, m.View())
			}
		}
		m.Update(keyMsg("shift+tab"))
		m.Update(keyMsg("j"))
		screen = panelText(m.View())
		if !strings.Contains(screen, errNoTLS) || strings.Contains(screen, errNoAuth) {
			t.Errorf("at %d columns, with M2 selected, its error is not whole (or M1's still is):\n%s", w, m.View())
		}
	}
}

// panelText is the masters panel's text of a screen, its lines joined as one text without borders and
// indents, so that a wrapped sentence reads as one.
func panelText(view string) string {
	var words []string
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, "╰") || strings.HasPrefix(l, "┗") {
			break
		}
		l = strings.TrimPrefix(strings.Trim(l, "│┃ "), "▸ ")
		if masterRow.MatchString(l) { // a master's row: its columns' spacing is kept
			words = append(words, "\n"+strings.TrimSuffix(l, " …"))
			continue
		}
		words = append(words, l)
	}
	return strings.Join(words, " ")
}

// masterRow matches the start of a master's row in the masters panel.
var masterRow = regexp.MustCompile(`^M[0-9]+  `)
