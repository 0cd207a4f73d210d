package reading

import (
	"cmp"
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// New locks under the prefixes of the lock families discovery found. A master asked with CLIENT TRACKING ON
// REDIRECT <id> BCAST PREFIX p... announces, on the redirect connection's __redis__:invalidate channel, every
// key written under those prefixes, with no scan and no CONFIG change; the monitor asks for the prefixes of
// the lock keys it knows (familyPrefix) and reads the keys announced in the next poll, as it reads those
// keyspace notifications name (keyspaceread.go). So a new lock under a known prefix shows within two polls,
// and the scan, which finds the families never seen, goes on as a slow safety net (Monitor.discover).
//
// What it costs is bounded: a prefix that also names busy keys that are not locks (a cache under "app:") is
// left to the scan for a while once it names more than announceStormRate keys a second (announceStorm).

// Announcement tuning.
const (
	// maxAnnouncedPrefixes bounds the prefixes asked for; the families beyond it are found by the scan only.
	maxAnnouncedPrefixes = 64
	// prefixRechoose is how often the prefixes are chosen again while the known keys change, so that families
	// no longer seen are let go; a family discovery finds is asked for at once (announcer.noteFound).
	prefixRechoose = time.Minute
	// announceStormRate is the keys a second one prefix may name, counted over at least announceStormWindow,
	// before it is left to the scan.
	announceStormRate   = 2000
	announceStormWindow = time.Second
	// announceStormFirst is how long a stormy prefix is first left to the scan; each storm after doubles it,
	// up to announceStormLongest.
	announceStormFirst   = time.Minute
	announceStormLongest = time.Hour
)

// familyPrefix is the prefix of a lock key's family: the key up to and including its last ':', or without
// one its last '_' (malkusch/lock's "lock_"); "" when it has neither, or nothing follows it.
func familyPrefix(key string) string {
	i := strings.LastIndexByte(key, ':')
	if i < 0 {
		i = strings.LastIndexByte(key, '_')
	}
	if i <= 0 || i == len(key)-1 {
		return ""
	}
	return key[:i+1]
}

// choosePrefixes returns the prefixes to ask a master to announce, sorted: those of the families of keys with
// the most keys, at most maxAnnouncedPrefixes, none a prefix of another (the master refuses overlaps, and the
// shorter covers the longer), none that stormy leaves to the scan. complete reports whether they cover every
// family.
func choosePrefixes(keys []string, stormy func(prefix string) bool) (prefixes []string, complete bool) {
	counts := map[string]int{}
	for _, k := range keys {
		if p := familyPrefix(k); p != "" {
			counts[p]++
		}
	}
	all := make([]string, 0, len(counts))
	for p := range counts {
		all = append(all, p)
	}
	slices.Sort(all)
	covered := all[:0] // without those another covers
	for _, p := range all {
		if n := len(covered); n > 0 && strings.HasPrefix(p, covered[n-1]) {
			counts[covered[n-1]] += counts[p]
			continue
		}
		covered = append(covered, p)
	}
	complete = true
	chosen := make([]string, 0, len(covered))
	for _, p := range covered {
		if stormy(p) {
			complete = false
			continue
		}
		chosen = append(chosen, p)
	}
	if len(chosen) > maxAnnouncedPrefixes {
		slices.SortStableFunc(chosen, func(a, b string) int { return cmp.Compare(counts[b], counts[a]) })
		chosen, complete = chosen[:maxAnnouncedPrefixes], false
		slices.Sort(chosen)
	}
	return chosen, complete
}

// announceStorm is what is known of a prefix that named too many keys: whether it is left to the scan now,
// until when, and for how long its next storm leaves it.
type announceStorm struct {
	stormy bool
	until  time.Time
	next   time.Duration
}

// announcer asks one master to announce the keys written under the known lock families' prefixes, and queues
// the keys announced in its notifier, for discovery to read. Two dedicated connections do it: one subscribed
// to __redis__:invalidate, and one with CLIENT TRACKING ON REDIRECT to it in BCAST mode. The fields under mu
// are shared with the receiver goroutine; the others belong to the poller's read (one at a time).
type announcer struct {
	base  *redis.Options // the master's client's options, copied for the dedicated connections
	queue *notifier      // where the keys announced are queued

	off        string // why the master announces nothing: it refused; "" while it may
	subClient  *redis.Client
	sub        *redis.PubSub
	trackConn  *redis.Conn // the connection in BCAST mode; nil when not armed
	armed      []string    // the prefixes trackConn announces
	armedID    int64       // the subscription connection's ID trackConn redirects to
	checkedAt  time.Time   // when both connections were last seen there (armed, or answering a PING)
	want       []string    // the prefixes chosen last
	complete   bool        // want covers every family found
	chosenFrom *KnownList  // the known keys they were chosen from
	chosenAt   time.Time
	uncovered  bool                     // discovery found a key of a family want does not cover: choose again
	storms     map[string]announceStorm // by prefix

	subID       atomic.Int64  // CLIENT ID of the subscription connection, as it last connected
	pongs       chan string   // the receiver hands the check its PONGs
	barrier     atomic.Uint64 // numbers the checks' PINGs
	pingRefused atomic.Bool   // the master's ACL refuses PING on the subscription: its loss is seen by the receiver only

	mu       sync.Mutex
	running  bool           // the receiver runs on sub
	closed   bool           // the monitor was closed: no connection is opened again
	gapAt    time.Time      // when keys may last have gone unannounced: an (re)arming, a lost connection
	named    map[string]int // keys each prefix named since the last poll
	namedAt  time.Time      // when named was last reset
	prefixes []string       // armed, for the receiver
	stormy   []string       // the prefixes left to the scan: what they named, still on its way, is not queued
	lastUsed time.Time      // when a poll last kept it up
	trackCli *redis.Client  // the client of trackConn; nil before the first arming
}

// newAnnouncer returns the announcer of the master client reaches, queueing in queue.
func newAnnouncer(client *redis.Client, queue *notifier) *announcer {
	o := *client.Options()
	return &announcer{base: &o, queue: queue, storms: map[string]announceStorm{}, named: map[string]int{},
		pongs: make(chan string, 4)}
}

// keepUp chooses the prefixes again when due, leaves the stormy ones to the scan, and makes the master announce
// the chosen ones: it subscribes, arms tracking, and checks that both connections are still there (check). A
// master that refuses (before Redis 6, an ACL without CLIENT) announces nothing, and is not asked again.
func (a *announcer) keepUp(ctx context.Context, known *KnownList, now time.Time) {
	if a == nil || a.off != "" || a.isClosed() {
		return
	}
	stormed := a.guardStorms(now)
	if stormed || known != a.chosenFrom && (a.uncovered || len(a.want) == 0 || now.Sub(a.chosenAt) >= prefixRechoose) {
		a.want, a.complete = choosePrefixes(known.List(), func(p string) bool { return a.storms[p].stormy })
		a.chosenFrom, a.chosenAt, a.uncovered = known, now, false
	}
	if len(a.want) == 0 {
		a.stop()
		return
	}
	if !a.isRunning() {
		if err := a.subscribe(ctx); err != nil {
			a.refused(err)
			return
		}
	}
	if a.trackConn != nil && a.armedID == a.subID.Load() && slices.Equal(a.armed, a.want) {
		subOK, trackOK := a.check(ctx)
		if subOK && trackOK {
			a.checkedAt = now
			return
		}
		// A connection was lost, and the master stopped announcing with it, at some time since both were
		// last seen: the keys written since are a gap, and the connections lost are opened again now, so
		// that this poll does not go on as though the master announced.
		a.dropTracking(a.checkedAt)
		if !subOK {
			if err := a.subscribe(ctx); err != nil {
				a.refused(err)
				return
			}
		}
	}
	if err := a.arm(ctx); err != nil {
		a.refused(err)
		return
	}
	a.checkedAt = now
}

// check sends a PING on each connection, the two round trips at once, and reports which is there. The
// subscription's PONG comes through the receiver after every announcement the master sent before it, so once
// it is in, every key announced before this poll is queued (a barrier). Without it within a quarter of the
// time ctx leaves, or when the master's ACL refuses that PING, the subscription is there while its receiver
// runs: a lost connection ends the receiver at once, while a slow one must not be dropped with what it holds.
func (a *announcer) check(ctx context.Context) (subOK, trackOK bool) {
	a.mu.Lock()
	sub := a.sub
	a.mu.Unlock()
	token := "redlock-tui-announce-" + strconv.FormatUint(a.barrier.Add(1), 10)
	barrier := !a.pingRefused.Load() && sub != nil
	if barrier && sub.Ping(ctx, token) != nil {
		return false, a.trackConn.Ping(ctx).Err() == nil
	}
	trackOK = a.trackConn.Ping(ctx).Err() == nil
	if !barrier {
		return a.isRunning(), trackOK
	}
	timer := time.NewTimer(timeUntil(ctx) / 4)
	defer timer.Stop()
	for {
		select {
		case p := <-a.pongs:
			switch p {
			case token:
				return true, trackOK
			case "":
				a.pingRefused.Store(true)
				return a.isRunning(), trackOK
			}
		case <-timer.C:
			return a.isRunning(), trackOK
		case <-ctx.Done():
			return a.isRunning(), trackOK
		}
	}
}

// noteFound takes note of the keys discovery found: the prefixes are chosen again when one is of a family they
// do not cover (and that is not left to the scan).
func (a *announcer) noteFound(keys map[string]bool) {
	if a == nil || a.off != "" || a.uncovered {
		return
	}
	for k := range keys {
		p := familyPrefix(k)
		if p != "" && !a.storms[p].stormy && !slices.ContainsFunc(a.want, func(w string) bool { return strings.HasPrefix(p, w) }) {
			a.uncovered = true
			return
		}
	}
}

// refused turns the announcer off for good when err is the master refusing it; other errors leave it to try
// again next poll.
func (a *announcer) refused(err error) {
	if refusedForGood(err) {
		a.off = "refused: " + strings.TrimSpace(err.Error())
		a.stop()
	}
}

// subscribe opens the subscription connection and starts its receiver.
func (a *announcer) subscribe(ctx context.Context) error {
	a.stop()
	o := *a.base
	o.Protocol, o.PoolSize, o.MinIdleConns, o.DisableIdentity = 2, 1, 0, true
	onConnect := o.OnConnect
	var connected atomic.Bool
	o.OnConnect = func(ctx context.Context, cn *redis.Conn) error {
		// go-redis connects a lost subscription again on its own, but the tracking redirected to the one lost
		// ended with it: the receiver is to see the loss, and the next poll to subscribe and arm again. A
		// connection that never came up (the master refused its setup) is no loss: its refusal is the answer.
		if connected.Load() {
			return errors.New("the subscription was lost: the next poll subscribes again")
		}
		if onConnect != nil {
			if err := onConnect(ctx, cn); err != nil {
				return err
			}
		}
		id, err := cn.ClientID(ctx).Result()
		if err != nil {
			return err
		}
		a.subID.Store(id)
		connected.Store(true)
		return nil
	}
	client := redis.NewClient(&o)
	sub := client.Subscribe(ctx, invalidateChannel)
	msg, err := sub.ReceiveTimeout(ctx, timeUntil(ctx))
	if s, ok := msg.(*redis.Subscription); err == nil && (!ok || s.Kind != "subscribe") {
		err = errors.New("unexpected reply to SUBSCRIBE")
	}
	if err != nil {
		closeAll(sub, nil, client)
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		closeAll(sub, nil, client)
		return errors.New("the monitor is closed")
	}
	a.subClient, a.sub, a.running, a.lastUsed = client, sub, true, time.Now()
	go a.receive(sub)
	return nil
}

// arm puts a new connection in BCAST mode on the chosen prefixes, redirected to the subscription connection;
// keys written meanwhile may go unannounced (a gap), which the scan at its full pace makes up for.
func (a *announcer) arm(ctx context.Context) error {
	a.dropTracking(time.Now())
	a.mu.Lock()
	if a.trackCli == nil && !a.closed {
		o := *a.base
		o.Protocol, o.PoolSize, o.MinIdleConns, o.DisableIdentity = 2, 1, 0, true
		a.trackCli = redis.NewClient(&o)
	}
	client := a.trackCli
	a.mu.Unlock()
	if client == nil {
		return errors.New("the monitor is closed")
	}
	id := a.subID.Load()
	args := []any{"client", "tracking", "on", "redirect", id, "bcast"}
	for _, p := range a.want {
		args = append(args, "prefix", p)
	}
	// The connection may be the one armed before, back in the pool: its prefixes are turned off first, as
	// the master refuses a prefix it already has.
	conn := client.Conn()
	pipe := conn.Pipeline()
	pipe.Do(ctx, "client", "tracking", "off")
	on := pipe.Do(ctx, args...)
	if _, err := pipe.Exec(ctx); err != nil || on.Err() != nil {
		_ = conn.Close()
		return cmp.Or(on.Err(), err)
	}
	a.trackConn, a.armedID, a.armed = conn, id, a.want
	a.mu.Lock()
	a.prefixes, a.gapAt = a.want, time.Now()
	a.mu.Unlock()
	return nil
}

// dropTracking closes the connection in BCAST mode, if open: the master stops announcing; keys may have gone
// unannounced since since (a gap).
func (a *announcer) dropTracking(since time.Time) {
	if a.trackConn != nil {
		_ = a.trackConn.Close()
	}
	a.trackConn, a.armed, a.armedID = nil, nil, 0
	a.mu.Lock()
	a.prefixes, a.gapAt = nil, since
	a.mu.Unlock()
}

// receive queues the keys announced on sub until the announcer stops using it or its connection fails: the
// next poll then subscribes and arms again.
func (a *announcer) receive(sub *redis.PubSub) {
	for a.stillUsing(sub) {
		msg, err := sub.ReceiveTimeout(context.Background(), time.Second)
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
		case err != nil && isServerError(err):
			// a FLUSHALL's invalidation, which names no key: nothing new to read; or the check's PING refused
			if redis.HasErrorPrefix(err, "NOPERM") {
				a.pong("")
			}
		case err != nil:
			a.lose(sub)
			return
		default:
			switch m := msg.(type) {
			case *redis.Message:
				if m.Channel == invalidateChannel {
					a.take(m)
				}
			case *redis.Pong:
				a.pong(m.Payload)
			}
		}
	}
}

