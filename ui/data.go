package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// masterRow is one master of a snapshot as the dashboard shows it; every string is sanitized.
type masterRow struct {
	st       *monitor.MasterStatus
	label    string // M1, M2, ...: the short name used in lock cells and round outcomes
	addr     string
	err      string
	role     string
	warnings string
	clock    []clockSample // the last clock offsets measured, oldest first
}

// clockSample is one measurement of a master's clock offset, for its drill-down.
type clockSample struct {
	at          time.Time
	offset, unc time.Duration
}

// clockSamples is how many clock samples a master keeps.
const clockSamples = 8

// lockRow is one resource of a snapshot as the dashboard shows it. Strings are sanitized; the raw resource and
// tokens stay in lv, for commands.
type lockRow struct {
	lv      *monitor.LockView
	name    string        // sanitized resource (the key)
	label   string        // sanitized name as shown: the key, or "billing (malkusch/lock: lock_billing)"
	holders []holderRow   // a sorted-set lock's holders; nil for a lock of one token
	setOn   []bool        // a sorted-set lock: the masters where a held holder's member is live
	primary string        // raw token the row is about (monitor.LeadToken): the holder's, or the most common one
	holder  string        // sanitized primary token
	tokens  []string      // sanitized token per master, "" where absent
	ref     time.Duration // scale of the validity and PTTL bars: the longest PTTL seen for this holder
	// labelW and holderW are the cells label and holder take on screen, for the widths of the table's columns.
	labelW, holderW int
}

// warningRow is one current warning, sanitized.
type warningRow struct {
	severity monitor.Severity
	text     string
}

// dashboard is one snapshot made ready for the screen: sanitized once here, where it enters the UI model,
// with the counts the header needs, so that View does no work proportional to the number of locks.
type dashboard struct {
	snap     monitor.Snapshot // raw, for commands
	health   monitor.Health   // the header's overall state
	masters  []masterRow
	locks    []*lockRow // in snapshot order: sorted by raw resource; later dashboards share the rows of views they share
	byName   []int      // indices into locks in the order people read their resources (vocab.CompareNames)
	warnings []warningRow
	counts   stateCounts
	// trouble are the locks in trouble (lockTrouble), worst first, at most maxTrouble of them, as indices into
	// locks; troubled counts them all. The compact view lists them.
	trouble  []int
	troubled int
}

// maxTrouble bounds the locks in trouble a dashboard keeps for the compact view: more than a window shows.
const maxTrouble = 64

// lockTrouble ranks how badly a lock is in trouble, 0 for one that is not: ours lost or its quorum lost first,
// then a lock that never expires, a split, one half-acquired, one that cannot be decided, one unconfirmed, one
// held beside another token, and one held only by a guess.
func lockTrouble(lv *monitor.LockView) int {
	switch {
	case lv.QuorumLost || lv.State == monitor.StateLost:
		return 8
	case lv.State == monitor.StateStuck:
		return 7
	case lv.State == monitor.StateSplit:
		return 6
	case lv.State == monitor.StatePartial:
		return 5
	case lv.State == monitor.StateUnknown:
		return 4
	case lv.State == monitor.StateUnconfirmed:
		return 3
	case lv.State == monitor.StateHeld && lv.Foreign:
		return 2
	case lv.State == monitor.StateHeld && lv.Heuristic:
		return 1
	}
	return 0
}

// findTrouble sets the locks in trouble, worst first and then in reading order; prev's when the locks are
// the same views.
func (d *dashboard) findTrouble(prev *dashboard) {
	if prev != nil && sameSlice(d.snap.Locks, prev.snap.Locks) {
		d.trouble, d.troubled = prev.trouble, prev.troubled
		return
	}
	d.trouble, d.troubled = nil, 0
	rank := func(i int) int { return lockTrouble(d.locks[i].lv) }
	for _, i := range d.byName {
		if rank(i) > 0 {
			d.troubled++
			d.trouble = append(d.trouble, i)
		}
	}
	slices.SortStableFunc(d.trouble, func(a, b int) int { return cmp.Compare(rank(b), rank(a)) })
	d.trouble = d.trouble[:min(len(d.trouble), maxTrouble)]
}

