package redlock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// Client acquires locks on a set of independent Redis masters. It is safe for
// concurrent use. Close it to stop its background work.
type Client struct {
	cfg         config
	nodes       []master
	quorum      int
	setupBudget time.Duration
	closeOnce   sync.Once

	// Background releases (see cleanup): closing is closed by Close, which
	// then waits for bg.
	closing   chan struct{}
	bg        sync.WaitGroup
	bgMu      sync.Mutex
	bgRunning int
	bgClosed  bool

	// warm is closed once a quorum of masters has a connection, or every
	// master's first connection attempt has ended: a new client's first round
	// waits for it, so that it does not spend its node timeout on dialling.
	warm      chan struct{}
	warmMu    sync.Mutex
	warmReady int
	warmTried int
	warmAll   int // masters

	notices notices // subscriptions to release channels, for waiters (see watch)
}

// New returns a client for the given masters. It rejects an empty list, nil
// clients and a master given twice, which would count one server twice
// towards the quorum.
//
// Each master gets a private go-redis client with the given client's
// options (address, credentials, TLS, dialer, pool size), so that locking
// neither takes connections from the caller's other work nor waits for them.
// Its connections are set up in the background and kept: a connection's
// dial and handshake get a setup budget of their own, twice the client's
// DialTimeout and at least minSetupBudget, instead of a command's node
// timeout, and a new client's first round waits (within that budget) until
// a quorum of masters is connected.
func New(masters []*redis.Client, opts ...Option) (*Client, error) {
	if len(masters) == 0 {
		return nil, errors.New("redlock: no masters given")
	}
	cfg, err := configOf(opts)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]int, len(masters))
	for i, m := range masters {
		if m == nil {
			return nil, fmt.Errorf("redlock: master %d is nil", i+1)
		}
		keys := ServerKeys(m.Options())
		for _, key := range keys {
			if j, dup := seen[key]; dup {
				return nil, fmt.Errorf("redlock: master %d (%s) is the same as master %d: each master must count once",
					i+1, m.Options().Addr, j+1)
			}
		}
		for _, key := range keys {
			seen[key] = i
		}
	}
	c := &Client{cfg: cfg, quorum: len(masters)/2 + 1, warm: make(chan struct{}), warmAll: len(masters),
		closing: make(chan struct{})}
	for _, m := range masters {
		c.setupBudget = max(c.setupBudget, setupBudget(m.Options()))
		c.nodes = append(c.nodes, newNode(m.Options(), cfg.maxBatch, c.connected))
	}
	return c, nil
}

// minSetupBudget is the least time a new connection's dial, and again its
// handshake, may take.
const minSetupBudget = 200 * time.Millisecond

// setupBudget is how long setting up one connection may take.
func setupBudget(o *redis.Options) time.Duration {
	return 2 * max(o.DialTimeout, minSetupBudget)
}

// privateClient returns a client with o's connection settings for one node,
// whose connections join conns. Every read and write has a deadline, the
// command's at the latest, whatever o says: a node timeout the connection
// ignored would let one paused master hold up every lock. Its senders hold
// their connections, so it never retries a command on another, and
// pipelines share its one pool.
func privateClient(o *redis.Options, conns *connSet) *redis.Client {
	p := *o
	p.ContextTimeoutEnabled = true
	// o holds go-redis's normalised values, which NewClient normalises again: a positive timeout is kept,
	// and 0 here means its default (5s), capped by each command's deadline.
	if p.ReadTimeout <= 0 {
		p.ReadTimeout = 0
	}
	if p.WriteTimeout <= 0 {
		p.WriteTimeout = 0
	}
	dial := o.Dialer
	if dial == nil {
		dial = redis.NewDialer(o)
	}
	p.Dialer = conns.dialer(dial)
	p.MaxRetries = -1
	p.DialerRetries = 1
	p.MinIdleConns = 0
	p.PipelinePoolSize = -1
	// The user's client keeps its own push handlers and maintenance settings: sharing them made this client's
	// setup fail to register its handlers (and say so in go-redis's log).
	p.PushNotificationProcessor = nil
	maint := maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if o.MaintNotificationsConfig != nil && o.MaintNotificationsConfig.Mode == maintnotifications.ModeEnabled {
		maint = *o.MaintNotificationsConfig
	}
	// Unless asked for, maintenance notifications are off: their probe costs a round trip of every first
	// setup, and a sender that loses its connection in a maintenance sets up another.
	p.MaintNotificationsConfig = &maint
	return redis.NewClient(&p)
}

