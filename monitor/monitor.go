package monitor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// Monitor polls a fixed set of masters and hands out immutable snapshots. Its methods are safe for concurrent
// use.
//
// Each master is read at its own pace: a poll waits for every master until all have answered or, once some
// have, for the others until one interval (or twice what the answers so far took, if longer) has passed
// since it began; never beyond Config.Timeout. A master that has not answered by then is reported as not
// answering, and its read goes on, within Config.Timeout, for the next poll to take; it is not asked again
// until that read returns. So one stopped master never slows the refresh of the others. A poll that stopped
// waiting is late, not failed: a master is declared down only once one of its reads errs or times out
// (health.next), so a master slow to answer on a loaded machine is not taken for a dead one. Clients built with
// ContextTimeoutEnabled let such a read end at Config.Timeout instead of at the client's ReadTimeout.
type Monitor struct {
	cfg     Config
	pollers []reading.Source

	pollMu  sync.Mutex         // one poll at a time, so snapshots follow each other
	flying  []bool             // a master's read has not returned yet (guarded by pollMu)
	failed  []error            // a master's read that failed between two polls, for the next poll to tell (guarded by pollMu)
	known   *reading.KnownList // the keys the last poll refreshed: the same list while they do not change (guarded by pollMu)
	results chan result

	mu        sync.Mutex
	prev      *Snapshot
	observers []func(prev *Snapshot, s Snapshot) // called after every poll
	// pollObservers are called after every poll with what it gave Aggregate (recording.go).
	pollObservers []func(p Poll)
	interval      time.Duration
	paused        bool
	soon          bool          // PollNow asked for a poll ahead of the interval
	wake          chan struct{} // re-arms Run's timer after SetInterval or SetPaused
}

// result is a read of master i that returned, for the poll that waits for it; main marks a poll's first
// read of the master (which moves its discovery on), as opposed to a read of keys found on other masters.
type result struct {
	i    int
	r    Reading
	main bool
}

// errBusy marks a master whose previous read has not returned yet.
var errBusy = errors.New("previous poll still waiting for an answer")

// New returns a Monitor of the masters reached through clients; addrs are their display names, aligned with
// clients. It fails when the two lists differ in length or are empty.
func New(clients []*redis.Client, addrs []string, cfg Config) (*Monitor, error) {
	if len(clients) == 0 {
		return nil, errors.New("monitor: no masters")
	}
	if len(clients) != len(addrs) {
		return nil, fmt.Errorf("monitor: %d clients but %d addresses", len(clients), len(addrs))
	}
	cfg = cfg.WithDefaults()
	sources := make([]reading.Source, len(clients))
	for i, c := range clients {
		if c == nil {
			return nil, fmt.Errorf("monitor: client %d (%s) is nil", i, addrs[i])
		}
		sources[i] = reading.NewMaster(c, addrs[i], cfg.Advise, trackingByDefault && !cfg.NoTracking, cfg.FullReadEvery)
	}
	return newMonitor(sources, cfg), nil
}

// newMonitor returns a Monitor of sources, with cfg's defaults applied.
func newMonitor(sources []reading.Source, cfg Config) *Monitor {
	return &Monitor{
		cfg:      cfg,
		pollers:  sources,
		flying:   make([]bool, len(sources)),
		failed:   make([]error, len(sources)),
		results:  make(chan result, len(sources)), // one read in flight per master: a sender never blocks
		interval: cfg.Interval,
		wake:     make(chan struct{}, 1),
	}
}

// Poll reads every master once, concurrently, each within Config.Timeout, and returns the resulting snapshot,
// which also becomes the history the next poll builds on.
func (m *Monitor) Poll(ctx context.Context) Snapshot {
	m.pollMu.Lock()
	defer m.pollMu.Unlock()
	// Our locks are judged only by polls that began after they were acquired: one registered while this poll
	// reads may have been set after its master was read, and must not be reported lost.
	var own map[string]OwnLock
	if m.cfg.Owner != nil {
		own = m.cfg.Owner.OwnLocks()
	}
	m.mu.Lock()
	prev, observers, pollObservers := m.prev, m.observers, m.pollObservers
	cfg := m.cfg
	cfg.Interval = m.interval // what "current" means for reads of one key depends on the interval in use
	m.mu.Unlock()
	readings := m.readAll(ctx, m.knownKeys(prev, own))
	s := Aggregate(prev, readings, own, time.Now(), cfg)
	for j, r := range readings {
		if r.Delta && s.Masters[j].readSeq == 0 {
			m.pollers[j].ReadWholeNext() // a delta of a reading this snapshot does not follow: read it whole next time
		}
	}
	m.mu.Lock()
	m.prev = &s
	m.mu.Unlock()
	for _, observe := range pollObservers {
		observe(Poll{Time: s.Time, Readings: readings, Own: own})
	}
	for _, observe := range observers {
		observe(prev, s)
	}
	return s
}

