package lockcmd

import (
	"context"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// Time bounds of the dashboard's commands.
const (
	actionTimeout  = 5 * time.Second        // one extend, release or delete
	quitTimeout    = 2 * time.Second        // releasing everything we hold at quit, retries included
	quitRetryPause = 100 * time.Millisecond // between release attempts at quit
)

// acquireResultMsg answers an acquire request of the form; req identifies the request.
type acquireResultMsg struct {
	req       uint64
	resource  string // raw
	lock      *redlock.Lock
	err       error
	cancelled bool // the request was cancelled; a lock won meanwhile was released again
	// A lock won as the request was cancelled whose release was not confirmed is still ours: lock is set,
	// releaseErr says why, and validity is what was left of it after the release.
	releaseErr error
	validity   time.Duration
}

// acquireProgressMsg reports a failed round of an acquire request that goes on retrying; next delivers the
// following report.
type acquireProgressMsg struct {
	req     uint64
	attempt int
	round   kit.RoundView
	next    chan acquireProgressMsg
}

// waitAcquireProgress delivers the next round report of an acquire request, or nothing once it has ended.
func waitAcquireProgress(ch chan acquireProgressMsg) tea.Cmd {
	return func() tea.Msg {
		if msg, ok := <-ch; ok {
			return msg
		}
		return nil
	}
}

// extendResultMsg answers an extension of one of our locks, identified by the lock itself.
type extendResultMsg struct {
	lock *redlock.Lock
	err  error
}

// releaseResultMsg answers a release of one of our locks.
type releaseResultMsg struct {
	lock *redlock.Lock
	err  error
}

// keeperMsg tells that auto-extension of lock was started (keeper running) or stopped (keeper ended).
type keeperMsg struct {
	lock    *redlock.Lock
	keeper  *redlock.Keeper
	started bool
}

// keeperEndedMsg tells that a keeper ended, with err set when its lock was lost.
type keeperEndedMsg struct {
	lock   *redlock.Lock
	keeper *redlock.Keeper
	err    error
}

// deleteResultMsg answers a force-delete request, with one round per token deleted.
type deleteResultMsg struct {
	req      uint64
	resource string // raw
	tokens   []string
	rounds   []redlock.Round
	errs     []error
	holder   bool // one holder of a sorted-set lock was removed, not keys
	// others are the other keys of a lock over several keys deleted with resource, by lead: their rounds and
	// errors follow the tokens' in rounds and errs.
	others []string
	lead   string
}

// quitRelease is how releasing one of our locks at quit ended: the last attempt's error.
type quitRelease struct {
	lock     *redlock.Lock
	err      error
	attempts int
}

// QuitMsg tells how releasing our locks at quit went, one result per lock.
type QuitMsg struct {
	results []quitRelease
}

// watchKeeper waits for a keeper to end and tells whether its lock was lost.
func watchKeeper(l *redlock.Lock, k *redlock.Keeper) tea.Cmd {
	return func() tea.Msg {
		err := <-k.Lost()
		return keeperEndedMsg{lock: l, keeper: k, err: err}
	}
}

// stopKeeper stops a keeper, which waits for an extension in flight.
func stopKeeper(l *redlock.Lock, k *redlock.Keeper) tea.Cmd {
	return func() tea.Msg {
		k.Stop()
		return keeperMsg{lock: l, keeper: k}
	}
}

// acquireCmd runs Acquire (with the client's retries) until it succeeds, fails or ctx is cancelled. A lock won
// just as the request was cancelled is released again, so a cancelled form never leaves a lock behind.
// Each failed round is reported on progress (newest wins), which is closed when the acquisition ends.
func acquireCmd(ctx context.Context, req uint64, resource string, ttl time.Duration,
	progress chan acquireProgressMsg) func(*redlock.Client) tea.Msg {
	return func(c *redlock.Client) tea.Msg {
		defer close(progress)
		l, err := c.AcquireWithProgress(ctx, resource, ttl, func(attempt int, r redlock.Round) {
			msg := acquireProgressMsg{req: req, attempt: attempt, round: kit.ViewRound(r), next: progress}
			select {
			case progress <- msg:
			default: // the dashboard has not taken the previous round yet: replace it
				select {
				case <-progress:
				default:
				}
				progress <- msg
			}
		})
		if err == nil && ctx.Err() != nil {
			rctx, cancel := context.WithTimeout(context.Background(), actionTimeout)
			defer cancel()
			start, valid := time.Now(), l.Validity()
			if rerr := l.Release(rctx); !redlock.ProvesReleased(rerr) {
				return acquireResultMsg{req: req, resource: resource, lock: l, cancelled: true, releaseErr: rerr,
					validity: valid - time.Since(start)}
			}
			return acquireResultMsg{req: req, resource: resource, cancelled: true}
		}
		return acquireResultMsg{req: req, resource: resource, lock: l, err: err, cancelled: ctx.Err() != nil}
	}
}

// extendCmd extends l by ttl.
func extendCmd(ctx context.Context, l *redlock.Lock, ttl time.Duration) func(*redlock.Client) tea.Msg {
	return func(*redlock.Client) tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, actionTimeout)
		defer cancel()
		return extendResultMsg{lock: l, err: l.Extend(ctx, ttl)}
	}
}