// connected counts a master's first connection attempt towards warm.
func (c *Client) connected(ok bool) {
	c.warmMu.Lock()
	defer c.warmMu.Unlock()
	c.warmTried++
	if ok {
		c.warmReady++
	}
	if c.warmReady == c.quorum || c.warmTried == c.warmAll {
		select {
		case <-c.warm:
		default:
			close(c.warm)
		}
	}
}

// waitWarm waits, within the setup budget and ctx, until warm is closed.
func (c *Client) waitWarm(ctx context.Context) {
	select {
	case <-c.warm:
		return
	default:
	}
	t := time.NewTimer(c.setupBudget)
	defer t.Stop()
	select {
	case <-c.warm:
	case <-t.C:
	case <-ctx.Done():
	}
}

// ServerKey names the server an options set dials, so that two spellings of
// one address compare equal: host names and IP literals in any case or form
// (IPv4-mapped IPv6, compressed or not, with a zone), the loopback and
// unspecified addresses and an empty host as localhost, ports with leading
// zeros, tcp4/tcp6, unclean socket paths. The database number is left out:
// two databases of one server are still one master. New refuses two masters
// with one key, which would count one server twice towards the quorum.
//
// A client of NewFailoverClient is keyed by its master name and its Sentinels (see ServerKeys); one of
// go-redis's redis.NewFailoverClient, whose options say only "FailoverClient", by its own options, so that
// two such clients are two masters.
func ServerKey(o *redis.Options) string {
	if f := failoverOf(o); f != nil {
		keys := f.spec.Keys()
		slices.Sort(keys)
		return strings.Join(keys, ",")
	}
	if o.Addr == "FailoverClient" && o.Dialer != nil {
		return fmt.Sprintf("failover:%p", o)
	}
	switch o.Network {
	case "unix", "unixpacket":
		return "unix:" + filepath.Clean(o.Addr)
	}
	host, port, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return "tcp:" + strings.ToLower(o.Addr)
	}
	if p, err := strconv.ParseUint(port, 10, 16); err == nil {
		port = strconv.FormatUint(p, 10)
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "" {
		host = "localhost" // go-redis dials the local system
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap().WithZone("")
		host = ip.String()
		if ip.IsLoopback() && (ip.Is6() || ip == netip.AddrFrom4([4]byte{127, 0, 0, 1})) || ip.IsUnspecified() {
			host = "localhost"
		}
	}
	return "tcp:" + net.JoinHostPort(host, port)
}

// Close stops the client's background work: keepers (which end without
// reporting a loss), background releases still waiting for a master to
// confirm, and then its connections. Each background release first makes
// one last try, within the node timeout (twice it behind a command still in
// flight to that master): a failed acquisition's key is deleted before a
// client that exits right after the failure closes, rather than left for its
// TTL. It does not close the go-redis clients it was given, and does not
// release locks.
func (c *Client) Close() {
	c.closeOnce.Do(func() {
		c.bgMu.Lock()
		c.bgClosed = true
		c.bgMu.Unlock()
		close(c.closing)
		c.bg.Wait()
		c.notices.close()
		for _, n := range c.nodes {
			n.close()
		}
	})
}

// Quorum is the number of masters that must agree: N/2+1.
func (c *Client) Quorum() int { return c.quorum }

// Masters returns the masters' addresses in the order given to New.
func (c *Client) Masters() []string {
	addrs := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		addrs[i] = n.address()
	}
	return addrs
}

// TopologyWarning explains why the number of masters weakens the algorithm,
// or returns "" when it does not: fewer than three masters tolerate no
// failure, and an even number tolerates no more failures than one master less.
func (c *Client) TopologyWarning() string {
	if w, ok := c.clusterWarning(); ok {
		return w
	}
	n := len(c.nodes)
	switch {
	case n < 3:
		return fmt.Sprintf("%d master(s): no master may fail; use at least 3", n)
	case n%2 == 0:
		return fmt.Sprintf("%d masters: an even count tolerates no more failures than %d", n, n-1)
	}
	return ""
}

