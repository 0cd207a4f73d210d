package reading

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// New keys through keyspace notifications. Where a master already publishes key-event notifications of the
// writes that create lock keys (its notify-keyspace-events has E and the classes below; the monitor never sets
// it), the monitor subscribes to them on a connection of its own and reads the keys they name in the next
// poll, by the rules the SCAN applies, so a new lock shows within a poll instead of when the budgeted SCAN
// comes across it. The SCAN goes on all the same: it finds what a lost connection or a full queue missed.

// Keyspace notification tuning.
const (
	// maxNotified bounds each queue of the keys named by notifications and not read yet: a flood of cache
	// writes costs at most this many keys of memory in each; beyond it, keys are dropped and counted (the SCAN
	// finds them).
	maxNotified = 100_000
	// notifiedChunk is how many named keys one call reads; a poll makes one call, and more while the scan
	// budget allows.
	notifiedChunk = 1000
	// keyspaceRecheck is how often notify-keyspace-events is read again, so that notifications turned on or
	// off show within a minute.
	keyspaceRecheck = time.Minute
	// notifiedScanShare is the share of Config.ScanBudget the scan keeps on a master whose notifications name
	// every kind of lock, once it has swept the keyspace with nothing missed: a safety net, not the way new
	// locks are found.
	notifiedScanShare = 0.1
)

// lockEvent is a key event of a write that creates a lock key or gives it its TTL, the class of
// notify-keyspace-events that turns it on, and whether the keys it names are read first: those of an event
// that every lock has and a cache without a TTL has not, so that a flood of such cache writes delays no lock.
type lockEvent struct {
	name   string
	class  byte
	urgent bool
}

// lockEvents are the key events the monitor listens to: "set" for string locks (SET NX PX, SETNX, SETEX);
// "expire" for every key given a TTL (PEXPIRE, and SET with PX): hash and sorted-set locks, which are candidates
// only with one; "hset" and "hincrby" for Redisson's hash locks; "zadd" for sorted-set locks (Symfony Lock,
// redis-semaphore); "new" for any new key (Redis 7, class n, not in A).
var lockEvents = []lockEvent{{"set", '$', false}, {"expire", 'g', true}, {"hset", 'h', false}, {"hincrby", 'h', true},
	{"zadd", 'z', true}, {"new", 'n', false}}

// urgentChannel reports whether the keys named on channel are read first (lockEvent.urgent).
func urgentChannel(channel string) bool {
	_, event, _ := strings.Cut(channel, "__:")
	for _, e := range lockEvents {
		if e.name == event {
			return e.urgent
		}
	}
	return false
}

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
		return nil, fmt.Sprintf("by the scan only: notify-keyspace-events is %s, without key-event notifications (E)", vocab.Quote(flags))
	}
	var channels, events []string
	for _, e := range lockEvents {
		if strings.IndexByte(classes, e.class) >= 0 {
			channels = append(channels, "__keyevent@"+strconv.Itoa(db)+"__:"+e.name)
			events = append(events, e.name)
		}
	}
	if len(channels) == 0 {
		return nil, fmt.Sprintf("by the scan only: notify-keyspace-events %s names no write that creates a lock key", vocab.Quote(flags))
	}
	why := "within a poll, through keyspace notifications (" + strings.Join(events, ", ") + "), and by the scan"
	if missed := kindsMissed(classes); len(missed) > 0 {
		why += "; " + strings.Join(missed, " and ") + " by the scan only"
	}
	return channels, why
}

// kindsMissed returns the kinds of lock keys whose creation no class of classes (notify-keyspace-events, A
// spelt out) names.
func kindsMissed(classes string) []string {
	var missed []string
	for _, k := range lockKinds {
		if !strings.ContainsAny(classes, k.classes) {
			missed = append(missed, k.kind)
		}
	}
	return missed
}

// namesEveryLock reports whether notify-keyspace-events flags name every kind of lock key as it is created.
func namesEveryLock(flags string) bool {
	classes := strings.ReplaceAll(flags, "A", allClass)
	return strings.Contains(classes, "E") && len(kindsMissed(classes)) == 0
}

// notifier takes the keys a master's keyspace notifications name, for discovery to read. The fields under mu
// are shared with the receiver goroutine; the others belong to the poller's read (one at a time).
type notifier struct {
	base *redis.Options // the master's client's options, copied for the notification connection

	channels  []string  // subscribed to; nil when notifications are not used
	everyLock bool      // the channels name every kind of lock (namesEveryLock)
	why       string    // MasterStatus.NotifiedWhy
	checkedAt time.Time // when notify-keyspace-events was last read
	refused   bool      // the master refused CONFIG GET or SUBSCRIBE: not asked again

	mu       sync.Mutex
	urgent   keyQueue  // keys named by an urgent event (lockEvent.urgent): read first
	plain    keyQueue  // keys named by other events only: most often a cache's writes, read when no urgent key waits
	dropped  int64     // keys named while their queue was full
	gapAt    time.Time // when keys named may last have been missed: a (re)subscription, or a key dropped
	running  bool      // the receiver runs on sub
	closed   bool      // the monitor was closed: no connection is opened again
	lastUsed time.Time // when a poll last took keys
	client   *redis.Client
	sub      *redis.PubSub

	announce *announcer // the keys written under known lock prefixes, which the master announces (announce.go)

	pongs       chan string   // the receiver hands the barrier its PONGs
	barrier     atomic.Uint64 // numbers the barriers' PINGs
	pingRefused atomic.Bool   // the master's ACL refuses PING: no barrier
}

