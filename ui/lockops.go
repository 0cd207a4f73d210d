package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// lockOps is the controller that writes to the masters and keeps our locks; the root calls it (it is no
// component: it has no area on the screen). It takes the keys that act on locks (Acquire, Extend, Release,
// AutoExtend, Delete), opens the acquire form and the force-delete confirmation and carries out what they ask,
// issues every write command, applies their results to our locks, and tells the our-locks panel when they
// change. Which lock a key acts on comes from the selection the root sends (stateMsg).
type lockOps struct {
	keyTable
	locker *redlock.Client
	owner  Ownership // nil: nobody is told
	ctx    context.Context
	// production: the masters come from a production profile, which is why the dashboard may be read-only
	production bool
	ttl        time.Duration // the acquire form's TTL: the last one used
	reqs       uint64        // request counter: every acquire and delete request has its own id
	own        []*ownLock    // our locks, in order of acquisition
	sel        stateMsg      // what the panels have selected: the lock a key acts on
	acquiring  acquiring     // the acquire request of the form, if one runs
}

// acquiring is the acquire request the form waits for.
type acquiring struct {
	req      uint64 // 0: none
	resource string // raw
	cancel   context.CancelFunc
}

// newLockOps returns the lock commands, writing through locker (nil: none), telling owner (nil: nobody) of
// our locks and deletions, and running requests within ctx.
func newLockOps(sh *shared, locker *redlock.Client, owner Ownership, ctx context.Context, production bool,
	ttl time.Duration) *lockOps {
	ops := &lockOps{keyTable: keyTable{sh: sh}, locker: locker, owner: owner, ctx: ctx, production: production, ttl: ttl}
	k := sh.keys
	blocked := func(what string) func() string { return func() string { return ops.writeBlocked(what) } }
	ops.actions = []action{
		{binding: &k.Acquire, can: blocked("acquiring"), mode: blocked("acquiring"), do: ops.openAcquire},
		{binding: &k.Extend, can: ops.ownGuard("extend", "extending"), mode: blocked("extending"), do: ops.extend},
		{binding: &k.Release, can: ops.ownGuard("release", "releasing"), mode: blocked("releasing"), do: ops.release},
		{binding: &k.AutoExtend, can: ops.ownGuard("auto-extend", "auto-extending"), mode: blocked("auto-extending"),
			do: ops.toggleAuto},
		{binding: &k.Delete, can: ops.deleteGuard, mode: blocked("force-deleting"), do: ops.openDelete},
	}
	return ops
}

// update applies the result of a write command to the lock or dialog it answers, and the ticks that refresh
// our locks; it takes in the selection and the snapshots, which may withdraw a confirmation. The root hands it
// every message but keys, which go to run.
func (ops *lockOps) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case stateMsg:
		ops.sel = msg
	case tickMsg:
		ops.refreshOurs()
	case quittingMsg:
		if a := ops.acquiring; a.req != 0 {
			a.cancel() // an acquire won as it is cancelled is released again (see acquireCmd)
		}
	case acquireMsg:
		return ops.acquire(msg)
	case cancelAcquireMsg:
		if a := ops.acquiring; a.req == msg.req {
			a.cancel()
			ops.acquiring = acquiring{}
			ops.sh.act(events.KindAcquireCancelled, a.resource, "", "acquire of %s cancelled", kit.Sanitize(a.resource, kit.NameCap))
		}
	case deleteMsg:
		return ops.delete(msg)
	case acquireProgressMsg:
		return ops.onAcquireProgress(msg)
	case acquireResultMsg:
		ops.onAcquired(msg)
	case extendResultMsg:
		ops.onExtended(msg)
	case releaseResultMsg:
		ops.onReleased(msg)
	case keeperMsg:
		return ops.onKeeper(msg)
	case keeperEndedMsg:
		ops.onKeeperEnded(msg)
	case deleteResultMsg:
		ops.onDeleted(msg)
	}
	return nil
}

