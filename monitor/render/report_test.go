package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// hostileKey is a key name that would take over a terminal (OSC 52 sets the clipboard) and break a Markdown
// table, were it written as it is.
const hostileKey = "evil\x1b]52;c;ZWNobyBwd25lZA==\x07|**bold**|`code`<img src=x>"

// reportStory is five masters watched for 30s: "orders" changing hands every 3s, the hostile key held by one
// holder throughout, and "billing" held by a token with markup in it; master 4 stops answering at the end.
func reportStory(t *testing.T) monitor.Snapshot {
	t.Helper()
	var prev *monitor.Snapshot
	var s monitor.Snapshot
	for i := range 31 {
		now := t0.Add(time.Duration(i) * time.Second)
		rs := fixture(now, addrs5, map[string][]cell{
			"orders":   cells(fmt.Sprintf("tok-%02d-9f86d081884c", i/3), 5),
			hostileKey: cells("h0stile-\x1b[2J-token", 3),
			"billing":  cells("a|b*c_d", 5),
		})
		if i == 30 {
			rs[4] = monitor.Reading{Addr: "m4", Err: fmt.Errorf("no answer within 1s")}
		}
		s = monitor.Aggregate(prev, rs, nil, now, monitor.Config{})
		prev = &s
	}
	return s
}

func TestReportGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteReport(&b, reportStory(t), ReportOptions{Events: 8}); err != nil {
		t.Fatal(err)
	}
	golden.RequireEqual(t, b.Bytes())
}

// TestReportEscapesHostileNames: no control byte reaches the report, and no name or token adds a table column
// or markup.
func TestReportEscapesHostileNames(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteReport(&b, reportStory(t), ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if i := strings.IndexFunc(out, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f }); i >= 0 {
		t.Fatalf("a control byte at %d: %q", i, out[max(i-40, 0):min(i+40, len(out))])
	}
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cols := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")
		if strings.Contains(line, "evil") || strings.Contains(line, "a\\|b") {
			if want := 11; cols != want {
				t.Errorf("a hostile row has %d column bars, want %d: %s", cols, want, line)
			}
		}
	}
	for _, raw := range []string{"**bold**", "`code`", "<img", "a|b*c_d"} {
		if strings.Contains(out, raw) {
			t.Errorf("the report carries %q unescaped", raw)
		}
	}
	if !strings.Contains(out, `evil\\x1b\]52;c;ZWNobyBwd25lZA==\\a\|\*\*bold\*\*\|`) {
		t.Errorf("the hostile key is not shown escaped:\n%s", out)
	}
}

// TestReportListsOnlyTheLocksThatMatch: a filter narrows the locks, says so, and counts those beyond MaxLocks.
func TestReportListsOnlyTheLocksThatMatch(t *testing.T) {
	var b bytes.Buffer
	o := ReportOptions{Match: func(l *monitor.LockView) bool { return l.Resource != "billing" }, Filter: "not billing", MaxLocks: 1}
	if err := WriteReport(&b, reportStory(t), o); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "| a\\|b") || !strings.Contains(out, "locks matching not billing") || !strings.Contains(out, "1 lock more not listed") {
		t.Errorf("filtered report:\n%s", out)
	}
}

// TestReportGivesNoContentionFromOneRead: a snapshot of one poll gives no handovers, holds or holders (one read
// cannot tell how a lock changes hands) and says why; one watched for 30s gives them.
func TestReportGivesNoContentionFromOneRead(t *testing.T) {
	t.Parallel()
	one := monitor.Aggregate(nil, fixture(t0, addrs5, map[string][]cell{"orders": cells("tok-00-9f86d081884c", 5)}), nil, t0, monitor.Config{})
	var b bytes.Buffer
	if err := WriteReport(&b, one, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	row := lineWith(b.String(), "| orders |")
	if !strings.HasSuffix(row, "| - | - | - | - | - |") || !strings.Contains(b.String(), "No contention figures: watched for") {
		t.Errorf("one read: want no contention figures and why:\n%s", b.String())
	}
	b.Reset()
	if err := WriteReport(&b, reportStory(t), ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	if row := lineWith(b.String(), "| orders |"); strings.Contains(row, "| - | - | - | - |") || strings.Contains(b.String(), "No contention figures") {
		t.Errorf("30s watched: want contention figures:\n%s", b.String())
	}
}

// lineWith is the first line of s that begins with prefix, "" when none does.
func lineWith(s, prefix string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}
