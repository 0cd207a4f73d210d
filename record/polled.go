package record

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/millis"
)

// A polled master's reading (--no-tracking, a Redis Cluster, a master that cannot track, a tracked master's
// full read) holds every key it read, at every poll. The recording writes such a whole reading as a delta of
// the last one it wrote for that master: the keys that changed in full, and for the others only where they
// stand in the reading's order. A key is unchanged when it reads the same (KeyReading.SameRead) and expires
// near enough to the moment last written for it (unchanged). The reader rebuilds the whole reading, each
// unchanged key as last written, read at its run's time, with the TTL left then until that moment.
//
// A reading's keys come in runs read at one time (a round trip's batches, a discovery step), so the times are
// written once a run. A poll refreshes the known keys in the same sorted order, so a key is first looked for
// where it stood in the last reading. Discovery then reads known keys again as its sweep passes them, in the
// master's SCAN order, which holds from sweep to sweep: the keys read out of the last reading's order are kept
// in the order they came, each moved to the end when it comes again, so that the front of that list is where
// the sweep goes next, and a key is told by how far it stands from the last one told there. A read in order
// and one out of it time a key apart (a refresh's batch and a discovery step), so each compares with the last
// of its kind.

// ttlTolerance is how far a key's expiry, as a read gives it (ReadAt + PTTL), may move from the one last
// written and the key still be unchanged, besides how far off the times of the two reads may be (ReadWithin,
// half their round trip: a batch of keys is read over a round trip, each at a moment within it): the jitter
// of PTTL's milliseconds and of the clock. A key unchanged expires at one moment, which the read last written
// gives to within its ReadWithin; so a replayed key's TTL is as near the truth as that read's, and off from the
// live one by at most ttlTolerance and the two reads' ReadWithin.
const ttlTolerance = 2 * time.Millisecond

// lookAhead is how many keys past where the last one stood a key is looked for in the last reading's order
// (the keys that left or changed in between are passed over); further on, it is read out of that order.
const lookAhead = 64

// polledKeys is how the keys of a reading written as a delta of the last one stand (line.Polled).
type polledKeys struct {
	Reading int      `json:"reading"` // the reading's index in the poll's readings
	Runs    []keyRun `json:"runs"`    // its keys, in runs read at one time
}

// keyRun is keys of a reading read at one time, in order.
type keyRun struct {
	ReadAt     time.Time     // when its keys were read (their ReadAt)
	ReadWithin time.Duration // how far that may be off (their ReadWithin)
	Spans      []keySpan     // its keys, in order
}

// keyRunJSON is a keyRun as a recording holds it: its ReadWithin in milliseconds (format version 3), and the
// nanoseconds of version 2 still read.
type keyRunJSON struct {
	ReadAt       time.Time       `json:"at"`                  // when its keys were read (their ReadAt)
	ReadWithinMS millis.Duration `json:"within_ms,omitempty"` // how far that may be off (their ReadWithin), in milliseconds
	ReadWithin   time.Duration   `json:"within,omitempty"`    // versions 1 and 2: how far off, in nanoseconds
	Spans        []keySpan       `json:"spans"`               // its keys, in order
}

// MarshalJSON writes the run for a recording.
func (r keyRun) MarshalJSON() ([]byte, error) {
	return json.Marshal(keyRunJSON{ReadAt: r.ReadAt, ReadWithinMS: millis.Duration(r.ReadWithin), Spans: r.Spans})
}

// UnmarshalJSON reads a run a recording holds, in any format version.
func (r *keyRun) UnmarshalJSON(data []byte) error {
	var rec keyRunJSON
	if err := json.Unmarshal(data, &rec); err != nil {
		return err
	}
	*r = keyRun{ReadAt: rec.ReadAt, ReadWithin: cmp.Or(rec.ReadWithin, time.Duration(rec.ReadWithinMS)), Spans: rec.Spans}
	return nil
}