// ownGuard is the guard of a key that acts on one of our locks (verb: "extend", what: "extending"): writing
// must be allowed, and a lock of ours selected.
func (ops *lockOps) ownGuard(verb, what string) func() string {
	return func() string {
		if why := ops.writeBlocked(what); why != "" {
			return why
		}
		if _, why := ops.targetOwn(); why != "" {
			return verb + ": " + why
		}
		return ""
	}
}

// deleteGuard is the guard of Delete: a lock selected in the locks panel, writing allowed, and a token on it
// that is not ours (a free lock has none).
func (ops *lockOps) deleteGuard() string {
	row := ops.sel.row
	switch {
	case row == nil || ops.sel.mode.focus != focusLocks:
		return "delete: select a lock in the locks panel first"
	case ops.writeBlocked("force-deleting") != "":
		return ops.writeBlocked("force-deleting")
	case row.lv.Free():
		return "delete: " + row.name + " is free: no master has its key"
	case len(ops.foreignTokens(row)) == 0:
		return "delete: " + row.name + " is ours: " + ops.sh.keys.Release.Help().Key + " releases it"
	}
	return ""
}

// targetOwn is the lock of ours that Extend, Release and AutoExtend act on: the one under the cursor of our
// locks panel, or ours for the resource under the locks panel's cursor. It says why when there is none.
func (ops *lockOps) targetOwn() (*ownLock, string) {
	switch ops.sel.mode.focus {
	case focusOurs:
		if o := ops.sel.own; o != nil {
			return o, ""
		}
		return nil, "we hold no lock"
	case focusLocks:
		if row := ops.sel.row; row != nil {
			if o := ops.byResource(row.lv.Resource); o != nil {
				return o, ""
			}
			return nil, "the selected lock is not ours: select one of ours (" + ops.sh.keys.NextPanel.Help().Key +
				" to our locks)"
		}
	}
	return nil, "select one of our locks first"
}

// find returns our entry for lock l, or nil: results are applied only to the lock they were issued for.
func (ops *lockOps) find(l *redlock.Lock) *ownLock {
	for _, o := range ops.own {
		if o.lock == l {
			return o
		}
	}
	return nil
}

// byResource returns our newest entry for a raw resource name, or nil.
func (ops *lockOps) byResource(resource string) *ownLock {
	for i := len(ops.own) - 1; i >= 0; i-- {
		if ops.own[i].lock.Resource() == resource {
			return ops.own[i]
		}
	}
	return nil
}

// changed tells the our-locks panel what our locks are now.
func (ops *lockOps) changed() { ops.sh.tell(oursMsg{locks: slices.Clone(ops.own)}) }

// openAcquire opens the acquire form.
func (ops *lockOps) openAcquire(tea.KeyMsg) tea.Cmd {
	ops.sh.tell(openModalMsg{newAcquireForm(ops.sh, ops.ttl)})
	return nil
}

// acquire issues the acquire request the form asks for, and tells the form it runs.
func (ops *lockOps) acquire(msg acquireMsg) tea.Cmd {
	ops.reqs++
	ctx, cancel := context.WithCancel(ops.ctx)
	progress := make(chan acquireProgressMsg, 1)
	cmd := ops.issue("acquiring", acquireCmd(ctx, ops.reqs, msg.resource, msg.ttl, progress))
	if cmd == nil {
		cancel()
		return nil
	}
	ops.acquiring = acquiring{req: ops.reqs, resource: msg.resource, cancel: cancel}
	ops.sh.tell(acquireStartedMsg{req: ops.reqs, started: ops.sh.now()})
	ops.ttl = msg.ttl
	ops.sh.act(events.KindAcquiring, msg.resource, "", "acquiring %s for %v…", kit.Sanitize(msg.resource, kit.NameCap), msg.ttl)
	return tea.Batch(cmd, waitAcquireProgress(progress))
}

// onAcquireProgress waits for the next failed round of an acquire request (the form shows this one).
func (ops *lockOps) onAcquireProgress(msg acquireProgressMsg) tea.Cmd {
	return waitAcquireProgress(msg.next)
}

