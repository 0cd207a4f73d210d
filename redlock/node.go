package redlock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// call is one command for one master, answered on out.
type call struct {
	args     []any         // the command, for plain commands
	script   *redis.Script // set for scripts: sent as EVALSHA, with EVAL on NOSCRIPT
	keys     []string      // script keys
	argv     []any         // script arguments
	kind     replyKind     // which reply is the command's success value
	want     string        // replyGet: the token that makes the key ours
	routeKey string        // a command without a key (INFO): the key whose Redis Cluster node it is for
	deadline time.Time
	index    int // the master's position, echoed in the reply
	out      chan<- reply
	queued   time.Time     // when the node got the call: latency counts the wait for a connection
	state    atomic.Int32  // callQueued, then callSent, then callAnswered; or straight to callAnswered
	timer    *time.Timer   // answers the call at its deadline
	finished chan struct{} // if not nil, closed once the command can no longer reach the master
	resent   bool          // sent again on a new connection after the first one proved closed
	asking   bool          // a Redis Cluster's node: sent after ASKING (its slot is migrating there)
}

// The states of a call.
const (
	callQueued int32 = iota
	callSent
	callAnswered
)

// reply is a master's answer to a call.
type reply struct {
	index   int
	val     any
	err     error
	latency time.Duration
	sent    bool // the command may have reached the master
	replica bool // the connection's server said role:slave when it was set up
}

// take marks c as being sent; it reports false when c was answered already.
func (c *call) take() bool { return c.state.CompareAndSwap(callQueued, callSent) }

