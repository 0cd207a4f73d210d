package record

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/render"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// contention is three real masters watched by a monitor, with clients taking one lock in turn.
type contention struct {
	mon     *monitor.Monitor
	cfg     monitor.Config
	addrs   []string
	clients []*redis.Client // the masters', to make the fault
	locker  *redlock.Client
	holders []string // the token of each hold, in order, as the clients logged it
	mu      sync.Mutex
}

func newContention(t *testing.T, cfg monitor.Config) *contention {
	t.Helper()
	masters := redlocktest.Masters(t, 3)
	clients := redlocktest.Clients(t, masters)
	mon, err := monitor.New(clients, redlocktest.Addrs(masters), cfg)
	if err != nil {
		t.Fatal(err)
	}
	locker, err := redlock.New(redlocktest.Clients(t, masters), redlock.WithNodeTimeout(500*time.Millisecond),
		redlock.WithRetries(1000), redlock.WithRetryDelay(5*time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(locker.Close)
	return &contention{mon: mon, cfg: cfg, addrs: redlocktest.Addrs(masters), clients: clients, locker: locker}
}

// hold takes resource, keeps it for d, releases it and logs its token.
func (c *contention) hold(t *testing.T, resource string, d time.Duration) {
	l, err := c.locker.Acquire(context.Background(), resource, 5*time.Second)
	if err != nil {
		t.Error(err)
		return
	}
	c.mu.Lock()
	c.holders = append(c.holders, l.Token())
	c.mu.Unlock()
	time.Sleep(d)
	_ = l.Release(context.Background())
}

// TestAReplayRemakesEverySnapshotAsItWas records a monitor watching clients that take one lock in turn and a
// fault (the holder's keys deleted on two of three masters), then replays the recording: every poll's snapshot,
// events and contention included, is the one the live monitor made, and the lock's holder at each poll is the
// token the clients' log says held it then.
func TestAReplayRemakesEverySnapshotAsItWas(t *testing.T) {
	t.Parallel() // it owns its masters
	for _, polled := range []bool{false, true} {
		t.Run(map[bool]string{false: "tracked", true: "polled"}[polled], func(t *testing.T) {
			c := newContention(t, monitor.Config{NoTracking: polled})
			r := recordLive(t, c.mon, "incident.rec", c.addrs, c.cfg, c.mon.ReadWholeNext)

			fault := watchFault(c.mon, "billing:nightly")
			done := make(chan struct{})
			go func() { // clients taking "orders:hot" in turn, then one whose keys are deleted under it
				defer close(done)
				var wg sync.WaitGroup
				for range 3 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range 3 {
							c.hold(t, "orders:hot", 120*time.Millisecond)
						}
					}()
				}
				wg.Wait()
				// The fault: a holder's keys deleted on two of three masters while it holds, once the monitor has
				// seen it held on all three, and released once the monitor has seen the loss (on a loaded
				// machine a poll can take longer than any fixed wait).
				l, err := c.locker.Acquire(context.Background(), "billing:nightly", 30*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				if !fault.wait(t, fault.held) {
					return
				}
				for _, m := range c.clients[:2] {
					if err := m.Del(context.Background(), "billing:nightly").Err(); err != nil {
						t.Error(err)
					}
				}
				fault.wait(t, fault.lost)
				_ = l.Release(context.Background())
			}()
			for {
				c.mon.Poll(context.Background())
				select {
				case <-done:
				case <-time.After(40 * time.Millisecond):
					continue
				}
				break
			}
			_ = r.w.WriteEvent(events.Dashboard(time.Now(), events.KindAcquired, "orders:hot", "tok", "a dashboard event"))
			for range 3 {
				c.mon.Poll(context.Background())
			}
			rec, live := r.closeAndOpen(), r.live
			if rec.Len() != len(live) || len(rec.Events) != 1 || rec.Torn {
				t.Fatalf("the recording holds %d polls and %d events (torn %v); the monitor made %d snapshots and 1 event",
					rec.Len(), len(rec.Events), rec.Torn, len(live))
			}
			p, within := NewPlayer(rec, nil), ttlWithin(rec)
			for _, i := range []int{len(live) - 1, 0, len(live) / 2, 1, len(live) - 2} { // out of order: seeks
				if where := differs(t, live[i], snapshotJSON(t, p.Snapshot(i)), within); where != "" {
					t.Fatalf("poll %d of %d replayed differs from the live snapshot at %s", i, len(live), where)
				}
			}
			seen := map[string]bool{}
			for i := range p.Len() {
				s := p.Snapshot(i)
				if lv := s.Lock("orders:hot"); lv != nil && lv.Holder != "" {
					seen[lv.Holder] = true
				}
			}
			faults := 0
			for _, e := range p.MonitorEvents() {
				if e.Resource == "billing:nightly" && e.Kind.Severity() != monitor.SeverityInfo {
					faults++
				}
			}
			if faults == 0 {
				t.Errorf("the replay tells nothing of the fault on billing:nightly; its events: %v", p.MonitorEvents())
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			for h := range seen {
				if !contains(c.holders, h) {
					t.Errorf("the replay shows holder %q, which no client logged", h)
				}
			}
			if len(seen) == 0 {
				t.Error("the replay never shows the lock held")
			}
		})
	}
}

func snapshotJSON(t *testing.T, s monitor.Snapshot) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := render.WriteJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// liveRecording is a recording of a live monitor, with the JSON of every snapshot the monitor made, to compare
// a replay with.
type liveRecording struct {
	t    *testing.T
	path string
	w    *Writer
	live [][]byte
}

// recordLive records mon's polls to a new file named name, as --record does (onNew as Create takes it), and
// keeps the JSON of every snapshot mon makes.
func recordLive(t *testing.T, mon *monitor.Monitor, name string, masters []string, cfg monitor.Config,
	onNew func()) *liveRecording {
	t.Helper()
	r := &liveRecording{t: t, path: filepath.Join(t.TempDir(), name)}
	w, err := Create(r.path, 0, Header{Started: time.Now(), Masters: masters, Config: cfg.Recorded()}, onNew)
	if err != nil {
		t.Fatal(err)
	}
	r.w = w
	mon.ObservePolls(func(p monitor.Poll) {
		if err := w.WritePoll(p); err != nil {
			t.Error(err)
		}
	})
	mon.Observe(func(_ *monitor.Snapshot, s monitor.Snapshot) { r.live = append(r.live, snapshotJSON(t, s)) })
	return r
}

// closeAndOpen closes the recording and reads it back.
func (r *liveRecording) closeAndOpen() *Recording {
	r.t.Helper()
	if err := r.w.Close(); err != nil {
		r.t.Fatal(err)
	}
	rec, err := Open(r.path)
	if err != nil {
		r.t.Fatal(err)
	}
	return rec
}

// differs compares two snapshots' JSON and says where they differ, "" when they agree: numbers to 0.1%,
// times to the millisecond, and an event's duration to its rounding (sameSaveDurations). A TTL, and what is
// counted from a key's expiry (a holder's expiry on a master, its validity), may differ by up to ttlWithin: a
// key a whole reading found unchanged is replayed with the expiry last written for it, which the live read may
// give that much apart (and so may a time it expires at); a spread of expiries across masters, by twice that.
func differs(t *testing.T, live, replay []byte, ttlWithin time.Duration) string {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(live, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(replay, &b); err != nil {
		t.Fatal(err)
	}
	return diffValue("$", a, b, ttlWithin)
}

// ttlWithin is how far a replay of rec may give a key's TTL from what the live monitor read: ttlTolerance and
// twice the most any of its reads' times may be off (KeyReading.ReadWithin), the read written and the live one.
func ttlWithin(rec *Recording) time.Duration {
	var within time.Duration
	for _, p := range pollsOf(rec) {
		for _, r := range p.Readings {
			for _, k := range r.Keys {
				within = max(within, k.ReadWithin)
			}
		}
	}
	return ttlTolerance + 2*within
}

func diffValue(path string, a, b any, ttlWithin time.Duration) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
		for k, v := range x {
			if d := diffValue(path+"."+k, v, y[k], ttlWithin); d != "" {
				return d
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %d items vs %v", path, len(x), b)
		}
		for i := range x {
			if d := diffValue(fmt.Sprintf("%s[%d]", path, i), x[i], y[i], ttlWithin); d != "" {
				return d
			}
		}
	case float64:
		within := 0.01 + 1e-3*math.Abs(x)
		switch {
		case strings.HasSuffix(path, ".pttl_ms"), strings.HasSuffix(path, ".expires_in_ms"),
			strings.HasSuffix(path, ".validity_ms"): // each counted from a key's expiry
			within = max(within, float64(ttlWithin/time.Millisecond)+1) // and a millisecond cut off
		case strings.HasSuffix(path, ".ttl_spread_ms"):
			within = max(within, float64(2*ttlWithin/time.Millisecond)+1)
		}
		if y, ok := b.(float64); !ok || math.Abs(x-y) > within {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
	case string:
		y, ok := b.(string)
		within := time.Millisecond
		if strings.HasSuffix(path, ".expires_at") {
			within = ttlWithin + time.Millisecond // PTTL's milliseconds
		}
		if ta, err := time.Parse(time.RFC3339Nano, x); err == nil && ok {
			if tb, err := time.Parse(time.RFC3339Nano, y); err == nil && ta.Sub(tb).Abs() < within {
				return ""
			}
		}
		// An event's or a warning's words may hold a duration counted from a key's expiry (the longest TTL a
		// master's start is compared with), which a replay knows as exactly as the read that was written: its
		// rounding may then land one unit apart.
		if ok && (strings.HasSuffix(path, ".text") || warningPath.MatchString(path)) && sameSaveDurations(x, y, ttlWithin) {
			return ""
		}
		if !ok || x != y {
			return fmt.Sprintf("%s: %q vs %q", path, a, b)
		}
	default:
		if a != b {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
	}
	return ""
}

// warningPath is the path of a warning's words in a snapshot's JSON: "$.masters[0].cluster.primaries[0].warnings[0]".
var warningPath = regexp.MustCompile(`\.warnings\[\d+\]$`)

// durationWord is a duration as event texts write it: "4.8s", "350ms", "2m", "9m59s".
var durationWord = regexp.MustCompile(`(?:\d+(?:\.\d+)?(?:ms|s|m|h))+\b`)

// sameSaveDurations reports whether a and b are the same text but for durations that differ by at most within
// and one unit of their last digit (their rounding).
func sameSaveDurations(a, b string, within time.Duration) bool {
	da, db := durationWord.FindAllString(a, -1), durationWord.FindAllString(b, -1)
	if len(da) == 0 || len(da) != len(db) ||
		durationWord.ReplaceAllString(a, "D") != durationWord.ReplaceAllString(b, "D") {
		return false
	}
	for i := range da {
		x, errX := time.ParseDuration(da[i])
		y, errY := time.ParseDuration(db[i])
		if errX != nil || errY != nil || (x-y).Abs() > within+roundingUnit(da[i]) {
			return false
		}
	}
	return true
}

// roundingUnit is one unit of a duration word's last digit: 100ms for "4.8s", 1ms for "350ms", 1s for "9m59s".
func roundingUnit(word string) time.Duration {
	last := word[strings.LastIndexAny(word[:len(strings.TrimRight(word, "hms"))], "hms")+1:]
	unit := strings.TrimLeft(last, "0123456789.")
	n := strings.TrimSuffix(last, unit)
	d, _ := time.ParseDuration("1" + unit)
	if i := strings.IndexByte(n, '.'); i >= 0 {
		for range len(n) - i - 1 {
			d /= 10
		}
	}
	return d
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestACrashedRecordersFileIsReadable: a line cut short (the recorder died writing it) is skipped, the rest read.
func TestACrashedRecordersFileIsReadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.rec")
	w, err := Create(path, 0, Header{Started: time.Now(), Masters: []string{"a:1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := w.WritePoll(monitor.Poll{Time: time.Unix(int64(1000+i), 0), Readings: []monitor.Reading{{Addr: "a:1"}}}); err != nil {
			t.Fatal(err)
		}
	}
	// The recorder dies between two polls: every poll written reads back, and nothing is said cut short.
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Open(path)
	if err != nil || rec.Len() != 3 || rec.Torn || !rec.Unclosed {
		t.Fatalf("a recording whose recorder died between polls: %v; want its 3 polls, unclosed, none torn (%+v)", err, rec)
	}
	// A fourth poll, then the file cut in its middle, as when the recorder dies while the kernel writes it.
	fourth := monitor.Poll{Time: time.Unix(1003, 0), Readings: []monitor.Reading{{Addr: "a:1"}}}
	for i := range 50 { // keys that compress little, so that half the line's bytes hold some of it
		fourth.Readings[0].Keys = append(fourth.Readings[0].Keys, monitor.KeyReading{Key: fmt.Sprintf("lock:%d", i),
			Value: fmt.Sprintf("%x", i*2654435761), PTTL: time.Duration(i) * time.Millisecond})
	}
	if err := w.WritePoll(fourth); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, (before.Size()+after.Size())/2); err != nil {
		t.Fatal(err)
	}
	rec, err = Open(path)
	if err != nil {
		t.Fatalf("a recording cut short by a crash: %v", err)
	}
	if rec.Len() != 3 || !rec.Torn || !rec.Unclosed {
		t.Errorf("read %d polls, torn %v; want the 3 whole ones, and the cut line skipped", rec.Len(), rec.Torn)
	}
}

// TestARecordingOfANewerVersionIsRefusedClearly, and a file that is not a recording.
func TestARecordingOfANewerVersionIsRefusedClearly(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		{`{"format":"redlock-tui recording","version":99}` + "\n", "format version 99"},
		{"hello\n", "not a redlock-tui recording"},
		{"", "not a redlock-tui recording"},
	} {
		_, err := Read(strings.NewReader(tc.content), "x.rec")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error saying %q", tc.content, err, tc.want)
		}
	}
}

// TestARecordingRotatesAtItsSize: past the size given, the file becomes FILE.1 and a new file begins, whose
// first poll the monitor is asked to read whole; both files read on their own.
func TestARecordingRotatesAtItsSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.rec")
	news := 0
	w, err := Create(path, 1500, Header{Started: time.Now(), Masters: []string{"a:1"}}, func() { news++ })
	if err != nil {
		t.Fatal(err)
	}
	poll := func(i int) monitor.Poll {
		return monitor.Poll{Time: time.Unix(int64(1000+i), 0), Readings: []monitor.Reading{{Addr: "a:1",
			Keys: []monitor.KeyReading{{Key: fmt.Sprintf("lock:%d", i), Value: "token-of-some-length", PTTL: time.Second}}}}}
	}
	i := 0
	for ; news == 0 && i < 1000; i++ {
		if err := w.WritePoll(poll(i)); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 { // into the new file
		if err := w.WritePoll(poll(i)); err != nil {
			t.Fatal(err)
		}
		i++
	}
	w.Close()
	old, err1 := Open(path + ".1")
	cur, err2 := Open(path)
	if err1 != nil || err2 != nil {
		t.Fatalf("after rotation: %v, %v", err1, err2)
	}
	if news != 1 || cur.Header.Part != 2 || old.Header.Part != 1 || cur.Len() != 2 || old.Len()+2 != i {
		t.Errorf("rotations %d, parts %d then %d, %d polls then %d of %d", news, old.Header.Part, cur.Header.Part,
			old.Len(), cur.Len(), i)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("a recording names tokens: mode %v (%v), want 0600", info.Mode(), err)
	}
	if _, err := Create(path, 0, Header{}, nil); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a recording over an existing file: %v, want a refusal", err)
	}
}

// TestARecordingOfLargePollsRotatesToo: polls whose lines are larger than the writer's buffer (a polled
// master's thousands of keys) are counted whole, so the file still begins anew at its size.
func TestARecordingOfLargePollsRotatesToo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "large.rec")
	const maxBytes = 256 << 10
	news := 0
	w, err := Create(path, maxBytes, Header{Started: time.Now(), Masters: []string{"a:1"}}, func() { news++ })
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; news == 0 && i < 50; i++ {
		poll := monitor.Poll{Time: time.Unix(int64(1000+i), 0), Readings: []monitor.Reading{{Addr: "a:1"}}}
		for k := range 5000 { // values that compress little: a line of about 100 KB compressed
			poll.Readings[0].Keys = append(poll.Readings[0].Keys, monitor.KeyReading{Key: fmt.Sprintf("job:%d", k),
				Value: fmt.Sprintf("%016x", uint64(i*5000+k)*0x9e3779b97f4a7c15), PTTL: time.Duration(k) * time.Millisecond})
		}
		if err := w.WritePoll(poll); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	old, err := os.Stat(path + ".1")
	if news != 1 || err != nil {
		t.Fatalf("%d new files after writing polls of about 100 KB each past %d bytes (%v); want 1", news, maxBytes, err)
	}
	if old.Size() > 2*maxBytes {
		t.Errorf("the first file grew to %d bytes before a new one began; want about %d", old.Size(), maxBytes)
	}
	if _, err := Open(path + ".1"); err != nil {
		t.Error(err)
	}
}

