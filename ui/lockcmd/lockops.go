package lockcmd

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
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// LockOps is the controller that writes to the masters and keeps our locks; the root calls it (it is no
// component: it has no area on the screen). It takes the keys that act on locks (Acquire, Extend, Release,
// AutoExtend, Delete), opens the acquire form and the force-delete confirmation and carries out what they ask,
// issues every write command, applies their results to our locks, and tells the our-locks panel when they
// change. Which lock a key acts on comes from the selection the root sends (StateMsg).
type LockOps struct {
	kit.KeyTable
	locker *redlock.Client
	owner  Ownership // nil: nobody is told
	ctx    context.Context
	// production: the masters come from a production profile, which is why the dashboard may be read-only
	production bool
	ttl        time.Duration  // the acquire form's TTL: the last one used
	reqs       uint64         // request counter: every acquire and delete request has its own id
	own        []*kit.OwnLock // our locks, in order of acquisition
	sel        kit.StateMsg   // what the panels have selected: the lock a key acts on
	acquiring  acquiring      // the acquire request of the form, if one runs
}

// acquiring is the acquire request the form waits for.
type acquiring struct {
	req      uint64 // 0: none
	resource string // raw
	cancel   context.CancelFunc
}

// NewLockOps returns the lock commands, writing through locker (nil: none), telling owner (nil: nobody) of
// our locks and deletions, and running requests within ctx.
func NewLockOps(sh *kit.Shared, locker *redlock.Client, owner Ownership, ctx context.Context, production bool,
	ttl time.Duration) *LockOps {
	ops := &LockOps{KeyTable: kit.KeyTable{Shared: sh}, locker: locker, owner: owner, ctx: ctx, production: production, ttl: ttl}
	k := sh.Keys
	blocked := func(what string) func() string { return func() string { return ops.WriteBlocked(what) } }
	ops.Actions = []kit.Action{
		{Binding: &k.Acquire, Can: blocked("acquiring"), Mode: blocked("acquiring"), Do: ops.openAcquire},
		{Binding: &k.Extend, Can: ops.ownGuard("extend", "extending"), Mode: blocked("extending"), Do: ops.extend},
		{Binding: &k.Release, Can: ops.ownGuard("release", "releasing"), Mode: blocked("releasing"), Do: ops.release},
		{Binding: &k.AutoExtend, Can: ops.ownGuard("auto-extend", "auto-extending"), Mode: blocked("auto-extending"),
			Do: ops.toggleAuto},
		{Binding: &k.Delete, Can: ops.deleteGuard, Mode: blocked("force-deleting"), Do: ops.openDelete},
	}
	return ops
}

