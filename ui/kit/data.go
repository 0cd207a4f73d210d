package kit

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
)

// MasterRow is one master of a snapshot as the dashboard shows it; every string is sanitized.
type MasterRow struct {
	St       *monitor.MasterStatus
	Label    string // M1, M2, ...: the short name used in lock cells and round outcomes
	Addr     string
	Err      string
	Role     string
	Warnings string
	Clock    []clockSample // the last clock offsets measured, oldest first
}

// clockSample is one measurement of a master's clock offset, for its drill-down.
type clockSample struct {
	At          time.Time
	Offset, Unc time.Duration
}

// clockSamples is how many clock samples a master keeps.
const clockSamples = 8

// LockRow is one resource of a snapshot as the dashboard shows it. Strings are sanitized; the raw resource and
// tokens stay in lv, for commands.
type LockRow struct {
	Lv      *monitor.LockView
	Name    string        // sanitized resource (the key)
	Label   string        // sanitized name as shown: the key, or "billing (malkusch/lock: lock_billing)"
	Holders []HolderRow   // a sorted-set lock's holders; nil for a lock of one token
	setOn   []bool        // a sorted-set lock: the masters where a held holder's member is live
	Primary string        // raw token the row is about (monitor.LeadToken): the holder's, or the most common one
	Holder  string        // sanitized primary token
	Tokens  []string      // sanitized token per master, "" where absent
	Ref     time.Duration // scale of the validity and PTTL bars: the longest PTTL seen for this holder
	// LabelW and holderW are the cells label and holder take on screen, for the widths of the table's columns.
	LabelW, HolderW int
}

// WarningRow is one current warning, sanitized.
type WarningRow struct {
	Severity monitor.Severity
	Text     string
}

