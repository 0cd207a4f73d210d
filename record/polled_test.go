package record

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestAQuietPolledMasterCostsWhatChanges: three polled masters with a few thousand quiet locks grow a
// recording by a few hundred bytes a master a poll, not by their keys; a key changed, deleted, new, or given
// another expiry between two polls is replayed as the live monitor saw it.
func TestAQuietPolledMasterCostsWhatChanges(t *testing.T) {
	t.Parallel() // it owns its masters
	const locks = 1000
	c := newContention(t, monitor.Config{NoTracking: true})
	ctx := context.Background()
	for _, m := range c.clients {
		pipe := m.Pipeline()
		for i := range locks {
			pipe.Set(ctx, fmt.Sprintf("lock:job:%d", i), fmt.Sprintf("tok-%020d", i), 10*time.Minute)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r := recordLive(t, c.mon, "quiet.rec", c.addrs, c.cfg, nil)
	size := func() int64 {
		info, err := os.Stat(r.path)
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	// Two sweeps: the first finds every lock, so that the polls measured are quiet; in the second the recording
	// learns the order in which discovery reads the keys again.
	swept := func(s monitor.Snapshot, sweeps int) bool {
		for _, m := range s.Masters {
			if m.Sweep.Completed < sweeps {
				return false
			}
		}
		return len(s.Locks) >= locks
	}
	for i := 0; !swept(c.mon.Poll(ctx), 2); i++ {
		if i == 200 {
			t.Fatal("the monitor did not sweep the masters twice in 200 polls")
		}
	}

	first := size()
	const quiet = 8
	for range quiet {
		c.mon.Poll(ctx)
	}
	perPoll := (size() - first) / quiet
	// Each reading's own fields (TIME, INFO, the sweep) and its runs cost a few hundred bytes at most; its keys,
	// whole, would cost about 8 bytes each: 8 KB a poll here.
	const perMaster = 700
	t.Logf("the first sweeps: %d bytes in %d polls; then %d bytes a quiet poll, for %d locks on %d masters",
		first, len(r.live), perPoll, locks, len(c.addrs))
	if perPoll > perMaster*int64(len(c.addrs)) {
		t.Errorf("a quiet poll of %d locks on %d polled masters costs %d bytes, want at most %d (the first sweeps cost %d)",
			locks, len(c.addrs), perPoll, perMaster*len(c.addrs), first)
	}

	// On the first master, between two polls: a key changed, one deleted, one new, one given another expiry.
	m := c.clients[0]
	for _, err := range []error{
		m.Set(ctx, "lock:job:5", "tok-changed-0000000000", 10*time.Minute).Err(),
		m.Del(ctx, "lock:job:6").Err(),
		m.Set(ctx, "lock:job:new", "tok-new-000000000000000", 10*time.Minute).Err(),
		m.PExpire(ctx, "lock:job:7", 5*time.Minute).Err(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	before := size()
	for range 3 {
		c.mon.Poll(ctx)
	}
	if grown := size() - before; grown > 3*perMaster*int64(len(c.addrs))+2000 {
		t.Errorf("three polls after 4 changes grew the recording by %d bytes", grown)
	}
	rec, live := r.closeAndOpen(), r.live
	if rec.Len() != len(live) {
		t.Fatalf("the recording holds %d polls; the monitor made %d snapshots", rec.Len(), len(live))
	}
	p, within := NewPlayer(rec, nil), ttlWithin(rec)
	for i := range live {
		if where := differs(t, live[i], snapshotJSON(t, p.Snapshot(i)), within); where != "" {
			t.Fatalf("poll %d of %d replayed differs from the live snapshot at %s", i, len(live), where)
		}
	}
	last := p.Snapshot(p.Len() - 1)
	cell := func(resource string) monitor.MasterLock {
		if l := last.Lock(resource); l != nil {
			return l.Masters[0]
		}
		return monitor.MasterLock{}
	}
	if c := cell("lock:job:5"); c.Token != "tok-changed-0000000000" {
		t.Errorf("the key changed is replayed with %q", c.Token)
	}
	if c := cell("lock:job:6"); c.State != monitor.CellAbsent {
		t.Errorf("the key deleted is replayed %v", c.State)
	}
	if c := cell("lock:job:new"); c.Token != "tok-new-000000000000000" {
		t.Errorf("the new key is replayed with %q", c.Token)
	}
	if c := cell("lock:job:7"); c.PTTL > 5*time.Minute || c.PTTL < 5*time.Minute-10*time.Second {
		t.Errorf("the key given 5 minutes is replayed with %v left", c.PTTL)
	}
	if c := cell("lock:job:8"); c.PTTL < 9*time.Minute || c.Token != "tok-00000000000000000008" {
		t.Errorf("a key unchanged is replayed as %q with %v left", c.Token, c.PTTL)
	}
}

// TestWholeReadingsReplayAsWrittenInEveryFile: whole readings written as deltas read back as they were (a key's
// TTL to within the tolerance), through keys changed, deleted, new, read again out of order, a master's error,
// and a new file, which reads on its own.
func TestWholeReadingsReplayAsWrittenInEveryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "polled.rec")
	news := 0
	w, err := Create(path, 20000, Header{Started: time.Now(), Masters: []string{"a:1", "b:1"}}, func() { news++ })
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	expires := map[string]time.Time{}
	reading := func(addr string, i int) monitor.Reading {
		at := start.Add(time.Duration(i) * 500 * time.Millisecond)
		r := monitor.Reading{Addr: addr}
		read := func(n int, readAt time.Time) {
			name := fmt.Sprintf("lock:%d", n)
			k := monitor.KeyReading{Key: name, Value: fmt.Sprintf("tok-%d", n), ReadAt: readAt, ReadWithin: time.Millisecond}
			switch {
			case n == 7 && i >= 5: // deleted
				k.Absent = true
			case n == 8 && i >= 5: // changed
				k.Value = "tok-8-again"
				fallthrough
			default:
				if _, ok := expires[name]; !ok || n == 9 && i == 5 { // 9: given another expiry
					expires[name] = readAt.Add(time.Minute + time.Duration(n)*time.Second)
				}
				jitter := time.Duration(i%3) * time.Millisecond // the round trip's
				k.PTTL = expires[name].Sub(readAt).Truncate(time.Millisecond) + jitter
			}
			r.Keys = append(r.Keys, k)
		}
		for n := range 40 + min(i, 10) { // the known keys, then new ones
			read(n, at.Add(2*time.Millisecond))
		}
		for n := range 5 { // discovery reads some again, in its order
			read((i*5+n*7)%40, at.Add(9*time.Millisecond))
		}
		return r
	}
	var polls []monitor.Poll
	rotated := -1 // the poll after which the new file began
	for i := 0; rotated < 0 || i < rotated+10; i++ {
		p := monitor.Poll{Time: start.Add(time.Duration(i) * 500 * time.Millisecond),
			Readings: []monitor.Reading{reading("a:1", i), reading("b:1", i)}}
		if i%11 == 3 {
			p.Readings[1] = monitor.Reading{Addr: "b:1", Err: errors.New("i/o timeout")}
		}
		if err := w.WritePoll(p); err != nil {
			t.Fatal(err)
		}
		polls = append(polls, p)
		if news == 1 && rotated < 0 {
			rotated = i
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	old, err1 := Open(path + ".1")
	cur, err2 := Open(path)
	if err1 != nil || err2 != nil || news != 1 {
		t.Fatalf("%d new files; reading them: %v, %v", news, err1, err2)
	}
	read := append(pollsOf(old), pollsOf(cur)...)
	if len(read) != len(polls) {
		t.Fatalf("read %d polls of %d", len(read), len(polls))
	}
	for i, p := range polls {
		for j, r := range p.Readings {
			got := read[i].Readings[j]
			if (r.Err == nil) != (got.Err == nil) || len(got.Keys) != len(r.Keys) {
				t.Fatalf("poll %d, %s: read %d keys (error %v), written %d (%v)", i, r.Addr, len(got.Keys), got.Err, len(r.Keys), r.Err)
			}
			for n, k := range r.Keys {
				g := got.Keys[n]
				if !g.SameRead(k) || !g.ReadAt.Equal(k.ReadAt) || g.ReadWithin != k.ReadWithin ||
					(g.PTTL-k.PTTL).Abs() > ttlTolerance+2*time.Millisecond {
					t.Fatalf("poll %d, %s, key %d: read %+v, written %+v", i, r.Addr, n, g, k)
				}
			}
		}
	}
}

// TestARecordingOfVersion1ReadsAsItWas: a recording the last format wrote, whole readings and all, still reads.
func TestARecordingOfVersion1ReadsAsItWas(t *testing.T) {
	v1 := `{"format":"redlock-tui recording","version":1,"masters":["a:1"]}
{"poll":{"time":"2026-11-27T03:00:00Z","readings":[{"Addr":"a:1","Keys":[{"Key":"lock:a","Value":"tok","PTTL":5000000000,"ReadAt":"2026-11-27T03:00:00Z"}]}]}}
{"poll":{"time":"2026-11-27T03:00:01Z","readings":[{"Addr":"a:1","Keys":[{"Key":"lock:a","Value":"tok","PTTL":4000000000,"ReadAt":"2026-11-27T03:00:01Z"}]}]}}
`
	rec, err := Read(strings.NewReader(v1), "v1.rec")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Len() != 2 || len(pollsOf(rec)[1].Readings[0].Keys) != 1 || pollsOf(rec)[1].Readings[0].Keys[0].PTTL != 4*time.Second {
		t.Errorf("a version 1 recording read as %+v", pollsOf(rec))
	}
}

// TestARecordedRedisClusterReplaysAsItWas: a Redis Cluster, read as one master whose keys each name their
// node, is recorded as a delta of its last reading and replayed as the live monitor saw it.
func TestARecordedRedisClusterReplaysAsItWas(t *testing.T) {
	t.Parallel() // it owns its masters
	c := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{})
	cc := c.NewClusterClient()
	defer cc.Close()
	ctx := context.Background()
	for i := range 300 {
		if err := cc.Set(ctx, fmt.Sprintf("lock:job:%d", i), fmt.Sprintf("tok-%020d", i), 10*time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	seeds := make([]*redis.Client, len(c.Nodes))
	for i, n := range c.Nodes {
		seeds[i] = n.NewClient()
		t.Cleanup(func() { seeds[i].Close() })
	}
	cfg := monitor.Config{}
	mon, err := monitor.NewCluster(seeds, monitor.ClusterName(c.Nodes[0].Addr()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mon.Close() })
	r := recordLive(t, mon, "cluster.rec", []string{monitor.ClusterName(c.Nodes[0].Addr())}, cfg, mon.ReadWholeNext)
	for i := range 12 {
		if i == 6 {
			if err := cc.Set(ctx, "lock:job:5", "tok-changed-0000000000", 10*time.Minute).Err(); err != nil {
				t.Fatal(err)
			}
			if err := cc.Del(ctx, "lock:job:6").Err(); err != nil {
				t.Fatal(err)
			}
		}
		mon.Poll(ctx)
	}
	rec, live := r.closeAndOpen(), r.live
	if rec.Len() != len(live) {
		t.Fatalf("the recording holds %d polls; the monitor made %d snapshots", rec.Len(), len(live))
	}
	if written := lastPollWritten(t, r.path); len(written.Poll.Readings[0].Keys) > 10 || len(written.Polled) != 1 {
		t.Errorf("the last poll wrote %d keys of %d, and %d readings as deltas; want the cluster's as a delta",
			len(written.Poll.Readings[0].Keys), len(pollsOf(rec)[rec.Len()-1].Readings[0].Keys), len(written.Polled))
	}
	p, within := NewPlayer(rec, nil), ttlWithin(rec)
	for i := range live {
		if where := differs(t, live[i], snapshotJSON(t, p.Snapshot(i)), within); where != "" {
			t.Fatalf("poll %d of %d replayed differs from the live snapshot at %s", i, len(live), where)
		}
	}
	last := p.Snapshot(p.Len() - 1)
	if l := last.Lock("lock:job:5"); l == nil || l.Holder != "tok-changed-0000000000" {
		t.Errorf("the key changed is replayed as %+v", l)
	}
}

// lastPollWritten is the last poll of the recording at path as it was written, not rebuilt.
func lastPollWritten(t *testing.T, path string) line {
	t.Helper()
	var last line
	sc := bufio.NewScanner(bytes.NewReader(gunzipped(t, path)))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err == nil && l.Poll != nil {
			last = l
		}
	}
	if last.Poll == nil {
		t.Fatalf("%s holds no poll (%v)", path, sc.Err())
	}
	return last
}
