package record

import (
	"fmt"
	"slices"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// A polled master's reading (--no-tracking, a Redis Cluster, a master that cannot track, a tracked master's
// full read) holds every key it read, at every poll. The recording writes such a whole reading as a delta of
// the last one it wrote for that master: the keys that changed in full, and for the others only where they
// stand in the reading's order. A key is unchanged when it reads the same (KeyReading.SameRead) and expires
// within ttlTolerance of the moment the last one written said. The reader rebuilds the whole reading, each
// unchanged key as last written, read at its run's time, with the TTL left then until that moment.
//
// A reading's keys come in runs read at one time (a round trip's batches, a discovery step), so the times are
// written once a run; the keys unchanged are named by where they were in the last reading (a poll refreshes
// the known keys in the same sorted order) or, out of that order (a key discovery read again), by name.

// ttlTolerance is how far a key's expiry, as a read gives it (ReadAt + PTTL), may move from the one last
// written and the key still be unchanged: the jitter of the round trip and of PTTL's milliseconds. A replayed
// key's TTL is off by at most this much.
const ttlTolerance = 2 * time.Millisecond

// lookAhead is how many keys of the last reading a key unchanged may be found past where the last one stood
// (the keys that left or changed in between are passed over); further on, it is named.
const lookAhead = 64

// polledKeys is how the keys of a reading written as a delta of the last one stand (line.Polled).
type polledKeys struct {
	Reading int      `json:"reading"` // the reading's index in the poll's readings
	Runs    []keyRun `json:"runs"`
}

// keyRun is keys of a reading read at one time, in order.
type keyRun struct {
	ReadAt     time.Time     `json:"at"`
	ReadWithin time.Duration `json:"within,omitempty"`
	Spans      []keySpan     `json:"spans"`
}

// keySpan is keys of a run in order: one of Same (after Skip), Named or New.
type keySpan struct {
	Skip  int      `json:"skip,omitempty"`  // keys of the last reading passed over, before Same
	Same  int      `json:"same,omitempty"`  // the next keys of the last reading, in its order, unchanged
	Named []string `json:"named,omitempty"` // keys unchanged, by name
	New   int      `json:"new,omitempty"`   // the next keys the reading holds: new, or changed
}

// lastKeys is the last reading of one master that was written as a delta, as the reader rebuilt it.
type lastKeys struct {
	names []string           // its keys, in order
	keys  map[string]lastKey // each key as last written in full
}

// lastKey is a key as last written in full, with when it expires then (zero: its PTTL is kept as written:
// absent, without a TTL, or read without a time).
type lastKey struct {
	key     monitor.KeyReading
	expires time.Time
}

// keyOf returns k as a lastKey, keeping its own copies of k's slices.
func keyOf(k monitor.KeyReading) lastKey {
	k.Fields, k.Set = slices.Clone(k.Fields), slices.Clone(k.Set)
	k.ReadAt = k.ReadAt.Round(0) // the wall clock only, as the reader has it
	var expires time.Time
	if expiring(k) {
		expires = k.ReadAt.Add(k.PTTL)
	}
	return lastKey{key: k, expires: expires}
}

// expiring reports whether k's TTL is written as the moment it expires.
func expiring(k monitor.KeyReading) bool {
	return !k.Absent && k.PTTL > 0 && !k.ReadAt.IsZero()
}

// at is the key as a read at readAt (to within within) that found it unchanged gives it.
func (l lastKey) at(readAt time.Time, within time.Duration) monitor.KeyReading {
	k := l.key
	k.ReadAt, k.ReadWithin = readAt, within
	if !l.expires.IsZero() {
		k.PTTL = l.expires.Sub(readAt).Round(time.Millisecond)
	}
	return k
}

// unchanged reports whether k, as read, may be written as l.
func (l lastKey) unchanged(k monitor.KeyReading) bool {
	if !l.key.SameRead(k) {
		return false
	}
	k.ReadAt = k.ReadAt.Round(0)
	if l.expires.IsZero() || !expiring(k) {
		return l.expires.IsZero() && !expiring(k) && l.key.PTTL == k.PTTL
	}
	ttl := l.at(k.ReadAt, k.ReadWithin).PTTL
	return ttl > 0 && (ttl-k.PTTL).Abs() <= ttlTolerance
}

// polledState is what the writer wrote, and the reader read, of each master's polled readings, by address.
type polledState map[string]*lastKeys

// deltaOf reports whether r is written as a delta of the last reading: a whole reading of a master that
// answered (a tracked master's delta is written as it is).
func deltaOf(r monitor.Reading) bool { return r.Err == nil && !r.Delta }

// encode returns the polls's readings to write and how the keys of those written as deltas stand.
func (s polledState) encode(readings []monitor.Reading) ([]monitor.Reading, []polledKeys) {
	var out []monitor.Reading
	var polled []polledKeys
	for i, r := range readings {
		if r.Err != nil {
			delete(s, r.Addr) // the next reading is written whole
		}
		if !deltaOf(r) {
			continue
		}
		if out == nil {
			out = slices.Clone(readings) // the monitor's: not changed
		}
		last := s[r.Addr]
		if last == nil {
			last = &lastKeys{keys: map[string]lastKey{}}
			s[r.Addr] = last
		}
		out[i].Keys = nil
		p := polledKeys{Reading: i}
		cursor := 0
		for _, k := range r.Keys {
			run := p.runFor(k.ReadAt, k.ReadWithin)
			l, known := last.keys[k.Key]
			switch {
			case !known || !l.unchanged(k):
				out[i].Keys = append(out[i].Keys, k)
				last.keys[k.Key] = keyOf(k)
				run.addNew()
			case cursor < len(last.names) && last.names[cursor] == k.Key:
				run.addSame(0)
				cursor++
			default:
				if at := slices.Index(last.names[cursor:min(cursor+lookAhead, len(last.names))], k.Key); at > 0 {
					run.addSame(at)
					cursor += at + 1
				} else {
					run.addNamed(k.Key)
				}
			}
		}
		last.keep(r.Keys)
		polled = append(polled, p)
	}
	if out == nil {
		return readings, nil
	}
	return out, polled
}

// runFor returns the run of keys read at readAt to within within: the last one, or a new one.
func (p *polledKeys) runFor(readAt time.Time, within time.Duration) *keyRun {
	if n := len(p.Runs); n == 0 || !p.Runs[n-1].ReadAt.Equal(readAt) || p.Runs[n-1].ReadWithin != within {
		p.Runs = append(p.Runs, keyRun{ReadAt: readAt, ReadWithin: within})
	}
	return &p.Runs[len(p.Runs)-1]
}

// last returns the run's last span when it is one that f says it may extend, else a new one.
func (r *keyRun) last(f func(s keySpan) bool) *keySpan {
	if n := len(r.Spans); n > 0 && f(r.Spans[n-1]) {
		return &r.Spans[n-1]
	}
	r.Spans = append(r.Spans, keySpan{})
	return &r.Spans[len(r.Spans)-1]
}

// addSame adds the key unchanged skip keys past where the last one stood in the last reading.
func (r *keyRun) addSame(skip int) {
	s := r.last(func(s keySpan) bool { return s.Same > 0 && skip == 0 })
	if s.Same == 0 {
		s.Skip = skip
	}
	s.Same++
}

// addNamed adds a key unchanged by name.
func (r *keyRun) addNamed(key string) {
	s := r.last(func(s keySpan) bool { return s.Named != nil })
	s.Named = append(s.Named, key)
}

// addNew adds the next key written in full.
func (r *keyRun) addNew() {
	s := r.last(func(s keySpan) bool { return s.New > 0 })
	s.New++
}

// keep makes keys the last reading's keys, forgetting the others.
func (l *lastKeys) keep(keys []monitor.KeyReading) {
	l.names = l.names[:0]
	in := make(map[string]bool, len(keys))
	for _, k := range keys {
		l.names = append(l.names, k.Key)
		in[k.Key] = true
	}
	for name := range l.keys {
		if !in[name] {
			delete(l.keys, name)
		}
	}
}

// decode rebuilds in place the whole readings of a poll read from a recording, of which polled say how the
// keys stand.
func (s polledState) decode(readings []monitor.Reading, polled []polledKeys) error {
	next := 0
	for i := range readings {
		r := &readings[i]
		if r.Err != nil {
			delete(s, r.Addr)
		}
		if next == len(polled) || polled[next].Reading != i {
			continue
		}
		if !deltaOf(*r) {
			return fmt.Errorf("the reading of %s is not whole but written as one", r.Addr)
		}
		last := s[r.Addr]
		if last == nil {
			last = &lastKeys{keys: map[string]lastKey{}}
			s[r.Addr] = last
		}
		keys, err := last.rebuild(r.Keys, polled[next].Runs)
		if err != nil {
			return fmt.Errorf("the reading of %s: %w", r.Addr, err)
		}
		r.Keys = keys
		last.keep(keys)
		next++
	}
	if next < len(polled) {
		return fmt.Errorf("keys for reading %d, of %d", polled[next].Reading, len(readings))
	}
	return nil
}

// rebuild returns the keys of a reading as runs say, from the keys written in full (written) and the last
// reading's.
func (l *lastKeys) rebuild(written []monitor.KeyReading, runs []keyRun) ([]monitor.KeyReading, error) {
	var keys []monitor.KeyReading
	cursor := 0
	unchanged := func(name string, run keyRun) error {
		k, ok := l.keys[name]
		if !ok {
			return fmt.Errorf("key %q unchanged is not in the last reading", name)
		}
		keys = append(keys, k.at(run.ReadAt, run.ReadWithin))
		return nil
	}
	for _, run := range runs {
		for _, span := range run.Spans {
			cursor += span.Skip
			if cursor+span.Same > len(l.names) || span.New > len(written) {
				return nil, fmt.Errorf("more keys unchanged or written than there are")
			}
			for _, name := range l.names[cursor : cursor+span.Same] {
				if err := unchanged(name, run); err != nil {
					return nil, err
				}
			}
			cursor += span.Same
			for _, name := range span.Named {
				if err := unchanged(name, run); err != nil {
					return nil, err
				}
			}
			for _, k := range written[:span.New] {
				l.keys[k.Key] = keyOf(k)
				keys = append(keys, k)
			}
			written = written[span.New:]
		}
	}
	if len(written) > 0 {
		return nil, fmt.Errorf("%d keys written beyond those its runs place", len(written))
	}
	return keys, nil
}