// releaseCmd stops l's keeper, if any, and releases l.
func releaseCmd(ctx context.Context, l *redlock.Lock, k *redlock.Keeper) func(*redlock.Client) tea.Msg {
	return func(*redlock.Client) tea.Msg {
		if k != nil {
			k.Stop()
		}
		ctx, cancel := context.WithTimeout(ctx, actionTimeout)
		defer cancel()
		return releaseResultMsg{lock: l, err: l.Release(ctx)}
	}
}

// startKeeperCmd starts auto-extension of l.
func startKeeperCmd(l *redlock.Lock) func(*redlock.Client) tea.Msg {
	return func(*redlock.Client) tea.Msg { return keeperMsg{lock: l, keeper: l.AutoExtend(), started: true} }
}

// deleteCmd deletes resource on every master where it holds one of tokens, and nowhere else. A token in hash
// is a Redisson lock's holders (comma-separated hash fields) with its mode: it is deleted only where the hash
// still has those holders, and Redisson's waiters are told, as its forceUnlock does. A token in set is one
// holder of a sorted-set lock: its members are removed where they are all still in the set, and only they. The
// other keys of a lock over several keys (d.others) are then deleted where each holds the lead token, and nowhere
// else: a key that changed holder is left alone.
func deleteCmd(ctx context.Context, d kit.DeleteMsg) func(*redlock.Client) tea.Msg {
	resource, hash, set := d.Resource, d.Hash, d.Set
	return func(c *redlock.Client) tea.Msg {
		msg := deleteResultMsg{req: d.Req, resource: resource, tokens: d.Tokens, holder: len(set) > 0, others: d.Others, lead: d.Lead}
		for _, t := range d.Tokens {
			tctx, cancel := context.WithTimeout(ctx, actionTimeout)
			var r redlock.Round
			var err error
			if members, ok := set[t]; ok {
				r, err = c.ReleaseSetMembers(tctx, resource, members)
			} else if mode, ok := hash[t]; ok {
				r, err = c.ReleaseRedisson(tctx, resource, strings.Split(t, ","), mode)
			} else {
				r, err = c.ReleaseToken(tctx, resource, t)
			}
			cancel()
			msg.rounds = append(msg.rounds, r)
			msg.errs = append(msg.errs, err)
		}
		for _, k := range d.Others {
			tctx, cancel := context.WithTimeout(ctx, actionTimeout)
			r, err := c.ReleaseToken(tctx, k, d.Lead)
			cancel()
			msg.rounds = append(msg.rounds, r)
			msg.errs = append(msg.errs, err)
		}
		return msg
	}
}

// releaseAllCmd releases every lock we hold, at once, within quitTimeout in total. A release that is not
// confirmed is tried again until it is, until the lock's validity (left, from the dashboard's clock when quit
// began) runs out, or until the time is up.
func releaseAllCmd(locks []*kit.OwnLock, now time.Time) func(*redlock.Client) tea.Msg {
	type job struct {
		l    *redlock.Lock
		k    *redlock.Keeper
		left time.Duration
	}
	jobs := make([]job, len(locks))
	for i, o := range locks {
		jobs[i] = job{o.Lock, o.Keeper, o.Left(now)}
	}
	return func(*redlock.Client) tea.Msg {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), quitTimeout)
		defer cancel()
		msg := QuitMsg{results: make([]quitRelease, len(jobs))}
		var wg sync.WaitGroup
		for i, j := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if j.k != nil {
					stopped := make(chan struct{})
					go func() { j.k.Stop(); close(stopped) }()
					select {
					case <-stopped:
					case <-ctx.Done():
					}
				}
				res := &msg.results[i]
				res.lock = j.l
				for {
					res.err = j.l.Release(ctx)
					res.attempts++
					if redlock.ProvesReleased(res.err) || time.Since(start)+quitRetryPause >= j.left {
						return
					}
					t := time.NewTimer(quitRetryPause)
					select {
					case <-t.C:
					case <-ctx.Done():
						t.Stop()
						return
					}
				}
			}()
		}
		wg.Wait()
		return msg
	}
}