// shortToken is the width of a token in a table cell.
const shortToken = 8

// ingest turns a snapshot into a dashboard, carrying the bar scales over from prev (nil for the first), and
// returns the log entries for what is new since prev: the monitor's events and warnings that appeared.
func ingest(s monitor.Snapshot, prev *dashboard) (*dashboard, []logEntry) {
	d := &dashboard{snap: s}
	d.health = s.Health()
	d.ingestMasters(prev)
	d.warnings = make([]warningRow, len(s.Warnings))
	for i, w := range s.Warnings {
		d.warnings[i] = warningRow{severity: w.Severity, text: kit.Sanitize(w.String(), kit.TextCap)}
	}
	slices.SortStableFunc(d.warnings, func(a, b warningRow) int { return cmp.Compare(b.severity.Rank(), a.severity.Rank()) })
	d.ingestLocks(prev)
	d.findTrouble(prev)
	return d, newEntries(s, prev)
}

// ingestMasters makes the masters' rows of d's snapshot, carrying each one's clock samples from prev.
func (d *dashboard) ingestMasters(prev *dashboard) {
	s := &d.snap
	d.masters = make([]masterRow, len(s.Masters))
	for i := range s.Masters {
		st := &s.Masters[i]
		d.masters[i] = masterRow{
			st:       st,
			label:    fmt.Sprintf("M%d", i+1),
			addr:     kit.Sanitize(st.Addr, kit.NameCap),
			err:      kit.Sanitize(st.Err, kit.TextCap),
			role:     kit.Sanitize(st.Role, kit.NameCap),
			warnings: kit.Sanitize(strings.Join(st.Warnings, "; "), kit.TextCap),
		}
		var clock []clockSample
		if prev != nil && i < len(prev.masters) && prev.masters[i].st.Addr == st.Addr {
			clock = prev.masters[i].clock
		}
		if st.Up && st.ClockKnown {
			clock = append(clock[max(len(clock)-clockSamples+1, 0):len(clock):len(clock)],
				clockSample{at: s.Time, offset: st.ClockOffset, unc: st.ClockUncertainty})
		}
		d.masters[i].clock = clock
	}
}

// ingestLocks makes the locks' rows of d's snapshot, carrying each bar's scale from prev while the lock keeps
// its holder, and counts them by state. A snapshot that shares its locks with prev's (a quiet poll: nothing
// changed) shares prev's rows, and a lock a poll with changes took as it was (its view, or its cells, are
// prev's) keeps its row: only the rows of what changed are made again.
func (d *dashboard) ingestLocks(prev *dashboard) {
	s := &d.snap
	if prev != nil && sameSlice(s.Locks, prev.snap.Locks) {
		d.locks, d.counts, d.byName = prev.locks, prev.counts, prev.byName
		return
	}
	defer func() { d.byName = namesOrder(d.locks, prev) }()
	n := len(s.Masters)
	d.locks = make([]*lockRow, len(s.Locks))
	var prevLocks []*lockRow
	if prev != nil {
		prevLocks = prev.locks
	}
	var (
		made   rowMaker
		tokens []string // backs the new rows' tokens
	)
	pi := 0
	for i, lv := range s.Locks {
		d.counts.add(lv)
		if pi < len(prevLocks) && prevLocks[pi].lv != lv { // not the view the row was made of
			for pi < len(prevLocks) && prevLocks[pi].lv.Resource < lv.Resource {
				pi++
			}
		}
		var before *lockRow
		if pi < len(prevLocks) && prevLocks[pi].lv.Resource == lv.Resource {
			before = prevLocks[pi]
			pi++
		}
		if before != nil && before.lv == lv {
			d.locks[i] = before
			continue
		}
		row := made.next()
		d.locks[i] = row
		if before != nil && sameSlice(before.lv.Masters, lv.Masters) {
			*row = *before
			row.lv = lv
			continue
		}
		if len(tokens) < n {
			tokens = make([]string, n*256)
		}
		row.fill(lv, tokens[:n:n])
		tokens = tokens[n:]
		if row.lv.Holders != nil {
			row.takeHolders(s.Time)
		}
		if before != nil && before.primary == row.primary {
			row.ref = max(row.ref, before.ref)
		}
		row.labelW, row.holderW = ansi.StringWidth(row.label), ansi.StringWidth(row.holder)
	}
}

