package events

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

var t0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// ev is a monitor event n seconds after t0.
func ev(n int, kind monitor.EventKind) monitor.Event {
	return monitor.Event{Time: t0.Add(time.Duration(n) * time.Second), Kind: kind, Resource: fmt.Sprint("r", n), Text: "t"}
}

func TestWarningsReportsRaisedAndClearedOnce(t *testing.T) {
	down := monitor.Warning{Severity: monitor.SeverityError, Kind: monitor.WarnMasterDown, Master: "a:1", Text: "down for 1s"}
	clock := monitor.Warning{Kind: monitor.WarnClockOffset, Master: "b:1", Text: "offset 10ms"}
	s1 := monitor.Snapshot{Time: t0, Warnings: []monitor.Warning{down}}
	got := Warnings(nil, s1)
	if len(got) != 1 || got[0].Kind != KindWarning || got[0].Severity != monitor.SeverityError || got[0].Master != "a:1" ||
		!strings.Contains(got[0].Text, "down for 1s") {
		t.Fatalf("first snapshot: %+v; want one error warning about a:1", got)
	}
	downLater := down
	downLater.Text = "down for 2s"
	s2 := monitor.Snapshot{Time: t0.Add(time.Second), Warnings: []monitor.Warning{downLater, clock}}
	got = Warnings(&s1, s2)
	if len(got) != 1 || got[0].Kind != KindWarning || got[0].Master != "b:1" {
		t.Errorf("a new warning, and one whose figures changed: %+v; want only the new one", got)
	}
	s3 := monitor.Snapshot{Time: t0.Add(2 * time.Second), Warnings: []monitor.Warning{clock}}
	got = Warnings(&s2, s3)
	if len(got) != 1 || got[0].Kind != KindWarningCleared || got[0].Master != "a:1" || !got[0].Time.Equal(s3.Time) {
		t.Errorf("a warning gone: %+v; want it cleared at the snapshot's time", got)
	}
}

func TestWriterWritesNumberedJSONLines(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.Emit(Record{Source: SourceDashboard, Kind: KindAcquired, Resource: fmt.Sprint("r", i), Token: "tok",
				Text: "acquired\n\"quoted\""})
		}()
	}
	wg.Wait()
	w.Emit(FromMonitor([]monitor.Event{ev(1, monitor.EventMasterDown)})[0])
	data := bytes.Clone(buf.Bytes())
	sc := bufio.NewScanner(&buf)
	var n uint64
	for sc.Scan() {
		n++
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d %q: %v", n, sc.Text(), err)
		}
		if r.Seq != n || r.Time.IsZero() || r.Text == "" {
			t.Errorf("line %d: %+v; want seq %d, a time and a text", n, r, n)
		}
		if n == 51 && (r.Source != SourceMonitor || r.Kind != string(monitor.EventMasterDown) || !r.Time.Equal(t0.Add(time.Second))) {
			t.Errorf("monitor event written as %+v; want source monitor, kind master-down and the event's own time", r)
		}
	}
	if n != 51 {
		t.Errorf("%d lines, want 51", n)
	}
	var raw map[string]any
	line := bytes.SplitN(data, []byte("\n"), 2)[0]
	if err := json.Unmarshal(line, &raw); err != nil || raw["master"] != nil || raw["client"] != nil {
		t.Errorf("empty fields should be left out: %s", line)
	}
}

// failing fails every write.
type failing struct{ writes int }

func (f *failing) Write([]byte) (int, error) { f.writes++; return 0, errors.New("disk full") }

func TestWriterStopsAtTheFirstError(t *testing.T) {
	f := &failing{}
	w := NewWriter(f)
	w.Emit(Record{Kind: KindReleased, Text: "x"})
	w.Emit(Record{Kind: KindReleased, Text: "y"})
	if err := w.Err(); err == nil || !strings.Contains(err.Error(), "disk full") || f.writes != 1 {
		t.Errorf("after a failed write: Err %v, %d writes; want the error and no further write", err, f.writes)
	}
}

// Observation 5 of issue 18: two locks that lose their quorum at once are two warnings, each with its lock.
func TestWarningsAboutTwoLocksAreTwo(t *testing.T) {
	lock := func(res string) monitor.Warning {
		return monitor.Warning{Severity: monitor.SeverityError, Kind: monitor.WarnQuorumLost,
			Text: fmt.Sprintf("lock %q lost its quorum", res)}
	}
	a, b := lock("billing"), lock("orders")
	a.Resource, b.Resource = "billing", "orders"
	s1 := monitor.Snapshot{Time: t0, Warnings: []monitor.Warning{a}}
	s2 := monitor.Snapshot{Time: t0.Add(time.Second), Warnings: []monitor.Warning{a, b}}
	got := Warnings(&s1, s2)
	if len(got) != 1 || got[0].Resource != "orders" {
		t.Fatalf("a second lock lost its quorum: %+v; want one warning about it, naming its resource", got)
	}
	s3 := monitor.Snapshot{Time: t0.Add(2 * time.Second), Warnings: []monitor.Warning{b}}
	if got := Warnings(&s2, s3); len(got) != 1 || got[0].Kind != KindWarningCleared || got[0].Resource != "billing" {
		t.Errorf("one of them regained its quorum: %+v; want that one cleared", got)
	}
}

// TestEverySourceRatesItsRecords: the dashboard's and the demo's records carry a severity, as the monitor's do.
func TestEverySourceRatesItsRecords(t *testing.T) {
	for kind, want := range map[string]string{KindAcquired: "info", KindAcquireFailed: "error", KindLost: "error",
		KindExtendFailed: "warning", KindReleaseUnconfirmed: "warning", KindReleasedLapsed: "warning",
		KindForceDeleteFailed: "warning", KindForceDeleted: "info"} {
		r := Dashboard(time.Now(), kind, "r", "tok", "text")
		if r.Severity.String() != want || r.Source != SourceDashboard || r.Kind != kind {
			t.Errorf("%s: severity %s source %s, want %q from the dashboard", kind, r.Severity, r.Source, want)
		}
	}
}

// TestSeverityTravelsAsItsWord: a record's severity is written as its word, and read back from it, from the
// stream's lines and a recording's alike; a line without one (none is written so) is information, and a
// word that names none is refused, naming it.
func TestSeverityTravelsAsItsWord(t *testing.T) {
	for _, sev := range monitor.Severities {
		var buf bytes.Buffer
		NewWriter(&buf).Emit(Record{Time: time.Now(), Source: SourceProgram, Kind: KindOutputFailed, Severity: sev, Text: "t"})
		if want := `"severity":"` + sev.String() + `"`; !strings.Contains(buf.String(), want) {
			t.Errorf("%s written as %s; want %s", sev, buf.String(), want)
		}
		var back Record
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.Severity != sev {
			t.Errorf("%s read back as %s (%v)", sev, back.Severity, err)
		}
	}
	var old Record
	if err := json.Unmarshal([]byte(`{"schema":1,"seq":1,"time":"2026-01-02T15:04:05.123Z","source":"monitor","kind":"lock-acquired","text":"t"}`), &old); err != nil || old.Severity != monitor.SeverityInfo {
		t.Errorf("a line without a severity read as %s (%v), want info", old.Severity, err)
	}
	if err := json.Unmarshal([]byte(`{"source":"monitor","kind":"k","severity":"fatal","text":"t"}`), &old); err == nil || !strings.Contains(err.Error(), `"fatal"`) {
		t.Errorf("a line with severity fatal: error %v, want one naming it", err)
	}
}