// newNotifier returns the notifier of the master client reaches.
func newNotifier(client *redis.Client) *notifier {
	o := *client.Options()
	n := &notifier{base: &o, urgent: newKeyQueue(maxNotified), plain: newKeyQueue(maxNotified), pongs: make(chan string, 4)}
	n.announce = newAnnouncer(client, n)
	return n
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
	n.client, n.sub, n.running, n.lastUsed, n.gapAt = client, sub, true, time.Now(), time.Now()
	go n.receive(sub, client)
	return nil
}

// receive takes the keys named on sub until the notifier stops using it, or its connection fails: the next
// poll then subscribes again. An error reply (the master's ACL refuses the barrier's PING) ends the barriers,
// not the connection.
func (n *notifier) receive(sub *redis.PubSub, client *redis.Client) {
	defer closeAll(sub, nil, client)
	for n.stillUsing(sub) {
		msg, err := sub.ReceiveTimeout(context.Background(), time.Second)
		var ne net.Error
		switch {
		case errors.As(err, &ne) && ne.Timeout():
		case isServerError(err):
			n.pingRefused.Store(true)
			n.pong("")
		case err != nil:
			n.stop(sub)
			return
		default:
			switch m := msg.(type) {
			case *redis.Message:
				n.add(m.Payload, urgentChannel(m.Channel))
			case *redis.Pong:
				n.pong(m.Payload)
			}
		}
	}
}

// pong hands the barrier a PONG's payload, "" for a refused PING; none waits when its buffer is full.
func (n *notifier) pong(payload string) {
	select {
	case n.pongs <- payload:
	default:
	}
}

// waitBarrier sends a PING on the notification connection and waits for its PONG, for at most a quarter of
// the time ctx leaves: the master sends a key's notification as it makes the write, so once the PONG is in,
// every key written before the PING is queued. Without it in time the poll goes on: the keys come next poll.
func (n *notifier) waitBarrier(ctx context.Context) error {
	n.mu.Lock()
	sub, running := n.sub, n.running
	n.mu.Unlock()
	if !running || n.pingRefused.Load() {
		return errors.New("no barrier: not subscribed, or PING refused")
	}
	token := "redlock-tui-keyspace-" + strconv.FormatUint(n.barrier.Add(1), 10)
	if err := sub.Ping(ctx, token); err != nil {
		return err
	}
	timer := time.NewTimer(timeUntil(ctx) / 4)
	defer timer.Stop()
	for {
		select {
		case p := <-n.pongs:
			if p == token {
				return nil
			}
			if p == "" {
				return errors.New("PING refused")
			}
		case <-timer.C:
			return errors.New("no answer to the notification connection's PING")
		case <-ctx.Done():
			return ctx.Err()
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

// add queues a key named by a notification, in the urgent queue when its event is (lockEvent.urgent); not
// when it is queued already, or its queue is full (counted).
func (n *notifier) add(key string, urgent bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var queued bool
	switch {
	case urgent:
		if queued = n.urgent.push(key); queued {
			n.plain.remove(key)
		}
	case n.urgent.has(key):
		queued = true
	default:
		queued = n.plain.push(key)
	}
	if !queued {
		n.dropped++
		n.gapAt = time.Now()
	}
}

// missedNothingSince reports whether the notifications named every kind of lock, with nothing missed, since
// from: a scan that started then and swept the whole keyspace leaves nothing for a full-paced scan to find.
func (n *notifier) missedNothingSince(from time.Time) bool {
	if n == nil || n.channels == nil || !n.everyLock || from.IsZero() {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.running && from.After(n.gapAt)
}

// noteFound tells the announcer the keys discovery found (announcer.noteFound).
func (n *notifier) noteFound(keys map[string]bool) {
	if n != nil {
		n.announce.noteFound(keys)
	}
}

// dropUnder takes the keys under prefix out of the queues: they are left to the scan.
func (n *notifier) dropUnder(prefix string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.urgent.removeUnder(prefix)
	n.plain.removeUnder(prefix)
}

// coveredSince reports whether new lock keys came, with nothing missed since from, by notifications that name
// every kind of lock or by the announcements of every known family's keys: the scan is then a safety net.
func (n *notifier) coveredSince(from time.Time) bool {
	return n != nil && (n.missedNothingSince(from) || n.announce.coversSince(from))
}

// begin starts a read: keys a read took without its reading being accepted are taken again.
func (n *notifier) begin() {
	n.mu.Lock()
	n.urgent.taken, n.plain.taken, n.lastUsed = 0, 0, time.Now()
	n.mu.Unlock()
}

// take returns up to limit queued keys the current read has not taken yet, the urgent ones first.
func (n *notifier) take(limit int) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	keys := n.urgent.take(limit)
	return append(keys, n.plain.take(limit-len(keys))...)
}

// accepted drops from the queues the keys taken by the read whose reading the monitor accepted.
func (n *notifier) accepted() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.urgent.accept()
	n.plain.accept()
}

// droppedSoFar is how many named keys the full queues dropped.
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
	n.announce.close()
}
