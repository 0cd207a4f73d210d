package monitor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// New keys through keyspace notifications. Where a master already publishes key-event notifications of the
// writes that create lock keys (its notify-keyspace-events has E and the classes below; the monitor never sets
// it), the monitor subscribes to them on a connection of its own and reads the keys they name in the next
// poll, by the rules the SCAN applies, so a new lock shows within a poll instead of when the budgeted SCAN
// comes across it. The SCAN goes on all the same: it finds what a lost connection or a full queue missed.

// Keyspace notification tuning.
const (
	// maxNotified bounds the keys named by notifications and not read yet: a flood of cache writes costs at
	// most this many keys of memory; beyond it, keys are dropped and counted (the SCAN finds them).
	maxNotified = 100_000
	// notifiedChunk is how many named keys one call reads; a poll makes one call, and more while the scan
	// budget allows.
	notifiedChunk = 1000
	// keyspaceRecheck is how often notify-keyspace-events is read again, so that notifications turned on or
	// off show within a minute.
	keyspaceRecheck = time.Minute
)

// lockEvent is a key event of a write that creates a lock key or gives it its TTL, and the class of
// notify-keyspace-events that turns it on.
type lockEvent struct {
	name  string
	class byte
}

// lockEvents are the key events the monitor listens to: "set" for string locks (SET NX PX, SETNX, SETEX);
// "expire" for every key given a TTL (PEXPIRE, and SET with PX): hash and sorted-set locks, which are candidates
// only with one; "hset" and "hincrby" for Redisson's hash locks; "zadd" for sorted-set locks (Symfony Lock,
// redis-semaphore); "new" for any new key (Redis 7, class n, not in A).
var lockEvents = []lockEvent{{"set", '$'}, {"expire", 'g'}, {"hset", 'h'}, {"hincrby", 'h'}, {"zadd", 'z'}, {"new", 'n'}}

// allClass is what class A of notify-keyspace-events stands for.
const allClass = "g$lshzxetd"

// lockKinds are the kinds of lock keys, with the classes whose events name new ones.
var lockKinds = []struct{ kind, classes string }{
	{"string locks", "$n"},
	{"hash locks", "ghn"},
	{"sorted-set locks", "gzn"},
}

// lockEventChannels returns, for the master's notify-keyspace-events flags, the key-event channels of db
// that name new lock keys, and what that means for discovery (MasterStatus.NotifiedWhy).
func lockEventChannels(flags string, db int) ([]string, string) {
	classes := strings.ReplaceAll(flags, "A", allClass)
	if !strings.Contains(classes, "E") {
		return nil, fmt.Sprintf("by the scan only: notify-keyspace-events is %q, without key-event notifications (E)", flags)
	}
	var channels, events []string
	for _, e := range lockEvents {
		if strings.IndexByte(classes, e.class) >= 0 {
			channels = append(channels, "__keyevent@"+strconv.Itoa(db)+"__:"+e.name)
			events = append(events, e.name)
		}
	}
	if len(channels) == 0 {
		return nil, fmt.Sprintf("by the scan only: notify-keyspace-events %q names no write that creates a lock key", flags)
	}
	why := "within a poll, through keyspace notifications (" + strings.Join(events, ", ") + "), and by the scan"
	var missed []string
	for _, k := range lockKinds {
		if !strings.ContainsAny(classes, k.classes) {
			missed = append(missed, k.kind)
		}
	}
	if len(missed) > 0 {
		why += "; " + strings.Join(missed, " and ") + " by the scan only"
	}
	return channels, why
}

// notifier takes the keys a master's keyspace notifications name, for discovery to read. The fields under mu
// are shared with the receiver goroutine; the others belong to the poller's read (one at a time).
type notifier struct {
	base *redis.Options // the master's client's options, copied for the notification connection

	channels  []string  // subscribed to; nil when notifications are not used
	why       string    // MasterStatus.NotifiedWhy
	checkedAt time.Time // when notify-keyspace-events was last read
	refused   bool      // the master refused CONFIG GET or SUBSCRIBE: not asked again

	mu       sync.Mutex
	queue    []string            // keys named and not read by an accepted reading, oldest first
	queued   map[string]struct{} // the keys in queue
	taken    int                 // keys at the front of queue that the current read took
	dropped  int64               // keys named while the queue was full
	running  bool                // the receiver runs on sub
	closed   bool                // the monitor was closed: no connection is opened again
	lastUsed time.Time           // when a poll last took keys
	client   *redis.Client
	sub      *redis.PubSub
}

