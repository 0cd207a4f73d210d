package reading

import (
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"time"
)

// A tracked master's poll reads only what changed, and returns it as a delta of the last reading the monitor
// took: every key it does not read is as that reading (or those before it) saw it. The tracker keeps of each
// key it read only what it needs to plan (cachedKey): not its value, which the snapshot has. Besides, it keeps
// what makes a plan cost what changed rather than what is known: the known list it last planned for (a poll
// given the same list has no new keys to read), the keys it could not read or keep last time (missing), the
// keys its last read read (read again when the monitor did not take that reading), and the earliest time a
// cached key's TTL, counted from its read, runs out (nextEnd).

// cachedKey is what the tracker keeps of a key read on the tracking connection; the zero cachedKey is a key
// not cached.
type cachedKey struct {
	sum uint64 // a hash of what the read saw (readingSum), never 0
	end int64  // when its TTL, counted from the read, runs out (Unix nanoseconds); 0 absent, or no TTL
}

// sumSeed seeds readingSum: a hash within one run of the program.
var sumSeed = maphash.MakeSeed()

// readingSum hashes what a read of a key saw, but its TTL: whether it is there, its value, a hash lock's fields,
// a set lock's members and scores, and whether it has a TTL.
func readingSum(k *KeyReading) uint64 {
	var h maphash.Hash
	h.SetSeed(sumSeed)
	if k.Absent {
		return h.Sum64()
	}
	h.WriteByte(1)
	if k.PTTL == NoTTL {
		h.WriteByte(2)
	}
	h.WriteString(k.Value)
	if k.Len > 0 { // a change after the bytes read
		h.WriteByte(0)
		h.WriteString(strconv.FormatUint(k.Digest, 16))
		h.WriteString(strconv.Itoa(int(k.Len)))
	}
	for _, f := range k.Fields {
		h.WriteByte(0)
		h.WriteString(f)
	}
	for _, m := range k.Set {
		h.WriteByte(0)
		h.WriteString(m.Member)
		var b [8]byte
		bits := math.Float64bits(m.Score)
		for i := range b {
			b[i] = byte(bits >> (8 * i))
		}
		h.Write(b[:])
	}
	return h.Sum64()
}

// cachedOf is what the tracker keeps of reading k.
func cachedOf(k *KeyReading) cachedKey {
	c := cachedKey{sum: max(readingSum(k), 1)}
	if !k.Absent && k.PTTL != NoTTL {
		c.end = k.ReadAt.Add(k.PTTL).UnixNano()
	}
	return c
}

// sameSlice reports whether a and b are the same slice: the monitor hands a poller the same known list as long
// as its keys do not change, and a quiet snapshot shares its locks with the one before.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// planChanges adds to pl the keys to read of a poll that reads what changed: those invalidated (already out of
// the cache), those not read or kept last time, those the last read read when the monitor did not take it,
// those whose TTL, counted from their read on this process's clock, runs out by horizon (the next poll), and,
// when the known list is not the last plan's, the known keys not cached. A key is read as its TTL runs out
// rather than taken as gone: the master's clock may run slower than this one, and its expiry's invalidation
// comes when the server's active expiry finds the key.
func (t *tracker) planChanges(pl *readPlan, known []string, horizon time.Time) {
	pl.read = append(pl.read, t.missing...)
	t.missing = t.missing[:0]
	for k := range pl.before {
		pl.read = append(pl.read, k)
	}
	if t.seq != t.accepted.Load() {
		pl.read = append(pl.read, t.lastRead...)
	}
	pl.read = t.expired(pl.read, horizon.UnixNano())
	if !sameSlice(known, t.knownOf) {
		t.follow(known)
		for i, k := range known {
			if t.slots[i].sum == 0 {
				pl.read = append(pl.read, k)
			}
		}
	}
	pl.read = dedupe(pl.read)
}

// expired appends to read the cached keys whose TTL, counted from their read, runs out by horizon (Unix
// nanoseconds), and takes them out of the cache. It looks through the cache only once the earliest such end
// is reached, and notes the next one: a pass over an array of 100,000 keys takes a fraction of a millisecond,
// and a heap of them would take as much memory as the cache.
func (t *tracker) expired(read []string, horizon int64) []string {
	if t.nextEnd == 0 || t.nextEnd > horizon {
		return read
	}
	t.nextEnd = 0
	for i := range t.slots {
		switch c := &t.slots[i]; {
		case c.sum == 0 || c.end == 0:
		case c.end <= horizon:
			*c = cachedKey{}
			read = append(read, t.knownOf[i])
		default:
			t.nextEnd = earliest(t.nextEnd, c.end)
		}
	}
	return read
}

// earliest returns the earlier of two ends, 0 standing for none.
func earliest(a, b int64) int64 {
	if a == 0 {
		return b
	}
	return min(a, b)
}

// indexOf returns where key is in the known list of the last plan, which the cache is aligned with; -1 when it
// is not there.
func (t *tracker) indexOf(key string) int {
	i, ok := slices.BinarySearch(t.knownOf, key)
	if !ok {
		return -1
	}
	return i
}

// holds reports whether the cache holds key: the master tells when it changes. known, where the key is looked
// up when the cache is aligned with it, is the poll's known list.
func (t *tracker) holds(key string, known *KnownList) bool {
	if sameSlice(known.List(), t.knownOf) {
		i, ok := known.at(key)
		return ok && t.slots[i].sum != 0
	}
	i := t.indexOf(key)
	return i >= 0 && t.slots[i].sum != 0
}

// follow aligns the cache with a new known list (sorted): a key in both keeps what was cached of it, a new one
// has nothing cached. The cache is an array beside the known list, rather than a map of its own: 16 bytes a
// key instead of about 60, and the keys' strings are the list's.
func (t *tracker) follow(known []string) {
	slots := make([]cachedKey, len(known))
	old := 0
	for i, k := range known {
		for old < len(t.knownOf) && t.knownOf[old] < k {
			old++
		}
		if old < len(t.knownOf) && t.knownOf[old] == k {
			slots[i] = t.slots[old]
		}
	}
	t.knownOf, t.slots = known, slots
}

// dedupe returns keys without repeats, in the order of their first appearance.
func dedupe(keys []string) []string {
	if len(keys) < 2 {
		return keys
	}
	seen := make(map[string]bool, len(keys))
	out := keys[:0]
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// remember keeps what the tracker needs of the readings made on the tracking connection, until the master
// says they changed. A read that waited more than half an interval (a master answering out of a pause) is not
// current: its key is read again next time. A key no longer known is not kept.
func (t *tracker) remember(keys []KeyReading, interval time.Duration) {
	for i := range keys {
		k := &keys[i]
		at := t.indexOf(k.Key)
		if k.ReadWithin > interval/2 {
			if at >= 0 {
				t.slots[at] = cachedKey{}
			}
			t.missing = append(t.missing, k.Key)
			continue
		}
		if at < 0 {
			continue
		}
		c := cachedOf(k)
		t.slots[at] = c
		if c.end != 0 {
			t.nextEnd = earliest(t.nextEnd, c.end)
		}
	}
}

// forget empties the cache: every key is read again.
func (t *tracker) forget() {
	t.nextEnd = 0
	t.missing = t.missing[:0]
	t.lastRead = t.lastRead[:0]
	t.knownOf, t.slots = nil, nil
}
