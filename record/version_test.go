package record

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// TestAVersion2RecordingReadsAsItsVersion3Twin: a recording is written in format version 3, its durations in
// milliseconds, then made into the version 2 file that would have recorded the same (nanoseconds under the Go
// fields' names); the two read alike, the sentinels (a key without expiry, an unknown uptime) and fractions of a
// millisecond included.
func TestAVersion2RecordingReadsAsItsVersion3Twin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v3.rec")
	cfg := monitor.Config{Interval: 250 * time.Millisecond, Timeout: 1500 * time.Millisecond, History: 10 * time.Minute}
	w, err := Create(path, 0, Header{Started: time.Now(), Masters: []string{"a:1", "b:1"}, Config: cfg.Recorded()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	for i := range 6 {
		at := start.Add(time.Duration(i) * 250 * time.Millisecond)
		a := monitor.Reading{Addr: "a:1", Uptime: monitor.UnknownUptime, Keys: []monitor.KeyReading{
			{Key: "lock:forever", Value: "tok-f", PTTL: monitor.NoTTL, ReadAt: at, ReadWithin: 173456 * time.Nanosecond},
			{Key: "lock:b", Value: "tok-b", PTTL: 4880*time.Millisecond - time.Duration(i)*250*time.Millisecond, ReadAt: at,
				ReadWithin: 173456 * time.Nanosecond},
		}}
		b := monitor.Reading{Addr: "b:1", Uptime: 3 * time.Hour, Keys: []monitor.KeyReading{
			{Key: "lock:b", Value: "tok-b", PTTL: 4881 * time.Millisecond, ReadAt: at, ReadWithin: time.Millisecond},
		}}
		own := map[string]monitor.OwnLock{"lock:b": {Token: "tok-b", AcquiredAt: start, TTL: 30 * time.Second}}
		if err := w.WritePoll(monitor.Poll{Time: at, Readings: []monitor.Reading{a, b}, Own: own}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	v3 := gunzipped(t, path)
	v2 := toVersion2(t, v3)
	if bytes.Contains(v2, []byte("_ms")) || !bytes.Contains(v2, []byte(`"PTTL":-1`)) || !bytes.Contains(v3, []byte(`"pttl_ms":-1`)) ||
		!bytes.Contains(v3, []byte(`"read_within_ms":0.173456`)) || !bytes.Contains(v3, []byte(`"within_ms":0.173456`)) {
		t.Fatalf("the twin is not what version 2 wrote:\n%s\nfrom\n%s", v2, v3)
	}
	read3, err := Read(bytes.NewReader(v3), "v3.rec")
	if err != nil {
		t.Fatal(err)
	}
	read2, err := Read(bytes.NewReader(v2), "v2.rec")
	if err != nil {
		t.Fatal(err)
	}
	if c3, c2 := read3.Header.Config, read2.Header.Config; !reflect.DeepEqual(c3, c2) || c3.Interval != cfg.Interval ||
		c3.Timeout != cfg.Timeout || c3.History != cfg.History {
		t.Errorf("configuration read as %+v from version 3, %+v from version 2", read3.Header.Config, read2.Header.Config)
	}
	p3, p2 := pollsOf(read3), pollsOf(read2)
	if len(p3) != 6 || len(p2) != 6 {
		t.Fatalf("%d and %d polls read, want 6", len(p3), len(p2))
	}
	for i := range p3 {
		j3, _ := json.Marshal(p3[i])
		j2, _ := json.Marshal(p2[i])
		if !bytes.Equal(j3, j2) {
			t.Errorf("poll %d read from version 3:\n%s\nfrom version 2:\n%s", i, j3, j2)
		}
	}
	got := p3[5].Readings[0]
	if got.Uptime != monitor.UnknownUptime || got.Keys[0].PTTL != monitor.NoTTL || got.Keys[0].ReadWithin != 173456*time.Nanosecond ||
		p3[5].Own["lock:b"].TTL != 30*time.Second {
		t.Errorf("the last poll read as %+v, own %+v", got, p3[5].Own)
	}
}

// gunzipped is the recording at path, decompressed.
func gunzipped(t *testing.T, path string) []byte {
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
	var b bytes.Buffer
	if _, err := b.ReadFrom(gz); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// toVersion2 rewrites a version 3 recording as version 2 wrote it: each duration in nanoseconds under its old
// key (-1 milliseconds, a sentinel, as -1 nanosecond), and the header's version 2.
func toVersion2(t *testing.T, v3 []byte) []byte {
	t.Helper()
	old := map[string]string{"pttl_ms": "PTTL", "read_within_ms": "ReadWithin", "uptime_ms": "Uptime", "ttl_ms": "TTL",
		"interval_ms": "interval", "timeout_ms": "timeout", "history_ms": "history", "within_ms": "within"}
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, inner := range v {
				if name, ok := old[k]; ok {
					ms, err := inner.(json.Number).Float64()
					if err != nil {
						t.Fatal(err)
					}
					ns := int64(ms * 1e6)
					if ms == -1 {
						ns = -1
					}
					if ns != 0 { // version 2 left zero durations out (omitempty) or wrote 0: both read as 0
						out[name] = ns
					}
					continue
				}
				out[k] = walk(inner)
			}
			return out
		case []any:
			for i := range v {
				v[i] = walk(v[i])
			}
		}
		return v
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(v3))
	sc.Buffer(nil, 1<<24)
	for first := true; sc.Scan(); first = false {
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		var v map[string]any
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if first {
			if v["version"] != json.Number(fmt.Sprint(Version)) {
				t.Fatalf("header %v: not version %d", v, Version)
			}
			v["version"] = 2
		}
		b, err := json.Marshal(walk(v))
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	return out.Bytes()
}
