package monitor

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// realMasters starts n real redis-server masters with a monitor on them, polled by hand.
func realMasters(t *testing.T, n int) (*cluster, []*redlocktest.Server) {
	t.Helper()
	return realMastersWith(t, n, redlocktest.ServerOptions{}, "INFO commandstats")
}

// realMastersWith starts n real redis-server masters started with opts, with a monitor on them, polled by hand;
// where only embedded masters can be had, the test is skipped for what it needs (need).
func realMastersWith(t *testing.T, n int, opts redlocktest.ServerOptions, need string) (*cluster, []*redlocktest.Server) {
	t.Helper()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server (" + need + ")")
	}
	servers := redlocktest.StartServers(t, n, opts)
	masters := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		masters[i] = s
	}
	c := watch(t, masters, Config{})
	t.Cleanup(func() { _ = c.mon.Close() })
	return c, servers
}

// heldBy polls until resource is held by token, and returns that snapshot.
func (c *cluster) heldBy(t *testing.T, resource, token string) Snapshot {
	t.Helper()
	return pollUntil(t, c.mon, 20*time.Second, resource+" held by "+token, func(s Snapshot) bool {
		l := s.Lock(resource)
		return s.Swept && l != nil && l.State == StateHeld && l.Holder == token
	})
}

// handoverTold polls until token holds resource and returns the events that judged the change of holder to
// it: that poll's, and the next's, which confirms an overwrite (confirmOverwrite).
func (c *cluster) handoverTold(t *testing.T, resource, token string) []Event {
	t.Helper()
	s := c.heldBy(t, resource, token)
	es := handoverEvents(s, resource, token)
	for _, e := range handoverEvents(c.mon.Poll(context.Background()), resource, token) {
		if !slices.Contains(es, e) { // a snapshot's events may hold the one before's
			es = append(es, e)
		}
	}
	return es
}

// handoverEvents returns the events of s about resource that name a change of holder to token.
func handoverEvents(s Snapshot, resource, token string) []Event {
	var out []Event
	for _, e := range eventsOf(s, resource, "") {
		if (e.Kind == EventTakenOver || e.Kind == EventOverwritten || e.Kind == EventTakenAfterExpiry) &&
			strings.Contains(e.Text, vocab.Quote(token)) {
			out = append(out, e)
		}
	}
	return out
}

