package reading

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// refreshKeys reads INFO and DBSIZE and the known keys: by tracking where the master allows it (only the keys
// it says changed, the others from the last read), or all of them, as refresh does.
func (p *poller) refreshKeys(ctx context.Context, cfg Config, known []string, r *Reading, d *discovery, slowest *time.Duration) error {
	switch {
	case p.track == nil:
		r.Refresh, r.RefreshWhy = RefreshPolling, WhyTrackingOff
	case r.Primary != "":
		r.Refresh, r.RefreshWhy = RefreshPolling, WhySentinel
	case p.track.pollingFor(time.Now()) != "":
		r.Refresh, r.RefreshWhy = RefreshPolling, p.track.off
	default:
		err := p.refreshTracked(ctx, cfg, known, r, d, slowest)
		if !errors.Is(err, errNoTracking) {
			return err
		}
		r.Refresh, r.RefreshWhy = RefreshPolling, p.track.off
	}
	return p.refresh(ctx, cfg, known, r, d, slowest)
}

// refreshTracked is refreshKeys by tracking. It returns errNoTracking, having read nothing, when the master
// does not allow tracking. Its reading is a delta (trackplan.go), but after a full read.
func (p *poller) refreshTracked(ctx context.Context, cfg Config, known []string, r *Reading, d *discovery, slowest *time.Duration) error {
	t := p.track
	pl, err := t.plan(ctx, known, cfg.Interval)
	if err != nil && !errors.Is(err, errNoTracking) {
		t.closeClients() // opened again by the next poll
		r.Refresh, r.RefreshWhy = RefreshPolling, "tracking connection failed, polled this time: "+err.Error()
		return p.refresh(ctx, cfg, known, r, d, slowest)
	}
	if err != nil {
		return err
	}
	r.Refresh, r.RefreshWhy = RefreshTracking, pl.why
	p.via = t.read
	defer func() { p.via = nil }()
	from := len(r.Keys)
	if err := p.refresh(ctx, cfg, pl.read, r, d, slowest); err != nil {
		t.dropRead()
		if !errors.Is(err, errScriptsHeld) {
			return err
		}
		// A write pause held the scripts on the tracking connection, now closed: every key is read with plain
		// commands on another, and the next poll tracks them afresh.
		p.via, r.Keys = nil, r.Keys[:from]
		r.Refresh, r.RefreshWhy = RefreshPolling, "a write pause held the read scripts: read with plain commands this time"
		return p.refresh(ctx, cfg, known, r, d, slowest)
	}
	read := r.Keys[from:]
	t.remember(read, cfg.Interval)
	t.seq++
	r.Seq, t.lastRead = t.seq, pl.read
	if t.stormed(read, pl.before) {
		r.Refresh, r.RefreshWhy = RefreshPolling, t.off // this poll's reads stand; the next ones poll
	}
	if pl.why == "" {
		r.Delta, r.DeltaOf = true, pl.deltaOf
		if len(read) < len(pl.read) { // no time left for the others: unknown, and read next time
			r.Unread = notRead(pl.read, read)
			t.missing = append(t.missing, r.Unread...)
		}
	}
	return nil
}

// notRead returns the keys of want that read does not have.
func notRead(want []string, read []KeyReading) []string {
	got := make(map[string]bool, len(read))
	for _, k := range read {
		got[k.Key] = true
	}
	var out []string
	for _, k := range want {
		if !got[k] {
			out = append(out, k)
		}
	}
	return out
}

// readPlan is what one poll reads of a tracked master.
type readPlan struct {
	read    []string
	before  map[string]cachedKey // what the tracker kept of the keys invalidated since, to tell a storm
	why     string               // why every key is read, "" when only the changed ones are
	deltaOf uint64               // the reading this poll's is a delta of, when only the changed keys are read
}

// plan decides what this poll reads: every key after a (re)start, a reconnect, a lost message, a missed
// barrier, a reading the monitor could not apply, or when the full re-read is due; otherwise what changed
// (planChanges, with the keys whose TTL runs out within ahead, before the next poll).
func (t *tracker) plan(ctx context.Context, known []string, ahead time.Duration) (readPlan, error) {
	if !t.use() || t.sub == nil {
		if err := t.start(ctx); err != nil {
			return readPlan{}, err
		}
	}
	barrier := t.waitBarrier(ctx)
	dirty, lost, _ := t.swap()
	pl := readPlan{before: make(map[string]cachedKey, len(dirty)), deltaOf: t.accepted.Load()}
	for k := range dirty {
		if i := t.indexOf(k); i >= 0 && t.slots[i].sum != 0 {
			pl.before[k] = t.slots[i]
			t.slots[i] = cachedKey{}
		}
	}
	switch {
	case lost || !t.armed():
		if err := t.arm(ctx); err != nil {
			return readPlan{}, err
		}
		pl.why = "full re-read: tracking (re)started"
	case barrier != nil:
		pl.why = fmt.Sprintf("full re-read: %v", barrier)
	case pl.deltaOf == 0:
		pl.why = "full re-read: the last reading could not be applied"
	case time.Since(t.lastFull) >= t.fullRead:
		pl.why = "full re-read: due every " + vocab.ShortDuration(t.fullRead)
	}
	if pl.why != "" {
		t.lastFull = time.Now()
		t.forget()
		t.follow(known)
		pl.read = known
		return pl, nil
	}
	t.planChanges(&pl, known, time.Now().Add(ahead))
	return pl, nil
}

// tracking returns the tracker of a master whose reads are tracked now; nil for one that is polled.
func (p *poller) tracking() *tracker {
	if p.track == nil || p.track.off != "" || !p.track.armed() {
		return nil
	}
	return p.track
}

// pipeliner is what keys are read through: the master's client, or the tracking connection.
type pipeliner interface{ Pipeline() redis.Pipeliner }

// keyReader is what keys are read through: the tracking connection during a tracked read.
func (p *poller) keyReader() pipeliner {
	if p.via != nil {
		return p.via
	}
	return p.client
}

// trackedRefreshScript is refreshScript reading its keys from ARGV[2...] instead of KEYS. Redis before 7.2
// remembers, for each read a script makes on a tracking connection, every key the script declared: a script of
// 1,000 keys costs the master a million remembered keys (measured: 6,000 keys took 0.5s instead of 30ms). Its
// keys are tracked by an EXISTS of them all, queued before it.
var trackedRefreshScript = newReadScript("local KEYS = {select(2, unpack(ARGV))}\n" + refreshLua)

// queueRefreshScript queues the refresh script of keys on pipe: on the tracking connection, after an EXISTS
// of them that tracks them before they are read (a change in between is invalidated, and read next time).
func (p *poller) queueRefreshScript(ctx context.Context, pipe redis.Pipeliner, keys []string, maxLen int) *redis.Cmd {
	if p.via == nil {
		return pipe.Do(ctx, p.scriptArgs(refreshScript, keys, []any{maxLen})...)
	}
	args := make([]any, 0, len(keys)+1)
	args = append(args, maxLen)
	for _, k := range keys {
		args = append(args, k)
	}
	pipe.Exists(ctx, keys...)
	return pipe.Do(ctx, p.scriptArgs(trackedRefreshScript, nil, args)...)
}