// Dashboard is one snapshot made ready for the screen: sanitized once here, where it enters the UI model,
// with the counts the header needs, so that View does no work proportional to the number of locks.
type Dashboard struct {
	Snap     monitor.Snapshot // raw, for commands
	Health   monitor.Health   // the header's overall state
	Masters  []MasterRow
	Locks    []*LockRow // in snapshot order: sorted by raw resource; later dashboards share the rows of views they share
	ByName   []int      // indices into locks in the order people read their resources (vocab.CompareNames)
	Warnings []WarningRow
	Counts   stateCounts
	// Trouble are the locks in trouble (lockTrouble), worst first, at most maxTrouble of them, as indices into
	// locks; troubled counts them all. The compact view lists them.
	Trouble  []int
	Troubled int
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
func (d *Dashboard) findTrouble(prev *Dashboard) {
	if prev != nil && SameSlice(d.Snap.Locks, prev.Snap.Locks) {
		d.Trouble, d.Troubled = prev.Trouble, prev.Troubled
		return
	}
	d.Trouble, d.Troubled = nil, 0
	rank := func(i int) int { return lockTrouble(d.Locks[i].Lv) }
	for _, i := range d.ByName {
		if rank(i) > 0 {
			d.Troubled++
			d.Trouble = append(d.Trouble, i)
		}
	}
	slices.SortStableFunc(d.Trouble, func(a, b int) int { return cmp.Compare(rank(b), rank(a)) })
	d.Trouble = d.Trouble[:min(len(d.Trouble), maxTrouble)]
}

// ShortToken is the width of a token in a table cell.
const ShortToken = 8

// Ingest turns a snapshot into a dashboard, carrying the bar scales over from prev (nil for the first), and
// returns the log entries for what is new since prev: the monitor's events and warnings that appeared.
func Ingest(s monitor.Snapshot, prev *Dashboard) (*Dashboard, []LogEntry) {
	d := &Dashboard{Snap: s}
	d.Health = s.Health()
	d.ingestMasters(prev)
	d.Warnings = make([]WarningRow, len(s.Warnings))
	for i, w := range s.Warnings {
		d.Warnings[i] = WarningRow{Severity: w.Severity, Text: Sanitize(w.String(), TextCap)}
	}
	slices.SortStableFunc(d.Warnings, func(a, b WarningRow) int { return cmp.Compare(b.Severity.Rank(), a.Severity.Rank()) })
	d.ingestLocks(prev)
	d.findTrouble(prev)
	return d, newEntries(s, prev)
}

// ingestMasters makes the masters' rows of d's snapshot, carrying each one's clock samples from prev.
func (d *Dashboard) ingestMasters(prev *Dashboard) {
	s := &d.Snap
	d.Masters = make([]MasterRow, len(s.Masters))
	for i := range s.Masters {
		st := &s.Masters[i]
		d.Masters[i] = MasterRow{
			St:       st,
			Label:    fmt.Sprintf("M%d", i+1),
			Addr:     Sanitize(st.Addr, NameCap),
			Err:      Sanitize(st.Err, TextCap),
			Role:     Sanitize(st.Role, NameCap),
			Warnings: Sanitize(strings.Join(st.Warnings, "; "), TextCap),
		}
		var clock []clockSample
		if prev != nil && i < len(prev.Masters) && prev.Masters[i].St.Addr == st.Addr {
			clock = prev.Masters[i].Clock
		}
		if st.Up && st.ClockKnown {
			clock = append(clock[max(len(clock)-clockSamples+1, 0):len(clock):len(clock)],
				clockSample{At: s.Time, Offset: st.ClockOffset, Unc: st.ClockUncertainty})
		}
		d.Masters[i].Clock = clock
	}
}

// ingestLocks makes the locks' rows of d's snapshot, carrying each bar's scale from prev while the lock keeps
// its holder, and counts them by state. A snapshot that shares its locks with prev's (a quiet poll: nothing
// changed) shares prev's rows, and a lock a poll with changes took as it was (its view, or its cells, are
// prev's) keeps its row: only the rows of what changed are made again.
func (d *Dashboard) ingestLocks(prev *Dashboard) {
	s := &d.Snap
	if prev != nil && SameSlice(s.Locks, prev.Snap.Locks) {
		d.Locks, d.Counts, d.ByName = prev.Locks, prev.Counts, prev.ByName
		return
	}
	defer func() { d.ByName = namesOrder(d.Locks, prev) }()
	n := len(s.Masters)
	d.Locks = make([]*LockRow, len(s.Locks))
	var prevLocks []*LockRow
	if prev != nil {
		prevLocks = prev.Locks
	}
	var (
		made   rowMaker
		tokens []string // backs the new rows' tokens
	)
	pi := 0
	for i, lv := range s.Locks {
		d.Counts.add(lv)
		if pi < len(prevLocks) && prevLocks[pi].Lv != lv { // not the view the row was made of
			for pi < len(prevLocks) && prevLocks[pi].Lv.Resource < lv.Resource {
				pi++
			}
		}
		var before *LockRow
		if pi < len(prevLocks) && prevLocks[pi].Lv.Resource == lv.Resource {
			before = prevLocks[pi]
			pi++
		}
		if before != nil && before.Lv == lv {
			d.Locks[i] = before
			continue
		}
		row := made.next()
		d.Locks[i] = row
		if before != nil && SameSlice(before.Lv.Masters, lv.Masters) {
			*row = *before
			row.Lv = lv
			continue
		}
		if len(tokens) < n {
			tokens = make([]string, n*256)
		}
		row.fill(lv, tokens[:n:n])
		tokens = tokens[n:]
		if row.Lv.Holders != nil {
			row.takeHolders(s.Time)
		}
		if before != nil && before.Primary == row.Primary {
			row.Ref = max(row.Ref, before.Ref)
		}
		row.LabelW, row.HolderW = ansi.StringWidth(row.Label), ansi.StringWidth(row.Holder)
	}
}

// namesOrder returns the indices of rows in the order people read their resources (vocab.CompareNames:
// numbers by value, so that orders:lock:492 comes before orders:lock:4902), which the locks panel lists them
// in. It starts from prev's order: the resources prev had keep their order (prev's very slice when they are
// the same), and only those new since are sorted and merged in, so that a poll with 100,000 locks and a few
// new ones costs a few comparisons per new lock, not a sort of them all.
func namesOrder(rows []*LockRow, prev *Dashboard) []int {
	if prev == nil || prev.ByName == nil {
		return sortByName(rows, seq(len(rows)))
	}
	// Where each of prev's rows is now (-1: gone), walking both in snapshot order, by raw resource.
	now := make([]int, len(prev.Locks))
	old := make([]bool, len(rows))
	j := 0
	for i, r := range prev.Locks {
		for j < len(rows) && rows[j].Lv.Resource < r.Lv.Resource {
			j++
		}
		now[i] = -1
		if j < len(rows) && rows[j].Lv.Resource == r.Lv.Resource {
			now[i], old[j] = j, true
			j++
		}
	}
	kept := make([]int, 0, len(rows))
	for _, i := range prev.ByName {
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
	if len(added) == 0 && len(kept) == len(prev.Locks) {
		return prev.ByName // the same resources
	}
	added = sortByName(rows, added)
	out := make([]int, 0, len(rows))
	for len(kept) > 0 && len(added) > 0 {
		if vocab.CompareNames(rows[added[0]].Lv.Resource, rows[kept[0]].Lv.Resource) < 0 {
			out, added = append(out, added[0]), added[1:]
		} else {
			out, kept = append(out, kept[0]), kept[1:]
		}
	}
	return append(append(out, kept...), added...)
}

// sortByName sorts the indices of rows idx by their resources, as people read them (vocab.CompareNames).
func sortByName(rows []*LockRow, idx []int) []int {
	slices.SortFunc(idx, func(a, b int) int { return vocab.CompareNames(rows[a].Lv.Resource, rows[b].Lv.Resource) })
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
type rowMaker struct{ chunk []LockRow }

// maxRowChunk is the most rows a rowMaker array holds.
const maxRowChunk = 4096

// next returns a new zero row.
func (r *rowMaker) next() *LockRow {
	if len(r.chunk) == cap(r.chunk) {
		r.chunk = make([]LockRow, 0, min(max(64, 2*cap(r.chunk)), maxRowChunk))
	}
	r.chunk = r.chunk[:len(r.chunk)+1]
	return &r.chunk[len(r.chunk)-1]
}

// SameSlice reports whether a and b are the same slice: a quiet snapshot's locks are its predecessor's, and so
// are the rows made of them.
func SameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// fill makes row the row of lv: its name, lead token and each master's token (sanitized, into tokens), and
// the longest PTTL read, the scale of its bar.
func (row *LockRow) fill(lv *monitor.LockView, tokens []string) {
	row.Lv = lv
	row.Name = Sanitize(lv.Resource, NameCap)
	row.Label = row.Name
	if lv.Logical != "" {
		row.Label = Sanitize(lv.ResourceText(), NameCap)
	}
	row.Primary = monitor.LeadToken(lv)
	shown := Sanitize(row.Primary, NameCap)
	// Medusa's "*" and owner ids are not tokens: "anyone (*)", "owner <id>".
	row.Holder = monitor.HolderKindText(lv.HolderKind, shown)
	if !lv.ValueTime.IsZero() { // a time, not a token: it names no holder
		row.Holder = "unknown"
	}
	row.Tokens = tokens
	for j, c := range lv.Masters {
		if j >= len(tokens) || c.Token == "" { // absent, or not read and never seen there
			continue
		}
		if c.Token == row.Primary {
			row.Tokens[j] = shown
		} else {
			row.Tokens[j] = Sanitize(c.Token, NameCap)
		}
		if c.Present() {
			row.Ref = max(row.Ref, c.PTTL)
		}
	}
}

// stateCounts counts the locks of a snapshot by state, and ours.
type stateCounts struct{ Held, Partial, Split, Lost, stuck, unknown, Unconfirmed, Free, Mine int }

// add counts lv by its state, and as ours.
func (c *stateCounts) add(lv *monitor.LockView) {
	switch lv.State {
	case monitor.StateHeld:
		c.Held++
	case monitor.StatePartial:
		c.Partial++
	case monitor.StateSplit:
		c.Split++
	case monitor.StateLost:
		c.Lost++
	case monitor.StateStuck:
		c.stuck++
	case monitor.StateUnknown:
		c.unknown++
	case monitor.StateUnconfirmed:
		c.Unconfirmed++
	case monitor.StateFree:
		c.Free++
	}
	if lv.Mine {
		c.Mine++
	}
}

// newEntries returns the log entries for the events and warnings of s that prev did not have, as the monitor
// tells what is new (Snapshot.EventsSince, Snapshot.WarningsSince).
func newEntries(s monitor.Snapshot, prev *Dashboard) []LogEntry {
	var before *monitor.Snapshot
	if prev != nil {
		before = &prev.Snap
	}
	var out []LogEntry
	switch { // the first snapshot, and the end of the first scan, are the baseline: one line each, not a line per lock
	case prev == nil:
		out = append(out, LogEntry{At: s.Time, Level: monitor.SeverityInfo, Text: "first poll: " + baseline(s)})
	case !prev.Snap.Swept && s.Swept:
		out = append(out, LogEntry{At: s.Time, Level: monitor.SeverityInfo, Text: "first scan of every master done: " + baseline(s)})
	}
	evs := s.EventsSince(before)
	for _, r := range events.FromMonitor(evs) {
		out = append(out, EntryOf(r))
	}
	raised, _ := s.WarningsSince(before)
	for _, w := range raised {
		if monitor.ToldBy(w, evs) {
			continue // the event's line tells it
		}
		out = append(out, LogEntry{At: s.Time, Level: w.Severity, Resource: w.Resource, master: w.Master, Text: Sanitize(w.String(), TextCap)})
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
			parts = append(parts, Thousands(counts[st])+" "+st.Label())
		}
	}
	text := fmt.Sprintf("%d/%d masters up, %s", s.UpCount, s.Servers, Plural(len(s.Locks), "lock"))
	if len(s.Locks) > 1000 {
		text = fmt.Sprintf("%d/%d masters up, %s locks", s.UpCount, s.Servers, Thousands(len(s.Locks)))
	}
	if len(parts) > 0 {
		text += " (" + strings.Join(parts, ", ") + ")"
	}
	if !s.Swept {
		text += "; the first scan goes on: locks it finds are summed up when it ends"
	}
	return text
}

// HolderRow is one holder of a sorted-set lock as the dashboard shows it.
type HolderRow struct {
	H     *monitor.Holder
	Token string // sanitized
}

// takeHolders makes a sorted-set lock's row ready at the snapshot's time: its holder column, its holders
// sanitized, and the masters its cells mark.
func (r *LockRow) takeHolders(snapTime time.Time) {
	lv := r.Lv
	r.Holder = lv.HoldersText()
	r.Holders = make([]HolderRow, len(lv.Holders))
	r.setOn = make([]bool, len(lv.Masters))
	for k := range lv.Holders {
		h := &lv.Holders[k]
		r.Holders[k] = HolderRow{H: h, Token: Sanitize(h.Token, NameCap)}
		for j, c := range h.Masters {
			if j < len(r.setOn) && (h.State == monitor.StateHeld || lv.State != monitor.StateHeld) && c.Live(snapTime) {
				r.setOn[j] = true
			}
		}
	}
}

// PrimaryOn reports whether master j holds what the row is about: its lead token, or for a sorted-set lock a
// live member of a held holder (of any holder, when none is held).
func (r *LockRow) PrimaryOn(j int) bool {
	if r.setOn != nil {
		return j < len(r.setOn) && r.setOn[j]
	}
	return j < len(r.Lv.Masters) && r.Lv.Masters[j].Token == r.Primary && r.Primary != ""
}

// Names are the names a filter matches a row by: its key and, when a client's convention names it, its
// resource.
func (r *LockRow) Names() []string {
	if r.Lv.Logical == "" {
		return []string{r.Name}
	}
	return []string{r.Name, Sanitize(r.Lv.Logical, NameCap)}
}
