package redlock

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// A client that releases a lock publishes the released token on the lock's release channel (ReleaseChannel)
// on every master where it deleted the key, and a client waiting for a lock subscribes to it there, so that
// it tries again as soon as the holder releases rather than at its next poll. A notice wakes one of a
// client's waiters for the lock, once whatever the number of masters it comes from: the woken one takes the
// lock, and its own release wakes the next, while the others sleep on instead of all trying at once. Every
// waiting client hears the notice, and each tries after a random delay spread over their number; the first
// that takes the lock publishes that it did ("taken " and its token), and the others, still in their delay,
// sleep on rather than each spend a round to find it held. A notice is only a hint: it
// grants nothing, waiters still acquire by Redlock's rounds, and a waiter that hears nothing (a master that
// refuses PUBLISH or SUBSCRIBE to its ACL user, a holder of another client, a notice lost with a connection)
// still polls (see waitToRetry).

// ReleaseChannel is the Pub/Sub channel on which a client announces the release of resource's lock.
func ReleaseChannel(resource string) string { return "redlock:released:" + resource }

// notices holds a client's subscriptions to release channels: one Pub/Sub connection per independent master,
// set up when the first waiter asks, shared by every waiter of the client.
type notices struct {
	mu        sync.Mutex
	closed    bool
	subs      []*redis.PubSub              // per master; nil until the first waiter, and for other masters
	waiters   map[string]map[*watcher]bool // by channel: each waiter's wake-ups
	confirmed map[string]map[int]bool      // by channel: the masters that confirmed the subscription
	last      map[string]string            // by channel: the last token announced, heard from any master
	done      sync.WaitGroup               // the readers of subs, and the subscriptions being sent
}

// maxIdleChannels is how many release channels without waiters a client stays subscribed to.
const maxIdleChannels = 64

// takenPrefix starts the notice a waiter publishes when it took the lock after a release's notice woke it:
// a token has no space in it.
const takenPrefix = "taken "

// watcher is one waiter's watch of a release channel.
type watcher struct {
	wake  chan struct{} // a release was announced: receives once, for one waiter of the client
	taken chan struct{} // another waiter took the lock after a release's notice: receives for every waiter
	heard func() bool   // whether some master confirmed the subscription
	stop  func()        // ends the watch
}

// watch subscribes to resource's release channel on every master where it can and returns the waiter's watch
// of it.
func (c *Client) watch(resource string) *watcher {
	ch := ReleaseChannel(resource)
	w := &watcher{wake: make(chan struct{}, 1), taken: make(chan struct{}, 1)}
	ns := &c.notices
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if ns.closed {
		w.heard, w.stop = func() bool { return false }, func() {}
		return w
	}
	if ns.waiters == nil {
		ns.waiters, ns.confirmed, ns.last = map[string]map[*watcher]bool{}, map[string]map[int]bool{}, map[string]string{}
		ns.subs = make([]*redis.PubSub, len(c.nodes))
		for i, m := range c.nodes {
			if n, ok := m.(*node); ok {
				ns.subs[i] = n.client.Subscribe(context.Background())
				ns.done.Add(1)
				go ns.read(i, ns.subs[i])
			}
		}
	}
	if ns.waiters[ch] == nil {
		ns.waiters[ch], ns.confirmed[ch] = map[*watcher]bool{}, map[int]bool{}
		// In the background: a master that is slow to answer (paused, or dialled anew) must not hold up the
		// waiter, nor the notices of other channels. The confirmation comes through read.
		ns.done.Add(1)
		go func() {
			defer ns.done.Done()
			c.eachSub(func(ctx context.Context, ps *redis.PubSub) { _ = ps.Subscribe(ctx, ch) })
		}()
	}
	ns.waiters[ch][w] = true
	w.heard = func() bool {
		ns.mu.Lock()
		defer ns.mu.Unlock()
		return len(ns.confirmed[ch]) > 0
	}
	w.stop = func() {
		ns.mu.Lock()
		defer ns.mu.Unlock()
		delete(ns.waiters[ch], w)
		if ns.closed {
			return
		}
		// A channel without waiters stays subscribed, so that the next Acquire of a contended lock finds its
		// subscription confirmed rather than setting it up again, until there are more than maxIdleChannels.
		var idle []string
		for other, ws := range ns.waiters {
			if len(ws) == 0 {
				idle = append(idle, other)
			}
		}
		if len(idle) <= maxIdleChannels {
			return
		}
		for _, other := range idle {
			delete(ns.waiters, other)
			delete(ns.confirmed, other)
			delete(ns.last, other)
		}
		ns.done.Add(1)
		go func() {
			defer ns.done.Done()
			c.eachSub(func(ctx context.Context, ps *redis.PubSub) { _ = ps.Unsubscribe(ctx, idle...) })
		}()
	}
	return w
}

