package reading

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// How a master's known keys are refreshed (MasterStatus.Refresh).
const (
	RefreshTracking = "tracking" // re-read what the master said changed (CLIENT TRACKING), and a slow full re-read
	RefreshPolling  = "polling"  // every known key re-read on every poll
)

// DefaultFullReadEvery is how often a tracked master's keys are all read again, as a safety net.
const DefaultFullReadEvery = 3 * time.Minute

// invalidateChannel is where a master publishes the invalidations of keys a tracking connection read.
const invalidateChannel = "__redis__:invalidate"

// idleAfter is how long the invalidation connection stays open without a poll that uses it: a monitor no
// longer polled (and not closed) lets go of it, and the next poll opens it again, with a full re-read.
const idleAfter = time.Minute

// tracker refreshes one master's keys by what the master says changed. Two dedicated connections do it: the
// read connection, with CLIENT TRACKING ON REDIRECT to the invalidation connection, which is subscribed to
// __redis__:invalidate. A key read on the read connection is served from the cache until the master says it
// changed, its TTL counted from its read runs out, or the slow full re-read comes; a reconnect of either
// connection, a lost message or a missed barrier makes the next read a full one. The fields under mu are the
// receiver goroutine's; the others belong to the poller's read (one at a time).
type tracker struct {
	base     *redis.Options // the master's client's options, copied for the dedicated connections
	fullRead time.Duration

	mu       sync.Mutex
	dirty    map[string]struct{} // keys invalidated since the last swap
	lost     bool                // invalidations may have been missed since the last swap
	lastUsed time.Time           // when a poll last used the tracker
	running  bool                // the receiver goroutine runs
	closed   bool                // the monitor was closed: no connection is opened again
	pongs    chan string         // the receiver hands the barrier its PONGs

	invID   atomic.Int64  // CLIENT ID of the invalidation connection, as it last connected
	barrier atomic.Uint64 // numbers the barriers' PINGs

	inv      *redis.Client
	sub      *redis.PubSub
	reader   *redis.Client // the read connection's client
	read     *redis.Conn   // the read connection: one that never reconnects by itself; nil when none
	armedInv int64         // invID when tracking was turned on for read; 0 not on
	lastFull time.Time
	off      string // why the master is polled instead; "" while tracking may be used

	knownOf  []string      // the known list of the last plan
	slots    []cachedKey   // the cache, aligned with knownOf: what the tracker keeps of the keys read while tracking was on
	missing  []string      // keys to read next time: not read, or not current, when last planned
	lastRead []string      // the keys the last read read: read again if the monitor did not take it
	nextEnd  int64         // at most the earliest end of a cached key's TTL, counted from its read (Unix nanoseconds); 0: none has one
	seq      uint64        // numbers the tracked reads
	accepted atomic.Uint64 // the number of the last read the monitor took and applied; 0 none
	storm    stormWatch
	retryAt  time.Time     // when tracking is tried again after an invalidation storm; zero: off for good, or on
	backoff  time.Duration // how long the next storm turns the master to polling (stormRetryFirst, doubling)
}

// newTracker returns a tracker of the master client reaches, with a full re-read every fullRead.
func newTracker(client *redis.Client, fullRead time.Duration) *tracker {
	o := *client.Options()
	return &tracker{base: &o, fullRead: fullRead, dirty: map[string]struct{}{}, pongs: make(chan string, 4), backoff: stormRetryFirst}
}

// dedicatedClient returns a client for the tracking connections, recording the CLIENT ID of each connection
// it makes in id (nil: not recorded): a new ID is a reconnect. It speaks RESP2: invalidations come as Pub/Sub
// messages.
func (t *tracker) dedicatedClient(id *atomic.Int64) *redis.Client {
	o := *t.base
	o.Protocol, o.PoolSize, o.MinIdleConns = 2, 1, 0
	o.DisableIdentity = true
	if id == nil {
		return redis.NewClient(&o)
	}
	onConnect := o.OnConnect
	o.OnConnect = func(ctx context.Context, cn *redis.Conn) error {
		if onConnect != nil {
			if err := onConnect(ctx, cn); err != nil {
				return err
			}
		}
		n, err := cn.ClientID(ctx).Result()
		if err != nil {
			return err
		}
		id.Store(n)
		return nil
	}
	return redis.NewClient(&o)
}