// DriftAllowance is the validity a lock of ttl keeps back for clock drift between masters, with the drift
// factor given (WithDriftFactor): ttl*factor + 2ms, as the Redlock algorithm prescribes. It is exported so that
// a reader of locks (the monitor) judges validity by the same rule as the client that took them.
func DriftAllowance(ttl time.Duration, factor float64) time.Duration {
	return time.Duration(float64(ttl)*factor) + 2*time.Millisecond
}

// driftAllowance is the validity kept back for clock drift between masters, with this client's drift factor.
func (c *Client) driftAllowance(ttl time.Duration) time.Duration {
	return DriftAllowance(ttl, c.cfg.driftFactor)
}

// validity is what is left of a TTL after elapsed time and the drift allowance.
func (c *Client) validity(ttl, elapsed time.Duration) time.Duration {
	return ttl - elapsed - c.driftAllowance(ttl)
}

// TryAcquire runs one acquire round. On failure it has released the lock,
// as far as ctx allows, on every master that answered before it returns,
// and goes on releasing in the background those that did not, until they
// confirm or the TTL has passed; the error matches ErrNotAcquired and
// carries the round (errors.As with *RoundError). With an ended ctx it sends
// nothing.
func (c *Client) TryAcquire(ctx context.Context, resource string, ttl time.Duration) (*Lock, error) {
	if err := checkTTL(ttl); err != nil {
		return nil, err
	}
	if err := c.checkFenceSlot(resource); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, &RoundError{Round: Round{Op: OpAcquire, Resource: resource, Quorum: c.quorum}, Attempts: 1,
			Reason: "not started", kinds: []error{ErrNotAcquired}, cause: err}
	}
	token := newToken()
	build := func(cl *call) {
		cl.args, cl.kind = []any{"set", resource, token, "nx", "px", ttl.Milliseconds()}, replySet
	}
	if c.cfg.fencing {
		build = fencedAcquireCall(resource, FenceKey(resource, c.cfg.fenceSuffix), token, ttl)
	}
	r, tail := c.run(ctx, OpAcquire, resource, nil, nil, build)
	r.Validity = c.validity(ttl, r.Elapsed)
	if r.OK >= c.quorum && r.Validity > 0 {
		prev, fence, held := tail.finished, uint64(0), true
		won := r
		if c.cfg.fencing {
			r, prev, fence, held = c.confirmFence(ctx, resource, token, ttl, r, tail)
		}
		if held {
			c.cfg.notify(Action{Op: OpAcquire, Resource: resource, Token: token, Fence: fence, Round: r.clone()})
			return &Lock{
				client:     c,
				resource:   resource,
				token:      token,
				fence:      fence,
				acquired:   Acquisition{Rounds: 1, Waited: r.Elapsed},
				ttl:        ttl,
				validUntil: r.ValidUntil(),
				last:       r,
				prev:       prev,
				landing:    land(won, tail),
			}, nil
		}
	}
	c.abandon(ctx, resource, token, ttl, tail)
	reason := fmt.Sprintf("no quorum (%d of %d masters, need %d)", r.OK, len(c.nodes), c.quorum)
	switch {
	case r.Op == OpFence && r.OK >= c.quorum:
		reason = fmt.Sprintf("validity ran out in the fence round (%s left)", r.Validity)
	case r.Op == OpFence:
		reason = fmt.Sprintf("fence round: no quorum (%d of %d masters, need %d)", r.OK, len(c.nodes), c.quorum)
	case r.OK >= c.quorum:
		reason = fmt.Sprintf("validity ran out (%s left)", r.Validity)
	}
	err := &RoundError{Round: r, Attempts: 1, Reason: reason, kinds: []error{ErrNotAcquired}}
	if ctx.Err() != nil {
		err.cause = ctx.Err()
	}
	return nil, err
}

// MinTTL and MaxTTL bound the TTL of a lock: PX counts milliseconds, and a TTL of more than a day is a unit
// mistake far more often than a wish (a lock held that long is better extended as it goes).
const (
	MinTTL = time.Millisecond
	MaxTTL = 24 * time.Hour
)

