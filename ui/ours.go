package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// nodeView is one master's part in a round, sanitized.
type nodeView struct {
	label   string // M1, M2, ...
	outcome redlock.Outcome
	latency time.Duration
	err     string
}

// roundView is an acquire, extend or release round as the dashboard shows it, sanitized.
type roundView struct {
	op       redlock.Op
	start    time.Time
	ok, n    int
	quorum   int
	elapsed  time.Duration
	validity time.Duration
	nodes    []nodeView
}

// viewRound makes a round from the Redlock client safe to show: it is where results enter the UI model.
func viewRound(r redlock.Round) roundView {
	v := roundView{op: r.Op, start: r.Start, ok: r.OK, n: len(r.Nodes), quorum: r.Quorum, elapsed: r.Elapsed,
		validity: r.Validity, nodes: make([]nodeView, len(r.Nodes))}
	for i, n := range r.Nodes {
		v.nodes[i] = nodeView{label: fmt.Sprintf("M%d", i+1), outcome: n.Outcome, latency: n.Latency}
		if n.Err != nil {
			v.nodes[i].err = kit.Sanitize(n.Err.Error(), kit.TextCap)
		}
	}
	return v
}

// outcomeGlyphs tell the outcomes apart without colour: ✓ ok, ◆ another token, · no key, T timeout, ✗ error,
// R replica, ? not awaited (the round was decided before the master answered).
var outcomeGlyphs = map[redlock.Outcome]string{
	redlock.OutcomeOK: "✓", redlock.OutcomeHeldByOther: "◆", redlock.OutcomeGone: "·",
	redlock.OutcomeTimeout: "T", redlock.OutcomeError: "✗", redlock.OutcomeReplica: "R", redlock.OutcomePending: "?",
}

// glyphs is the round's outcomes, one glyph per master.
func (r roundView) glyphs() string {
	var b strings.Builder
	for _, n := range r.nodes {
		b.WriteString(outcomeGlyphs[n.outcome])
	}
	return b.String()
}

// summary is the round in a few words: "extend 3/3 (quorum 2) in 4.2ms".
func (r roundView) summary() string {
	if r.n == 0 {
		return ""
	}
	return fmt.Sprintf("%s %d/%d (quorum %d) in %s", r.op, r.ok, r.n, r.quorum, kit.Latency(r.elapsed))
}

// detail is every master's outcome and timing: "M1 ok 1.1ms · M3 timeout 50ms · M2 error: ...".
func (r roundView) detail() string { return strings.Join(r.nodeLines(), " · ") }

// nodeLines is every master's outcome and timing, one per master: "M1 ok 1.1ms", "M2 error: ...".
func (r roundView) nodeLines() []string {
	lines := make([]string, len(r.nodes))
	for i, n := range r.nodes {
		lines[i] = n.label + " " + outcomeText(n.outcome)
		if n.latency > 0 {
			lines[i] += " " + kit.Latency(n.latency)
		}
		if n.err != "" && n.outcome == redlock.OutcomeError {
			lines[i] += ": " + n.err
		}
	}
	return lines
}

// notAwaited is how a master that had not answered when its round was decided is said: "pending" read as if
// its answer were still to come and mattered, though the round was over (the key usually lands there too).
const notAwaited = "not awaited (decided before it answered)"

// outcomeText names a master's outcome in a round, for people.
func outcomeText(o redlock.Outcome) string {
	if o == redlock.OutcomePending {
		return notAwaited
	}
	return o.String()
}

// failure describes an error from the Redlock client, sanitized, with the round it carries (empty if none).
func failure(err error) (string, roundView) {
	reason := err.Error()
	var rv roundView
	var re *redlock.RoundError
	if errors.As(err, &re) {
		reason = re.Reason
		if re.Attempts > 1 {
			reason += fmt.Sprintf(" after %d attempts", re.Attempts)
		}
		switch {
		case errors.Is(err, context.Canceled):
			reason += " (cancelled)"
		case errors.Is(err, context.DeadlineExceeded):
			reason += " (timed out)"
		}
		rv = viewRound(re.Round)
	}
	var lost *redlock.LostError
	if errors.As(err, &lost) { // how it was lost comes first: taken over, evicted, deleted, expired
		reason = string(lost.Cause) + prefixed(": ", lost.Detail)
	}
	return kit.Sanitize(reason, kit.TextCap), rv
}

