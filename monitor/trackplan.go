package monitor

import (
	"container/heap"
	"time"
)

// A tracked master's poll reads only what changed. The tracker keeps, besides its cache, what makes a poll's
// plan cost what changed rather than what is known: the known list it last planned for (a poll given the same
// list has no new keys to read), the keys it could not read or remember last time (missing), and the cached
// keys by when their TTL, counted from their read, runs out (expiries).

// expiry is when a cached key's TTL, counted from its read, runs out.
type expiry struct {
	at  time.Time
	key string
}

// expiryHeap orders expiries, the earliest first (container/heap).
type expiryHeap []expiry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// endOfTTL is when a reading's TTL, counted from its read, runs out; zero for a key absent or without a TTL.
func endOfTTL(k *KeyReading) time.Time {
	if k.Absent || k.PTTL == NoTTL {
		return time.Time{}
	}
	return k.ReadAt.Add(k.PTTL)
}

// sameList reports whether a and b are the same slice: the monitor hands a poller the same known list as long
// as its keys do not change.
func sameList(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// planChanges adds to pl, for a poll given the known list of the last plan, the keys to read: those
// invalidated (already out of the cache), those not read or remembered last time, and those whose TTL
// has run out by now.
func (t *tracker) planChanges(pl *readPlan, now time.Time) {
	pl.read = append(pl.read, t.missing...)
	t.missing = t.missing[:0]
	for k := range pl.before { // keys invalidated but never cached were not known: discovery finds those that are locks
		pl.read = append(pl.read, k)
	}
	for t.expiries.Len() > 0 && !t.expiries[0].at.After(now) {
		e := heap.Pop(&t.expiries).(expiry)
		if c, ok := t.cache[e.key]; ok && endOfTTL(c).Equal(e.at) {
			delete(t.cache, e.key)
			pl.read = append(pl.read, e.key)
		}
	}
}

// planAll adds to pl every known key: those not cached to read, the others as cached readings; it makes
// the list the one later plans compare with.
func (t *tracker) planAll(pl *readPlan, known []string, now time.Time) {
	pl.cached = make([]*KeyReading, 0, len(known))
	for _, k := range known {
		c, ok := t.cache[k]
		if ok && (c.Absent || c.PTTL == NoTTL || c.ReadAt.Add(c.PTTL).After(now)) {
			pl.cached = append(pl.cached, c)
			continue
		}
		delete(t.cache, k)
		pl.read = append(pl.read, k)
	}
	t.missing = t.missing[:0]
	t.knownOf = known
}

// remember keeps the readings made on the tracking connection, to serve until the master says they changed. A
// read that waited more than half an interval (a master answering out of a pause) is not current: its key is
// read again next time.
func (t *tracker) remember(keys []KeyReading, interval time.Duration) {
	if t.cache == nil {
		t.cache = make(map[string]*KeyReading, len(keys))
	}
	for _, k := range keys {
		if k.ReadWithin > interval/2 {
			delete(t.cache, k.Key)
			t.missing = append(t.missing, k.Key)
			continue
		}
		t.cache[k.Key] = &k
		if at := endOfTTL(&k); !at.IsZero() {
			heap.Push(&t.expiries, expiry{at, k.Key})
		}
	}
}

// forget empties the cache: every key is read again.
func (t *tracker) forget() {
	clear(t.cache)
	t.expiries = t.expiries[:0]
	t.missing = t.missing[:0]
	t.knownOf = nil
}

// dropCached leaves out of keys[from:] (what discovery read) the keys the cache holds: a delta reading has
// only what changed, and the master tells when a cached key does.
func (t *tracker) dropCached(keys []KeyReading, from int) []KeyReading {
	out := keys[:from]
	for _, k := range keys[from:] {
		if _, ok := t.cache[k.Key]; !ok {
			out = append(out, k)
		}
	}
	return out
}