// namesOrder returns the indices of rows in the order people read their resources (vocab.CompareNames:
// numbers by value, so that orders:lock:492 comes before orders:lock:4902), which the locks panel lists them
// in. It starts from prev's order: the resources prev had keep their order (prev's very slice when they are
// the same), and only those new since are sorted and merged in, so that a poll with 100,000 locks and a few
// new ones costs a few comparisons per new lock, not a sort of them all.
func namesOrder(rows []*lockRow, prev *dashboard) []int {
	if prev == nil || prev.byName == nil {
		return sortByName(rows, seq(len(rows)))
	}
	// Where each of prev's rows is now (-1: gone), walking both in snapshot order, by raw resource.
	now := make([]int, len(prev.locks))
	old := make([]bool, len(rows))
	j := 0
	for i, r := range prev.locks {
		for j < len(rows) && rows[j].lv.Resource < r.lv.Resource {
			j++
		}
		now[i] = -1
		if j < len(rows) && rows[j].lv.Resource == r.lv.Resource {
			now[i], old[j] = j, true
			j++
		}
	}
	kept := make([]int, 0, len(rows))
	for _, i := range prev.byName {
		if now[i] >= 0 {
			kept = append(kept, now[i])
		}
	}
	var added []int
	for j := range rows {
		if !old[j] {
			added = append(added, j)
		}
	}
	if len(added) == 0 && len(kept) == len(prev.locks) {
		return prev.byName // the same resources
	}
	added = sortByName(rows, added)
	out := make([]int, 0, len(rows))
	for len(kept) > 0 && len(added) > 0 {
		if vocab.CompareNames(rows[added[0]].lv.Resource, rows[kept[0]].lv.Resource) < 0 {
			out, added = append(out, added[0]), added[1:]
		} else {
			out, kept = append(out, kept[0]), kept[1:]
		}
	}
	return append(append(out, kept...), added...)
}

// sortByName sorts the indices of rows idx by their resources, as people read them (vocab.CompareNames).
func sortByName(rows []*lockRow, idx []int) []int {
	slices.SortFunc(idx, func(a, b int) int { return vocab.CompareNames(rows[a].lv.Resource, rows[b].lv.Resource) })
	return idx
}

// seq returns 0, 1, ... n-1.
func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// rowMaker hands out the rows a snapshot makes again, from arrays that grow with their number (up to
// maxRowChunk rows): a row later snapshots keep keeps its array alive, which is never much larger than the
// rows made with it.
type rowMaker struct{ chunk []lockRow }

// maxRowChunk is the most rows a rowMaker array holds.
const maxRowChunk = 4096

// next returns a new zero row.
func (r *rowMaker) next() *lockRow {
	if len(r.chunk) == cap(r.chunk) {
		r.chunk = make([]lockRow, 0, min(max(64, 2*cap(r.chunk)), maxRowChunk))
	}
	r.chunk = r.chunk[:len(r.chunk)+1]
	return &r.chunk[len(r.chunk)-1]
}

