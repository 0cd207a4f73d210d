package events

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// aggregate is one poll at now of three masters a:1, b:1, c:1 after prev; tokens[i] is master i's token of
// "billing" ("" none), with a minute's TTL.
func aggregate(prev *monitor.Snapshot, now time.Time, tokens ...string) monitor.Snapshot {
	var readings []monitor.Reading
	for i, tok := range tokens {
		r := monitor.Reading{Addr: string(rune('a'+i)) + ":1", Sent: now, Received: now, ServerTime: now, Role: "master",
			Uptime: time.Hour, Replicas: 0, Sweep: monitor.Sweep{Completed: 1, Total: -1}}
		if tok != "" {
			r.Keys = []monitor.KeyReading{{Key: "billing", Value: tok, PTTL: time.Minute, ReadAt: now}}
		} else {
			r.Keys = []monitor.KeyReading{{Key: "billing", Absent: true}}
		}
		readings = append(readings, r)
	}
	return monitor.Aggregate(prev, readings, nil, now, monitor.Config{})
}

// TestLockEventsCarryTheirTokenAndMasters: a lock held when the watcher starts is told once (already-held)
// with its token and masters; a takeover carries the new token and the masters it was read on; a release
// carries the token that went, from the poll before.
func TestLockEventsCarryTheirTokenAndMasters(t *testing.T) {
	const a, b = "token-a-0123456789abcdef", "token-b-0123456789abcdef"
	s1 := aggregate(nil, t0, a, a, "")
	held := AlreadyHeld(s1)
	if len(held) != 1 || held[0].Kind != KindAlreadyHeld || held[0].Resource != "billing" || held[0].Token != a ||
		!slices.Equal(held[0].Masters, []string{"a:1", "b:1"}) {
		t.Fatalf("the first poll of a lock held on a:1 and b:1: %+v; want one already-held record with its token and masters", held)
	}
	var kinds []string
	var found []Record
	prev := &s1
	for i, tokens := range [][]string{{b, b, b}, {"", "", ""}} {
		s := aggregate(prev, t0.Add(time.Duration(i+1)*time.Second), tokens...)
		for _, r := range FromPoll(prev, s, s.EventsSince(prev)) {
			kinds = append(kinds, r.Kind)
			found = append(found, r)
		}
		prev = &s
	}
	byKind := map[string]Record{}
	for _, r := range found {
		byKind[r.Kind] = r
	}
	over, ok := byKind[string(monitor.EventTakenOver)]
	if !ok || over.Token != b || !slices.Equal(over.Masters, []string{"a:1", "b:1", "c:1"}) {
		t.Errorf("taken-over: %+v (kinds %v); want token %s on the three masters", over, kinds, b)
	}
	released, ok := byKind[string(monitor.EventLockReleased)]
	if !ok || released.Token != b || !slices.Equal(released.Masters, []string{"a:1", "b:1", "c:1"}) {
		t.Errorf("released: %+v (kinds %v); want the token that went, %s, on the three masters", released, kinds, b)
	}
	if again := AlreadyHeld(aggregate(nil, t0, "", "", "")); len(again) != 0 {
		t.Errorf("a first poll with no lock held: %+v; want no already-held record", again)
	}
}

// TestAWarningRecordNamesItsKind: the warning's kind is a field of its own, not only the text's first word.
func TestAWarningRecordNamesItsKind(t *testing.T) {
	w := monitor.Warning{Severity: monitor.SeverityWarning, Kind: monitor.WarnClockOffset, Master: "a:1", Text: "offset 10ms"}
	got := Warnings(nil, monitor.Snapshot{Time: t0, Warnings: []monitor.Warning{w}})
	if len(got) != 1 || got[0].Warning != monitor.WarnClockOffset {
		t.Errorf("%+v; want its warning field %q", got, monitor.WarnClockOffset)
	}
}

// TestEachLineHasTheSchemaAndAUTCTimeInMilliseconds: whatever the record's time zone and precision, its line
// has schema 1 and the time in UTC, RFC 3339 with exactly three decimals, which jq 1.6's fromdateiso8601 takes
// once the decimals are cut.
func TestEachLineHasTheSchemaAndAUTCTimeInMilliseconds(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	paris := time.FixedZone("CEST", 2*3600)
	w.Emit(Record{Time: time.Date(2026, 6, 1, 14, 0, 0, 123456789, paris), Source: SourceMonitor, Kind: "master-down", Text: "x"})
	w.Emit(Record{Time: time.Date(2026, 6, 1, 12, 0, 1, 0, time.UTC), Source: SourceMonitor, Kind: "master-up", Text: "y"})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for i, want := range []string{"2026-06-01T12:00:00.123Z", "2026-06-01T12:00:01.000Z"} {
		var got struct {
			Schema *int   `json:"schema"`
			Time   string `json:"time"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &got); err != nil {
			t.Fatal(err)
		}
		if got.Schema == nil || *got.Schema != SchemaVersion || got.Time != want {
			t.Errorf("line %q: schema %v, time %q; want schema %d and %s", lines[i], got.Schema, got.Time, SchemaVersion, want)
		}
	}
}