// Observe registers f to be called after every poll, in the polling goroutine, with the previous snapshot (nil
// for the first) and the new one: for exporters and event streams, which must not hold up the reader of Run
// nor run in a user interface's event loop. f must not call Poll.
func (m *Monitor) Observe(f func(prev *Snapshot, s Snapshot)) {
	m.mu.Lock()
	m.observers = append(m.observers, f)
	m.mu.Unlock()
}

// readAll reads all masters concurrently, refreshing the known keys and continuing discovery on each; then
// it reads the keys that discovery found on some masters on every other master that answered, and their fence
// counters on all of them, so that each snapshot has read every key it shows, and its fence, on every master
// that answered.
func (m *Monitor) readAll(ctx context.Context, known *reading.KnownList) []Reading {
	readings := m.fanOut(ctx, true, func(ctx context.Context, i int, p reading.Source) Reading {
		return p.Read(ctx, m.cfg.reader(), known)
	})
	isNew := map[string]bool{}
	isKnown := func(k string) bool { return known.Has(k) || isNew[k] }
	var found []string
	for _, r := range readings {
		for _, k := range r.Keys {
			if !isKnown(k.Key) {
				isNew[k.Key] = true
				found = append(found, k.Key)
			}
		}
	}
	found = m.capFound(readings, found, known.Counted())
	for _, k := range found {
		if fence := k + m.cfg.FenceSuffix; !strings.HasSuffix(k, m.cfg.FenceSuffix) && !isKnown(fence) {
			isNew[fence] = true
			found = append(found, fence) // a new lock's fence is known from its first snapshot
		}
	}
	if len(found) == 0 {
		return readings
	}
	sort.Strings(found)
	more := m.fanOut(ctx, false, func(ctx context.Context, i int, p reading.Source) Reading {
		if readings[i].Err != nil {
			return Reading{}
		}
		seen := make(map[string]bool, len(readings[i].Keys))
		for _, k := range readings[i].Keys {
			seen[k.Key] = true
		}
		var missing []string
		for _, k := range found {
			if !seen[k] {
				missing = append(missing, k)
			}
		}
		return p.ReadKeys(ctx, m.cfg.reader(), missing)
	})
	for i, r := range more {
		switch {
		case readings[i].Err == nil && r.Err == nil:
			readings[i].Keys = append(readings[i].Keys, r.Keys...)
		case readings[i].Err == nil && reading.IsRedirect(r.Err):
			readings[i] = r // a Redis Cluster's node, not a master: its error says so, rather than keys unknown
		}
	}
	return readings
}

// knownKeys returns the keys the poll after prev refreshes (Snapshot.keysToRefresh), as the same slice as the
// last poll's when they are the same keys: a tracked master whose known keys did not change reads only what
// changed (tracker.plan). After a quiet poll with our locks unchanged they are the same without a look.
func (m *Monitor) knownKeys(prev *Snapshot, own map[string]OwnLock) *reading.KnownList {
	if prev != nil && (prev.quiet || prev.sameKeys) && m.known != nil && maps.EqualFunc(prev.own, own, sameOwnLock) {
		m.known = m.known.WithFree(prev.freeLocks)
		return m.known
	}
	known := prev.keysToRefresh(own)
	if m.known == nil || !slices.Equal(known, m.known.List()) {
		m.known = reading.NewKnownList(known)
	}
	if prev != nil {
		m.known = m.known.WithFree(prev.freeLocks)
	}
	return m.known
}

// capFound keeps the keys that discovery found new on some master within Config.MaxKeys distinct keys in all,
// known ones included: each master keeps to the cap on its own, but masters that found different keys would
// together exceed it. The first in key order are kept; the rest are taken out of the readings and counted as
// untracked by each master that found them. It returns the keys kept.
func (m *Monitor) capFound(readings []Reading, found []string, known int) []string {
	rs := make([]*Reading, len(readings))
	for i := range readings {
		rs[i] = &readings[i]
	}
	return reading.CapKeys(rs, found, max(m.cfg.MaxKeys-known, 0))
}