// onAcquired applies an acquire result; a lock won for a form since closed is still recorded as ours, so it
// is never forgotten. The form that asked for it, still open, shows a failure itself.
func (ops *lockOps) onAcquired(msg acquireResultMsg) {
	name := kit.Sanitize(msg.resource, kit.NameCap)
	current := ops.acquiring.req != 0 && ops.acquiring.req == msg.req
	if current {
		ops.acquiring.cancel()
		ops.acquiring = acquiring{}
	}
	switch {
	case msg.lock == nil && msg.cancelled:
		ops.sh.act(events.KindAcquireCancelled, msg.resource, "", "acquire of %s cancelled; nothing held", name)
		return
	case msg.lock == nil:
		reason, rv := failure(msg.err)
		ops.sh.act(events.KindAcquireFailed, msg.resource, "", "acquire %s failed: %s%s", name, reason, prefixed(" · ", rv.detail()))
		if !current {
			ops.sh.tellStatus(monitor.SeverityError, "acquire "+name+" failed: "+reason)
		}
		return
	}
	now := ops.sh.now()
	o := newOwnLock(msg.lock, now)
	ops.own = append(ops.own, o)
	ops.changed()
	if ops.owner != nil {
		ops.owner.Acquired(msg.lock.Resource(), msg.lock.Token(), now, msg.lock.TTL())
	}
	ops.tellValid(o)
	if msg.cancelled { // won as it was cancelled, and the release that followed was not confirmed
		o.validUntil = now.Add(msg.validity)
		ops.releaseUnconfirmed(o, msg.releaseErr, "acquire of "+name+" cancelled, but the lock was won and ")
		return
	}
	ops.sh.act(events.KindAcquired, msg.resource, msg.lock.Token(), "acquired %s %v, valid %s: %s · %s", name,
		msg.lock.Acquisition(), kit.Dur(o.last.validity), o.last.summary(), o.last.detail())
	ops.sh.tellStatus(monitor.SeverityInfo, fmt.Sprintf("acquired %s (valid %s)", name, kit.Dur(o.last.validity)))
}

// extend issues an extension of the target lock by its TTL.
func (ops *lockOps) extend(tea.KeyMsg) tea.Cmd {
	o, _ := ops.targetOwn()
	if o.busy != "" {
		ops.sh.tellStatus(monitor.SeverityWarning, o.name+" is already "+o.busy)
		return nil
	}
	if why := o.unextendable(ops.sh.keys.Release.Help().Key); why != "" {
		ops.sh.tellStatus(monitor.SeverityWarning, "extend: "+why)
		return nil
	}
	cmd := ops.issue("extending", extendCmd(ops.ctx, o.lock, o.ttl))
	if cmd != nil {
		o.busy = "extending"
	}
	return cmd
}

// onExtended applies an extension result to the lock it was issued for, wherever the cursor is now.
func (ops *lockOps) onExtended(msg extendResultMsg) {
	o := ops.find(msg.lock)
	if o == nil {
		ops.sh.logf(monitor.SeverityInfo, msg.lock.Resource(), "extend result for %s arrived after it was released; ignored",
			kit.Sanitize(msg.lock.Resource(), kit.NameCap))
		return
	}
	o.busy = ""
	ops.sh.tellLog(o.refresh(ops.sh.now())...)
	ops.tellValid(o)
	switch {
	case msg.err == nil:
		o.extendFailed = ""
		ops.sh.act(events.KindExtended, msg.lock.Resource(), msg.lock.Token(), "extended %s, valid %s: %s · %s", o.name, kit.Dur(o.last.validity),
			o.last.summary(), o.last.detail())
		ops.sh.tellStatus(monitor.SeverityInfo, "extended "+o.name)
	case errors.Is(msg.err, redlock.ErrExtendLimit):
		reason, _ := failure(msg.err)
		ops.sh.act(events.KindExtendFailed, msg.lock.Resource(), msg.lock.Token(), "extend %s refused: %s", o.name, reason)
		ops.sh.tellStatus(monitor.SeverityWarning, "extend "+o.name+" refused: "+reason)
	default:
		ops.extendFailure(o, "extend", msg.err)
	}
}