// keySpan is keys of a run in order: Same or Changed keys of the last reading's order (after Skip of its
// keys), Scanned keys of the scan order (from ScanSkip keys past the last one there, backwards when negative),
// or New ones. Changed and New keys are the next ones the reading holds, written in full.
type keySpan struct {
	Skip     int `json:"skip,omitempty"`
	Same     int `json:"same,omitempty"`
	Changed  int `json:"changed,omitempty"`
	ScanSkip int `json:"scan_skip,omitempty"`
	Scanned  int `json:"scanned,omitempty"`
	New      int `json:"new,omitempty"`
}

// lastKeys is the last reading of one master that was written as a delta, as the reader rebuilt it.
type lastKeys struct {
	names      []string           // its keys, in order
	scan       []string           // the keys read out of the order of the reading before, in the order they came
	inOrder    map[string]lastKey // the keys as last written where they stood in the reading before
	outOfOrder map[string]lastKey // the keys as last written out of that order: all in scan

	decoded int       // the readings decoded into it: a clone of it with as many is the same (Player)
	origin  *lastKeys // a clone's: the state it was cloned from
}

// newLastKeys returns the state of a master of which nothing was written.
func newLastKeys() *lastKeys {
	return &lastKeys{inOrder: map[string]lastKey{}, outOfOrder: map[string]lastKey{}}
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

// unchanged reports whether k, as read, may be replayed as l: it reads the same, and the TTL l gives it then is
// within ttlTolerance of what was read, besides how far off the times of both reads may be.
func (l lastKey) unchanged(k monitor.KeyReading) bool {
	if !l.key.SameRead(k) {
		return false
	}
	k.ReadAt = k.ReadAt.Round(0)
	if l.expires.IsZero() || !expiring(k) {
		return l.expires.IsZero() && !expiring(k) && l.key.PTTL == k.PTTL
	}
	ttl := l.at(k.ReadAt, k.ReadWithin).PTTL
	return ttl > 0 && (ttl-k.PTTL).Abs() <= ttlTolerance+k.ReadWithin+l.key.ReadWithin
}

// inOrderKey is the key named name as last written where it stood in the last reading's order, or else as
// last written out of it.
func (l *lastKeys) inOrderKey(name string) (lastKey, bool) {
	if k, ok := l.inOrder[name]; ok {
		return k, true
	}
	k, ok := l.outOfOrder[name]
	return k, ok
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
			last = newLastKeys()
			s[r.Addr] = last
		}
		var written []monitor.KeyReading
		polled = append(polled, polledKeys{Reading: i, Runs: last.encode(r.Keys, &written)})
		out[i].Keys = written
	}
	if out == nil {
		return readings, nil
	}
	return out, polled
}

// encode returns the runs of keys, appending to written those written in full, and makes keys the last.
func (l *lastKeys) encode(keys []monitor.KeyReading, written *[]monitor.KeyReading) []keyRun {
	var p polledKeys
	var inOrder, inScan int // where the last key found stands in l.names and l.scan
	var moved []string
	scanAt := make(map[string]int, len(l.scan))
	for i, name := range l.scan {
		scanAt[name] = i
	}
	for _, k := range keys {
		run := p.runFor(k.ReadAt, k.ReadWithin)
		if skip, ok := find(l.names, inOrder, k.Key); ok {
			inOrder += skip + 1
			if last, ok := l.inOrderKey(k.Key); ok && last.unchanged(k) {
				run.add(sameKeys, skip)
				continue
			}
			*written = append(*written, k)
			l.inOrder[k.Key] = keyOf(k)
			run.add(changedKeys, skip)
			continue
		}
		moved = append(moved, k.Key)
		last, ok := l.outOfOrder[k.Key]
		at, scanned := scanAt[k.Key]
		if !ok || !scanned || !last.unchanged(k) {
			*written = append(*written, k)
			l.outOfOrder[k.Key] = keyOf(k)
			run.add(newKeys, 0)
			continue
		}
		run.add(scannedKeys, at-inScan)
		inScan = at + 1
	}
	l.keep(keys, moved)
	return p.Runs
}

