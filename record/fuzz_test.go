package record

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// The fuzz targets run their committed corpora (testdata/fuzz) in every `go test`; .ci/run fuzzes each for a
// bounded time. A recording is untrusted input: whatever the bytes, reading and replaying them gives a
// recording or an error, never a panic, and the memory a line asks for is bounded by what it and the lines
// before it hold.

// FuzzRead reads arbitrary bytes, plain or gzip, as a recording.
func FuzzRead(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := Read(bytes.NewReader(data), "fuzz.rec")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.rec: ") {
				t.Errorf("an error that does not name the file: %v", err)
			}
			return
		}
		if rec.Header.Format != Format || rec.Header.Version < 1 || rec.Header.Version > Version {
			t.Errorf("read a header %+v", rec.Header)
		}
	})
}

// FuzzPlayer replays arbitrary bytes that read as a recording: every poll's snapshot can be made, and every
// moment the player is asked for.
func FuzzPlayer(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed, "end")
	}
	f.Add([]byte(polledRecording(`[{"same":3}]`)), "+1s")
	f.Add([]byte(polledRecording(`[{"same":1},{"skip":1,"changed":0,"same":1}]`)), "03:00:01")
	f.Fuzz(func(t *testing.T, data []byte, moment string) {
		rec, err := Read(bytes.NewReader(data), "fuzz.rec")
		if err != nil || rec.Len() == 0 {
			return
		}
		p := NewPlayer(rec, nil)
		for i := range p.Len() {
			p.Snapshot(i)
		}
		if at, err := p.Moment(moment); err == nil {
			if i := p.IndexAt(at); i >= 0 {
				p.Snapshot(i)
			}
			p.Events(at)
		}
	})
}

// FuzzPolledDecode decodes a polled master's reading from span counts, the structured way a crafted file
// gives them: after a first reading of keys keys (read out of order: they make the scan order) and a second
// of the same keys in order, a third reading has two spans and written keys written in full: those span 1
// changes, named as it places them, then new ones. Whatever the counts, the decoder refuses them or places
// exactly the keys they count, never more than twice the keys before and those written.
func FuzzPolledDecode(f *testing.F) {
	f.Add(uint8(3), uint8(0), 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)     // a quiet master
	f.Add(uint8(3), uint8(1), 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0)     // a key changed
	f.Add(uint8(3), uint8(1), 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0)     // a key new
	f.Add(uint8(3), uint8(0), 0, 0, 0, 0, 3, 0, 0, 0, 0, -3, 3, 0)    // the scan order twice
	f.Add(uint8(3), uint8(0), 0, 0, -91, 0, 0, 0, 0, 0, 0, 0, 0, 0)   // the negative count
	f.Add(uint8(3), uint8(0), 0, 0, 0, 0, 0, 1<<62, 0, 0, 0, 0, 0, 0) // the huge count
	f.Add(uint8(3), uint8(0), 0, 0, 0, 0, 0, 1_000_000_000, 0, 0, 0, 0, 0, 0)
	f.Add(uint8(3), uint8(0), 1<<62, 1<<62, 0, 0, 0, 0, 1<<62, 1<<62, 0, 0, 0, 0)
	f.Fuzz(func(t *testing.T, keys, written uint8, skip1, same1, changed1, scanSkip1, scanned1, new1,
		skip2, same2, changed2, scanSkip2, scanned2, new2 int) {
		at := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
		key := func(name string, at time.Time) monitor.KeyReading {
			return monitor.KeyReading{Key: name, Value: "tok", PTTL: time.Minute, ReadAt: at}
		}
		var first []monitor.KeyReading
		for i := range int(keys) {
			first = append(first, key(fmt.Sprintf("lock:%d", i), at))
		}
		l := newLastKeys()
		if _, err := l.decode(first, []keyRun{{ReadAt: at, Spans: []keySpan{{New: len(first)}}}}); err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Second)
		if _, err := l.decode(nil, []keyRun{{ReadAt: at, Spans: []keySpan{{Same: len(first)}}}}); err != nil {
			t.Fatal(err)
		}
		at = at.Add(time.Second)
		var third []monitor.KeyReading
		for i := range int(written) { // the names of the keys span 1 would change, then new ones
			name := fmt.Sprintf("lock:new:%d", i)
			if pos := skip1 + same1 + i; i < changed1 && pos >= 0 && pos < len(l.names) {
				name = l.names[pos]
			}
			third = append(third, key(name, at))
		}
		before, scan := len(l.names), len(l.scan)
		spans := []keySpan{
			{Skip: skip1, Same: same1, Changed: changed1, ScanSkip: scanSkip1, Scanned: scanned1, New: new1},
			{Skip: skip2, Same: same2, Changed: changed2, ScanSkip: scanSkip2, Scanned: scanned2, New: new2},
		}
		got, err := l.decode(third, []keyRun{{ReadAt: at, Spans: spans}})
		if err != nil {
			return
		}
		counted := same1 + changed1 + scanned1 + new1 + same2 + changed2 + scanned2 + new2
		if len(got) != counted || len(got) > 2*(before+scan)+len(third) {
			t.Errorf("placed %d keys for spans %+v counting %d, after a reading of %d keys (%d in scan order) and %d written",
				len(got), spans, counted, before, scan, len(third))
		}
	})
}

// fuzzSeeds are recordings to start from: plain and gzip, polled and not, whole and cut short.
func fuzzSeeds(f *testing.F) [][]byte {
	polled := polledRecording(`[{"same":3}]`)
	v1 := `{"format":"redlock-tui recording","version":1,"masters":["a:1"]}
{"poll":{"time":"2026-11-27T03:00:00Z","readings":[{"Addr":"a:1","Keys":[{"Key":"lock:a","Value":"tok","PTTL":5000000000,"ReadAt":"2026-11-27T03:00:00Z"}]}]}}
{"event":{"time":"2026-11-27T03:00:00.5Z","source":"demo","kind":"violation","severity":"error","text":"two holders"}}
{"poll":{"time":"2026-11-27T03:00:01Z","readings":[{"Addr":"a:1","Err":"i/o timeout"}]}}
`
	path := filepath.Join(f.TempDir(), "seed.rec")
	w, err := Create(path, 0, Header{Masters: []string{"a:1"}}, nil)
	if err != nil {
		f.Fatal(err)
	}
	for i := range 3 {
		at := time.Date(2026, 11, 27, 3, 0, i, 0, time.UTC)
		if err := w.WritePoll(monitor.Poll{Time: at, Readings: []monitor.Reading{{Addr: "a:1", Keys: []monitor.KeyReading{
			{Key: "lock:a", Value: "tok", PTTL: 5 * time.Second, ReadAt: at},
			{Key: fmt.Sprintf("lock:%d", i), Value: "tok", PTTL: 5 * time.Second, ReadAt: at}}}}}); err != nil {
			f.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	gz, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return [][]byte{[]byte(polled), []byte(v1), []byte(polled[:len(polled)-20]), gz, gz[:len(gz)/2]}
}