// extendFailure applies a failed extension (what: "extend", "auto-extend") of lock o: lost when the masters'
// answers prove it, and otherwise still ours, with the validity it had, since its keys may still hold.
func (ops *lockOps) extendFailure(o *ownLock, what string, err error) {
	reason, rv := failure(err)
	if redlock.CauseOf(err) == redlock.LossExpired { // its keys expire with it: shown expired, not taken
		if now := ops.sh.now(); o.validUntil.After(now) {
			o.validUntil = now
		}
		o.extendFailed = reason
		ops.sh.act(events.KindExtendFailed, o.lock.Resource(), o.lock.Token(), "%s %s: %s%s", what, o.name, reason,
			prefixed(" · ", rv.detail()))
		ops.sh.tellStatus(monitor.SeverityWarning, o.name+" expired: "+reason)
		return
	}
	if redlock.ProvesLost(err) {
		o.lost = reason
		ops.sh.act(events.KindLost, o.lock.Resource(), o.lock.Token(), "%s %s failed, LOST: %s%s", what, o.name, reason,
			prefixed(" · ", rv.detail()))
		ops.sh.tellStatus(monitor.SeverityError, "lost "+o.name+": "+reason)
		return
	}
	now := ops.sh.now()
	why := "failed"
	if rv.n > 0 {
		why = fmt.Sprintf("failed (%d of %d renewed, %d errors or timeouts)", rv.ok, rv.n, unanswered(rv))
	}
	o.extendFailed = why
	ops.sh.act(events.KindExtendFailed, o.lock.Resource(), o.lock.Token(), "%s %s %s; not lost: its keys may still hold, valid %s more%s", what,
		o.name, why, kit.Dur(o.left(now)), prefixed(" · ", rv.detail()))
	ops.sh.tellStatus(monitor.SeverityWarning, fmt.Sprintf("%s %s %s: not lost, valid %s more", what, o.name, why, kit.Dur(o.left(now))))
}

// release issues the release of the target lock.
func (ops *lockOps) release(tea.KeyMsg) tea.Cmd {
	o, _ := ops.targetOwn()
	if o.busy == "releasing" {
		ops.sh.tellStatus(monitor.SeverityWarning, o.name+" is already releasing")
		return nil
	}
	cmd := ops.issue("releasing", releaseCmd(ops.ctx, o.lock, o.keeper))
	if cmd != nil {
		o.busy = "releasing"
	}
	return cmd
}

