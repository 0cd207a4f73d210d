package monitor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// evictingMasters starts n real masters that evict keys with a TTL first when their 4mb are full, with a
// monitor on them.
func evictingMasters(t *testing.T, n int) (*cluster, []*redlocktest.Server) {
	t.Helper()
	return realMastersWith(t, n, redlocktest.ServerOptions{Args: []string{"--maxmemory", "4mb", "--maxmemory-policy", "volatile-lru"}},
		"maxmemory, INFO stats")
}

// fillUntilGone writes cache keys without a TTL on master i until key is evicted from it: under volatile-lru
// keys with a TTL go first.
func (c *cluster) fillUntilGone(t *testing.T, i int, key string) {
	t.Helper()
	ctx := context.Background()
	value := strings.Repeat("c", 4096)
	for n := 0; n < 100000; n += 100 {
		pipe := c.admin[i].Pipeline()
		for k := n; k < n+100; k++ {
			pipe.Set(ctx, fmt.Sprintf("cache:%d", k), value, 0)
		}
		_, _ = pipe.Exec(ctx) // once nothing with a TTL is left, writes are refused (OOM): the key is gone by then
		if c.admin[i].Exists(ctx, key).Val() == 0 {
			return
		}
	}
	t.Fatalf("%s still on master %d after 100,000 cache keys", key, i)
}

// eventsOf returns the events of s about resource (or, with resource "", about master), in order.
func eventsOf(s Snapshot, resource, master string) []Event {
	var out []Event
	for _, e := range s.Events {
		if e.Resource == resource && (master == "" || e.Master == master) {
			out = append(out, e)
		}
	}
	return out
}

// endOfLast returns how the last closed interval of resource's hold log ended.
func endOfLast(t *testing.T, s Snapshot, resource string) EndKind {
	t.Helper()
	i := slices.IndexFunc(s.holdLogs, func(h *HoldLog) bool { return h.Resource == resource })
	if i < 0 {
		t.Fatalf("no hold log of %s", resource)
	}
	ivs := s.holdLogs[i].Intervals(time.Time{})
	if len(ivs) == 0 || ivs[len(ivs)-1].Ended == EndOpen {
		t.Fatalf("no closed interval of %s: %+v", resource, ivs)
	}
	return ivs[len(ivs)-1].Ended
}

// TestEvictedLockIsNotReleased watches three real masters whose maxmemory-policy evicts keys with a TTL (every
// lock) first: each is warned about, with its policy and the fix; a lock deleted from them is released; one
// evicted from all three is evicted, an error, and so its holder's tenure ends; and one evicted master after
// master loses its quorum, then is evicted.
func TestEvictedLockIsNotReleased(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("from every master at once", func(t *testing.T) {
		c, servers := evictingMasters(t, 3)
		const released, evicted = "orders:released", "orders:evicted"
		c.set(t, released, "token-released-0123456789", time.Minute, 0, 1, 2)
		c.set(t, evicted, "token-evicted-0123456789", time.Minute, 0, 1, 2)
		s := pollUntil(t, c.mon, 20*time.Second, "both locks held on 3 masters, swept", func(s Snapshot) bool {
			l, e := s.Lock(released), s.Lock(evicted)
			return s.Swept && l != nil && l.Count == 3 && e != nil && e.Count == 3
		})
		for _, srv := range servers {
			if !slices.ContainsFunc(s.Warnings, func(w Warning) bool {
				return w.Kind == WarnEvictionPolicy && w.Master == srv.Addr() && strings.Contains(w.Text, "maxmemory-policy volatile-lru") &&
					strings.Contains(w.Text, "set maxmemory-policy noeviction")
			}) {
				t.Errorf("no warning names %s, its policy and the fix: %v", srv.Addr(), s.Warnings)
			}
		}
		for _, a := range c.admin {
			if err := a.Del(ctx, released).Err(); err != nil {
				t.Fatal(err)
			}
		}
		s = pollUntil(t, c.mon, 20*time.Second, released+" gone", func(s Snapshot) bool { return noKey(s, released) })
		if es := eventsOf(s, released, ""); len(es) != 1 || es[0].Kind != EventLockReleased {
			t.Fatalf("a lock deleted from masters that evicted nothing: events %+v, want one %s", es, EventLockReleased)
		}
		for i := range c.admin {
			c.fillUntilGone(t, i, evicted)
		}
		s = pollUntil(t, c.mon, 20*time.Second, evicted+" gone", func(s Snapshot) bool { return noKey(s, evicted) })
		es := eventsOf(s, evicted, "")
		if len(es) != 1 || es[0].Kind != EventLockEvicted || es[0].Kind.Severity() != SeverityError ||
			!strings.Contains(es[0].Text, "before its TTL") || !strings.Contains(es[0].Text, "volatile-lru") {
			t.Fatalf("a lock evicted from every master: events %+v, want one %s, an error, saying when and which policy", es, EventLockEvicted)
		}
		if end := endOfLast(t, s, evicted); end != EndEvicted {
			t.Errorf("the evicted lock's holder ended %s, want %s", end, EndEvicted)
		}
	})
	t.Run("master after master", func(t *testing.T) {
		c, servers := evictingMasters(t, 3)
		const key = "orders:one-by-one"
		c.set(t, key, "token-one-by-one-0123456789", time.Minute, 0, 1, 2)
		pollUntil(t, c.mon, 20*time.Second, "the lock held on 3 masters, swept", func(s Snapshot) bool {
			l := s.Lock(key)
			return s.Swept && l != nil && l.Count == 3
		})
		c.fillUntilGone(t, 0, key)
		pollUntil(t, c.mon, 20*time.Second, key+" held on 2", func(s Snapshot) bool {
			l := s.Lock(key)
			return l != nil && l.State == StateHeld && l.Count == 2
		})
		c.fillUntilGone(t, 1, key)
		pollUntil(t, c.mon, 20*time.Second, key+" without its quorum", func(s Snapshot) bool {
			l := s.Lock(key)
			return l != nil && l.QuorumLost
		})
		c.fillUntilGone(t, 2, key)
		s := pollUntil(t, c.mon, 20*time.Second, key+" gone", func(s Snapshot) bool { return noKey(s, key) })
		// Each eviction is told when it happens, naming the master that evicted and what the holder has left;
		// the quorum it lost with the second is told by that eviction, not again.
		es := eventsOf(s, key, "")
		var kinds []EventKind
		for _, e := range es {
			kinds = append(kinds, e.Kind)
		}
		if !slices.Equal(kinds, []EventKind{EventLockEvicted, EventLockEvicted, EventLockEvicted}) {
			t.Fatalf("a lock evicted master after master: events %v (%+v), want %s three times", kinds, es, EventLockEvicted)
		}
		for i, want := range []string{"keeps its key on 2 of 3 masters", "lost its quorum", "before its TTL"} {
			if !strings.Contains(es[i].Text, "evicted from "+servers[i].Addr()) || !strings.Contains(es[i].Text, want) {
				t.Errorf("eviction %d: %q, want it to name %s and say %q", i, es[i].Text, servers[i].Addr(), want)
			}
		}
	})
}

