package docgen

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/record"
)

// TestRecordingPageHasEveryKeyARecordingWrites: a recording written by the recorder, of polls whose readings
// have every exported field set (a cluster's primaries, our locks, a key of each kind) and whose second poll
// writes a reading as a delta of the first, holds only keys that the page lists, each with what it holds; and
// the page's own walk finds the types a reader meets.
func TestRecordingPageHasEveryKeyARecordingWrites(t *testing.T) {
	page := generate(t, Recording)
	path := filepath.Join(t.TempDir(), "all.rec")
	w, err := record.Create(path, 0, record.Header{Masters: []string{"a:1"}, Config: monitor.Config{}.Recorded()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var r monitor.Reading
	fill(reflect.ValueOf(&r).Elem(), 0)
	r.Err, r.Delta = nil, false // a whole reading, written as a delta of the last; tracked is a delta as read
	tracked := r
	tracked.Addr, tracked.Delta, tracked.Cluster = "c:3", true, nil
	primary := r
	primary.Cluster = nil
	r.Cluster = &monitor.ClusterReading{Primaries: []monitor.PrimaryReading{{Reading: primary, ID: "n1",
		Slots: []monitor.SlotRange{{Start: 0, End: 16383}}}}}
	now := time.Now()
	own := map[string]monitor.OwnLock{}
	var lock monitor.OwnLock
	fill(reflect.ValueOf(&lock).Elem(), 0)
	own["billing:nightly"] = lock
	for i := range 2 {
		r.Keys[0].ReadAt = now.Add(time.Duration(i) * time.Second)
		if err := w.WritePoll(monitor.Poll{Time: now.Add(time.Duration(i) * time.Second),
			Readings: []monitor.Reading{r, {Addr: "b:2", Err: errors.New("connection refused"), Refused: true}, tracked},
			Own:      own}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteEvent(events.Record{Kind: events.KindAcquired, Resource: "billing:nightly"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	keys := recordedKeys(t, path)
	for _, want := range []string{"format", "config", "poll", "polled", "runs", "spans", "readings", "Keys", "pttl_ms",
		"read_within_ms", "uptime_ms", "ttl_ms", "interval_ms", "within_ms", "Cluster", "Primaries", "reading", "slots", "own", "event", "Err", "delta", "delta_of"} {
		if !keys[want] {
			t.Errorf("the recording holds no key %q: the test's recording misses part of the format", want)
		}
	}
	for _, old := range []string{"PTTL", "ReadWithin", "Uptime", "TTL", "interval", "timeout", "history", "within"} {
		if keys[old] {
			t.Errorf("the recording holds %q, a key of versions 1 and 2: durations go in milliseconds", old)
		}
	}
	if len(keys) < 70 {
		t.Errorf("only %d distinct keys in the recording; the fill missed part of the format", len(keys))
	}
	for k := range keys {
		if !strings.Contains(page, "| "+code(k)+" | ") {
			t.Errorf("the recording holds the key %q, which the page does not list", k)
		}
	}
	for _, want := range []string{"| `pttl_ms` | number: milliseconds | remaining TTL as the master reported it",
		"| `polled` | array of [record.polledKeys](#recordpolledkeys) |", "| `Keys` | array of [reading.recordedKey](#readingrecordedkey) |",
		"| `event` | [event record](events.md#the-record) or null |", "| `DeniedOnKeys` | array of string | see `Denied` |"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// recordedKeys returns every key of every object of the recording at path, but those of its events (events.md).
func recordedKeys(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, inner := range v {
				keys[k] = true
				if k != "event" && k != "own" && k != "permits" && k != "Waiters" { // the last three: by resource or key
					walk(inner)
				} else if k == "own" {
					for _, lock := range inner.(map[string]any) {
						walk(lock)
					}
				}
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	sc := bufio.NewScanner(gz)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		walk(v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

// fill sets every exported field of v (a struct, or what it holds) to a value that is not empty, so that
// encoding/json writes each; depth bounds the types that hold themselves.
func fill(v reflect.Value, depth int) {
	if depth > 4 || !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 27, 3, 12, 7, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	case reflect.Pointer:
		if v.Type().Elem().Kind() == reflect.Struct && depth < 2 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), depth+1)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), depth+1)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	}
}