// eachSub calls f on every master's subscription, with a node timeout for its command.
func (c *Client) eachSub(f func(ctx context.Context, ps *redis.PubSub)) {
	for _, ps := range c.notices.subs {
		if ps != nil {
			ctx, cancel := context.WithTimeout(context.Background(), c.cfg.nodeTimeout)
			f(ctx, ps)
			cancel()
		}
	}
}

// read dispatches what master i's subscription receives until it is closed: confirmations, and notices, of
// which the first from any master wakes one waiter of their channel, at random, whose wake-up is not pending,
// or, for a notice that the lock was taken, tells every waiter of the channel.
func (ns *notices) read(i int, ps *redis.PubSub) {
	defer ns.done.Done()
	for m := range ps.ChannelWithSubscriptions(redis.WithChannelHealthCheckInterval(5 * time.Second)) {
		ns.mu.Lock()
		switch m := m.(type) {
		case *redis.Subscription:
			if got := ns.confirmed[m.Channel]; got != nil && m.Kind == "subscribe" {
				got[i] = true
			}
		case *redis.Message:
			if len(ns.waiters[m.Channel]) == 0 || ns.last[m.Channel] == m.Payload {
				break
			}
			ns.last[m.Channel] = m.Payload
			if strings.HasPrefix(m.Payload, takenPrefix) {
				for w := range ns.waiters[m.Channel] {
					select {
					case w.taken <- struct{}{}:
					default:
					}
				}
				break
			}
			for w := range ns.waiters[m.Channel] { // in Go's random order
				if len(w.wake) == 0 {
					w.wake <- struct{}{}
					break
				}
			}
		}
		ns.mu.Unlock()
	}
}

// close ends the subscriptions.
func (ns *notices) close() {
	ns.mu.Lock()
	ns.closed = true
	subs := ns.subs
	ns.mu.Unlock()
	for _, ps := range subs {
		if ps != nil {
			_ = ps.Close()
		}
	}
	ns.done.Wait()
}

// announce publishes the release of token's lock on resource on the masters where released says it deleted the
// key, and waits for their answers (within a node timeout): the caller's next command then finds the
// connections free rather than queued behind a notice, and a program that exits right after a release has
// announced it. A refused notice costs a waiter its next poll, nothing else.
func (c *Client) announce(resource, token string, released []bool) {
	c.publish(resource, token, released)
}

// announceTaken publishes, on the masters where won says it holds the lock, that a waiter woken by a release's
// notice took it: the other clients' waiters, still in their random delay, sleep on.
func (c *Client) announceTaken(resource, token string, won []bool) {
	c.publish(resource, takenPrefix+token, won)
}

// publish publishes payload on resource's release channel on the masters where on says, and waits for their
// answers within a node timeout.
func (c *Client) publish(resource, payload string, on []bool) {
	out := make(chan reply, len(c.nodes))
	deadline := time.Now().Add(c.cfg.nodeTimeout)
	sent := 0
	for i, nd := range c.nodes {
		if on[i] {
			nd.send(&call{args: []any{"publish", ReleaseChannel(resource), payload}, kind: replyText,
				routeKey: resource, deadline: deadline, index: i, out: out, queued: time.Now()})
			sent++
		}
	}
	for range sent {
		<-out
	}
}