// onReleased applies a release to the lock it was issued for: a confirmed release ends the lock, an
// unconfirmed one keeps it ours, with its validity counting down, until a retry is confirmed or it runs out.
func (ops *lockOps) onReleased(msg releaseResultMsg) {
	l := msg.lock
	name := kit.Sanitize(l.Resource(), kit.NameCap)
	o := ops.find(l)
	if o == nil {
		ops.sh.logf(monitor.SeverityInfo, l.Resource(), "release result for %s arrived after it ended; ignored", name)
		return
	}
	// Whether its validity had run out, read before the refresh: the release ends the client's hold.
	ranOut := o.left(ops.sh.now()) == 0
	o.busy, o.keeper = "", nil // the release stopped the keeper
	ops.sh.tellLog(o.refresh(ops.sh.now())...)
	if !redlock.ProvesReleased(msg.err) {
		ops.releaseUnconfirmed(o, msg.err, "")
		return
	}
	ops.endOwn(o)
	rv := viewRound(l.LastRound())
	if r, ok := errRound(msg.err); ok {
		rv = viewRound(r)
	}
	switch {
	case msg.err == nil:
		ops.sh.act(events.KindReleased, l.Resource(), l.Token(), "released %s: %s · %s", name, rv.summary(), rv.detail())
		ops.sh.tellStatus(monitor.SeverityInfo, "released "+name)
	case errors.Is(msg.err, redlock.ErrNotHeld) && o.unconfirmed != "":
		ops.sh.act(events.KindReleased, l.Resource(), l.Token(), "released %s: no master holds it any more (the unconfirmed release went "+
			"through, or it expired): %s", name, rv.detail())
		ops.sh.tellStatus(monitor.SeverityInfo, "released "+name+": no master holds it any more")
	case errors.Is(msg.err, redlock.ErrNotHeld) && ranOut:
		// Its validity had run out: its keys expired at their TTL, as the operator let them. Nothing to warn of.
		ops.sh.act(events.KindReleased, l.Resource(), l.Token(), "released %s: it had expired at its TTL: %s", name, rv.detail())
		ops.sh.tellStatus(monitor.SeverityInfo, "released "+name+": it had expired at its TTL")
	case errors.Is(msg.err, redlock.ErrNotHeld):
		ops.sh.act(events.KindReleasedLapsed, l.Resource(), l.Token(), "released %s: it was not held any more (expired): %s", name, rv.detail())
		ops.sh.tellStatus(monitor.SeverityWarning, "released "+name+": it had already expired")
	default:
		ops.sh.act(events.KindReleasedLapsed, l.Resource(), l.Token(), "released %s: enough masters confirmed that it holds no quorum; "+
			"keys left on the other %s expire with their TTL: %s · %s", name, kit.Plural(unanswered(rv), "master"),
			rv.summary(), rv.detail())
		ops.sh.tellStatus(monitor.SeverityWarning, fmt.Sprintf("released %s (%s did not confirm: keys there expire with their TTL)",
			name, kit.Plural(unanswered(rv), "master")))
	}
}

// releaseUnconfirmed records that the release of lock o was not confirmed: it stays ours until a retry is
// confirmed or its validity runs out. lead starts the log line ("acquire of x cancelled, but ...").
func (ops *lockOps) releaseUnconfirmed(o *ownLock, err error, lead string) {
	reason := "not confirmed"
	var rv roundView
	if err != nil {
		reason, rv = failure(err)
	}
	o.unconfirmed = reason
	key := ops.sh.keys.Release.Help().Key
	left := kit.Dur(o.left(ops.sh.now()))
	ops.sh.act(events.KindReleaseUnconfirmed, o.lock.Resource(), o.lock.Token(), "%srelease of %s unconfirmed: %s; it may hold for %s more: %s retries%s",
		lead, o.name, reason, left, key, prefixed(" · ", rv.detail()))
	ops.sh.tellStatus(monitor.SeverityWarning, fmt.Sprintf("release of %s unconfirmed: it may hold for %s more; %s retries", o.name,
		left, key))
}

// toggleAuto starts or stops auto-extension of the target lock.
func (ops *lockOps) toggleAuto(tea.KeyMsg) tea.Cmd {
	o, _ := ops.targetOwn()
	switch {
	case o.autoBusy:
		ops.sh.tellStatus(monitor.SeverityWarning, "auto-extension of "+o.name+" is already changing")
		return nil
	case o.keeper != nil:
		o.autoBusy = true
		return stopKeeper(o.lock, o.keeper)
	case !o.held || o.lost != "" || o.busy == "releasing":
		why := o.unextendable(ops.sh.keys.Release.Help().Key)
		if why == "" {
			why = o.name + " is not held"
		}
		ops.sh.tellStatus(monitor.SeverityWarning, "auto-extend: "+why)
		return nil
	}
	cmd := ops.issue("auto-extending", startKeeperCmd(o.lock))
	if cmd != nil {
		o.autoBusy = true
	}
	return cmd
}