// TestSameSaveDurations: the replay test forgives a duration in an event's words its rounding, and nothing else.
func TestSameSaveDurations(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"released 4.8s before its TTL (was held by x)", "released 4.9s before its TTL (was held by x)", true},
		{"released 4.8s before its TTL (was held by x)", "released 5.1s before its TTL (was held by x)", false},
		{"released 4.8s before its TTL (was held by x)", "released 4.8s before its TTL (was held by y)", false},
		{"held 350ms", "held 352ms", true},
		{"held 350ms", "held 360ms", false},
		{"no duration", "no duration!", false},
		{"less than the longest TTL (9m59s)", "less than the longest TTL (10m00s)", true},
		{"less than the longest TTL (9m59s)", "less than the longest TTL (10m02s)", false},
		{"held 9m59s by x", "held 10m00s by y", false},
	} {
		if got := sameSaveDurations(c.a, c.b, 2*time.Millisecond); got != c.want {
			t.Errorf("sameSaveDurations(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// pollsOf is every poll of rec, rebuilt whole.
func pollsOf(rec *Recording) []monitor.Poll {
	var polls []monitor.Poll
	for _, p := range rec.Polls() {
		polls = append(polls, p)
	}
	return polls
}

// faultSeen tells when the live monitor has seen a resource held on every master (held), and then told of a
// fault on it (lost: an event above information, once the loss is confirmed).
type faultSeen struct {
	held, lost chan struct{}
}

// watchFault observes mon's snapshots for resource.
func watchFault(mon *monitor.Monitor, resource string) *faultSeen {
	f := &faultSeen{held: make(chan struct{}), lost: make(chan struct{})}
	var heldOnce, lostOnce sync.Once
	mon.Observe(func(_ *monitor.Snapshot, s monitor.Snapshot) {
		l := s.Lock(resource)
		switch {
		case l == nil:
		case l.State == monitor.StateHeld && l.Count == len(s.Masters):
			heldOnce.Do(func() { close(f.held) })
		}
		for _, e := range s.Events {
			if e.Resource == resource && e.Kind.Severity() != monitor.SeverityInfo {
				lostOnce.Do(func() { close(f.lost) })
			}
		}
	})
	return f
}

// wait waits for seen, at most a minute; it fails the test and reports false if it does not come.
func (f *faultSeen) wait(t *testing.T, seen chan struct{}) bool {
	select {
	case <-seen:
		return true
	case <-time.After(time.Minute):
		t.Error("the monitor did not see the fault's step within a minute")
		return false
	}
}

// TestDiffersForgivesAWarningsRounding: a warning's duration counted from a key's expiry may round one unit
// apart in a replay, as an event's may (seen: "the longest TTL (9m59s)" live, "(10m00s)" replayed); its other
// words, and a warning's duration further off, still differ.
func TestDiffersForgivesAWarningsRounding(t *testing.T) {
	doc := func(w string) []byte {
		return []byte(`{"masters":[{"warnings":["started 3.0s ago, less than the longest TTL (` + w + `)"]}]}`)
	}
	if d := differs(t, doc("9m59s"), doc("10m00s"), 10*time.Millisecond); d != "" {
		t.Errorf("a warning's rounding one unit apart differs: %s", d)
	}
	if d := differs(t, doc("9m50s"), doc("10m00s"), 10*time.Millisecond); d == "" {
		t.Error("a warning's duration 10s apart does not differ")
	}
	other := []byte(`{"masters":[{"warnings":["started 3.0s ago, more than the longest TTL (10m00s)"]}]}`)
	if d := differs(t, doc("10m00s"), other, 10*time.Millisecond); d == "" {
		t.Error("a warning's other words do not differ")
	}
}