// checkTTL refuses a TTL outside [MinTTL, MaxTTL].
func checkTTL(ttl time.Duration) error {
	switch {
	case ttl < MinTTL:
		return fmt.Errorf("redlock: TTL %s is below one millisecond", ttl)
	case ttl > MaxTTL:
		return fmt.Errorf("redlock: TTL %s is above %s", ttl, MaxTTL)
	}
	return nil
}

// Acquire runs acquire rounds until one succeeds, the retries are used up or
// ctx ends, waiting a random delay between rounds (see WithRetryDelay). While
// the lock is held on a quorum, it waits longer, up to the time until the
// lock would expire (at most a few seconds), and meanwhile listens on the
// lock's release channel (ReleaseChannel), on which a holder of this package
// announces its release: such a waiter costs the masters few commands and
// tries again as soon as the lock is released. Its errors match
// ErrNotAcquired, and also ErrRetriesExhausted or the context's error.
func (c *Client) Acquire(ctx context.Context, resource string, ttl time.Duration) (*Lock, error) {
	return c.AcquireWithProgress(ctx, resource, ttl, nil)
}

// AcquireWithProgress is Acquire that calls progress, when not nil, after
// every failed round with the round's number (from 1) and what each master
// did, so that a caller can show an acquisition while it retries. progress
// runs on the calling goroutine before the delay to the next round; it must
// not block.
func (c *Client) AcquireWithProgress(ctx context.Context, resource string, ttl time.Duration,
	progress func(attempt int, r Round)) (*Lock, error) {
	var first time.Time // the first round's start: the wait is counted from it, with no clock read of its own
	w := &waiter{c: c}
	defer w.end()
	for attempt := 1; ; attempt++ {
		l, err := c.TryAcquire(ctx, resource, ttl)
		if err == nil {
			if first.IsZero() {
				first = l.last.Start
			}
			if w.woken { // the other clients' waiters woken by the same notice need not try: tell them, meanwhile
				won := make([]bool, len(c.nodes))
				for i, n := range l.last.Nodes {
					won[i] = n.Outcome == OutcomeOK
				}
				c.track(func() { c.announceTaken(resource, l.token, won) })
			}
			l.acquired = Acquisition{Rounds: attempt, Waited: l.last.Start.Add(l.last.Elapsed).Sub(first)}
			return l, nil
		}
		var re *RoundError
		if !errors.As(err, &re) {
			return nil, err
		}
		if first.IsZero() {
			first = re.Round.Start
		}
		re.Attempts = attempt
		if progress != nil {
			progress(attempt, re.Round.clone())
		}
		if ctx.Err() != nil {
			re.cause = ctx.Err()
			re.Reason = "cancelled"
			c.cfg.notify(Action{Op: OpAcquire, Resource: resource, Round: re.Round.clone(), Err: re})
			return nil, re
		}
		if attempt > c.cfg.retries {
			re.Reason = "retries exhausted, last round " + re.Reason
			re.kinds = append(re.kinds, ErrRetriesExhausted)
			c.cfg.notify(Action{Op: OpAcquire, Resource: resource, Round: re.Round.clone(), Err: re})
			return nil, re
		}
		if err := w.sleep(ctx, resource, re.Round); err != nil {
			re.cause = err
			re.Reason = "cancelled while waiting to retry"
			return nil, re
		}
	}
}

func (c *Client) retryDelay() time.Duration {
	lo, hi := c.cfg.retryDelayMin, c.cfg.retryDelayMax
	if hi <= lo {
		return lo
	}
	return lo + rand.N(hi-lo+1)
}