// start opens the invalidation connection, subscribes it and starts its receiver. A refused subscription turns
// tracking off for good (errNoTracking); other errors are the master's.
func (t *tracker) start(ctx context.Context) error {
	t.closeClients()
	inv, reader := t.dedicatedClient(&t.invID), t.dedicatedClient(nil)
	sub := inv.Subscribe(ctx, invalidateChannel)
	t.mu.Lock()
	closed := t.closed
	if !closed {
		t.inv, t.reader, t.sub = inv, reader, sub
	}
	t.mu.Unlock()
	if closed {
		closeAll(sub, nil, inv, reader)
		return t.turnOff("the monitor is closed")
	}
	msg, err := t.sub.ReceiveTimeout(ctx, timeUntil(ctx))
	if err == nil {
		if s, ok := msg.(*redis.Subscription); !ok || s.Kind != "subscribe" {
			err = fmt.Errorf("unexpected reply %T to SUBSCRIBE", msg)
		}
	}
	if err != nil {
		t.closeClients()
		if refusedForGood(err) {
			return t.turnOff("tracking refused: " + strings.TrimSpace(err.Error()))
		}
		return err
	}
	t.mu.Lock()
	t.running, t.lost, t.lastUsed = true, true, time.Now()
	t.mu.Unlock()
	go t.receive(t.sub, t.inv)
	return nil
}

// timeUntil is the time left before ctx's deadline, or a second when it has none.
func timeUntil(ctx context.Context) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(time.Until(d), time.Millisecond)
	}
	return time.Second
}

// errNoTracking reports that the master does not allow tracking: it is polled.
var errNoTracking = errors.New("monitor: tracking not allowed")

// turnOff makes the master polled for why, for good unless an invalidation storm set retryAt; it returns
// errNoTracking.
func (t *tracker) turnOff(why string) error {
	t.off = why
	t.closeClients()
	return errNoTracking
}

// arm turns tracking on for the read connection, redirected to the invalidation connection, and forgets the
// cache: every key is read again. A master that refuses it (before Redis 6, no permission) is polled.
func (t *tracker) arm(ctx context.Context) error {
	t.dropRead()
	t.mu.Lock()
	t.read = t.reader.Conn()
	t.mu.Unlock()
	inv := t.invID.Load()
	pipe := t.read.Pipeline()
	on := pipe.Do(ctx, "client", "tracking", "on", "redirect", inv)
	exists := pipe.Exists(ctx, "redlock-tui:tracking-check") // tracks the keys read: it must be allowed
	_, _ = pipe.Exec(ctx)
	for _, cmd := range []redis.Cmder{on, exists} {
		err := cmd.Err()
		if refusedForGood(err) {
			return t.turnOff(strings.ToUpper(cmd.Name()) + " refused: " + strings.TrimSpace(err.Error()))
		}
		if err != nil {
			t.dropRead()
			return err
		}
	}
	t.armedInv = inv
	t.forget()
	return nil
}

// dropRead closes the read connection, if open: a read that failed may have left it broken, and the next
// poll opens another and reads every key.
func (t *tracker) dropRead() {
	t.mu.Lock()
	read := t.read
	t.read, t.armedInv = nil, 0
	t.mu.Unlock()
	closeAll(nil, read)
}

// armed reports whether tracking is on, on the connections that are open now.
func (t *tracker) armed() bool {
	return t.read != nil && t.armedInv != 0 && t.armedInv == t.invID.Load()
}

// closeClients closes the dedicated connections, if open; the receiver, if it runs, ends. The fields are
// written under mu (by the poller's read only), so that close, from another goroutine, reads them whole.
func (t *tracker) closeClients() {
	t.dropRead()
	t.mu.Lock()
	sub, inv, reader := t.sub, t.inv, t.reader
	t.inv, t.sub, t.reader = nil, nil, nil
	t.mu.Unlock()
	closeAll(sub, nil, inv, reader)
}

// closeAll closes what is not nil of a subscription, a connection and clients.
func closeAll(sub *redis.PubSub, read *redis.Conn, clients ...*redis.Client) {
	if sub != nil {
		_ = sub.Close()
	}
	if read != nil {
		_ = read.Close()
	}
	for _, c := range clients {
		if c != nil {
			_ = c.Close()
		}
	}
}

// close ends tracking for a monitor that is closed, while a read may still be under way: it closes the
// connections, leaving the fields to that read (which fails on them), and no poll opens them again.
func (t *tracker) close() {
	t.mu.Lock()
	t.closed, t.running = true, false
	sub, read, inv, reader := t.sub, t.read, t.inv, t.reader
	t.mu.Unlock()
	closeAll(sub, read, inv, reader)
}

// refusedForGood reports whether err is the master refusing what tracking needs (CLIENT ID, SUBSCRIBE, CLIENT
// TRACKING: unknown before Redis 6, or not permitted), as opposed to a connection that failed or a refusal
// that passes (too many clients, loading, busy).
func refusedForGood(err error) bool {
	if err == nil {
		return false
	}
	for _, passing := range []string{"max number of clients", "redirect to does not exist", "LOADING", "BUSY", "TRYAGAIN", "MASTERDOWN"} {
		if strings.Contains(err.Error(), passing) {
			return false
		}
	}
	return isServerError(err) || isSetupError(err) || strings.Contains(err.Error(), "NOPERM")
}
