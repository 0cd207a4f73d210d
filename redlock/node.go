package redlock

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
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
}

// reply is a master's answer to a call.
type reply struct {
	index   int
	val     any
	err     error
	latency time.Duration
}

// node is one master with its batching path: calls that arrive while a
// pipeline is in flight are sent together in the next one.
type node struct {
	addr      string
	client    *redis.Client
	ownClient bool // created by New; closed by Close
	queue     chan *call
	maxBatch  int
	stop      chan struct{}
	done      sync.WaitGroup

	// mu is held for reading while a call is queued and for writing by close, so that no call enters the
	// queue once dispatch may have drained it for the last time: such a call would never be answered.
	mu     sync.RWMutex
	closed bool
}

func newNode(addr string, client *redis.Client, own bool, maxBatch int) *node {
	n := &node{
		addr:      addr,
		client:    client,
		ownClient: own,
		queue:     make(chan *call, 4*maxBatch),
		maxBatch:  maxBatch,
		stop:      make(chan struct{}),
	}
	n.done.Add(1)
	go n.dispatch()
	return n
}

// send queues c; it never blocks past c's deadline. On a closed node, c is answered with errClosed at once.
func (n *node) send(c *call) {
	n.mu.RLock()
	defer n.mu.RUnlock()
	if n.closed {
		c.out <- reply{index: c.index, err: errClosed}
		return
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

// dispatch sends queued calls, one pipeline at a time: calls that queue while
// a pipeline is in flight go out together in the next one. Every pipeline is
// bounded by its calls' deadlines, which the client's connections honour.
func (n *node) dispatch() {
	defer n.done.Done()
	for {
		select {
		case first := <-n.queue:
			n.exec(n.collect([]*call{first}))
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
		c.out <- reply{index: c.index, val: val, err: err, latency: time.Since(start)}
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

// close stops dispatch once it has answered every queued call, and closes the client if the node owns it.
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