// ownLock is a lock this dashboard holds. Its fields beyond the lock are refreshed from it in Update (in-memory
// reads, no I/O), so View shows a copy and the background keeper never races the screen.
//
// A lock stays ours until it is proven gone: a release confirmed by enough masters that the rest cannot hold a
// quorum, an extension answered "not ours" by as many, or its validity running out. A release or an extension
// that failed with errors or timeouts proves nothing, so the lock stays listed with what happened and the
// validity it had: the Redlock client gives such a lock up at once, but its keys may still hold our token.
type ownLock struct {
	lock         *redlock.Lock
	name         string // sanitized resource
	acquired     time.Time
	keeper       *redlock.Keeper // running auto-extension, nil when off
	autoBusy     bool            // the keeper is starting or stopping
	busy         string          // "extending", "releasing": a command in flight
	lost         string          // why the lock is known lost, sanitized; "" while not lost
	unconfirmed  string          // why our last release was not confirmed, sanitized; "" when none failed
	extendFailed string          // why an extension failed without proving the lock lost, sanitized

	validUntil time.Time // on the dashboard's clock: the end of the validity we last held it with
	ttl        time.Duration
	extensions int
	toldValid  int  // the extensions when the validity was last told to the register (Ownership.Valid); -1 never
	held       bool // the Redlock client still holds it: extensions and auto-extension are possible
	last       roundView
}

// newOwnLock records a lock just acquired.
func newOwnLock(l *redlock.Lock, now time.Time) *ownLock {
	o := &ownLock{lock: l, name: kit.Sanitize(l.Resource(), kit.NameCap), acquired: now, toldValid: -1}
	o.refresh(now)
	return o
}

// refresh copies the lock's state, and returns a log entry when the keeper extended it since the last refresh.
// The validity is copied only while the client holds the lock: once the client has given it up (released, or
// after a failed extension) the keys may still hold our token until the validity we last had runs out.
func (o *ownLock) refresh(now time.Time) []logEntry {
	l := o.lock
	o.held = l.Held()
	if o.held {
		o.validUntil = now.Add(l.Validity())
	}
	o.ttl = l.TTL()
	var out []logEntry
	if r := l.LastRound(); !r.Start.Equal(o.last.start) {
		o.last = viewRound(r)
		switch ext := l.Extensions(); {
		case o.keeper == nil || r.Op != redlock.OpExtend:
		case ext > o.extensions:
			o.extendFailed = ""
			out = append(out, logEntry{at: now, level: monitor.SeverityInfo, resource: l.Resource(), text: fmt.Sprintf(
				"auto-extended %s, valid %s: %s · %s", o.name, kit.Dur(o.last.validity), o.last.summary(), o.last.detail())})
		case o.held: // the keeper's extension failed without proof: it tries again while the lock is valid
			o.extendFailed = fmt.Sprintf("failed (%d of %d renewed), trying again", r.OK, len(r.Nodes))
			out = append(out, logEntry{at: now, level: monitor.SeverityInfo, resource: l.Resource(), text: fmt.Sprintf(
				"auto-extend %s %s; not lost, valid %s more · %s", o.name, o.extendFailed, kit.Dur(o.left(now)), o.last.detail())})
		}
	}
	o.extensions = l.Extensions()
	return out
}

// left is how much longer the lock may hold at now: its validity, or zero once it is known lost or ran out.
func (o *ownLock) left(now time.Time) time.Duration {
	if o.lost != "" {
		return 0
	}
	return max(o.validUntil.Sub(now), 0)
}

// state is the word shown for the lock at now.
func (o *ownLock) state(now time.Time) (string, monitor.Severity) {
	switch {
	case o.busy != "":
		return o.busy + "…", monitor.SeverityInfo
	case o.lost != "":
		return "LOST", monitor.SeverityError
	case o.left(now) == 0:
		return "expired", monitor.SeverityWarning
	case o.unconfirmed != "":
		return "unconfirmed", monitor.SeverityWarning
	case o.extendFailed != "":
		return "ext failed", monitor.SeverityWarning
	}
	return "held", monitor.SeverityInfo
}

// errRound returns the round an error from the Redlock client carries, if it carries one.
func errRound(err error) (redlock.Round, bool) {
	var re *redlock.RoundError
	if errors.As(err, &re) {
		return re.Round, true
	}
	return redlock.Round{}, false
}

// unanswered counts the masters of a round that failed, timed out, had not answered or refused as replicas.
func unanswered(r roundView) int {
	n := 0
	for _, nd := range r.nodes {
		switch nd.outcome {
		case redlock.OutcomeError, redlock.OutcomeTimeout, redlock.OutcomePending, redlock.OutcomeReplica:
			n++
		}
	}
	return n
}

// oursPanel lists the locks this dashboard holds: validity countdown, auto-extension, extensions used and the
// per-master outcome of the last round. The lock commands (lockOps) keep the locks and tell the panel when
// they change; the panel keeps the cursor.
type oursPanel struct {
	keyTable
	locks          []*ownLock // in order of acquisition
	cursor, offset int
	readOnly       bool // the dashboard's mode is read-only: no lock can be acquired
	sized
}

// newOursPanel returns the panel, with no lock yet.
func newOursPanel(sh *shared) *oursPanel {
	p := &oursPanel{keyTable: keyTable{sh: sh}}
	p.actions = navActions(sh.keys, func(msg tea.KeyMsg) tea.Cmd {
		p.cursor = moveCursor(p.sh.keys, msg, p.cursor, len(p.locks), p.rows())
		return nil
	})
	return p
}