// fanOut runs read on every master concurrently, each within Config.Timeout, and returns when all have
// answered or it gives up on the rest (see Monitor). A master whose earlier read has not returned is not asked
// again: a first read (main) waits for that read's answer, a read of found keys skips the master. An answer
// that came between two polls is dropped: it is older than the poll, and the master is asked afresh.
func (m *Monitor) fanOut(ctx context.Context, main bool, read func(context.Context, int, reading.Source) Reading) []Reading {
	start := time.Now()
	m.mu.Lock()
	interval := m.interval
	m.mu.Unlock()
	n := len(m.pollers)
	readings := make([]Reading, n)
	waiting := make([]bool, n)
	for drained := false; !drained; {
		select {
		case res := <-m.results:
			m.flying[res.i] = false
			if res.r.Err != nil {
				m.failed[res.i] = res.r.Err // older than this poll, but a failure all the same
			}
		default:
			drained = true
		}
	}
	pending := 0
	for i, p := range m.pollers {
		if m.flying[i] && !main {
			readings[i] = Reading{Addr: p.Name(), Err: errBusy}
			continue
		}
		waiting[i] = true
		pending++
		if m.flying[i] {
			continue // a previous poll's read goes on: take its answer if it comes in time
		}
		m.flying[i] = true
		go func() {
			rctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
			r := read(rctx, i, p)
			cancel()
			m.results <- result{i, r, main}
		}()
	}
	giveUp := time.NewTimer(m.cfg.Timeout)
	defer giveUp.Stop()
	for pending > 0 {
		select {
		case res := <-m.results:
			m.flying[res.i] = false
			if !waiting[res.i] {
				if res.r.Err != nil {
					m.failed[res.i] = res.r.Err
				}
				continue
			}
			waiting[res.i] = false
			pending--
			m.failed[res.i] = nil
			if res.main != main {
				readings[res.i] = Reading{Addr: m.pollers[res.i].Name(), Err: errBusy}
				continue
			}
			readings[res.i] = res.r
			m.pollers[res.i].Accept(res.r)
			if res.r.Err == nil {
				// Some master answered: wait for the rest one interval, or twice what the answers took.
				elapsed := time.Since(start)
				giveUp.Reset(min(m.cfg.Timeout, max(interval, 2*elapsed)) - elapsed)
			}
		case <-giveUp.C:
			m.late(readings, waiting, fmt.Errorf("no answer within %v", vocab.ShortDuration(time.Since(start))))
			return readings
		case <-ctx.Done():
			m.notAnswered(readings, waiting, ctx.Err())
			return readings
		}
	}
	return readings
}

// notAnswered sets err as the reading of every master still waited for.
func (m *Monitor) notAnswered(readings []Reading, waiting []bool, err error) {
	for i, p := range m.pollers {
		if waiting[i] {
			readings[i] = Reading{Addr: p.Name(), Err: err}
		}
	}
}

// late sets the reading of every master still waited for when the poll stops waiting: late with err, its
// read still going, or failed with the error of a read that failed since the previous poll.
func (m *Monitor) late(readings []Reading, waiting []bool, err error) {
	for i, p := range m.pollers {
		if !waiting[i] {
			continue
		}
		readings[i] = Reading{Addr: p.Name(), Err: err, Late: true}
		if m.failed[i] != nil {
			readings[i] = Reading{Addr: p.Name(), Err: m.failed[i]}
			m.failed[i] = nil
		}
	}
}

// Run polls every interval until ctx is done, then closes the returned channel. The first poll starts at once.
// A reader that falls behind receives the newest snapshot: an undelivered one is replaced, never queued.
// While paused nothing is polled; on resume, or when the interval changes, the next poll is due one interval
// after the previous one started, at once if that time has passed.
func (m *Monitor) Run(ctx context.Context) <-chan Snapshot {
	out := make(chan Snapshot, 1)
	go func() {
		defer close(out)
		timer := time.NewTimer(0)
		defer timer.Stop()
		var last time.Time // start of the previous poll
		for {
			select {
			case <-ctx.Done():
				return
			case <-m.wake:
			case <-timer.C:
			}
			// Whatever woke us, decide from the current settings, so that a
			// tick racing with SetPaused or SetInterval cannot poll early.
			m.mu.Lock()
			paused, due := m.paused, last.Add(m.interval)
			if m.soon && !paused {
				due, m.soon = time.Time{}, false
			}
			m.mu.Unlock()
			if paused {
				timer.Stop()
				continue
			}
			if wait := time.Until(due); wait > 0 {
				timer.Reset(wait)
				continue
			}
			last = time.Now()
			s := m.Poll(ctx)
			if ctx.Err() != nil {
				return
			}
			if !m.isPaused() { // paused while this poll ran: pausing freezes what the reader sees
				deliverNewest(out, s)
			}
			timer.Reset(0) // re-checks the settings and waits for the next due time
		}
	}()
	return out
}

// deliverNewest puts s on out, replacing a snapshot the reader has not taken yet.
func deliverNewest(out chan Snapshot, s Snapshot) {
	select {
	case out <- s:
	default:
		select {
		case <-out:
		default:
		}
		out <- s
	}
}

// SetInterval changes the poll interval of Run; the next poll is due d after the previous one started.
func (m *Monitor) SetInterval(d time.Duration) {
	if d <= 0 {
		d = DefaultInterval
	}
	m.mu.Lock()
	m.interval = d
	m.mu.Unlock()
	m.poke()
}

// SetPaused stops (true) or resumes (false) Run's polling; Poll still works while paused.
func (m *Monitor) SetPaused(paused bool) {
	m.mu.Lock()
	m.paused = paused
	m.mu.Unlock()
	m.poke()
}

func (m *Monitor) isPaused() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.paused
}

// poke wakes Run so it re-reads the interval.
func (m *Monitor) poke() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// trackingByDefault makes New track keys where masters allow it; the tests of this package turn it off with
// -polling (tracking_main_test.go), to run every test in both modes.
var trackingByDefault = true
