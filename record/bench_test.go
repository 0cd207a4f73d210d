package record

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// BenchmarkOpenAnHourOfRecording measures what a post-mortem waits for: opening a one-hour recording (three
// tracked masters, 1,000 locks, 10 changes a second, a poll every 500ms: 7,200 polls) and seeking across it.
// The recording is made as a tracked monitor writes one (a whole first reading, then deltas), with the fields
// the monitor's codec reads. Run it with -benchtime 3x.
func BenchmarkOpenAnHourOfRecording(b *testing.B) {
	path := filepath.Join(b.TempDir(), "hour.rec")
	size := writeHour(b, path)
	var open time.Duration
	var p *Player
	for b.Loop() {
		p = nil // the last player's keyframes are not this one's to count
		start := time.Now()
		rec, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		p = NewPlayer(rec, nil)
		open += time.Since(start)
	}
	b.ReportMetric(open.Seconds()/float64(b.N), "s/open")
	const seeks = 200
	start := time.Now()
	for range seeks {
		s := p.Snapshot(rand.IntN(p.Len()))
		if len(s.Locks) == 0 {
			b.Fatal("a seek found no lock")
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/seeks/1000, "ms/seek")
	b.ReportMetric(float64(size)/(1<<20), "MiB")
	b.ReportMetric(float64(p.every), "polls/keyframe")
}

// writeHour writes the hour's recording to path and returns its size.
func writeHour(b *testing.B, path string) int64 {
	b.Helper()
	const masters, locks, polls, perPoll = 3, 1000, 7200, 5
	start := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	addrs := []string{"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"}
	w, err := Create(path, 1<<40, Header{Started: start, Masters: addrs, Config: monitor.Config{}.Recorded()}, nil)
	if err != nil {
		b.Fatal(err)
	}
	token := func(i, gen int) string { return fmt.Sprintf("tok-%04d-%06d-xxxxxxxxxxxx", i, gen) }
	for i := range polls {
		at := start.Add(time.Duration(i) * 500 * time.Millisecond)
		var keys []map[string]any
		if i == 0 {
			for k := range locks {
				keys = append(keys, key(k, token(k, 0), at))
			}
		} else {
			for c := range perPoll {
				k := (i*perPoll + c) % locks
				keys = append(keys, key(k, token(k, i), at))
			}
		}
		var readings []json.RawMessage
		for m := range masters {
			r := map[string]any{"Addr": addrs[m], "Sent": at.Add(-time.Millisecond), "Received": at,
				"ServerTime": at, "Role": "master", "Version": "7.0.15", "RunID": "run" + addrs[m], "Uptime": time.Hour,
				"Replicas": 0, "Keys": keys, "Refresh": "tracking",
				"Sweep": map[string]any{"Completed": 1, "Total": locks, "Started": start, "LastCompleted": start},
				"seq":   i + 1}
			if i > 0 {
				r["delta"], r["delta_of"] = true, i
			}
			data, _ := json.Marshal(r)
			readings = append(readings, data)
		}
		line, _ := json.Marshal(map[string]any{"time": at, "readings": readings})
		var poll monitor.Poll
		if err := json.Unmarshal(line, &poll); err != nil {
			b.Fatal(err)
		}
		if err := w.WritePoll(poll); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return info.Size()
}

// key is one key's reading as the codec reads it.
func key(i int, value string, at time.Time) map[string]any {
	return map[string]any{"Key": fmt.Sprintf("lock:job:%d", i), "Value": value, "PTTL": 10 * time.Minute, "ReadAt": at}
}