// abandon releases a failed acquisition on the masters where its SET may
// have landed: those that accepted it, and those whose outcome is unknown
// (the command went out, the answer did not come back). Masters that do not
// confirm, and masters that had not answered by the decision and then turn
// out to hold our token or not to answer, are released in the background
// (see cleanup), and so are all of them when ctx has ended: the caller's
// deadline bounds the cleanup it waits for.
func (c *Client) abandon(ctx context.Context, resource, token string, ttl time.Duration, tail *roundTail) {
	n := len(c.nodes)
	need, unknown := make([]bool, n), make([]bool, n)
	any, landed := false, 0
	for i := range n {
		if tail.answered[i] {
			set, unk := setOutcome(tail.replies[i])
			need[i], unknown[i] = set || unk, unk
			any = any || need[i]
			if set {
				landed++
			}
		}
	}
	until := time.Now().Add(ttl)
	if any && ctx.Err() != nil {
		for i := range n {
			if need[i] {
				c.cleanup(i, resource, token, until, zerosFor(unknown[i]), tail.finished[i], true)
			}
		}
	} else if any {
		r, _ := c.run(ctx, OpRelease, resource, need, tail.finished, releaseCall(resource, token))
		// Keys on a quorum (an acquisition that failed on its validity) kept waiters out as a holder's would:
		// wake them. Fewer were a split vote: its waiters retry at the retry delay, and a notice would only
		// wake every other client's waiter into the next split.
		if landed >= c.quorum && r.OK > 0 {
			released := make([]bool, n)
			for i := range n {
				released[i] = r.Nodes[i].Outcome == OutcomeOK
			}
			c.announce(resource, token, released)
		}
		for i := range n {
			if !need[i] {
				continue
			}
			switch o := r.Nodes[i].Outcome; {
			case o == OutcomeOK || o == OutcomeHeldByOther || o == OutcomeGone && !unknown[i]:
			case o == OutcomeGone:
				c.cleanup(i, resource, token, until, 1, tail.finished[i], false)
			default:
				c.cleanup(i, resource, token, until, zerosFor(unknown[i]), tail.finished[i], false)
			}
		}
	}
	if tail.pending == 0 {
		return
	}
	c.track(func() {
		var releases sync.WaitGroup // the releases of this round's late answers, run beside each other
		for range tail.pending {
			rep := <-tail.out
			if landed, unk := setOutcome(rep); landed || unk {
				releases.Go(func() {
					c.releaseUntilConfirmed(rep.index, resource, token, until, zerosFor(unk), tail.finished[rep.index], true)
				})
			}
		}
		releases.Wait()
	})
}

// zerosFor is how many answers finding no key confirm a release after a SET
// whose outcome is known (false) or unknown (true); see cleanup.
func zerosFor(unknown bool) int {
	if unknown {
		return 2
	}
	return 1
}

// setOutcome tells from a SET's reply whether it set the key, or may have:
// its command went out and no answer came back.
func setOutcome(r reply) (landed, unknown bool) {
	switch {
	case r.err == nil:
		return true, false
	case isReply(r.err) || !r.sent:
		return false, false // the master refused it (redis.Nil: the key exists), or it never went out
	}
	return false, true
}

// releaseOn releases the lock on master i once after has closed (nil: at
// once) and returns the outcome.
func (c *Client) releaseOn(i int, resource, token string, after <-chan struct{}) Outcome {
	out := make(chan reply, 1)
	cl := &call{deadline: time.Now().Add(c.cfg.nodeTimeout), index: i, out: out}
	releaseCall(resource, token)(cl)
	c.sendAfter(c.nodes[i], cl, after, cl.deadline.Add(c.cfg.nodeTimeout))
	o, _ := classify(<-out, cl.kind, cl.want)
	return o
}

func releaseCall(resource, token string) func(*call) {
	return func(cl *call) {
		cl.script, cl.keys, cl.argv, cl.kind = releaseScript, []string{resource}, []any{token}, replyScript
	}
}

func (c *Client) runRelease(ctx context.Context, resource, token string, after []<-chan struct{}) (Round, *roundTail) {
	return c.run(ctx, OpRelease, resource, nil, after, releaseCall(resource, token))
}

// roundTail is what a decided round leaves behind.
type roundTail struct {
	replies  []reply           // per master, as answered by the decision
	answered []bool            // per master: answered by the decision
	finished []<-chan struct{} // per master: closed once its command can no longer reach it
	out      <-chan reply      // the replies still owed, when they come
	pending  int               // how many are owed
}