// Update applies the result of a write command to the lock or dialog it answers, and the ticks that refresh
// our locks; it takes in the selection and the snapshots, which may withdraw a confirmation. The root hands it
// every message but keys, which go to run.
func (ops *LockOps) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case kit.StateMsg:
		ops.sel = msg
	case kit.TickMsg:
		ops.refreshOurs()
	case kit.QuittingMsg:
		if a := ops.acquiring; a.req != 0 {
			a.cancel() // an acquire won as it is cancelled is released again (see acquireCmd)
		}
	case kit.AcquireMsg:
		return ops.acquire(msg)
	case kit.CancelAcquireMsg:
		if a := ops.acquiring; a.req == msg.Req {
			a.cancel()
			ops.acquiring = acquiring{}
			ops.Shared.Act(events.KindAcquireCancelled, a.resource, "", "acquire of %s cancelled", kit.Sanitize(a.resource, kit.NameCap))
		}
	case kit.DeleteMsg:
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
func (ops *LockOps) ownGuard(verb, what string) func() string {
	return func() string {
		if why := ops.WriteBlocked(what); why != "" {
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
func (ops *LockOps) deleteGuard() string {
	row := ops.sel.Row
	switch {
	case row == nil || ops.sel.Mode.Focus != kit.FocusLocks:
		return "delete: select a lock in the locks panel first"
	case ops.WriteBlocked("force-deleting") != "":
		return ops.WriteBlocked("force-deleting")
	case row.Lv.Free():
		return "delete: " + row.Name + " is free: no master has its key"
	case len(ops.foreignTokens(row)) == 0:
		return "delete: " + row.Name + " is ours: " + ops.Shared.Keys.Release.Help().Key + " releases it"
	}
	return ""
}

// targetOwn is the lock of ours that Extend, Release and AutoExtend act on: the one under the cursor of our
// locks panel, or ours for the resource under the locks panel's cursor. It says why when there is none.
func (ops *LockOps) targetOwn() (*kit.OwnLock, string) {
	switch ops.sel.Mode.Focus {
	case kit.FocusOurs:
		if o := ops.sel.Own; o != nil {
			return o, ""
		}
		return nil, "we hold no lock"
	case kit.FocusLocks:
		if row := ops.sel.Row; row != nil {
			if o := ops.byResource(row.Lv.Resource); o != nil {
				return o, ""
			}
			return nil, "the selected lock is not ours: select one of ours (" + ops.Shared.Keys.NextPanel.Help().Key +
				" to our locks)"
		}
	}
	return nil, "select one of our locks first"
}

// find returns our entry for lock l, or nil: results are applied only to the lock they were issued for.
func (ops *LockOps) find(l *redlock.Lock) *kit.OwnLock {
	for _, o := range ops.own {
		if o.Lock == l {
			return o
		}
	}
	return nil
}

// byResource returns our newest entry for a raw resource name, or nil.
func (ops *LockOps) byResource(resource string) *kit.OwnLock {
	for i := len(ops.own) - 1; i >= 0; i-- {
		if ops.own[i].Lock.Resource() == resource {
			return ops.own[i]
		}
	}
	return nil
}

// changed tells the our-locks panel what our locks are now.
func (ops *LockOps) changed() { ops.Shared.Tell(kit.OursMsg{Locks: slices.Clone(ops.own)}) }

// openAcquire opens the acquire form.
func (ops *LockOps) openAcquire(tea.KeyMsg) tea.Cmd {
	ops.Shared.Tell(kit.OpenModalMsg{M: newAcquireForm(ops.Shared, ops.ttl)})
	return nil
}

// acquire issues the acquire request the form asks for, and tells the form it runs.
func (ops *LockOps) acquire(msg kit.AcquireMsg) tea.Cmd {
	ops.reqs++
	ctx, cancel := context.WithCancel(ops.ctx)
	progress := make(chan acquireProgressMsg, 1)
	cmd := ops.issue("acquiring", acquireCmd(ctx, ops.reqs, msg.Resource, msg.TTL, progress))
	if cmd == nil {
		cancel()
		return nil
	}
	ops.acquiring = acquiring{req: ops.reqs, resource: msg.Resource, cancel: cancel}
	ops.Shared.Tell(kit.AcquireStartedMsg{Req: ops.reqs, Started: ops.Shared.Now()})
	ops.ttl = msg.TTL
	ops.Shared.Act(events.KindAcquiring, msg.Resource, "", "acquiring %s for %v…", kit.Sanitize(msg.Resource, kit.NameCap), msg.TTL)
	return tea.Batch(cmd, waitAcquireProgress(progress))
}

// onAcquireProgress waits for the next failed round of an acquire request (the form shows this one).
func (ops *LockOps) onAcquireProgress(msg acquireProgressMsg) tea.Cmd {
	return waitAcquireProgress(msg.next)
}

// onAcquired applies an acquire result; a lock won for a form since closed is still recorded as ours, so it
// is never forgotten. The form that asked for it, still open, shows a failure itself.
func (ops *LockOps) onAcquired(msg acquireResultMsg) {
	name := kit.Sanitize(msg.resource, kit.NameCap)
	current := ops.acquiring.req != 0 && ops.acquiring.req == msg.req
	if current {
		ops.acquiring.cancel()
		ops.acquiring = acquiring{}
	}
	switch {
	case msg.lock == nil && msg.cancelled:
		ops.Shared.Act(events.KindAcquireCancelled, msg.resource, "", "acquire of %s cancelled; nothing held", name)
		return
	case msg.lock == nil:
		reason, rv := kit.Failure(msg.err)
		ops.Shared.Act(events.KindAcquireFailed, msg.resource, "", "acquire %s failed: %s%s", name, reason, kit.Prefixed(" · ", rv.Detail()))
		if !current {
			ops.Shared.TellStatus(monitor.SeverityError, "acquire "+name+" failed: "+reason)
		}
		return
	}
	now := ops.Shared.Now()
	o := kit.NewOwnLock(msg.lock, now)
	ops.own = append(ops.own, o)
	ops.changed()
	if ops.owner != nil {
		ops.owner.Acquired(msg.lock.Resource(), msg.lock.Token(), now, msg.lock.TTL())
	}
	ops.tellValid(o)
	if msg.cancelled { // won as it was cancelled, and the release that followed was not confirmed
		o.ValidUntil = now.Add(msg.validity)
		ops.releaseUnconfirmed(o, msg.releaseErr, "acquire of "+name+" cancelled, but the lock was won and ")
		return
	}
	ops.Shared.Act(events.KindAcquired, msg.resource, msg.lock.Token(), "acquired %s %v, valid %s: %s · %s", name,
		msg.lock.Acquisition(), vocab.ShortDuration(o.Last.Validity), o.Last.Summary(), o.Last.Detail())
	ops.Shared.TellStatus(monitor.SeverityInfo, fmt.Sprintf("acquired %s (valid %s)", name, vocab.ShortDuration(o.Last.Validity)))
}

// extend issues an extension of the target lock by its TTL.
func (ops *LockOps) extend(tea.KeyMsg) tea.Cmd {
	o, _ := ops.targetOwn()
	if o.Busy != "" {
		ops.Shared.TellStatus(monitor.SeverityWarning, o.Name+" is already "+o.Busy)
		return nil
	}
	if why := o.Unextendable(ops.Shared.Keys.Release.Help().Key); why != "" {
		ops.Shared.TellStatus(monitor.SeverityWarning, "extend: "+why)
		return nil
	}
	cmd := ops.issue("extending", extendCmd(ops.ctx, o.Lock, o.TTL))
	if cmd != nil {
		o.Busy = "extending"
	}
	return cmd
}

// onExtended applies an extension result to the lock it was issued for, wherever the cursor is now.
func (ops *LockOps) onExtended(msg extendResultMsg) {
	o := ops.find(msg.lock)
	if o == nil {
		ops.Shared.Logf(monitor.SeverityInfo, msg.lock.Resource(), "extend result for %s arrived after it was released; ignored",
			kit.Sanitize(msg.lock.Resource(), kit.NameCap))
		return
	}
	o.Busy = ""
	ops.Shared.TellLog(o.Refresh(ops.Shared.Now())...)
	ops.tellValid(o)
	switch {
	case msg.err == nil:
		o.ExtendFailed = ""
		ops.Shared.Act(events.KindExtended, msg.lock.Resource(), msg.lock.Token(), "extended %s, valid %s: %s · %s", o.Name, vocab.ShortDuration(o.Last.Validity),
			o.Last.Summary(), o.Last.Detail())
		ops.Shared.TellStatus(monitor.SeverityInfo, "extended "+o.Name)
	case errors.Is(msg.err, redlock.ErrExtendLimit):
		reason, _ := kit.Failure(msg.err)
		ops.Shared.Act(events.KindExtendFailed, msg.lock.Resource(), msg.lock.Token(), "extend %s refused: %s", o.Name, reason)
		ops.Shared.TellStatus(monitor.SeverityWarning, "extend "+o.Name+" refused: "+reason)
	default:
		ops.extendFailure(o, "extend", msg.err)
	}
}

// extendFailure applies a failed extension (what: "extend", "auto-extend") of lock o: lost when the masters'
// answers prove it, and otherwise still ours, with the validity it had, since its keys may still hold.
func (ops *LockOps) extendFailure(o *kit.OwnLock, what string, err error) {
	reason, rv := kit.Failure(err)
	if redlock.CauseOf(err) == redlock.LossExpired { // its keys expire with it: shown expired, not taken
		if now := ops.Shared.Now(); o.ValidUntil.After(now) {
			o.ValidUntil = now
		}
		o.ExtendFailed = reason
		ops.Shared.Act(events.KindExtendFailed, o.Lock.Resource(), o.Lock.Token(), "%s %s: %s%s", what, o.Name, reason,
			kit.Prefixed(" · ", rv.Detail()))
		ops.Shared.TellStatus(monitor.SeverityWarning, o.Name+" expired: "+reason)
		return
	}
	if redlock.ProvesLost(err) {
		o.Lost = reason
		ops.Shared.Act(events.KindLost, o.Lock.Resource(), o.Lock.Token(), "%s %s failed, LOST: %s%s", what, o.Name, reason,
			kit.Prefixed(" · ", rv.Detail()))
		ops.Shared.TellStatus(monitor.SeverityError, "lost "+o.Name+": "+reason)
		return
	}
	now := ops.Shared.Now()
	why := "failed"
	if rv.N > 0 {
		why = fmt.Sprintf("failed (%d of %d renewed, %d errors or timeouts)", rv.OK, rv.N, kit.Unanswered(rv))
	}
	o.ExtendFailed = why
	ops.Shared.Act(events.KindExtendFailed, o.Lock.Resource(), o.Lock.Token(), "%s %s %s; not lost: its keys may still hold, valid %s more%s", what,
		o.Name, why, vocab.ShortDuration(o.Left(now)), kit.Prefixed(" · ", rv.Detail()))
	ops.Shared.TellStatus(monitor.SeverityWarning, fmt.Sprintf("%s %s %s: not lost, valid %s more", what, o.Name, why, vocab.ShortDuration(o.Left(now))))
}

// release issues the release of the target lock.
func (ops *LockOps) release(tea.KeyMsg) tea.Cmd {
	o, _ := ops.targetOwn()
	if o.Busy == "releasing" {
		ops.Shared.TellStatus(monitor.SeverityWarning, o.Name+" is already releasing")
		return nil
	}
	cmd := ops.issue("releasing", releaseCmd(ops.ctx, o.Lock, o.Keeper))
	if cmd != nil {
		o.Busy = "releasing"
	}
	return cmd
}

// onReleased applies a release to the lock it was issued for: a confirmed release ends the lock, an
// unconfirmed one keeps it ours, with its validity counting down, until a retry is confirmed or it runs out.
func (ops *LockOps) onReleased(msg releaseResultMsg) {
	l := msg.lock
	name := kit.Sanitize(l.Resource(), kit.NameCap)
	o := ops.find(l)
	if o == nil {
		ops.Shared.Logf(monitor.SeverityInfo, l.Resource(), "release result for %s arrived after it ended; ignored", name)
		return
	}
	// Whether its validity had run out, read before the refresh: the release ends the client's hold.
	ranOut := o.Left(ops.Shared.Now()) == 0
	o.Busy, o.Keeper = "", nil // the release stopped the keeper
	ops.Shared.TellLog(o.Refresh(ops.Shared.Now())...)
	if !redlock.ProvesReleased(msg.err) {
		ops.releaseUnconfirmed(o, msg.err, "")
		return
	}
	ops.endOwn(o)
	rv := kit.ViewRound(l.LastRound())
	if r, ok := kit.ErrRound(msg.err); ok {
		rv = kit.ViewRound(r)
	}
	switch {
	case msg.err == nil:
		ops.Shared.Act(events.KindReleased, l.Resource(), l.Token(), "released %s: %s · %s", name, rv.Summary(), rv.Detail())
		ops.Shared.TellStatus(monitor.SeverityInfo, "released "+name)
	case errors.Is(msg.err, redlock.ErrNotHeld) && o.Unconfirmed != "":
		ops.Shared.Act(events.KindReleased, l.Resource(), l.Token(), "released %s: no master holds it any more (the unconfirmed release went "+
			"through, or it expired): %s", name, rv.Detail())
		ops.Shared.TellStatus(monitor.SeverityInfo, "released "+name+": no master holds it any more")
	case errors.Is(msg.err, redlock.ErrNotHeld) && ranOut:
		// Its validity had run out: its keys expired at their TTL, as the operator let them. Nothing to warn of.
		ops.Shared.Act(events.KindReleased, l.Resource(), l.Token(), "released %s: it had expired at its TTL: %s", name, rv.Detail())
		ops.Shared.TellStatus(monitor.SeverityInfo, "released "+name+": it had expired at its TTL")
	case errors.Is(msg.err, redlock.ErrNotHeld):
		ops.Shared.Act(events.KindReleasedLapsed, l.Resource(), l.Token(), "released %s: it was not held any more (expired): %s", name, rv.Detail())
		ops.Shared.TellStatus(monitor.SeverityWarning, "released "+name+": it had already expired")
	default:
		ops.Shared.Act(events.KindReleasedLapsed, l.Resource(), l.Token(), "released %s: enough masters confirmed that it holds no quorum; "+
			"keys left on the other %s expire with their TTL: %s · %s", name, kit.Plural(kit.Unanswered(rv), "master"),
			rv.Summary(), rv.Detail())
		ops.Shared.TellStatus(monitor.SeverityWarning, fmt.Sprintf("released %s (%s did not confirm: keys there expire with their TTL)",
			name, kit.Plural(kit.Unanswered(rv), "master")))
	}
}

// releaseUnconfirmed records that the release of lock o was not confirmed: it stays ours until a retry is
// confirmed or its validity runs out. lead starts the log line ("acquire of x cancelled, but ...").
func (ops *LockOps) releaseUnconfirmed(o *kit.OwnLock, err error, lead string) {
	reason := "not confirmed"
	var rv kit.RoundView
	if err != nil {
		reason, rv = kit.Failure(err)
	}
	o.Unconfirmed = reason
	key := ops.Shared.Keys.Release.Help().Key
	left := vocab.ShortDuration(o.Left(ops.Shared.Now()))
	ops.Shared.Act(events.KindReleaseUnconfirmed, o.Lock.Resource(), o.Lock.Token(), "%srelease of %s unconfirmed: %s; it may hold for %s more: %s retries%s",
		lead, o.Name, reason, left, key, kit.Prefixed(" · ", rv.Detail()))
	ops.Shared.TellStatus(monitor.SeverityWarning, fmt.Sprintf("release of %s unconfirmed: it may hold for %s more; %s retries", o.Name,
		left, key))
}

// toggleAuto starts or stops auto-extension of the target lock.
func (ops *LockOps) toggleAuto(tea.KeyMsg) tea.Cmd {
	o, _ := ops.targetOwn()
	switch {
	case o.AutoBusy:
		ops.Shared.TellStatus(monitor.SeverityWarning, "auto-extension of "+o.Name+" is already changing")
		return nil
	case o.Keeper != nil:
		o.AutoBusy = true
		return stopKeeper(o.Lock, o.Keeper)
	case !o.Held || o.Lost != "" || o.Busy == "releasing":
		why := o.Unextendable(ops.Shared.Keys.Release.Help().Key)
		if why == "" {
			why = o.Name + " is not held"
		}
		ops.Shared.TellStatus(monitor.SeverityWarning, "auto-extend: "+why)
		return nil
	}
	cmd := ops.issue("auto-extending", startKeeperCmd(o.Lock))
	if cmd != nil {
		o.AutoBusy = true
	}
	return cmd
}

// onKeeper records a keeper started or stopped for the lock it belongs to.
func (ops *LockOps) onKeeper(msg keeperMsg) tea.Cmd {
	o := ops.find(msg.lock)
	if o == nil {
		if msg.started { // the lock was released meanwhile: its keeper has no work
			return stopKeeper(msg.lock, msg.keeper)
		}
		return nil
	}
	o.AutoBusy = false
	if msg.started {
		o.Keeper = msg.keeper
		ops.Shared.Act(events.KindAutoExtendOn, msg.lock.Resource(), msg.lock.Token(), "auto-extend on for %s", o.Name)
		ops.Shared.TellStatus(monitor.SeverityInfo, "auto-extend on for "+o.Name)
		return watchKeeper(msg.lock, msg.keeper)
	}
	if o.Keeper == msg.keeper {
		o.Keeper = nil
	}
	ops.Shared.Act(events.KindAutoExtendOff, msg.lock.Resource(), msg.lock.Token(), "auto-extend off for %s", o.Name)
	ops.Shared.TellStatus(monitor.SeverityInfo, "auto-extend off for "+o.Name)
	return nil
}

// onKeeperEnded applies the failed extension its keeper reports, if any: lost only when the masters prove it.
func (ops *LockOps) onKeeperEnded(msg keeperEndedMsg) {
	o := ops.find(msg.lock)
	if o == nil || o.Keeper != msg.keeper {
		return
	}
	o.Keeper = nil
	if msg.err == nil {
		return
	}
	ops.Shared.TellLog(o.Refresh(ops.Shared.Now())...)
	ops.extendFailure(o, "auto-extend", msg.err)
}

// openDelete opens the confirmation to force-delete the selected lock, which must not be ours.
func (ops *LockOps) openDelete(tea.KeyMsg) tea.Cmd {
	row := ops.sel.Row
	ops.reqs++
	ops.Shared.Tell(kit.OpenModalMsg{M: newDeleteConfirm(ops.Shared, ops.reqs, row, ops.foreignTokens(row))})
	return nil
}

// delete issues the force-delete the confirmation asks for.
func (ops *LockOps) delete(msg kit.DeleteMsg) tea.Cmd {
	cmd := ops.issue("force-deleting", deleteCmd(ops.ctx, msg))
	if cmd == nil {
		ops.Shared.Tell(kit.RefusedMsg{Req: msg.Req})
		return nil
	}
	if ops.owner != nil {
		ops.owner.Deleting(msg.Resource, msg.Tokens...) // its keys going is this deletion, not a release
		for _, k := range msg.Others {
			ops.owner.Deleting(k, msg.Lead)
		}
	}
	what := strings.Join(msg.Shown, ", ")
	if len(msg.Others) > 0 {
		what += " · with " + kit.Sanitize(strings.Join(msg.Others, ", "), kit.TextCap) + ", the same lock"
	}
	ops.Shared.Act(events.KindForceDeleting, msg.Resource, "", "force-deleting %s (%s)…", msg.Name, what)
	return cmd
}

// foreignTokens are the distinct tokens of a lock row that are not ours.
func (ops *LockOps) foreignTokens(row *kit.LockRow) []string {
	var tokens []string
	for _, c := range row.Lv.Masters {
		if !c.Present() {
			continue
		}
		mine := false
		for _, o := range ops.own {
			if o.Lock.Resource() == row.Lv.Resource && o.Lock.Token() == c.Token {
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
func (ops *LockOps) onDeleted(msg deleteResultMsg) {
	name := kit.Sanitize(msg.resource, kit.NameCap)
	deleted, gone := 0, 0
	for i, r := range msg.rounds {
		rv := kit.ViewRound(r)
		res, raw := msg.resource, msg.lead // a round past the tokens' is another key of the same lock
		if i < len(msg.tokens) {
			raw = msg.tokens[i]
		} else {
			res = msg.others[i-len(msg.tokens)]
		}
		key, token := kit.Sanitize(res, kit.NameCap), strings.TrimRight(kit.Fit(kit.Sanitize(raw, kit.NameCap), kit.ShortToken), " ")
		deleted += r.OK
		switch err := msg.errs[i]; {
		case err == nil:
			ops.Shared.Act(events.KindForceDeleted, res, raw, "deleted %s token %s from %s: %s", key, token,
				kit.Plural(r.OK, "master"), rv.Detail())
		case errors.Is(err, redlock.ErrNotHeld):
			gone++
			ops.Shared.Act(events.KindForceDeleteFailed, res, raw, "delete %s token %s: no master held it any more", key, token)
		default:
			reason, _ := kit.Failure(err)
			ops.Shared.Act(events.KindForceDeleteFailed, res, raw, "delete %s token %s: %s · %s", key, token, reason, rv.Detail())
		}
	}
	switch {
	case gone == len(msg.rounds):
		ops.Shared.TellStatus(monitor.SeverityWarning, "force-delete "+name+": nothing deleted: no master held those tokens any more")
	case msg.holder:
		ops.Shared.TellStatus(monitor.SeverityInfo, fmt.Sprintf("force-delete %s: the holder removed from %s", name, kit.Plural(deleted, "master")))
	default:
		ops.Shared.TellStatus(monitor.SeverityInfo, fmt.Sprintf("force-delete %s: %s deleted", name, kit.Plural(deleted, "key")))
	}
}

// tellValid tells the register the validity lock o is held with, once after it is acquired and after each
// extension: the monitor tells our token gone after it as an expiry at the TTL, not a loss.
func (ops *LockOps) tellValid(o *kit.OwnLock) {
	if ops.owner == nil || !o.Held || o.ToldValid == o.Extensions {
		return
	}
	o.ToldValid = o.Extensions
	ops.owner.Valid(o.Lock.Resource(), o.Lock.Token(), o.ValidUntil)
}

// endOwn drops one of our locks that has ended (released, or run out), here and in the register.
func (ops *LockOps) endOwn(o *kit.OwnLock) {
	if i := slices.Index(ops.own, o); i >= 0 {
		ops.own = slices.Delete(ops.own, i, i+1)
		ops.changed()
	}
	if ops.owner != nil {
		ops.owner.Ended(o.Lock.Resource(), o.Lock.Token())
	}
}

// refreshOurs copies our locks' state (in memory) and logs what their keepers did. A lock whose release was
// not confirmed ends here when its validity runs out: its keys expire with their TTL.
func (ops *LockOps) refreshOurs() {
	now := ops.Shared.Now()
	var ended []*kit.OwnLock
	for _, o := range ops.own {
		ops.Shared.TellLog(o.Refresh(now)...)
		ops.tellValid(o)
		if o.Unconfirmed != "" && o.Busy == "" && o.Left(now) == 0 {
			ended = append(ended, o)
		}
	}
	for _, o := range ended {
		ops.endOwn(o)
		ops.Shared.Act(events.KindReleasedLapsed, o.Lock.Resource(), o.Lock.Token(), "%s: its release was never confirmed and its validity ran out: the "+
			"lock has ended, keys left on masters expire with their TTL", o.Name)
	}
}

// WriteBlocked says why a write command (what: "acquiring", ...) may not run, or returns "" when it may. It
// reads read-only from the options the dashboard was built with (the mode derives it from them too), so that
// the guard of issue depends on no message having arrived.
func (ops *LockOps) WriteBlocked(what string) string {
	switch {
	case ops.Shared.ReadOnly && ops.production:
		return what + " is disabled: a production profile runs read-only (--read-only=false overrides)"
	case ops.Shared.ReadOnly:
		return what + " is disabled: the dashboard runs read-only (--read-only)"
	case ops.locker == nil:
		return what + " is unavailable: no Redlock client"
	}
	return ""
}

// issue is the one place where commands that write to the masters leave the dashboard: acquiring, extending,
// auto-extending, releasing and force-deleting all pass here. In read-only mode nothing passes: the status line
// says why and issue returns nil.
func (ops *LockOps) issue(what string, run func(c *redlock.Client) tea.Msg) tea.Cmd {
	if why := ops.WriteBlocked(what); why != "" {
		ops.Shared.TellStatus(monitor.SeverityWarning, why)
		return nil
	}
	c := ops.locker
	return func() tea.Msg { return run(c) }
}

// ReleaseAll releases every lock we hold, for the dashboard to quit when it is done; nil when we hold none or
// writing is blocked, and the dashboard may quit at once.
func (ops *LockOps) ReleaseAll() tea.Cmd {
	if len(ops.own) == 0 {
		return nil
	}
	cmd := ops.issue("releasing", releaseAllCmd(ops.own, ops.Shared.Now()))
	if cmd != nil {
		ops.Shared.TellStatus(monitor.SeverityInfo, fmt.Sprintf("releasing %s before quitting…", kit.Plural(len(ops.own), "lock")))
	}
	return cmd
}

// HeldNames are the names (sanitized) of the locks the dashboard acquired and may still hold: those quitting
// releases.
func (ops *LockOps) HeldNames() []string {
	now := ops.Shared.Now()
	var names []string
	for _, o := range ops.own {
		if o.Left(now) > 0 {
			names = append(names, o.Name)
		}
	}
	return names
}

// QuitReleased applies how releasing our locks at quit went and returns the summary. A lock whose release was
// not confirmed and whose validity has not run out is still held: it stays ours, and the summary counts it.
func (ops *LockOps) QuitReleased(msg QuitMsg) string {
	now := ops.Shared.Now()
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
		case o.Left(now) == 0:
			ops.endOwn(o)
			gone++
		default:
			reason, _ := kit.Failure(res.err)
			o.Unconfirmed = reason
			ops.Shared.Act(events.KindReleaseUnconfirmed, res.lock.Resource(), res.lock.Token(), "release of %s unconfirmed after %s: %s", o.Name,
				kit.Plural(res.attempts, "attempt"), reason)
		}
	}
	held, left := 0, time.Duration(0) // also counts a lock won by an acquire cancelled as the quit began
	for _, o := range ops.own {
		if o.Left(now) > 0 {
			held++
			left = max(left, o.Left(now))
		}
	}
	s := "released " + kit.Plural(released, "lock")
	if gone > 0 {
		s += fmt.Sprintf(" (%d no longer held)", gone)
	}
	s += fmt.Sprintf("; %d still held", held)
	if held > 0 {
		s += fmt.Sprintf(": release unconfirmed, held until the TTL runs out (at most %s)", vocab.ShortDuration(left))
	}
	return s
}

// Summary describes the locks that may still hold, for a quit that released nothing; why explains a forced
// quit.
func (ops *LockOps) Summary(why string) string {
	now := ops.Shared.Now()
	held, unconfirmed := 0, 0
	for _, o := range ops.own {
		if o.Left(now) > 0 {
			held++
			if o.Unconfirmed != "" {
				unconfirmed++
			}
		}
	}
	var s string
	switch {
	case ops.Shared.ReadOnly:
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
