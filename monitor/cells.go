package monitor

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
)

// staleRatio is how many times longer than the other reads of its key a read must have waited to be taken as
// not current (see readCells).
const staleRatio = 4

// readCells returns the cells that this poll's readings show, resource by resource (the cell of resource i
// on master j at i*n+j, for n masters; index: where each key read is among the resources), and which of them a
// read decided: those are not to be filled with the values last seen there (carry).
//
// A cell is as old as its read. A read that waited (a master answering late, out of a pause) is known only to
// within half its round trip: one uncertain by more than half an interval, and by more than staleRatio times
// what the other reads of its key were (on a slow machine all of them wait alike, and agree), is not current:
// the cell is unknown, with what that read saw as its last known value. A key whose PTTL, counted from its
// read, has run out by now is gone.
func readCells(readings []Reading, index map[string]int, resources int, now time.Time, interval time.Duration) ([]MasterLock, []bool) {
	n := len(readings)
	usual := usualUncertainty(readings, index, resources)
	cells := make([]MasterLock, resources*n)
	read := make([]bool, len(cells))
	for j, r := range readings {
		if r.Err != nil {
			continue
		}
		for _, k := range r.Keys {
			if k.LengthUnread() {
				continue // a long value whose length and digest were not read: unknown
			}
			at := index[k.Key]
			stale := k.ReadWithin > interval/2 && k.ReadWithin > staleRatio*usual[at]
			if readCell(&cells[at*n+j], k, stale, now) {
				read[at*n+j] = true
			}
		}
	}
	return cells, read
}

// usualUncertainty returns, per resource, the median of how far off the time of each master's read of its key
// may be (KeyReading.ReadWithin), over the masters that read it; 0 for a resource no master read. index is
// where each key read is among the resources.
func usualUncertainty(readings []Reading, index map[string]int, resources int) []time.Duration {
	n := len(readings)
	within := make([]time.Duration, resources*n)
	for i := range within {
		within[i] = -1 // not read
	}
	for j, r := range readings {
		if r.Err != nil {
			continue
		}
		for _, k := range r.Keys {
			i := index[k.Key]*n + j
			within[i] = max(within[i], k.ReadWithin)
		}
	}
	usual := make([]time.Duration, resources)
	for _, i := range index { // only the keys read: a delta reads few
		usual[i] = medianDuration(within[i*n : (i+1)*n])
	}
	return usual
}

// readCell sets cell c from one read k of its key (stale: a read that is not current), and reports whether
// the read decided the cell. A stale read of a key makes the cell unknown with the value it saw, unless another
// read of this poll decided it; a stale "no key" decides nothing, and leaves the value last seen there, as a
// master that did not answer would. A read that saw the key wins over one that did not (a later discovery).
func readCell(c *MasterLock, k KeyReading, stale bool, now time.Time) bool {
	readAt := k.ReadAt
	if readAt.IsZero() {
		readAt = now
	}
	expired := !k.Absent && k.PTTL != NoTTL && !readAt.Add(k.PTTL).After(now)
	state := CellSeen
	switch {
	case stale && (k.Absent || c.State != CellUnknown):
		return false
	case stale:
		state = CellUnknown
	case k.Absent || expired:
		if c.Token == "" {
			*c = MasterLock{State: CellAbsent}
		}
		return true
	}
	*c = MasterLock{State: state, Token: k.Token(), PTTL: k.PTTL, ReadAt: readAt}
	if k.Node != "" {
		*c = c.WithNode(k.Node)
	}
	if k.Fields != nil {
		holder, reentrancy, mode := hashHolder(k.Fields)
		c.Token = holder
		*c = c.WithHash(reentrancy, mode)
	}
	if k.Set != nil {
		c.Token = lockshape.SetToken(k.Set)
		*c = c.WithSet(k.Set)
	}
	return true
}