// sendAfter sends cl to nd once after has closed, so that a lock's commands
// reach each master in the order they were issued although they may travel
// on different connections. A nil after sends at once. A command that waits
// for its predecessor gets the node timeout from when that one is done, up to
// limit: the master was busy with our previous command meanwhile. It reports
// whether cl waits.
func (c *Client) sendAfter(nd master, cl *call, after <-chan struct{}, limit time.Time) bool {
	cl.queued = time.Now()
	if after == nil {
		nd.send(cl)
		return false
	}
	select {
	case <-after:
		nd.send(cl)
		return false
	default:
	}
	go func() {
		t := time.NewTimer(time.Until(limit))
		defer t.Stop()
		select {
		case <-after:
			if d := time.Now().Add(c.cfg.nodeTimeout); d.Before(limit) {
				cl.deadline = d
			} else {
				cl.deadline = limit
			}
			nd.send(cl)
		case <-t.C:
			cl.answer(reply{err: context.DeadlineExceeded})
		}
	}()
	return true
}

// run sends one command to every master in only (nil: all) at once, each
// after the master's command in after (nil: none) is done, and collects the
// answers. Acquire and extend rounds are decided as soon as a quorum is
// reached or can no longer be; release rounds wait for every master. No
// master is waited on beyond the node timeout, counted for a command that
// waits for its predecessor on that master from when that one is done.
func (c *Client) run(ctx context.Context, op Op, resource string, only []bool, after []<-chan struct{},
	build func(*call)) (Round, *roundTail) {
	c.waitWarm(ctx)
	n := len(c.nodes)
	r := Round{Op: op, Resource: resource, Quorum: c.quorum, Nodes: make([]NodeResult, n)}
	tail := &roundTail{replies: make([]reply, n), answered: make([]bool, n), finished: make([]<-chan struct{}, n)}
	r.Start = c.cfg.clock.Now()
	deadline := time.Now().Add(c.cfg.nodeTimeout)
	limit := deadline.Add(c.cfg.nodeTimeout) // for commands that wait for their predecessor
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if d, ok := ctx.Deadline(); ok && d.Before(limit) {
		limit = d
	}
	out := make(chan reply, n)
	waits := false
	total := 0
	var kind replyKind
	var want string
	for i, nd := range c.nodes {
		r.Nodes[i].Addr = nd.address()
		if only != nil && !only[i] {
			continue
		}
		total++
		finished := make(chan struct{})
		cl := &call{deadline: deadline, index: i, out: out, finished: finished}
		tail.finished[i] = finished
		build(cl)
		kind, want = cl.kind, cl.want
		var prev <-chan struct{}
		if after != nil {
			prev = after[i]
		}
		waits = c.sendAfter(nd, cl, prev, limit) || waits
	}
	if waits {
		deadline = limit
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	answered, failed := 0, 0
	decided := func() bool {
		if answered == total {
			return true
		}
		return !op.hearsEveryMaster() && (r.OK >= c.quorum || failed > n-c.quorum)
	}
	for !decided() {
		select {
		case rep := <-out:
			tail.replies[rep.index], tail.answered[rep.index] = rep, true
			res := &r.Nodes[rep.index]
			res.Outcome, res.Err = classify(rep, kind, want)
			res.Latency, res.Unsent = rep.latency, !rep.sent
			answered++
			if res.Outcome == OutcomeOK {
				r.OK++
			} else {
				failed++
			}
			continue
		case <-timer.C:
			c.markPending(&r, OutcomeTimeout, context.DeadlineExceeded)
		case <-ctx.Done():
			c.markPending(&r, OutcomeError, ctx.Err())
		}
		break
	}
	r.Elapsed = c.cfg.clock.Now().Sub(r.Start)
	tail.out, tail.pending = out, total-answered
	return r, tail
}

func (c *Client) markPending(r *Round, o Outcome, err error) {
	for i := range r.Nodes {
		if r.Nodes[i].Outcome == OutcomePending {
			r.Nodes[i].Outcome, r.Nodes[i].Err = o, err
		}
	}
}

// ReleaseToken deletes resource on every master where it holds token, and
// nowhere else: an operator's way to clear a lock this client does not own
// (a crashed holder's, seen by the monitor) without deleting a newer holder's
// key. It returns the round; the error is ErrNotHeld when no master held the
// token and ErrIncomplete when some master did not confirm.
func (c *Client) ReleaseToken(ctx context.Context, resource, token string) (Round, error) {
	r, _ := c.runRelease(ctx, resource, token, nil)
	return r, releaseError(r, nil)
}