// onKeeper records a keeper started or stopped for the lock it belongs to.
func (ops *lockOps) onKeeper(msg keeperMsg) tea.Cmd {
	o := ops.find(msg.lock)
	if o == nil {
		if msg.started { // the lock was released meanwhile: its keeper has no work
			return stopKeeper(msg.lock, msg.keeper)
		}
		return nil
	}
	o.autoBusy = false
	if msg.started {
		o.keeper = msg.keeper
		ops.sh.act(events.KindAutoExtendOn, msg.lock.Resource(), msg.lock.Token(), "auto-extend on for %s", o.name)
		ops.sh.tellStatus(monitor.SeverityInfo, "auto-extend on for "+o.name)
		return watchKeeper(msg.lock, msg.keeper)
	}
	if o.keeper == msg.keeper {
		o.keeper = nil
	}
	ops.sh.act(events.KindAutoExtendOff, msg.lock.Resource(), msg.lock.Token(), "auto-extend off for %s", o.name)
	ops.sh.tellStatus(monitor.SeverityInfo, "auto-extend off for "+o.name)
	return nil
}

// onKeeperEnded applies the failed extension its keeper reports, if any: lost only when the masters prove it.
func (ops *lockOps) onKeeperEnded(msg keeperEndedMsg) {
	o := ops.find(msg.lock)
	if o == nil || o.keeper != msg.keeper {
		return
	}
	o.keeper = nil
	if msg.err == nil {
		return
	}
	ops.sh.tellLog(o.refresh(ops.sh.now())...)
	ops.extendFailure(o, "auto-extend", msg.err)
}

// openDelete opens the confirmation to force-delete the selected lock, which must not be ours.
func (ops *lockOps) openDelete(tea.KeyMsg) tea.Cmd {
	row := ops.sel.row
	ops.reqs++
	ops.sh.tell(openModalMsg{newDeleteConfirm(ops.sh, ops.reqs, row, ops.foreignTokens(row))})
	return nil
}

// delete issues the force-delete the confirmation asks for.
func (ops *lockOps) delete(msg deleteMsg) tea.Cmd {
	cmd := ops.issue("force-deleting", deleteCmd(ops.ctx, msg))
	if cmd == nil {
		ops.sh.tell(refusedMsg{req: msg.req})
		return nil
	}
	if ops.owner != nil {
		ops.owner.Deleting(msg.resource, msg.tokens...) // its keys going is this deletion, not a release
		for _, k := range msg.others {
			ops.owner.Deleting(k, msg.lead)
		}
	}
	what := strings.Join(msg.shown, ", ")
	if len(msg.others) > 0 {
		what += " · with " + kit.Sanitize(strings.Join(msg.others, ", "), kit.TextCap) + ", the same lock"
	}
	ops.sh.act(events.KindForceDeleting, msg.resource, "", "force-deleting %s (%s)…", msg.name, what)
	return cmd
}

// foreignTokens are the distinct tokens of a lock row that are not ours.
func (ops *lockOps) foreignTokens(row *lockRow) []string {
	var tokens []string
	for _, c := range row.lv.Masters {
		if !c.Present() {
			continue
		}
		mine := false
		for _, o := range ops.own {
			if o.lock.Resource() == row.lv.Resource && o.lock.Token() == c.Token {
				mine = true
			}
		}
		seen := false
		for _, t := range tokens {
			seen = seen || t == c.Token
		}
		if !mine && !seen {
			tokens = append(tokens, c.Token)
		}
	}
	return tokens
}