// newNotifier returns the notifier of the master client reaches.
func newNotifier(client *redis.Client) *notifier {
	o := *client.Options()
	return &notifier{base: &o, queued: map[string]struct{}{}}
}

// subscribe opens the notification connection, subscribes it to channels and starts its receiver.
func (n *notifier) subscribe(ctx context.Context, channels []string) error {
	o := *n.base
	o.Protocol, o.PoolSize, o.MinIdleConns, o.DisableIdentity = 2, 1, 0, true
	client := redis.NewClient(&o)
	sub := client.Subscribe(ctx, channels...)
	for range channels {
		msg, err := sub.ReceiveTimeout(ctx, timeUntil(ctx))
		if s, ok := msg.(*redis.Subscription); err == nil && (!ok || s.Kind != "subscribe") {
			err = fmt.Errorf("unexpected reply %T to SUBSCRIBE", msg)
		}
		if err != nil {
			closeAll(sub, nil, client)
			return err
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		closeAll(sub, nil, client)
		return errors.New("the monitor is closed")
	}
	n.client, n.sub, n.running, n.lastUsed = client, sub, true, time.Now()
	go n.receive(sub, client)
	return nil
}

// receive takes the keys named on sub until the notifier stops using it, or its connection fails: the next
// poll then subscribes again.
func (n *notifier) receive(sub *redis.PubSub, client *redis.Client) {
	defer closeAll(sub, nil, client)
	for n.stillUsing(sub) {
		msg, err := sub.ReceiveTimeout(context.Background(), time.Second)
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
		case err != nil:
			n.stop(sub)
			return
		default:
			if m, ok := msg.(*redis.Message); ok {
				n.add(m.Payload)
			}
		}
	}
}

// stillUsing reports whether sub is the notifier's and a poll took keys lately; when none did, the receiver
// stops and the next poll subscribes again.
func (n *notifier) stillUsing(sub *redis.PubSub) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.sub == sub && n.running && time.Since(n.lastUsed) > idleAfter {
		n.running = false
	}
	return n.sub == sub && n.running
}

// stop records that the receiver of sub stopped.
func (n *notifier) stop(sub *redis.PubSub) {
	n.mu.Lock()
	if n.sub == sub {
		n.running = false
	}
	n.mu.Unlock()
}

// isRunning reports whether the receiver runs.
func (n *notifier) isRunning() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.running
}

// add queues a key named by a notification, unless it is queued already or the queue is full.
func (n *notifier) add(key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.queued[key]; ok {
		return
	}
	if len(n.queue) >= maxNotified {
		n.dropped++
		return
	}
	n.queued[key] = struct{}{}
	n.queue = append(n.queue, key)
}

// begin starts a read: keys a read took without its reading being accepted are taken again.
func (n *notifier) begin() {
	n.mu.Lock()
	n.taken, n.lastUsed = 0, time.Now()
	n.mu.Unlock()
}

// take returns up to limit queued keys the current read has not taken yet.
func (n *notifier) take(limit int) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	end := min(n.taken+limit, len(n.queue))
	keys := append([]string(nil), n.queue[n.taken:end]...)
	n.taken = end
	return keys
}

// accepted drops from the queue the keys the read whose reading the monitor accepted took.
func (n *notifier) accepted() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, k := range n.queue[:n.taken] {
		delete(n.queued, k)
	}
	clear(n.queue[:n.taken]) // the array keeps its front until append moves it: let go of the keys
	n.queue, n.taken = n.queue[n.taken:], 0
}

// droppedSoFar is how many named keys the full queue dropped.
func (n *notifier) droppedSoFar() int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.dropped
}

// unsubscribe closes the notification connection, if open; its receiver ends.
func (n *notifier) unsubscribe() {
	n.mu.Lock()
	sub, client := n.sub, n.client
	n.sub, n.client, n.running = nil, nil, false
	n.mu.Unlock()
	closeAll(sub, nil, client)
	n.channels = nil
}

// close ends the notifications of a monitor that is closed; no poll subscribes again.
func (n *notifier) close() {
	n.mu.Lock()
	n.closed, n.running = true, false
	sub, client := n.sub, n.client
	n.mu.Unlock()
	closeAll(sub, nil, client)
}