// TestOverwriteIsAnError: a lock held by our Redlock client on three real masters, then a plain SET of another
// token without NX on every master while its key has most of its TTL left (the classic unsafe client): an
// error naming both tokens, the TTL left and the masters. A release followed by an acquisition is routine.
func TestOverwriteIsAnError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, servers := realMasters(t, 3)
	rc, err := redlock.New(c.admin, redlock.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	const key = "pay:1"
	lock, err := rc.Acquire(ctx, key, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tokA := lock.Token()
	c.heldBy(t, key, tokA)
	const tokB = "tokB-plain-set-0123456789"
	for _, a := range c.admin {
		if err := a.Set(ctx, key, tokB, time.Minute).Err(); err != nil { // SET key tokB PX 60000, no NX
			t.Fatal(err)
		}
	}
	es := c.handoverTold(t, key, tokB)
	if len(es) != 1 || es[0].Kind != EventOverwritten || es[0].Kind.Severity() != SeverityError {
		t.Fatalf("a live lock overwritten: events %+v, want one %s, an error", es, EventOverwritten)
	}
	for _, want := range []string{vocab.Quote(tokA), vocab.Quote(tokB), "of TTL left", "without NX"} {
		if !strings.Contains(es[0].Text, want) {
			t.Errorf("overwrite event %q does not say %q", es[0].Text, want)
		}
	}
	named := 0 // the masters where the poll that named tokB saw it: a quorum at least (a slow SET may come later)
	for _, srv := range servers {
		if strings.Contains(es[0].Text, srv.Addr()) {
			named++
		}
	}
	if named < 2 {
		t.Errorf("overwrite event %q names %d masters, want the quorum it was seen on", es[0].Text, named)
	}

	// Routine: tokB released by a script's DEL, as a client releases, then tokC taken with NX.
	const tokC = "tokC-after-release-0123456789"
	release := redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)
	for _, a := range c.admin {
		if err := release.Run(ctx, a, []string{key}, tokB).Err(); err != nil {
			t.Fatal(err)
		}
		if err := a.SetNX(ctx, key, tokC, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	es = c.handoverTold(t, key, tokC)
	if len(es) != 1 || es[0].Kind != EventTakenOver || es[0].Kind.Severity() != SeverityInfo ||
		!strings.Contains(es[0].Text, "released") || !strings.Contains(es[0].Text, vocab.Quote(tokB)) {
		t.Fatalf("a lock released then taken: events %+v, want one %s, info, saying %s released", es, EventTakenOver, tokB)
	}
}

// TestTakenAfterExpiryIsAWarning: a lock whose key expires at its TTL on three real masters, taken by another
// token as soon as it is gone: a warning that the first holder may still be running, with the remedy.
func TestTakenAfterExpiryIsAWarning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, _ := realMasters(t, 3)
	const key, tokA, tokB = "job:7", "tokA-expiring-0123456789", "tokB-right-after-0123456789"
	c.set(t, key, tokA, 1500*time.Millisecond, 0, 1, 2)
	c.heldBy(t, key, tokA)
	for { // wait for the expiry on every master, then take it at once
		n := 0
		for _, a := range c.admin {
			n += int(a.Exists(ctx, key).Val())
		}
		if n == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.set(t, key, tokB, time.Minute, 0, 1, 2)
	es := c.handoverTold(t, key, tokB)
	if len(es) != 1 || es[0].Kind != EventTakenAfterExpiry || es[0].Kind.Severity() != SeverityWarning {
		t.Fatalf("a lock taken right after its expiry: events %+v, want one %s, a warning", es, EventTakenAfterExpiry)
	}
	for _, want := range []string{vocab.Quote(tokA), "may still be running", "fencing tokens", "of holder"} {
		if !strings.Contains(es[0].Text, want) {
			t.Errorf("event %q does not say %q", es[0].Text, want)
		}
	}
}

// TestContendedTokensWarn: two tokens each on 2 of 5 real masters, the fifth stopped: the lock is unknown, and a
// warning event and a banner warning say that tokens contend with no quorum known.
func TestContendedTokensWarn(t *testing.T) {
	t.Parallel()
	c, servers := realMasters(t, 5)
	const key, tokA, tokB = "acq:contended", "tokA-contending-0123456789", "tokB-contending-0123456789"
	c.set(t, key, tokA, time.Minute, 0, 1)
	c.set(t, key, tokB, time.Minute, 2, 3)
	pollUntil(t, c.mon, 20*time.Second, "the lock split, swept", func(s Snapshot) bool {
		l := s.Lock(key)
		return s.Swept && l != nil && l.State == StateSplit
	})
	if err := servers[4].Stop(); err != nil {
		t.Fatal(err)
	}
	s := pollUntil(t, c.mon, 20*time.Second, "a contended warning", func(s Snapshot) bool {
		return slices.ContainsFunc(s.Warnings, func(w Warning) bool { return w.Kind == WarnContended && w.Resource == key })
	})
	if l := s.Lock(key); l.State != StateUnknown {
		t.Errorf("state %s, want %s", l.State, StateUnknown)
	}
	var es []Event
	for _, e := range eventsOf(s, key, "") {
		if e.Kind == EventLockContended {
			es = append(es, e)
		}
	}
	if len(es) != 1 || es[0].Kind.Severity() != SeverityWarning || !strings.Contains(es[0].Text, vocab.Quote(tokA)+" on 2 masters") ||
		!strings.Contains(es[0].Text, vocab.Quote(tokB)+" on 2 masters") || !strings.Contains(es[0].Text, "1 master not read") {
		t.Fatalf("contended events %+v, want one warning naming both tokens on 2 masters and the master not read", es)
	}
}

// TestEvictionOnTwoOfThreeIsTold: a lock on three real masters, evicted from two (maxmemory-policy
// volatile-lru, filled with cache keys): evicted, naming those two, saying the holder lost its quorum, and no
// quorum-lost besides; the holder's release on the third is then a release.
func TestEvictionOnTwoOfThreeIsTold(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, servers := evictingMasters(t, 3)
	const key, tok = "orders:two-of-three", "token-two-of-three-0123456789"
	c.set(t, key, tok, time.Minute, 0, 1, 2)
	c.heldBy(t, key, tok)
	c.fillUntilGone(t, 0, key)
	c.fillUntilGone(t, 1, key)
	pollUntil(t, c.mon, 20*time.Second, key+" on one master", func(s Snapshot) bool {
		l := s.Lock(key)
		return l != nil && l.Count == 1 && l.QuorumLost
	})
	if err := c.admin[2].Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	s := pollUntil(t, c.mon, 20*time.Second, key+" gone", func(s Snapshot) bool { return noKey(s, key) })
	var told strings.Builder
	var kinds []EventKind
	for _, e := range eventsOf(s, key, "") {
		kinds = append(kinds, e.Kind)
		if e.Kind == EventLockEvicted {
			told.WriteString(e.Text + "\n")
		}
	}
	if slices.Contains(kinds, EventQuorumLost) || kinds[len(kinds)-1] != EventLockReleased {
		t.Errorf("events %v: want evictions, no %s, then %s", kinds, EventQuorumLost, EventLockReleased)
	}
	for _, want := range []string{servers[0].Addr(), servers[1].Addr(), "lost its quorum", "volatile-lru"} {
		if !strings.Contains(told.String(), want) {
			t.Errorf("eviction events %q do not say %q", told.String(), want)
		}
	}
	if strings.Contains(told.String(), servers[2].Addr()) {
		t.Errorf("eviction events %q name %s, which evicted nothing", told.String(), servers[2].Addr())
	}
}

// TestHolderFirstSeenInFlightIsNamed: a holder first seen in an acquisition in flight (partial, split) is
// named by an event when a later poll sees it hold, whatever came before.
func TestHolderFirstSeenInFlightIsNamed(t *testing.T) {
	split := []cell{{"A", 10 * time.Second, 0}, {"A", 10 * time.Second, 0}, {"B", 10 * time.Second, 0}, {"B", 10 * time.Second, 0}, {}}
	heldB := []cell{{"A", 10 * time.Second, 0}, {"A", 10 * time.Second, 0}, {"B", 10 * time.Second, 0}, {"B", 10 * time.Second, 0}, {"B", 10 * time.Second, 0}}
	tests := []struct {
		name  string
		polls [][]cell
	}{
		{"split on a new lock", [][]cell{nil, split, heldB}},
		{"split twice on a new lock", [][]cell{nil, split, split, heldB}},
		{"partial after another holder", [][]cell{nil, cells("C", 5), cells("B", 2), cells("B", 3)}},
		{"split after another holder", [][]cell{nil, cells("C", 5), split, split, heldB}},
		{"partial after the lock was free", [][]cell{nil, cells("C", 5), nil, cells("B", 2), cells("B", 3)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prev *Snapshot
			for i, cs := range tt.polls {
				now := t0.Add(time.Duration(i) * 100 * time.Millisecond)
				locks := map[string][]cell{}
				if cs != nil {
					locks["r"] = cs
				}
				s := Aggregate(prev, fixture(now, addrs5, locks), nil, now, Config{})
				prev = &s
			}
			if l := lockOf(t, *prev, "r"); l.Holder != "B" {
				t.Fatalf("holder %q, want B", l.Holder)
			}
			if !slices.ContainsFunc(eventsOf(*prev, "r", ""), func(e Event) bool { return strings.Contains(e.Text, vocab.Quote("B")) }) {
				t.Errorf("B holds and no event names it: %+v", prev.Events)
			}
		})
	}
}

// TestAReleaseBetweenAPollsCountersAndItsKeysIsNoOverwrite: a poll reads a master's counters before its keys, so
// a release and another client's SET NX between the two show as the key replaced with TTL left and no DEL
// counted; the next poll's counters count that DEL, and the change is told as a release, not an overwrite. An
// overwrite whose masters count no DEL at the next poll either is told as one.
func TestAReleaseBetweenAPollsCountersAndItsKeysIsNoOverwrite(t *testing.T) {
	for _, tt := range []struct {
		name     string
		laterDel int64 // the DELs the poll after the change counts on each master
		want     EventKind
	}{
		{"a DEL the next poll counts", 1, EventTakenOver},
		{"no DEL at the next poll either", 0, EventOverwritten},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var prev *Snapshot
			var told []Event
			for i, step := range []struct {
				tok  string
				dels int64
			}{{"A", 0}, {"A", 0}, {"B", 0}, {"B", tt.laterDel}} {
				now := t0.Add(time.Duration(i) * 100 * time.Millisecond)
				rs := fixture(now, addrs5, map[string][]cell{"r": cells(step.tok, 5)})
				for j := range rs {
					rs[j].Counters = KeyCounters{Known: true, Deletes: step.dels}
				}
				s := Aggregate(prev, rs, nil, now, Config{})
				prev = &s
				for _, e := range eventsOf(s, "r", "") {
					if e.Kind == EventTakenOver || e.Kind == EventOverwritten {
						told = append(told, e)
					}
				}
			}
			if len(told) != 1 || told[0].Kind != tt.want {
				t.Fatalf("the change of holder from A to B told as %+v, want one %s", told, tt.want)
			}
		})
	}
}