// TestFlushIsTold watches three real masters, a lock on all three and other keys: a FLUSHALL on one is an
// event on that master (a warning; the lock still held on two), and a FLUSHDB of the other two, which takes
// the lock from under its holder, is the lock's event flushed, an error, not a release.
func TestFlushIsTold(t *testing.T) {
	t.Parallel()
	servers := realServers(t, 3)
	masters := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		masters[i] = s
	}
	c := watch(t, masters, Config{})
	t.Cleanup(func() { _ = c.mon.Close() })
	const key = "orders:flushed"
	c.set(t, key, "token-flushed-0123456789", time.Minute, 0, 1, 2)
	for i := range 20 {
		c.set(t, fmt.Sprintf("data:%d", i), "some data", 0, 0, 1, 2)
	}
	pollUntil(t, c.mon, 20*time.Second, "the lock held on 3 masters, swept", func(s Snapshot) bool {
		l := s.Lock(key)
		return s.Swept && l != nil && l.State == StateHeld && l.Count == 3
	})
	ctx := context.Background()
	if err := c.admin[1].FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	s := pollUntil(t, c.mon, 20*time.Second, "master 1 flushed", func(s Snapshot) bool {
		return len(eventsOf(s, "", servers[1].Addr())) > 0
	})
	es := eventsOf(s, "", servers[1].Addr())
	if len(es) != 1 || es[0].Kind != EventMasterFlushed || es[0].Kind.Severity() != SeverityWarning || !strings.Contains(es[0].Text, "21 keys to 0") {
		t.Fatalf("a FLUSHALL on master 1: events %+v, want one %s, a warning, saying its keys went from 21 to 0", es, EventMasterFlushed)
	}
	if l := s.Lock(key); l == nil || l.State != StateHeld || l.Count != 2 || len(eventsOf(s, key, "")) != 0 {
		t.Fatalf("the lock after a flush of one master: %+v, events %+v; want held on 2, no event", l, eventsOf(s, key, ""))
	}
	for _, i := range []int{0, 2} {
		if err := c.admin[i].FlushDB(ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
	s = pollUntil(t, c.mon, 20*time.Second, key+" gone", func(s Snapshot) bool { return noKey(s, key) })
	es = eventsOf(s, key, "")
	if len(es) != 1 || es[0].Kind != EventLockFlushed || es[0].Kind.Severity() != SeverityError || !strings.Contains(es[0].Text, "before its TTL") {
		t.Fatalf("a lock flushed from its last masters: events %+v, want one %s, an error", es, EventLockFlushed)
	}
	if end := endOfLast(t, s, key); end != EndFlushed {
		t.Errorf("the flushed lock's holder ended %s, want %s", end, EndFlushed)
	}
}

// TestHowALockWentFromTheCounters moves three masters' counters between two polls, in which a lock held on all
// three goes from all of them before its TTL, and requires the event the counters tell of.
func TestHowALockWentFromTheCounters(t *testing.T) {
	t.Parallel()
	addrs := []string{"m0", "m1", "m2"}
	base := KeyCounters{Known: true, Evicted: 10, Expired: 5, Flushes: 1, Deletes: 100}
	evicted := func(c KeyCounters) KeyCounters { c.Evicted += 3; return c }
	deleted := func(c KeyCounters) KeyCounters { c.Deletes++; return c }
	flushed := func(c KeyCounters) KeyCounters { c.Flushes++; return c }
	same := func(c KeyCounters) KeyCounters { return c }
	unknown := func(KeyCounters) KeyCounters { return KeyCounters{} }
	reset := func(KeyCounters) KeyCounters { return KeyCounters{Known: true} }
	all := func(f func(KeyCounters) KeyCounters) [3]func(KeyCounters) KeyCounters {
		return [3]func(KeyCounters) KeyCounters{f, f, f}
	}
	tests := []struct {
		name   string
		moves  [3]func(KeyCounters) KeyCounters
		want   EventKind
		inText string
	}{
		{"deleted everywhere", all(deleted), EventLockReleased, "released"},
		{"nothing counted", all(same), EventLockReleased, "released"},
		{"evicted everywhere", all(evicted), EventLockEvicted, "evicted from m0, m1, m2 (maxmemory-policy allkeys-lru)"},
		{"evicted, and a DEL ran there too", [3]func(KeyCounters) KeyCounters{evicted, func(c KeyCounters) KeyCounters { return deleted(evicted(c)) }, evicted},
			EventLockEvicted, "a DEL ran there too"},
		{"evicted on two, deleted on one", [3]func(KeyCounters) KeyCounters{evicted, evicted, deleted}, EventLockReleased, "released"},
		{"flushed everywhere", all(flushed), EventLockFlushed, "flushed from m0, m1, m2"},
		{"evicted on one, flushed on two", [3]func(KeyCounters) KeyCounters{evicted, flushed, flushed}, EventLockEvicted, "flushed from m1, m2"},
		{"counters not read", all(unknown), EventLockReleased, "released"},
		{"counters gone back (a restart)", all(reset), EventLockReleased, "released"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := fixture(t0, addrs, map[string][]cell{"lock": {at9("tok-a"), at9("tok-a"), at9("tok-a")}, "data": {at9("x"), at9("x"), at9("x")}})
			for i := range first {
				first[i].Counters, first[i].EvictionPolicy, first[i].MaxMemory = base, "allkeys-lru", 1<<20
				first[i].Sweep.Total = 2
			}
			prev := Aggregate(nil, first, nil, t0, Config{})
			now := t0.Add(time.Second)
			second := fixture(now, addrs, map[string][]cell{"lock": {{}, {}, {}}, "data": {at9("x"), at9("x"), at9("x")}})
			for i := range second {
				second[i].Counters, second[i].EvictionPolicy, second[i].MaxMemory = tt.moves[i](base), "allkeys-lru", 1<<20
				second[i].Sweep.Total = 1
			}
			s := Aggregate(&prev, second, nil, now, Config{})
			es := eventsOf(s, "lock", "")
			if len(es) != 1 || es[0].Kind != tt.want || !strings.Contains(es[0].Text, tt.inText) || !strings.Contains(es[0].Text, "before its TTL") {
				t.Fatalf("events %+v, want one %s saying %q", es, tt.want, tt.inText)
			}
		})
	}
}

