package redlock

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// call is one command for one master, answered on out.
type call struct {
	args     []any         // the command, for plain commands
	script   *redis.Script // set for scripts: sent as EVALSHA, with EVAL on NOSCRIPT
	keys     []string      // script keys
	argv     []any         // script arguments
	deadline time.Time
	index    int // the master's position, echoed in the reply
	out      chan<- reply
	queued   time.Time // when the node got the call: latency counts the wait for a connection
}

// reply is a master's answer to a call.
type reply struct {
	index   int
	val     any
	err     error
	latency time.Duration
}

// growWait is how long a call may wait for a busy connection before the
// node opens another: batching is free only while it costs no latency.
const growWait = time.Millisecond

// node is one master with its batching path. A call goes out at once when one
// of the node's senders is free; calls that arrive while every sender has a
// pipeline in flight go out together in the next free one. Senders are added,
// up to maxSenders, when calls wait for one longer than growWait.
type node struct {
	addr       string
	client     *redis.Client
	ownClient  bool // created by New; closed by Close
	queue      chan *call
	maxBatch   int
	maxSenders int
	stop       chan struct{}
	done       sync.WaitGroup

	// mu is held for reading while a call is queued and for writing by close, so that no call enters the
	// queue once the senders may have drained it for the last time: such a call would never be answered.
	mu     sync.RWMutex
	closed bool

	idle    atomic.Int32 // senders waiting for a call
	rtt     atomic.Int64 // smoothed duration of a pipeline, in nanoseconds
	grow    sync.Mutex
	senders int // guarded by grow
}

func newNode(addr string, client *redis.Client, own bool, maxBatch, maxSenders int) *node {
	n := &node{
		addr:       addr,
		client:     client,
		ownClient:  own,
		queue:      make(chan *call, 4*maxBatch),
		maxBatch:   maxBatch,
		maxSenders: max(1, maxSenders),
		stop:       make(chan struct{}),
	}
	n.addSender()
	return n
}

// addSender starts one more sender unless there are maxSenders.
func (n *node) addSender() {
	n.grow.Lock()
	defer n.grow.Unlock()
	if n.senders >= n.maxSenders {
		return
	}
	n.senders++
	n.done.Add(1)
	go n.sender()
}

// send queues c; it never blocks past c's deadline. On a closed node, c is answered with errClosed at once.
func (n *node) send(c *call) {
	c.queued = time.Now()
	n.mu.RLock()
	defer n.mu.RUnlock()
	if n.closed {
		c.out <- reply{index: c.index, err: errClosed}
		return
	}
	if n.idle.Load() == 0 && time.Duration(n.rtt.Load()) > growWait {
		n.addSender() // no sender is free, and waiting for one would cost latency
	}
	select {
	case n.queue <- c:
		return
	default:
	}
	t := time.NewTimer(time.Until(c.deadline))
	defer t.Stop()
	select {
	case n.queue <- c:
	case <-t.C:
		c.out <- reply{index: c.index, err: context.DeadlineExceeded}
	}
}

var errClosed = errors.New("redlock: client closed")

// sender sends queued calls, one pipeline at a time: the first call it takes
// and whatever else is queued by then. Every pipeline is bounded by its calls'
// deadlines, which the client's connections honour.
func (n *node) sender() {
	defer n.done.Done()
	for {
		n.idle.Add(1)
		select {
		case first := <-n.queue:
			n.idle.Add(-1)
			if time.Since(first.queued) > growWait {
				n.addSender()
			}
			start := time.Now()
			n.exec(n.collect([]*call{first}))
			rtt := n.rtt.Load()
			n.rtt.Store(rtt - rtt/8 + int64(time.Since(start))/8)
		case <-n.stop:
			n.drain()
			return
		}
	}
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

func (n *node) drain() {
	for {
		select {
		case c := <-n.queue:
			c.out <- reply{index: c.index, err: errClosed}
		default:
			return
		}
	}
}

// exec sends one batch as one pipeline. Calls already past their deadline are
// answered with a timeout and not sent.
func (n *node) exec(batch []*call) {
	start := time.Now()
	live := batch[:0]
	var deadline time.Time
	for _, c := range batch {
		if !start.Before(c.deadline) {
			c.out <- reply{index: c.index, err: context.DeadlineExceeded}
			continue
		}
		live = append(live, c)
		if c.deadline.After(deadline) {
			deadline = c.deadline
		}
	}
	if len(live) == 0 {
		return
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	cmds := make([]*redis.Cmd, len(live))
	for i, c := range live {
		if c.script != nil {
			cmds[i] = redis.NewCmd(ctx, scriptArgs("evalsha", c.script.Hash(), c.keys, c.argv)...)
		} else {
			cmds[i] = redis.NewCmd(ctx, c.args...)
		}
	}
	n.pipeline(ctx, cmds)
	n.retryNoScript(ctx, live, cmds)
	for i, c := range live {
		val, err := cmds[i].Result()
		c.out <- reply{index: c.index, val: val, err: err, latency: time.Since(c.queued)}
	}
}

func (n *node) pipeline(ctx context.Context, cmds []*redis.Cmd) {
	pipe := n.client.Pipeline()
	for _, cmd := range cmds {
		_ = pipe.Process(ctx, cmd)
	}
	_, _ = pipe.Exec(ctx) // each command carries its own error
}

// retryNoScript resends as EVAL the scripts the master did not know (it
// restarted, or was flushed), replacing their commands in cmds.
func (n *node) retryNoScript(ctx context.Context, live []*call, cmds []*redis.Cmd) {
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
	for j, i := range again {
		c := live[i]
		retry[j] = redis.NewCmd(ctx, scriptArgs("eval", scriptSource[c.script], c.keys, c.argv)...)
	}
	n.pipeline(ctx, retry)
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

// close stops the senders once they have answered every queued call, and closes the client if the node owns it.
// It waits for calls being queued, which is bounded by their deadlines.
func (n *node) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	close(n.stop)
	n.done.Wait()
	if n.ownClient {
		_ = n.client.Close()
	}
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
