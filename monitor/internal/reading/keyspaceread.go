package reading

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// discoverNotified reads, at the start of discovery, the keys the master's keyspace notifications named since
// the last accepted reading (up to a barrier: every key written before the poll reached this step): those that
// match Config.Pattern and are not known yet, by the rules the SCAN applies, kept as the keys it finds. One
// chunk is read whatever the budget, so a new lock shows within a poll, and not charged to it; more while they
// use less than half the budget, so the SCAN is never starved. It returns the server time charged to the budget.
func (p *poller) discoverNotified(ctx context.Context, cfg Config, t *tracking, r *Reading, d *discovery, budget, slowest time.Duration) (time.Duration, error) {
	n := p.keyspace
	if n == nil || r.Primary != "" {
		return 0, nil
	}
	n.begin()
	n.keepUp(ctx, p.client)
	if n.channels != nil {
		_ = n.waitBarrier(ctx) // not in time: what is not queued yet is read next poll
	}
	r.Notified, r.NotifiedWhy = n.channels != nil, n.why
	if timeLeft(ctx, slowest) { // its connections wait when the read has no time to spare
		n.announce.keepUp(ctx, t.known, time.Now())
	}
	switch why := n.announce.why(); {
	case n.announce.announcing():
		r.NotifiedWhy = why + "; " + strings.Replace(r.NotifiedWhy, "by the scan only: ", "other keys by the scan only: ", 1)
	case why != "":
		r.NotifiedWhy += "; " + why
	}
	if dropped := n.droppedSoFar(); dropped > 0 {
		r.NotifiedWhy += "; " + vocab.Thousands(dropped) + " named keys dropped, the queue full: left to the scan"
	}
	var used time.Duration
	for first := true; first || used < budget/2; first = false {
		if !timeLeft(ctx, slowest) {
			return used, nil
		}
		keys := n.take(notifiedChunk)
		if len(keys) == 0 {
			return used, nil
		}
		fresh := keys[:0]
		for _, k := range keys {
			if lockshape.MatchesPattern(cfg.Pattern, k) && !t.known.Has(k) {
				fresh = append(fresh, k)
			}
		}
		if len(fresh) == 0 {
			continue
		}
		sent := time.Now()
		res, err := p.readCandidates(ctx, cfg, fresh)
		for p.scripted() && (p.heldByPause(ctx, err) || p.afterScriptError(err, r)) { // as discover does
			res, err = p.readCandidates(ctx, cfg, fresh)
		}
		if err != nil {
			return used, err
		}
		rtt := time.Since(sent)
		if !first {
			used += max(res.elapsed, time.Duration(res.scanned)*res.minCost)
		}
		r.refusals.add(res.refusals)
		t.keep(cfg, res.keys, sent.Add(rtt/2), rtt/2, r, d)
	}
	return used, nil
}

// keepUp reads the master's notify-keyspace-events when due (first, every keyspaceRecheck, and when the
// notification connection was lost), and subscribes to the channels that name new lock keys, if any. A
// master that refuses CONFIG GET (its ACL, a renamed command) is taken as unknown, and one that refuses the
// subscription as without notifications; neither is asked again: its new keys come by the scan only.
func (n *notifier) keepUp(ctx context.Context, client *redis.Client) {
	running := n.isRunning()
	if n.refused || time.Since(n.checkedAt) < keyspaceRecheck && (running || n.channels == nil) {
		return
	}
	flags, err := client.ConfigGet(ctx, "notify-keyspace-events").Result()
	if refusedForGood(err) {
		n.unsubscribe()
		n.refused = true
		n.why = "by the scan only: CONFIG GET refused (" + strings.TrimSpace(err.Error()) + "), so whether keyspace notifications are on is unknown"
		return
	}
	if err != nil {
		return // the connection failed, or the master is loading: the next poll asks again
	}
	n.checkedAt = time.Now()
	channels, why := lockEventChannels(flags["notify-keyspace-events"], n.base.DB)
	n.everyLock = namesEveryLock(flags["notify-keyspace-events"])
	if running && slices.Equal(channels, n.channels) {
		n.why = why
		return
	}
	n.unsubscribe()
	n.why = why
	if len(channels) == 0 {
		return
	}
	if err := n.subscribe(ctx, channels); err != nil {
		n.why = "by the scan only: SUBSCRIBE to keyspace notifications failed (" + strings.TrimSpace(err.Error()) + ")"
		n.refused = refusedForGood(err)
		if !n.refused {
			n.checkedAt = time.Time{} // not refused: try again next poll
		}
		return
	}
	n.channels = channels
}