// onDeleted logs a force-delete's rounds (its confirmation closes itself).
func (ops *lockOps) onDeleted(msg deleteResultMsg) {
	name := kit.Sanitize(msg.resource, kit.NameCap)
	deleted, gone := 0, 0
	for i, r := range msg.rounds {
		rv := viewRound(r)
		res, raw := msg.resource, msg.lead // a round past the tokens' is another key of the same lock
		if i < len(msg.tokens) {
			raw = msg.tokens[i]
		} else {
			res = msg.others[i-len(msg.tokens)]
		}
		key, token := kit.Sanitize(res, kit.NameCap), strings.TrimRight(kit.Fit(kit.Sanitize(raw, kit.NameCap), shortToken), " ")
		deleted += r.OK
		switch err := msg.errs[i]; {
		case err == nil:
			ops.sh.act(events.KindForceDeleted, res, raw, "deleted %s token %s from %s: %s", key, token,
				kit.Plural(r.OK, "master"), rv.detail())
		case errors.Is(err, redlock.ErrNotHeld):
			gone++
			ops.sh.act(events.KindForceDeleteFailed, res, raw, "delete %s token %s: no master held it any more", key, token)
		default:
			reason, _ := failure(err)
			ops.sh.act(events.KindForceDeleteFailed, res, raw, "delete %s token %s: %s · %s", key, token, reason, rv.detail())
		}
	}
	switch {
	case gone == len(msg.rounds):
		ops.sh.tellStatus(monitor.SeverityWarning, "force-delete "+name+": nothing deleted: no master held those tokens any more")
	case msg.holder:
		ops.sh.tellStatus(monitor.SeverityInfo, fmt.Sprintf("force-delete %s: the holder removed from %s", name, kit.Plural(deleted, "master")))
	default:
		ops.sh.tellStatus(monitor.SeverityInfo, fmt.Sprintf("force-delete %s: %s deleted", name, kit.Plural(deleted, "key")))
	}
}

// tellValid tells the register the validity lock o is held with, once after it is acquired and after each
// extension: the monitor tells our token gone after it as an expiry at the TTL, not a loss.
func (ops *lockOps) tellValid(o *ownLock) {
	if ops.owner == nil || !o.held || o.toldValid == o.extensions {
		return
	}
	o.toldValid = o.extensions
	ops.owner.Valid(o.lock.Resource(), o.lock.Token(), o.validUntil)
}

// endOwn drops one of our locks that has ended (released, or run out), here and in the register.
func (ops *lockOps) endOwn(o *ownLock) {
	if i := slices.Index(ops.own, o); i >= 0 {
		ops.own = slices.Delete(ops.own, i, i+1)
		ops.changed()
	}
	if ops.owner != nil {
		ops.owner.Ended(o.lock.Resource(), o.lock.Token())
	}
}

// refreshOurs copies our locks' state (in memory) and logs what their keepers did. A lock whose release was
// not confirmed ends here when its validity runs out: its keys expire with their TTL.
func (ops *lockOps) refreshOurs() {
	now := ops.sh.now()
	var ended []*ownLock
	for _, o := range ops.own {
		ops.sh.tellLog(o.refresh(now)...)
		ops.tellValid(o)
		if o.unconfirmed != "" && o.busy == "" && o.left(now) == 0 {
			ended = append(ended, o)
		}
	}
	for _, o := range ended {
		ops.endOwn(o)
		ops.sh.act(events.KindReleasedLapsed, o.lock.Resource(), o.lock.Token(), "%s: its release was never confirmed and its validity ran out: the "+
			"lock has ended, keys left on masters expire with their TTL", o.name)
	}
}

// writeBlocked says why a write command (what: "acquiring", ...) may not run, or returns "" when it may. It
// reads read-only from the options the dashboard was built with (the mode derives it from them too), so that
// the guard of issue depends on no message having arrived.
func (ops *lockOps) writeBlocked(what string) string {
	switch {
	case ops.sh.readOnly && ops.production:
		return what + " is disabled: a production profile runs read-only (--read-only=false overrides)"
	case ops.sh.readOnly:
		return what + " is disabled: the dashboard runs read-only (--read-only)"
	case ops.locker == nil:
		return what + " is unavailable: no Redlock client"
	}
	return ""
}

// issue is the one place where commands that write to the masters leave the dashboard: acquiring, extending,
// auto-extending, releasing and force-deleting all pass here. In read-only mode nothing passes: the status line
// says why and issue returns nil.
func (ops *lockOps) issue(what string, run func(c *redlock.Client) tea.Msg) tea.Cmd {
	if why := ops.writeBlocked(what); why != "" {
		ops.sh.tellStatus(monitor.SeverityWarning, why)
		return nil
	}
	c := ops.locker
	return func() tea.Msg { return run(c) }
}