// find reports whether key is among the lookAhead keys of list from at on, and how many it passes over to it.
func find(list []string, at int, key string) (int, bool) {
	skip := slices.Index(list[min(at, len(list)):min(at+lookAhead, len(list))], key)
	return skip, skip >= 0
}

// runFor returns the run of keys read at readAt to within within: the last one, or a new one.
func (p *polledKeys) runFor(readAt time.Time, within time.Duration) *keyRun {
	if n := len(p.Runs); n == 0 || !p.Runs[n-1].ReadAt.Equal(readAt) || p.Runs[n-1].ReadWithin != within {
		p.Runs = append(p.Runs, keyRun{ReadAt: readAt, ReadWithin: within})
	}
	return &p.Runs[len(p.Runs)-1]
}

// last returns the run's last span when f says it may extend it, else a new one.
func (r *keyRun) last(f func(s keySpan) bool) *keySpan {
	if n := len(r.Spans); n > 0 && f(r.Spans[n-1]) {
		return &r.Spans[n-1]
	}
	r.Spans = append(r.Spans, keySpan{})
	return &r.Spans[len(r.Spans)-1]
}

// spanKind is what a span counts: same, changed, scanned or new keys.
type spanKind int

const (
	sameKeys spanKind = iota
	changedKeys
	scannedKeys
	newKeys
)

// count is the count of keys of kind in s.
func (s *keySpan) count(kind spanKind) *int {
	return [...]*int{sameKeys: &s.Same, changedKeys: &s.Changed, scannedKeys: &s.Scanned, newKeys: &s.New}[kind]
}

// add adds a key of kind to the run's last span, when it counts such keys already and the key follows the
// last (skip 0), else to a new span passing over skip keys of its order.
func (r *keyRun) add(kind spanKind, skip int) {
	s := r.last(func(s keySpan) bool { return skip == 0 && *s.count(kind) > 0 })
	switch {
	case *s.count(kind) > 0:
	case kind == scannedKeys: // the keys read out of order are not sure to follow it: it may go back
		s.ScanSkip = skip
	default:
		s.Skip = skip
	}
	*s.count(kind)++
}

// keep makes keys the last reading's keys, forgetting the others, and moves the keys read out of the order
// of the reading before (moved) to the end of the scan order.
func (l *lastKeys) keep(keys []monitor.KeyReading, moved []string) {
	l.names = l.names[:0]
	in := make(map[string]bool, len(keys))
	for _, k := range keys {
		l.names = append(l.names, k.Key)
		in[k.Key] = true
	}
	for _, m := range []map[string]lastKey{l.inOrder, l.outOfOrder} {
		for name := range m {
			if !in[name] {
				delete(m, name)
			}
		}
	}
	lastAt := make(map[string]int, len(moved)) // where each key moved comes last
	for i, name := range moved {
		lastAt[name] = i
	}
	scan := l.scan[:0]
	for _, name := range l.scan {
		if _, again := lastAt[name]; in[name] && !again {
			scan = append(scan, name)
		}
	}
	for i, name := range moved {
		if lastAt[name] == i {
			scan = append(scan, name)
		}
	}
	l.scan = scan
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
			last = newLastKeys()
			s[r.Addr] = last
		}
		keys, err := last.decode(r.Keys, polled[next].Runs)
		if err != nil {
			return fmt.Errorf("the reading of %s: %w", r.Addr, err)
		}
		r.Keys = keys
		next++
	}
	if next < len(polled) {
		return fmt.Errorf("keys for reading %d, of %d", polled[next].Reading, len(readings))
	}
	return nil
}