// pong hands the check a PONG's payload, "" for a refused PING; none waits when its buffer is full.
func (a *announcer) pong(payload string) {
	select {
	case a.pongs <- payload:
	default:
	}
}

// take queues the keys of one announcement and counts them by prefix, for the storm guard. Those under a prefix
// left to the scan are not queued: the master named them before it was told, and a receiver behind on a storm
// may still be taking thousands, which would keep every other family's new lock waiting behind them.
func (a *announcer) take(m *redis.Message) {
	keys := m.PayloadSlice
	if m.Payload != "" {
		keys = append(keys, m.Payload)
	}
	a.mu.Lock()
	keys = slices.DeleteFunc(keys, func(k string) bool {
		return slices.ContainsFunc(a.stormy, func(p string) bool { return strings.HasPrefix(k, p) })
	})
	for _, k := range keys {
		for _, p := range a.prefixes {
			if strings.HasPrefix(k, p) {
				a.named[p]++
				break
			}
		}
	}
	a.mu.Unlock()
	for _, k := range keys {
		a.queue.add(k, true)
	}
}

// guardStorms leaves to the scan the prefixes that named more than announceStormRate keys a second over the
// last window, and takes back those whose time is up; it reports whether the storms changed.
func (a *announcer) guardStorms(now time.Time) bool {
	changed := false
	for p, s := range a.storms { // back from its storm, a prefix keeps the backoff of its next one
		if s.stormy && now.After(s.until) {
			s.stormy = false
			a.storms[p], changed = s, true
		}
	}
	var stormed []string
	a.mu.Lock()
	a.lastUsed = now
	since := now.Sub(a.namedAt)
	named := a.named
	if since >= announceStormWindow {
		a.named, a.namedAt = map[string]int{}, now
	}
	a.mu.Unlock()
	if since >= announceStormWindow && since <= time.Minute { // longer: the first count, or after a pause
		for p, n := range named {
			if float64(n) <= announceStormRate*since.Seconds() {
				continue
			}
			s := a.storms[p]
			if s.next == 0 {
				s.next = announceStormFirst
			}
			s.stormy, s.until, s.next = true, now.Add(s.next), min(2*s.next, announceStormLongest)
			a.storms[p], changed = s, true
			stormed = append(stormed, p)
		}
	}
	if changed {
		a.noteStormy()
	}
	for _, p := range stormed {
		a.queue.dropUnder(p) // what it named is left to the scan too, so it delays no other family's lock
	}
	return changed
}

