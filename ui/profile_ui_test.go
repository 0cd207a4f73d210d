package ui_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/redlock-tui/redlock-tui/ui"
	"github.com/redlock-tui/redlock-tui/ui/uitest"
)

// headerLine is the dashboard's first line.
func headerLine(m *ui.Model) string {
	return strings.SplitN(m.View(), "\n", 2)[0]
}

func TestHeaderShowsTheProfileAtAnySize(t *testing.T) {
	const long = "production-eu-west-1-primary-cluster"
	tests := []struct {
		name       string
		o          ui.Options
		quorumLost bool
		want       []string // in the header, in this order, at every size
		absent     []string // not in the header
		whole      string   // the name as shown when there is room for all of it (120 columns)
	}{
		{"production", ui.Options{Profile: "prod", Production: true, ReadOnly: true},
			false, []string{"redlock-tui", " PROD  prod │", "OK", "READ-ONLY"}, nil, "prod"},
		{"not production", ui.Options{Profile: "staging", ProfileColor: "214"},
			false, []string{"redlock-tui │ staging │", "OK"}, []string{"PROD", "READ-ONLY"}, "staging"},
		{"production, quorum lost, a long name", ui.Options{Profile: long, Production: true, ReadOnly: true},
			true, []string{" PROD  production-", "NO QUORUM", "READ-ONLY"}, nil, long},
		{"a hostile name", ui.Options{Profile: "ev\x1b[2Jil\u202e", Production: true},
			false, []string{" PROD  ‽ev\\x1b[2Jil\\u202e"}, nil, "‽ev\\x1b[2Jil\\u202e"},
		{"no profile", ui.Options{}, false, []string{"redlock-tui │ ", "OK"}, []string{"PROD"}, ""},
	}
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}, {64, 16}} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s %dx%d", tc.name, size.w, size.h), func(t *testing.T) {
				m := newDashboard(tc.o, size.w, size.h)
				snap := normalSnapshot()
				if tc.quorumLost {
					snap = noQuorumSnapshot()
				}
				m.Update(ui.SnapshotMsg{Snapshot: snap})
				view := m.View()
				checkScreen(t, view, size.w, size.h)
				header := headerLine(m)
				rest := header
				for _, w := range tc.want {
					i := strings.Index(rest, w)
					if i < 0 {
						t.Fatalf("%dx%d: the header does not show %q (in order): %q", size.w, size.h, w, header)
					}
					rest = rest[i+len(w):]
				}
				for _, a := range tc.absent {
					if strings.Contains(header, a) {
						t.Errorf("%dx%d: the header shows %q: %q", size.w, size.h, a, header)
					}
				}
				if size.w >= 120 && !strings.Contains(header, tc.whole+" │") {
					t.Errorf("%dx%d: the header does not show the whole name %q: %q", size.w, size.h, tc.whole, header)
				}
			})
		}
	}
}

func TestHeaderPaintsTheProfileInItsColour(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	tests := []struct {
		name string
		o    ui.Options
		want string // the SGR parameters of the name's colour
	}{
		{"a hex colour", ui.Options{Profile: "prod", ProfileColor: "#ff5f5f", Production: true}, "38;2;255;95;95"},
		{"a short hex colour", ui.Options{Profile: "prod", ProfileColor: "#f00"}, "38;2;255;0;0"},
		{"an ANSI colour", ui.Options{Profile: "staging", ProfileColor: "214"}, "38;5;214"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Keys, tc.o.Now = uitest.KeyMap(), func() time.Time { return testNow }
			m := ui.New(tc.o)
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			m.Update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
			header := headerLine(m)
			name := strings.Index(header, tc.o.Profile+"\x1b[")
			if name < 0 || !strings.Contains(lastSGR(header[:name]), tc.want) {
				t.Fatalf("the profile's name is not painted %s: %q", tc.want, header)
			}
			badge := strings.Index(header, " PROD ")
			if tc.o.Production && (badge < 0 || !slices.Contains(strings.Split(lastSGR(header[:badge]), ";"), "7") ||
				!strings.Contains(lastSGR(header[:badge]), tc.want)) {
				t.Errorf("no PROD badge in reverse video of the profile's colour before the name: %q", header)
			}
			if !tc.o.Production && badge >= 0 {
				t.Errorf("a PROD badge for a profile that is not production: %q", header)
			}
		})
	}
}

// lastSGR is the parameters of the last SGR sequence (ESC [ ... m) in s, "" when there is none.
func lastSGR(s string) string {
	i := strings.LastIndex(s, "\x1b[")
	if i < 0 {
		return ""
	}
	params, _, _ := strings.Cut(s[i+2:], "m")
	return params
}

func TestProductionProfileSaysWhyItIsReadOnly(t *testing.T) {
	m := newDashboard(ui.Options{Profile: "prod", Production: true, ReadOnly: true}, 120, 40)
	m.Update(ui.SnapshotMsg{Snapshot: normalSnapshot()})
	m.Update(keyMsg("a"))
	if v := m.View(); !strings.Contains(v, "a production profile runs read-only (--read-only=false overrides)") {
		t.Errorf("acquiring under a production profile does not say why it is refused:\n%s", v)
	}
}