// releaseAll releases every lock we hold, for the dashboard to quit when it is done; nil when we hold none or
// writing is blocked, and the dashboard may quit at once.
func (ops *lockOps) releaseAll() tea.Cmd {
	if len(ops.own) == 0 {
		return nil
	}
	cmd := ops.issue("releasing", releaseAllCmd(ops.own, ops.sh.now()))
	if cmd != nil {
		ops.sh.tellStatus(monitor.SeverityInfo, fmt.Sprintf("releasing %s before quitting…", kit.Plural(len(ops.own), "lock")))
	}
	return cmd
}

// heldNames are the names (sanitized) of the locks the dashboard acquired and may still hold: those quitting
// releases.
func (ops *lockOps) heldNames() []string {
	now := ops.sh.now()
	var names []string
	for _, o := range ops.own {
		if o.left(now) > 0 {
			names = append(names, o.name)
		}
	}
	return names
}

// quitReleased applies how releasing our locks at quit went and returns the summary. A lock whose release was
// not confirmed and whose validity has not run out is still held: it stays ours, and the summary counts it.
func (ops *lockOps) quitReleased(msg quitMsg) string {
	now := ops.sh.now()
	released, gone := 0, 0
	for _, res := range msg.results {
		o := ops.find(res.lock)
		switch {
		case o == nil: // ended on a tick while quitting
			gone++
		case redlock.ProvesReleased(res.err):
			ops.endOwn(o)
			if errors.Is(res.err, redlock.ErrNotHeld) {
				gone++
			} else {
				released++
			}
		case o.left(now) == 0:
			ops.endOwn(o)
			gone++
		default:
			reason, _ := failure(res.err)
			o.unconfirmed = reason
			ops.sh.act(events.KindReleaseUnconfirmed, res.lock.Resource(), res.lock.Token(), "release of %s unconfirmed after %s: %s", o.name,
				kit.Plural(res.attempts, "attempt"), reason)
		}
	}
	held, left := 0, time.Duration(0) // also counts a lock won by an acquire cancelled as the quit began
	for _, o := range ops.own {
		if o.left(now) > 0 {
			held++
			left = max(left, o.left(now))
		}
	}
	s := "released " + kit.Plural(released, "lock")
	if gone > 0 {
		s += fmt.Sprintf(" (%d no longer held)", gone)
	}
	s += fmt.Sprintf("; %d still held", held)
	if held > 0 {
		s += fmt.Sprintf(": release unconfirmed, held until the TTL runs out (at most %s)", kit.Dur(left))
	}
	return s
}

// summary describes the locks that may still hold, for a quit that released nothing; why explains a forced
// quit.
func (ops *lockOps) summary(why string) string {
	now := ops.sh.now()
	held, unconfirmed := 0, 0
	for _, o := range ops.own {
		if o.left(now) > 0 {
			held++
			if o.unconfirmed != "" {
				unconfirmed++
			}
		}
	}
	var s string
	switch {
	case ops.sh.readOnly:
		s = "read-only: no locks taken"
	case held == 0:
		s = "no locks held"
	default:
		s = fmt.Sprintf("released 0 locks; %d still held until the TTL runs out", held)
		if unconfirmed > 0 {
			s += fmt.Sprintf(", %d of them with the release unconfirmed", unconfirmed)
		}
	}
	if why != "" {
		s += " (" + why + ")"
	}
	return s
}

// unextendable says why lock o cannot be extended ("" when it can): its release was asked for. (After an
// extension that failed with errors the lock is still held, and may be extended again.) releaseKey names the
// key that releases it.
func (o *ownLock) unextendable(releaseKey string) string {
	if o.unconfirmed != "" {
		return o.name + " is being released (release unconfirmed): " + releaseKey + " tries the release again"
	}
	return ""
}