// noteStormy hands the receiver the prefixes left to the scan now.
func (a *announcer) noteStormy() {
	var stormy []string
	for p, s := range a.storms {
		if s.stormy {
			stormy = append(stormy, p)
		}
	}
	a.mu.Lock()
	a.stormy = stormy
	a.mu.Unlock()
}

// coversSince reports whether the master announced, with no gap since from, every family's new keys: a scan
// that started then and swept the whole keyspace leaves only keys of families never seen for the scan to find.
func (a *announcer) coversSince(from time.Time) bool {
	if !a.announcing() || !a.complete || from.IsZero() {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running && from.After(a.gapAt)
}

// why says what the master announces, for MasterStatus.NotifiedWhy; "" when nothing.
func (a *announcer) why() string {
	switch {
	case a == nil:
		return ""
	case a.off != "":
		return "new keys under known lock prefixes not announced: " + a.off
	case !a.announcing():
		return ""
	}
	n := strconv.Itoa(len(a.armed))
	if len(a.armed) == 1 {
		return "new keys under the lock prefix " + vocab.Quote(a.armed[0]) + " announced by the master (CLIENT TRACKING BCAST)"
	}
	return "new keys under " + n + " lock prefixes announced by the master (CLIENT TRACKING BCAST)"
}

// announcing reports whether the master announces the keys written under some prefixes.
func (a *announcer) announcing() bool { return a != nil && a.trackConn != nil }

// stillUsing reports whether sub is the announcer's and a poll kept it up lately; when none did, the receiver
// stops and the next poll subscribes again.
func (a *announcer) stillUsing(sub *redis.PubSub) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sub == sub && a.running && time.Since(a.lastUsed) > idleAfter {
		a.running = false
	}
	return a.sub == sub && a.running
}

// lose records that the receiver of sub stopped on an error: keys may have gone unannounced.
func (a *announcer) lose(sub *redis.PubSub) {
	a.mu.Lock()
	if a.sub == sub {
		a.running, a.gapAt = false, time.Now()
	}
	a.mu.Unlock()
}

// isRunning reports whether the receiver runs.
func (a *announcer) isRunning() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running
}

// isClosed reports whether the monitor was closed.
func (a *announcer) isClosed() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.closed
}

// stop closes the connections, if open: the master stops announcing, and the receiver ends.
func (a *announcer) stop() {
	a.dropTracking(time.Now())
	a.mu.Lock()
	sub, client, track := a.sub, a.subClient, a.trackCli
	a.sub, a.subClient, a.trackCli, a.running = nil, nil, nil, false
	a.mu.Unlock()
	closeAll(sub, nil, client, track)
}

// close ends the announcements of a monitor that is closed; no poll opens them again.
func (a *announcer) close() {
	a.mu.Lock()
	a.closed, a.running = true, false
	sub, client, track := a.sub, a.subClient, a.trackCli
	a.mu.Unlock()
	closeAll(sub, nil, client, track) // closing track closes trackConn, left to a read under way
}