// sameSlice reports whether a and b are the same slice: a quiet snapshot's locks are its predecessor's, and so
// are the rows made of them.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// fill makes row the row of lv: its name, lead token and each master's token (sanitized, into tokens), and
// the longest PTTL read, the scale of its bar.
func (row *lockRow) fill(lv *monitor.LockView, tokens []string) {
	row.lv = lv
	row.name = kit.Sanitize(lv.Resource, kit.NameCap)
	row.label = row.name
	if lv.Logical != "" {
		row.label = kit.Sanitize(lv.ResourceText(), kit.NameCap)
	}
	row.primary = monitor.LeadToken(lv)
	shown := kit.Sanitize(row.primary, kit.NameCap)
	// Medusa's "*" and owner ids are not tokens: "anyone (*)", "owner <id>".
	row.holder = monitor.HolderKindText(lv.HolderKind, shown)
	if !lv.ValueTime.IsZero() { // a time, not a token: it names no holder
		row.holder = "unknown"
	}
	row.tokens = tokens
	for j, c := range lv.Masters {
		if j >= len(tokens) || c.Token == "" { // absent, or not read and never seen there
			continue
		}
		if c.Token == row.primary {
			row.tokens[j] = shown
		} else {
			row.tokens[j] = kit.Sanitize(c.Token, kit.NameCap)
		}
		if c.Present() {
			row.ref = max(row.ref, c.PTTL)
		}
	}
}

// stateCounts counts the locks of a snapshot by state, and ours.
type stateCounts struct{ held, partial, split, lost, stuck, unknown, unconfirmed, free, mine int }

// add counts lv by its state, and as ours.
func (c *stateCounts) add(lv *monitor.LockView) {
	switch lv.State {
	case monitor.StateHeld:
		c.held++
	case monitor.StatePartial:
		c.partial++
	case monitor.StateSplit:
		c.split++
	case monitor.StateLost:
		c.lost++
	case monitor.StateStuck:
		c.stuck++
	case monitor.StateUnknown:
		c.unknown++
	case monitor.StateUnconfirmed:
		c.unconfirmed++
	case monitor.StateFree:
		c.free++
	}
	if lv.Mine {
		c.mine++
	}
}

// newEntries returns the log entries for the events and warnings of s that prev did not have, as the monitor
// tells what is new (Snapshot.EventsSince, Snapshot.WarningsSince).
func newEntries(s monitor.Snapshot, prev *dashboard) []logEntry {
	var before *monitor.Snapshot
	if prev != nil {
		before = &prev.snap
	}
	var out []logEntry
	switch { // the first snapshot, and the end of the first scan, are the baseline: one line each, not a line per lock
	case prev == nil:
		out = append(out, logEntry{at: s.Time, level: monitor.SeverityInfo, text: "first poll: " + baseline(s)})
	case !prev.snap.Swept && s.Swept:
		out = append(out, logEntry{at: s.Time, level: monitor.SeverityInfo, text: "first scan of every master done: " + baseline(s)})
	}
	evs := s.EventsSince(before)
	for _, r := range events.FromMonitor(evs) {
		out = append(out, entryOf(r))
	}
	raised, _ := s.WarningsSince(before)
	for _, w := range raised {
		if monitor.ToldBy(w, evs) {
			continue // the event's line tells it
		}
		out = append(out, logEntry{at: s.Time, level: w.Severity, resource: w.Resource, master: w.Master, text: kit.Sanitize(w.String(), kit.TextCap)})
	}
	return out
}

// baseline summarises a snapshot in one line: "3/3 masters up, 2,000 locks (1,990 held, 10 partial)".
func baseline(s monitor.Snapshot) string {
	counts := map[monitor.LockState]int{}
	for i := range s.Locks {
		counts[s.Locks[i].State]++
	}
	var parts []string
	for _, st := range monitor.LockStates {
		if counts[st] > 0 {
			parts = append(parts, kit.Thousands(counts[st])+" "+st.Label())
		}
	}
	text := fmt.Sprintf("%d/%d masters up, %s", s.UpCount, s.Servers, kit.Plural(len(s.Locks), "lock"))
	if len(s.Locks) > 1000 {
		text = fmt.Sprintf("%d/%d masters up, %s locks", s.UpCount, s.Servers, kit.Thousands(len(s.Locks)))
	}
	if len(parts) > 0 {
		text += " (" + strings.Join(parts, ", ") + ")"
	}
	if !s.Swept {
		text += "; the first scan goes on: locks it finds are summed up when it ends"
	}
	return text
}