// rows is how many locks fit inside the border.
func (p *oursPanel) rows() int { return max(p.h-2, 0) }

// Update moves the cursor with the navigation keys and a click, takes in the focus and our locks as they
// change; the rows shown follow the cursor.
func (p *oursPanel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case oursMsg:
		p.locks = msg.locks
		p.cursor = min(p.cursor, max(len(p.locks)-1, 0))
	case stateMsg:
		p.focused, p.readOnly = msg.mode.focus == focusOurs, msg.mode.readOnly
	case tea.KeyMsg:
		cmd = p.run(msg)
	case tea.MouseMsg:
		if row := msg.Y - 1; wheelRows(msg) == 0 && row >= 0 { // below the border; the wheel does nothing here
			p.cursor = min(p.offset+row, max(len(p.locks)-1, 0))
		}
	}
	p.scroll()
	return p, cmd
}

// SetSize sets the outer size, and keeps the cursor's row on screen.
func (p *oursPanel) SetSize(w, h int) {
	p.sized.SetSize(w, h)
	p.scroll()
}

// scroll moves the first row shown so that the cursor's row is on screen.
func (p *oursPanel) scroll() { p.offset = kit.Window(p.cursor, p.offset, p.rows(), len(p.locks)) }

// selected returns the lock under the cursor, or nil.
func (p *oursPanel) selected() *ownLock {
	if p.cursor < 0 || p.cursor >= len(p.locks) {
		return nil
	}
	return p.locks[p.cursor]
}

// drill returns the full view of the lock under the cursor, nil when there is none or it is on no master.
func (p *oursPanel) drill() *drillView {
	if o := p.selected(); o != nil {
		if row := findRow(p.sh.data, o.lock.Resource()); row != nil {
			return newLockDrill(p.sh, row)
		}
	}
	return nil
}

// unconfirmed counts our locks whose release was not confirmed.
func (p *oursPanel) unconfirmed() int {
	n := 0
	for _, o := range p.locks {
		if o.unconfirmed != "" {
			n++
		}
	}
	return n
}

// View draws the panel.
func (p *oursPanel) View() string {
	st, focused := p.sh.st, p.focused
	auto := 0
	for _, o := range p.locks {
		if o.keeper != nil {
			auto++
		}
	}
	title := "Our locks " + kit.Thousands(len(p.locks))
	if auto > 0 {
		title += fmt.Sprintf(" · %d auto-extending", auto)
	}
	if n := p.unconfirmed(); n > 0 {
		title += " · " + kit.Plural(n, "release") + " unconfirmed"
	}
	var body []string
	if len(p.locks) == 0 {
		hint := "none: " + p.sh.keys.Acquire.Help().Key + " acquires one"
		if p.readOnly {
			hint = "none: read-only"
		}
		body = append(body, st.Text.Muted.Render(hint))
	}
	now := p.sh.now()
	w := p.w - 2
	for i := p.offset; i < len(p.locks) && len(body) < p.rows(); i++ {
		body = append(body, p.row(p.locks[i], w, now, focused && i == p.cursor))
	}
	if o := p.selected(); o != nil && len(body) < p.rows() { // room below the rows: how the selected lock was won
		for len(body) < p.rows()-1 {
			body = append(body, "")
		}
		body = append(body, st.Text.Muted.Render(kit.Fit(acquisitionLine(o), w)))
	}
	return st.Box(title, body, p.w, p.h, focused)
}

// row renders one of our locks w cells wide: name, validity bar and countdown, state, auto-extension, extensions
// used, and the last round with one outcome glyph per master.
func (p *oursPanel) row(o *ownLock, w int, now time.Time, selected bool) string {
	st := p.sh.st
	cursor := "  "
	if selected {
		cursor = st.Table.Cursor.Render("▸ ")
	}
	v := o.left(now)
	auto := "-"
	switch {
	case o.autoBusy:
		auto = "…"
	case o.keeper != nil:
		auto = "auto"
	}
	stateText, lvl := o.state(now)
	tail := fmt.Sprintf("%-4s ext %-2d %s %s", auto, o.extensions, o.last.op, o.last.glyphs())
	nameW := max(w-2-16-12-ansi.StringWidth(tail)-1, 8)
	return cursor + st.Name(kit.Fit(o.name, nameW), st.Text.Normal) + " " +
		st.ValidityBar(v, o.ttl, 8, false) + " " + st.Text.Normal.Render(kit.FitLeft(kit.Dur(v), 6)) + " " +
		st.Level[lvl].Render(kit.Fit(stateText, 11)) + " " + st.Text.Muted.Render(tail)
}

// acquisitionLine tells how the lock under the cursor was won, for the panel's last row: when, after how many
// rounds and how long a wait.
func acquisitionLine(o *ownLock) string {
	return fmt.Sprintf("%s acquired %s %v", o.name, o.acquired.Format("15:04:05"), o.lock.Acquisition())
}