// carry fills the cells of row that were not read (read[j] false) with the values last seen there, from p
// (nil: nothing seen before): unknown, except on a master whose reading is a delta of the last one applied
// (delta[j]), where a key not read has not changed: its cell is as that read saw it (p's cell, seen again if p
// had it unknown; absent without p). Those cells count as read. A key the delta had no time to read (unread, a
// bit per master) is unknown there, and so is one whose TTL, counted from its read on this process's clock, has
// run out: the tracker reads such keys in the poll before their TTL runs out, so it was not read in time, and
// the master's clock may be slower than ours.
func carry(row []MasterLock, read []bool, p *LockView, delta []bool, unread uint64, now time.Time) {
	for j := range row {
		switch {
		case read[j]:
		case delta[j] && (j >= 64 || unread&(1<<j) == 0):
			read[j] = true
			row[j] = MasterLock{State: CellAbsent}
			if c := prevCell(p, j); c.State == CellSeen || c.State == CellUnknown && !c.ReadAt.IsZero() {
				row[j] = p.Masters[j]
				row[j].State = CellSeen
			}
			if c := row[j]; c.State == CellSeen && c.PTTL != NoTTL && !c.ReadAt.Add(c.PTTL).After(now) {
				read[j] = false
				row[j].State = CellUnknown
			}
		case p != nil && j < len(p.Masters) && p.Masters[j].State != CellAbsent:
			row[j] = p.Masters[j]
			row[j].State = CellUnknown
		}
	}
}

// prevCell is p's cell on master j; unknown when there is none.
func prevCell(p *LockView, j int) MasterLock {
	if p == nil || j >= len(p.Masters) {
		return MasterLock{}
	}
	return p.Masters[j]
}

// unreadByKey returns, by key, the masters (a bit each, the first 64) whose delta reading had no time to read it.
func unreadByKey(readings []Reading) map[string]uint64 {
	var out map[string]uint64
	for j, r := range readings {
		for _, k := range r.Unread {
			if out == nil {
				out = map[string]uint64{}
			}
			if j < 64 {
				out[k] |= 1 << j
			}
		}
	}
	return out
}

// deltas reports, per master, whether its reading is a delta of the reading prev was made from: only the keys
// that changed were read, the others are as prev has them.
func deltas(prev *Snapshot, readings []Reading) []bool {
	out := make([]bool, len(readings))
	for j, r := range readings {
		out[j] = r.Err == nil && r.Delta && r.DeltaOf != 0 && prev != nil && j < len(prev.Masters) &&
			prev.Masters[j].Addr == r.Addr && prev.Masters[j].readSeq == r.DeltaOf
	}
	return out
}

// shareTokens makes the cells of row that hold the same token hold one string: each master's read made its
// own copy, and a snapshot keeps them all (at 100,000 locks on 5 masters, 4 copies of each token).
func shareTokens(row []MasterLock) {
	for j := 1; j < len(row); j++ {
		for k := range j {
			if row[k].Token == row[j].Token {
				row[j].Token = row[k].Token
				break
			}
		}
	}
}

// kept reports whether a resource is still tracked: some master has its key, or may have it (not read, with
// a value last seen there).
func kept(row []MasterLock) bool {
	for _, c := range row {
		if c.State == CellSeen || c.State == CellUnknown && c.Token != "" {
			return true
		}
	}
	return false
}

// hashHolder reads a hash lock's fields and values: its holders ("<client-uuid>:<thread-id>" fields, sorted,
// joined by commas), the first holder's hold count, and the mode field of a read-write lock.
func hashHolder(fields []string) (holder string, count int, mode string) {
	var holders []string
	for i := 0; i+1 < len(fields); i += 2 {
		f, v := fields[i], fields[i+1]
		switch {
		case f == "mode":
			mode = v
		case isHolderField(f):
			holders = append(holders, f)
		}
	}
	sort.Strings(holders)
	for i := 0; i+1 < len(fields) && len(holders) > 0; i += 2 {
		if fields[i] == holders[0] {
			count, _ = strconv.Atoi(fields[i+1])
		}
	}
	return strings.Join(holders, ","), count, mode
}

// isHolderField reports whether a hash field names a holder: "<client-id>:<thread-id>".
func isHolderField(f string) bool {
	i := strings.LastIndexByte(f, ':')
	if i <= 0 || i == len(f)-1 {
		return false
	}
	for _, c := range f[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// medianDuration returns the median of the durations of ds that are not negative (the upper one of the middle
// two), 0 when there are none. It sorts ds.
func medianDuration(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	first := 0
	for first < len(ds) && ds[first] < 0 {
		first++
	}
	if first == len(ds) {
		return 0
	}
	return ds[first+(len(ds)-first)/2]
}