// TestEvictionPolicyWarning requires a warning, naming the policy and the fix, for each policy that may evict
// a lock, and none for noeviction or an unknown one.
func TestEvictionPolicyWarning(t *testing.T) {
	tests := []struct {
		policy  string
		max     int64
		evicted int64
		warned  bool
		inText  string
	}{
		{"noeviction", 1 << 20, 0, false, ""},
		{"", 0, -1, false, ""},
		{"allkeys-lru", 1 << 20, 0, true, "maxmemory-policy allkeys-lru evicts any key, locks too,"},
		{"allkeys-random", 1 << 20, 12, true, "it has evicted 12 keys since it started"},
		{"volatile-ttl", 1 << 20, 0, true, "keys with a TTL, such as every lock, first"},
		{"volatile-lfu", 0, 0, true, "no maxmemory is set, so nothing is evicted until one is"},
	}
	for _, tt := range tests {
		m := MasterStatus{Addr: "m0", EvictionPolicy: tt.policy, MaxMemory: tt.max, EvictedKeys: tt.evicted}
		w, ok := evictionWarning(&m)
		if ok != tt.warned || ok && (w.Master != "m0" || !strings.Contains(w.Text, tt.inText) || !strings.Contains(w.Text, "set maxmemory-policy noeviction")) {
			t.Errorf("policy %q: warned %v %q, want warned %v saying %q and the fix", tt.policy, ok, w.Text, tt.warned, tt.inText)
		}
	}
}