// decode returns the keys of a reading as runs say, from the keys written in full (written) and the last
// reading's, and makes them the last. The runs come from a file, which may be anything: each span is checked
// against what the last reading and the keys written can give (span) before it sizes or places anything.
func (l *lastKeys) decode(written []monitor.KeyReading, runs []keyRun) ([]monitor.KeyReading, error) {
	n, err := l.places(len(written), runs)
	if err != nil {
		return nil, err
	}
	l.decoded++
	keys := make([]monitor.KeyReading, 0, n) // a poll's keys are most of what a recording holds in memory
	var moved []string
	var inOrder, inScan int
	take := func(n int) []monitor.KeyReading { // as many as are left, as places checked
		taken := written[:n]
		written = written[n:]
		return taken
	}
	for _, run := range runs {
		for _, span := range run.Spans {
			inOrder += span.Skip // within the last reading's keys, as places checked
			inScan += span.ScanSkip
			for _, name := range l.names[inOrder : inOrder+span.Same] {
				k, ok := l.inOrderKey(name)
				if !ok {
					return nil, fmt.Errorf("key %q unchanged is not in the last reading", name)
				}
				keys = append(keys, k.at(run.ReadAt, run.ReadWithin))
			}
			changed := take(span.Changed)
			for i, k := range changed {
				if k.Key != l.names[inOrder+span.Same+i] {
					return nil, fmt.Errorf("key %q changed is not where the last reading had it", k.Key)
				}
				l.inOrder[k.Key] = keyOf(k)
			}
			keys = append(keys, changed...)
			inOrder += span.Same + span.Changed
			for _, name := range l.scan[inScan : inScan+span.Scanned] {
				k, ok := l.outOfOrder[name]
				if !ok {
					return nil, fmt.Errorf("key %q unchanged is not in the last reading", name)
				}
				keys = append(keys, k.at(run.ReadAt, run.ReadWithin))
				moved = append(moved, name)
			}
			inScan += span.Scanned
			added := take(span.New)
			for _, k := range added {
				l.outOfOrder[k.Key] = keyOf(k)
				moved = append(moved, k.Key)
			}
			keys = append(keys, added...)
		}
	}
	l.keep(keys, moved)
	return keys, nil
}

// places checks runs against the last reading and the count of keys written in full (written), and returns
// how many keys they place. No count is negative; no span reaches past the last reading's keys, in its order
// or in the scan order, nor takes more keys written than are left; and the keys placed from the scan order,
// which may go back, are at most twice as many as it holds (a poll's discovery passes a key at most once
// in its sweep, besides the key's own refresh). So the sum cannot overflow, and is at most twice the last
// reading's keys and the keys written: what a line can ask of memory is bounded by what was read before it.
func (l *lastKeys) places(written int, runs []keyRun) (int, error) {
	var n, inOrder, inScan, scanned int
	left := written
	for i, run := range runs {
		for j, s := range run.Spans {
			where := fmt.Sprintf("run %d, span %d", i+1, j+1)
			if s.Skip < 0 || s.Same < 0 || s.Changed < 0 || s.Scanned < 0 || s.New < 0 {
				return 0, fmt.Errorf("%s: a negative count of keys", where)
			}
			if s.Skip > len(l.names)-inOrder || s.Same > len(l.names)-inOrder-s.Skip ||
				s.Changed > len(l.names)-inOrder-s.Skip-s.Same {
				return 0, fmt.Errorf("%s: more keys in the last reading's order than the %d it had", where, len(l.names))
			}
			inOrder += s.Skip + s.Same + s.Changed
			if s.ScanSkip < -inScan || s.ScanSkip > len(l.scan)-inScan || s.Scanned > len(l.scan)-inScan-s.ScanSkip {
				return 0, fmt.Errorf("%s: more keys in the scan order than the %d it had", where, len(l.scan))
			}
			inScan += s.ScanSkip + s.Scanned
			if scanned += s.Scanned; scanned > 2*len(l.scan) {
				return 0, fmt.Errorf("%s: the scan order's keys placed more than twice over", where)
			}
			if s.Changed > left || s.New > left-s.Changed {
				return 0, fmt.Errorf("%s: more keys written in full than the %d the line holds", where, written)
			}
			left -= s.Changed + s.New
			n += s.Same + s.Changed + s.Scanned + s.New
		}
	}
	if left > 0 {
		return 0, fmt.Errorf("%d keys written beyond those its runs place", left)
	}
	return n, nil
}