// answer replies to c unless it was answered already: by its sender, by its
// deadline timer, or because the node could not send it.
func (c *call) answer(r reply) {
	prev := c.state.Swap(callAnswered)
	if prev == callAnswered {
		return
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	if prev == callQueued {
		c.done()
	}
	r.index, r.sent, r.latency = c.index, prev == callSent, time.Since(c.queued)
	c.out <- r
}

// done closes finished: the command is no longer on its way to the master.
func (c *call) done() {
	if c.finished != nil {
		close(c.finished)
	}
}

// expire answers c with a timeout at its deadline, whatever its sender does.
func (c *call) expire() {
	prev := c.state.Swap(callAnswered)
	if prev == callAnswered {
		return
	}
	if prev == callQueued {
		c.done()
	}
	c.out <- reply{index: c.index, err: context.DeadlineExceeded, latency: time.Since(c.queued), sent: prev == callSent}
}

// growWait is the round trip beyond which a call that finds every connection
// busy makes the node open another: batching is free only while waiting for
// a pipeline in flight costs no latency. The round trip is the node's
// floorRTT, so that a CPU-bound client, whose pipelines are slow because they
// wait for the processor, batches more instead of adding connections that
// would wait for it too.
const growWait = time.Millisecond

// reconnectDelay spaces the attempts to reach a master that refuses or
// drops connections.
const reconnectDelay = 50 * time.Millisecond

// node is one master with its batching path. Each of its senders owns one
// connection, set up (dial, HELLO, AUTH) under the setup budget rather than
// a command's deadline. A call goes out at once when a sender is free; calls
// that arrive while every sender has a pipeline in flight go out together in
// the next free one. Senders are added, up to maxSenders, when calls would
// wait for one longer than growWait.
type node struct {
	addr        string
	tls         bool          // connections use TLS
	client      *redis.Client // private to the node; closed by close
	conns       *connSet      // the client's connections
	queue       chan *call
	maxBatch    int
	maxSenders  int
	setupBudget time.Duration
	onFirst     func(ok bool) // told once whether the first connection was set up
	ctx         context.Context
	cancel      context.CancelFunc // ends setups in progress at close
	stop        chan struct{}
	retryNow    chan struct{} // a call arrived for a master that could not be reached: try to connect at once
	done        sync.WaitGroup

	// mu is held for reading while a call is queued and for writing by close, so that no call enters the
	// queue once the senders may have drained it for the last time: such a call would never be answered.
	mu     sync.RWMutex
	closed bool

	noScripts atomic.Pointer[noScriptsError] // set while the master cannot run the client's scripts (connect)

	idle    atomic.Int32          // senders waiting for a call
	ready   atomic.Int32          // senders with a connection
	down    atomic.Pointer[error] // why the last setup failed while no sender had a connection
	rtt     atomic.Int64          // smoothed duration of a pipeline, in nanoseconds
	grow    sync.Mutex            // guards senders
	senders int
}

func newNode(o *redis.Options, maxBatch int, onFirst func(ok bool)) *node {
	ctx, cancel := context.WithCancel(context.Background())
	conns := &connSet{}
	n := &node{
		addr:        o.Addr,
		tls:         o.TLSConfig != nil,
		client:      privateClient(o, conns),
		conns:       conns,
		queue:       make(chan *call, 4*maxBatch),
		maxBatch:    maxBatch,
		maxSenders:  max(1, o.PoolSize),
		setupBudget: setupBudget(o),
		onFirst:     onFirst,
		ctx:         ctx,
		cancel:      cancel,
		stop:        make(chan struct{}),
		retryNow:    make(chan struct{}, 1),
	}
	n.rtt.Store(-1)
	n.addSender()
	return n
}

// maxSetups bounds the senders of one node setting up their connection at
// once, so that a burst of calls grows the node in waves (calls meanwhile
// batch on the connections there are) instead of dialling for all of them
// together. Waves are narrow while the round trip is short, where batching
// is nearly free and a CPU-bound client is slowed by more connections (64
// lockers on loopback: waves of 8 halved the cycles per second), and wide
// beyond wideWait, where every call that waits for a pipeline loses a round
// trip and a setup costs three (HELLO, CLIENT SETINFO, PING): behind 30 ms,
// waves of 2 took a second to serve 16 lockers.
func maxSetups(rtt time.Duration) int {
	if rtt > wideWait {
		return 8
	}
	return 2
}

// wideWait is the round trip beyond which a node grows in wide waves.
const wideWait = 5 * time.Millisecond

// addSender starts one more sender unless there are maxSenders, or
// maxSetups are setting up.
func (n *node) addSender() {
	n.grow.Lock()
	defer n.grow.Unlock()
	if n.senders >= n.maxSenders || n.senders-int(n.ready.Load()) >= maxSetups(time.Duration(n.rtt.Load())) {
		return
	}
	first := n.senders == 0 && n.onFirst != nil
	n.senders++
	n.done.Add(1)
	go n.sender(first)
}

// send queues c without blocking, and answers it at its deadline whatever
// happens to the master. On a closed node, c is answered with errClosed at
// once; on a master that did not answer its last setup, with that timeout;
// on one that refused it, after one more attempt to connect, with its reason;
// on a master whose queue is full, with errQueueFull.
func (n *node) send(c *call) {
	if c.queued.IsZero() {
		c.queued = time.Now()
	}
	n.mu.RLock()
	defer n.mu.RUnlock()
	if n.closed {
		c.answer(reply{err: errClosed})
		return
	}
	if n.refusesAcquisition(c) {
		return
	}
	if n.ready.Load() == 0 {
		if err := n.down.Load(); err != nil {
			if isTimeout(*err) { // a master that stopped answering: fail fast, as it is likely still stuck
				c.answer(reply{err: *err})
				return
			}
			// A master that refused or dropped the connection may be back already (a restart): rather than
			// answer with that old error, ask for a new attempt now. A master that is back serves the call;
			// one still gone answers it at once with the new error.
			select {
			case n.retryNow <- struct{}{}:
			default:
			}
		}
	}
	if n.idle.Load() <= 1 && time.Duration(n.rtt.Load()) > growWait {
		// This call takes the last free sender, or waits for one, and waiting costs latency: set up one
		// more, so that the next call finds it ready rather than paying for its setup or a pipeline's wait.
		n.addSender()
	}
	c.timer = time.AfterFunc(time.Until(c.deadline), c.expire)
	select {
	case n.queue <- c:
	default:
		c.answer(reply{err: errQueueFull})
	}
}

var errQueueFull = errors.New("redlock: too many commands waiting for this master")

var errClosed = errors.New("redlock: client closed")

// noScriptsError answers an acquisition or a script on a master that cannot run the client's Lua scripts: it
// would grant the SET, and then never release nor extend the key, which would lock everyone else out for its TTL.
type noScriptsError struct {
	reply error // what the master answered the setup's probe
}

// byACL reports whether the master's ACL refused the probe (NOPERM), which can change while the client runs,
// rather than not knowing the script commands at all.
func (e *noScriptsError) byACL() bool { return redis.HasErrorPrefix(e.reply, "NOPERM") }

// Error says what the master answered, why it cannot run scripts, and what follows.
func (e *noScriptsError) Error() string {
	why := "EVAL or EVALSHA is renamed or disabled"
	if e.byACL() {
		why = "its ACL refuses EVAL or EVALSHA to this user"
	}
	return fmt.Sprintf("redlock: the master cannot run Lua scripts (it answered %q: %s): a lock taken there could "+
		"never be released or extended, so none is taken there", e.reply, why)
}

// probeSource is the script a new connection runs, by EVAL and then by EVALSHA, to learn whether the master runs
// the client's scripts: the client loads its scripts with EVAL and runs them with EVALSHA, so it needs both.
// EVALSHA alone would not do: any client may SCRIPT LOAD a script that EVALSHA then runs where EVAL is renamed
// away or refused, and the client's own scripts, not cached there, could then never run.
const probeSource = "return 1"

var probeScript = redis.NewScript(probeSource)

// probeRefusal returns the probe's failure that makes a master unable to run the client's scripts, or nil: a
// script command the master does not know (renamed away, disabled) or that its ACL refuses (NOPERM). Other
// errors (a busy or loading master) say nothing of its scripts.
func probeRefusal(err error) error {
	if scriptsDisabled(err) || redis.HasErrorPrefix(err, "NOPERM") {
		return err
	}
	return nil
}

// scriptsDisabled reports whether a script's reply says the master does not know EVAL or EVALSHA: renamed away
// (rename-command) or disabled.
func scriptsDisabled(err error) bool {
	return redis.HasErrorPrefix(err, "unknown command") || redis.HasErrorPrefix(err, "Unknown command")
}

// refusesAcquisition answers c with the master's refusal, and reports true, when the master cannot run the
// client's scripts and c would take a lock there. Where scripts are renamed away (a setting only a restart
// changes) a script is refused too, and no key of ours can be there. Where the ACL refuses them (a setting that
// changes while the client runs, maybe after a lock was taken there) a script goes to the master, whose own reply
// says whether it released or extended our key.
func (n *node) refusesAcquisition(c *call) bool {
	refusal := n.noScripts.Load()
	if refusal == nil {
		return false
	}
	acquires := c.kind == replySet || c.kind == replyFencedSet
	if !acquires && (c.script == nil || refusal.byACL()) {
		return false
	}
	c.answer(reply{err: refusal})
	return true
}

// sender sets up a connection and sends queued calls on it, one pipeline at a
// time, until the node closes; it sets up a new connection when one breaks.
// When setup fails, the sender ends unless it is the node's last, which keeps
// trying and meanwhile answers calls with the setup's error.
func (n *node) sender(first bool) {
	defer n.done.Done()
	var pending []*call // calls to send again, found on a connection the master had closed
	for {
		conn, replica, err := n.connect()
		if first {
			n.onFirst(err == nil)
			first = false
		}
		if err != nil {
			for _, c := range pending {
				c.answer(reply{err: err})
			}
			pending = nil
			if !n.retryAfter(err) {
				return
			}
			continue
		}
		n.down.Store(nil)
		n.ready.Add(1)
		pending = n.serve(conn, replica, pending)
		n.ready.Add(-1)
		_ = conn.Close()
		select {
		case <-n.stop:
			return
		default:
		}
	}
}

// connect sets up one connection under the setup budget: dial, handshake,
// and a PING with a ROLE and the scripts' probe (see probeSource) in the same
// round trip, so that no command's deadline pays for them. A master that fails
// the probe is counted out of acquisitions until a new connection passes it. It reports whether the server is a replica; a
// server that does not allow ROLE (an ACL, a proxy) is taken for a master,
// and a read-only replica still refuses every write with READONLY. A
// Sentinel given as a master fails the setup with a SentinelPortError, which
// says how to give the master behind it.
func (n *node) connect() (conn *redis.Conn, replica bool, err error) {
	ctx, cancel := context.WithTimeout(n.ctx, n.setupBudget)
	defer cancel()
	conn = n.client.Conn()
	ping, role := redis.NewStatusCmd(ctx, "ping"), redis.NewCmd(ctx, "role")
	eval := redis.NewCmd(ctx, "eval", probeSource, 0)
	evalsha := redis.NewCmd(ctx, "evalsha", probeScript.Hash(), 0)
	if err := pipeline(ctx, conn, []redis.Cmder{ping, role, eval, evalsha}); err != nil && !isReply(err) {
		_ = conn.Close()
		return nil, false, err
	}
	if err := ping.Err(); err != nil {
		_ = conn.Close()
		return nil, false, err
	}
	if r, err := role.Slice(); err == nil && len(r) > 0 {
		if err := SentinelRole(r, n.addr, n.tls); err != nil {
			_ = conn.Close()
			return nil, false, err
		}
		replica = r[0] == "slave"
	}
	refusal := probeRefusal(eval.Err())
	if refusal == nil {
		refusal = probeRefusal(evalsha.Err())
	}
	if refusal != nil {
		n.noScripts.Store(&noScriptsError{reply: refusal})
	} else {
		n.noScripts.Store(nil)
	}
	return conn, replica, nil
}

// retryAfter handles a failed setup: it reports whether this sender tries
// again, after reconnectDelay.
func (n *node) retryAfter(err error) bool {
	n.grow.Lock()
	if n.senders > 1 {
		n.senders--
		n.grow.Unlock()
		return false
	}
	n.grow.Unlock()
	if n.ready.Load() == 0 {
		n.down.Store(&err)
		n.fail(err)
	}
	t := time.NewTimer(reconnectDelay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-n.retryNow:
		return true
	case <-n.stop:
		n.drain()
		return false
	}
}

// serve sends pending calls, then queued ones, on conn until conn breaks or the node closes. It returns the
// calls to send again on a new connection: those of a batch that failed because the master had closed conn.
func (n *node) serve(conn *redis.Conn, replica bool, pending []*call) []*call {
	if len(pending) > 0 {
		ok, again := n.exec(conn, replica, pending)
		if !ok {
			return again
		}
	}
	for {
		n.idle.Add(1)
		select {
		case first := <-n.queue:
			n.idle.Add(-1)
			start := time.Now()
			ok, again := n.exec(conn, replica, n.collect([]*call{first}))
			n.rtt.Store(int64(floorRTT(time.Duration(n.rtt.Load()), time.Since(start))))
			if !ok {
				return again
			}
		case <-n.stop:
			n.idle.Add(-1)
			n.drain()
			return nil
		}
	}
}

// floorRTT folds a pipeline's duration into the estimate of the round trip
// to a master: it drops to a faster pipeline at once and rises slowly
// towards slower ones, so it tracks the network's share of a round trip and
// not the time pipelines spent waiting for a busy processor.
func floorRTT(est, sample time.Duration) time.Duration {
	if est < 0 || sample < est {
		return sample
	}
	return est + (sample-est)/64
}

// collect appends queued calls to batch without waiting, up to maxBatch.
func (n *node) collect(batch []*call) []*call {
	for len(batch) < n.maxBatch {
		select {
		case c := <-n.queue:
			batch = append(batch, c)
		default:
			return batch
		}
	}
	return batch
}

// drain answers the queued calls of a closed node.
func (n *node) drain() { n.fail(errClosed) }

// fail answers every queued call with err.
func (n *node) fail(err error) {
	for {
		select {
		case c := <-n.queue:
			c.answer(reply{err: err})
		default:
			return
		}
	}
}

// exec sends one batch as one pipeline on conn, whose server is a replica
// when replica is set. Calls already past their deadline are answered with a
// timeout and not sent, calls already answered are dropped. It reports
// whether conn is still usable: an error other than a reply from the master
// breaks it, and so does a reply after which go-redis drops the connection
// (see dropsConn). When every command failed because the
// master had closed conn (it restarted, or dropped idle connections), the
// calls are not answered but returned, to be sent once more on a new
// connection: a master that closed the connection did not run them. (One that
// ran a command and then closed the connection without replying gets it twice:
// compare-and-delete and compare-and-extend do nothing more, and a second SET NX
// is refused, which counts that master against the lock, never for it.)
func (n *node) exec(conn *redis.Conn, replica bool, batch []*call) (bool, []*call) {
	start := time.Now()
	live := batch[:0]
	var deadline time.Time
	for _, c := range batch {
		if !start.Before(c.deadline) {
			c.answer(reply{err: context.DeadlineExceeded})
			continue
		}
		if n.refusesAcquisition(c) || !c.take() { // queued before this connection's setup found no scripts
			continue
		}
		live = append(live, c)
		if c.deadline.After(deadline) {
			deadline = c.deadline
		}
	}
	if len(live) == 0 {
		return true, nil
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	cmds := make([]*redis.Cmd, len(live))
	wire := make([]redis.Cmder, 0, len(live))
	for i, c := range live {
		if c.script != nil {
			cmds[i] = redis.NewCmd(ctx, scriptArgs("evalsha", c.script.Hash(), c.keys, c.argv)...)
		} else {
			cmds[i] = redis.NewCmd(ctx, c.args...)
		}
		if c.asking {
			wire = append(wire, redis.NewStatusCmd(ctx, "asking"))
		}
		wire = append(wire, cmds[i])
	}
	_ = pipeline(ctx, conn, wire)
	retryNoScript(ctx, conn, live, cmds)
	if again := resendable(live, cmds); again != nil {
		return false, again
	}
	usable := true
	for i, c := range live {
		val, err := cmds[i].Result()
		if err != nil && (!isReply(err) || dropsConn(err)) {
			usable = false
		}
		if err == nil && replica {
			usable = false // a replica that took a write: look at the server's role again on a new connection
		}
		c.answer(reply{val: val, err: nameScriptRefusal(c.script, err), replica: replica})
		c.done()
	}
	return usable, nil
}

// resendable returns the calls to send again when every command of the batch failed because the master had
// closed the connection, and none was sent again before; it puts them back in the queued state. Otherwise it
// returns nil.
func resendable(live []*call, cmds []*redis.Cmd) []*call {
	for i, cmd := range cmds {
		if !isClosedConn(cmd.Err()) || live[i].resent {
			return nil
		}
	}
	var again []*call
	for _, c := range live {
		if c.state.CompareAndSwap(callSent, callQueued) { // not answered by its deadline meanwhile
			c.resent = true
			again = append(again, c)
		}
	}
	return again
}

// isClosedConn reports whether err says the master closed the connection (or reset it), as opposed to a
// timeout or a reply.
func isClosedConn(err error) bool {
	if err == nil || isReply(err) || isTimeout(err) {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// pipeline sends cmds in one pipeline on conn and returns the pipeline's
// error. Every command ends with a reply or an error: go-redis leaves the
// commands of a pipeline that failed before reading their replies (on a
// connection it had marked bad, for one) with a nil value and a nil error,
// which would read as a success; those get a noReplyError.
func pipeline(ctx context.Context, conn *redis.Conn, cmds []redis.Cmder) error {
	pipe := conn.Pipeline()
	for _, cmd := range cmds {
		_ = pipe.Process(ctx, cmd)
	}
	_, err := pipe.Exec(ctx)
	for _, cmd := range cmds {
		if cmd.Err() == nil && !answered(cmd) {
			cmd.SetErr(&noReplyError{cause: err})
		}
	}
	return err
}

// answered reports whether a command without an error holds a reply: a value,
// or for a status command a non-empty status.
func answered(cmd redis.Cmder) bool {
	switch c := cmd.(type) {
	case *redis.Cmd:
		return c.Val() != nil
	case *redis.StatusCmd:
		return c.Val() != ""
	}
	return true
}

// retryNoScript resends as EVAL the scripts the master did not know (it
// restarted, or was flushed), replacing their commands in cmds.
func retryNoScript(ctx context.Context, conn *redis.Conn, live []*call, cmds []*redis.Cmd) {
	var again []int
	for i, cmd := range cmds {
		if live[i].script != nil && redis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
			again = append(again, i)
		}
	}
	if len(again) == 0 {
		return
	}
	retry := make([]*redis.Cmd, len(again))
	var wire []redis.Cmder
	for j, i := range again {
		c := live[i]
		retry[j] = redis.NewCmd(ctx, scriptArgs("eval", scriptSource[c.script], c.keys, c.argv)...)
		if c.asking {
			wire = append(wire, redis.NewStatusCmd(ctx, "asking"))
		}
		wire = append(wire, retry[j])
	}
	_ = pipeline(ctx, conn, wire)
	for j, i := range again {
		cmds[i] = retry[j]
	}
}

func scriptArgs(verb, body string, keys []string, argv []any) []any {
	args := make([]any, 0, 3+len(keys)+len(argv))
	args = append(args, verb, body, len(keys))
	for _, k := range keys {
		args = append(args, k)
	}
	return append(args, argv...)
}

// close stops the senders once they have answered every queued call, and
// closes the node's client. It interrupts pipelines in flight and setups in
// progress rather than wait for a master that does not answer.
func (n *node) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	close(n.stop)
	n.cancel()
	n.conns.interrupt()
	n.done.Wait()
	_ = n.client.Close()
}

// isTimeout reports whether err means the master did not answer in time.
func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return strings.Contains(err.Error(), "i/o timeout")
}

// isReply reports whether err is the master's answer rather than a failure
// to get one.
func isReply(err error) bool {
	var answer redis.Error
	return errors.As(err, &answer)
}
