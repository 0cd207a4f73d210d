package reading

import (
	"context"
	"errors"
	"net"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxReceiveFailures is how many errors in a row stop the receiver.
const maxReceiveFailures = 3

// maxDirty bounds the keys remembered as invalidated between two polls; beyond it the next read is a full one.
const maxDirty = 1 << 20

// receive takes the messages of the invalidation connection sub until the tracker stops using it: the keys
// invalidated, the barriers' PONGs, and anything that may have lost a message (an error, a resubscription
// after a reconnect, a FLUSHALL's invalidation of every key), which makes the next read a full one.
func (t *tracker) receive(sub *redis.PubSub, inv *redis.Client) {
	defer func() {
		_ = sub.Close()
		_ = inv.Close()
	}()
	for failures := 0; t.stillUsing(); {
		msg, err := sub.ReceiveTimeout(context.Background(), time.Second)
		var ne net.Error
		switch {
		case errors.Is(err, redis.ErrClosed):
			return
		case errors.As(err, &ne) && ne.Timeout():
			failures = 0
		case err != nil:
			// A FLUSHALL's invalidation has no keys, which go-redis reports as an error: all keys changed.
			t.lose()
			if failures++; failures >= maxReceiveFailures {
				t.stop() // the master is down: the next poll connects again
				return
			}
			time.Sleep(100 * time.Millisecond)
		default:
			failures = 0
			t.take(msg)
		}
	}
}

// stillUsing reports whether a poll used the tracker lately; when none did, the receiver stops and the next
// poll starts it again.
func (t *tracker) stillUsing() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running && time.Since(t.lastUsed) > idleAfter {
		t.running = false
	}
	return t.running
}

// take records one message of the invalidation connection.
func (t *tracker) take(msg any) {
	switch m := msg.(type) {
	case *redis.Message:
		if m.Channel != invalidateChannel {
			return
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		if len(m.PayloadSlice) == 0 && m.Payload == "" || len(t.dirty) >= maxDirty {
			t.lost = true // every key invalidated, or too many to remember
			return
		}
		if m.Payload != "" {
			t.dirty[m.Payload] = struct{}{}
		}
		for _, k := range m.PayloadSlice {
			t.dirty[k] = struct{}{}
		}
	case *redis.Subscription:
		t.lose() // subscribed again after a reconnect: tracking ended with the old connection
	case *redis.Pong:
		select {
		case t.pongs <- m.Payload:
		default:
		}
	}
}

// lose records that invalidations may have been missed.
func (t *tracker) lose() {
	t.mu.Lock()
	t.lost = true
	t.mu.Unlock()
}

// waitBarrier sends a PING on the invalidation connection and waits for its PONG: the master writes an
// invalidation as it makes the change, so once the PONG is in, every change made before the PING is in
// the dirty set.
func (t *tracker) waitBarrier(ctx context.Context) error {
	token := "redlock-tui-barrier-" + strconv.FormatUint(t.barrier.Add(1), 10)
	if err := t.sub.Ping(ctx, token); err != nil {
		return err
	}
	timer := time.NewTimer(timeUntil(ctx) / 4) // the rest is for reading every key, if it does not come
	defer timer.Stop()
	for {
		select {
		case p := <-t.pongs:
			if p == token {
				return nil
			}
		case <-timer.C:
			return errors.New("no answer to the invalidation connection's PING")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// swap takes the keys invalidated since the last swap, and whether some may have been missed, and marks the
// tracker used now. running reports whether the receiver still runs.
func (t *tracker) swap() (dirty map[string]struct{}, lost, running bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	dirty, lost, running = t.dirty, t.lost, t.running
	t.dirty, t.lost, t.lastUsed = map[string]struct{}{}, false, time.Now()
	return dirty, lost, running
}

// stop records that the receiver stopped.
func (t *tracker) stop() {
	t.mu.Lock()
	t.running, t.lost = false, true
	t.mu.Unlock()
}

// use marks the tracker used now, and reports whether its receiver runs.
func (t *tracker) use() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lastUsed = time.Now()
	return t.running
}
