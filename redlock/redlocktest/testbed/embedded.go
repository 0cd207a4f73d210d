package testbed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"syscall"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// clockTick is how often an Embedded master's miniredis clock is advanced.
const clockTick = 3 * time.Millisecond

// EmbeddedOptions configures an embedded master.
type EmbeddedOptions struct {
	// Persistence keeps keys across Stop/Start; see also SetPersistence.
	Persistence bool
	// Addr is an optional fixed "127.0.0.1:PORT" for clients to dial; by
	// default a free port is used.
	Addr string
}

// Embedded is an in-process master: a miniredis server behind a fault Proxy,
// with its own clock. It implements Master.
//
// Clients dial the proxy (Addr). Stop closes the proxy's listener and
// connections (the port refuses connections) and Start listens on the same
// port again; Pause holds all bytes in the proxy until Resume. The miniredis
// server itself keeps running until Close, on another port that clients
// must not use (Miniredis().Addr()).
//
// The clock drives both TIME and key expiry: it runs at real speed times the
// clock rate (SetClockRate) and can jump forward (JumpClock). It keeps
// running while the master is stopped or paused, like a real machine's
// clock.
type Embedded struct {
	mr       *miniredis.Miniredis
	addr     string
	stopTick chan struct{}
	tickDone chan struct{}

	clockMu  sync.Mutex // serialises clock updates pushed to miniredis
	rate     float64
	realBase time.Time // real time (monotonic) of the last rate change
	virtBase time.Time // this master's time at realBase

	mu      sync.Mutex
	proxy   *Proxy // nil while stopped
	persist bool
	closed  bool
}

// StartEmbedded starts an embedded master whose clock runs in real time.
func StartEmbedded(opts EmbeddedOptions) (*Embedded, error) {
	mr := miniredis.NewMiniRedis()
	if err := mr.Start(); err != nil {
		return nil, fmt.Errorf("testbed: start miniredis: %w", err)
	}
	listen := opts.Addr
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	now := time.Now()
	e := &Embedded{mr: mr, persist: opts.Persistence, rate: 1, realBase: now, virtBase: now.Round(0),
		stopTick: make(chan struct{}), tickDone: make(chan struct{})}
	e.syncClock()
	// From now on TTLs shrink by however much the clock set by syncClock
	// moves between two commands.
	mr.ClockTTL(true)
	p, err := newProxyOn(listen, mr.Addr(), e.clockRequest)
	if err != nil {
		mr.Close()
		return nil, fmt.Errorf("testbed: embedded master on %s: %w", listen, err)
	}
	e.addr, e.proxy = p.Addr(), p
	go e.tickLoop()
	return e, nil
}

// StartEmbeddedCluster starts n embedded masters, each with its own clock.
// On error it closes the ones already started.
func StartEmbeddedCluster(n int) ([]*Embedded, error) {
	es := make([]*Embedded, 0, n)
	for range n {
		e, err := StartEmbedded(EmbeddedOptions{})
		if err != nil {
			for _, e := range es {
				e.Close()
			}
			return nil, err
		}
		es = append(es, e)
	}
	return es, nil
}

// tickLoop advances the miniredis clock until Close.
func (e *Embedded) tickLoop() {
	defer close(e.tickDone)
	t := time.NewTicker(clockTick)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			e.syncClock()
		case <-e.stopTick:
			return
		}
	}
}

// syncClock sets the miniredis clock to this master's time and returns it.
func (e *Embedded) syncClock() time.Time {
	e.clockMu.Lock()
	defer e.clockMu.Unlock()
	now := e.virtBase.Add(time.Duration(float64(time.Since(e.realBase)) * e.rate))
	e.mr.SetTime(now)
	return now
}

// clockRequest brings the miniredis clock to now as a client's request passes
// the proxy, so that the request runs at a time no earlier than it was sent:
// a key set while the ticker was starved (a loaded machine) would otherwise
// start its TTL at the last tick, lose the lag at the next, and expire before
// the client that set it had counted its validity out.
func (e *Embedded) clockRequest() {
	e.syncClock()
}

// Now returns this master's clock, which TIME answers. A request's bytes
// sync the clock as they pass the proxy, so a TIME sent after Now answers at
// least Now's value.
func (e *Embedded) Now() time.Time {
	return e.syncClock()
}

// SetClockRate sets how fast this master's clock runs: 1 is real time, 2
// twice as fast (TTLs expire twice as fast and TIME runs fast), 0 stops it.
// It panics if rate is negative or not a number.
func (e *Embedded) SetClockRate(rate float64) {
	if !(rate >= 0) || math.IsInf(rate, 1) {
		panic(fmt.Sprintf("testbed: invalid clock rate %v", rate))
	}
	e.clockMu.Lock()
	defer e.clockMu.Unlock()
	now := time.Now()
	e.virtBase = e.virtBase.Add(time.Duration(float64(now.Sub(e.realBase)) * e.rate))
	e.realBase = now
	e.rate = rate
	// The master's clock catches up now rather than at the next tick: at a high rate a tick's worth of
	// virtual time is long, and a key set in between would expire the moment the tick came.
	e.mr.SetTime(e.virtBase)
}

// JumpClock moves this master's clock forward by d at once: TIME moves, and
// every key's TTL shrinks by d (keys whose TTL reaches 0 expire). It panics
// if d is negative.
func (e *Embedded) JumpClock(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("testbed: negative clock jump %v", d))
	}
	e.clockMu.Lock()
	e.virtBase = e.virtBase.Add(d)
	e.clockMu.Unlock()
	e.syncClock()
}

// SetPersistence sets whether the next Start keeps the keys written before
// the preceding Stop.
func (e *Embedded) SetPersistence(keep bool) {
	e.mu.Lock()
	e.persist = keep
	e.mu.Unlock()
}

// Miniredis returns the underlying miniredis server, an escape hatch for
// tests. Its own address bypasses the proxy and the faults.
func (e *Embedded) Miniredis() *miniredis.Miniredis {
	return e.mr
}

// Addr returns the "127.0.0.1:PORT" address clients dial; it stays the same
// across Stop and Start.
func (e *Embedded) Addr() string {
	return e.addr
}

// NewClient returns a new client for Addr with the same settings as
// Server.NewClient. The caller closes it.
func (e *Embedded) NewClient() *redis.Client {
	return newClient(e.addr, "")
}

// Stop crashes the master: the proxy's listener and all its connections are
// closed, so the port refuses connections. A paused master is unpaused by
// Stop/Start. Stopping a stopped master does nothing.
func (e *Embedded) Stop() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errClosed
	}
	if e.proxy == nil {
		return nil
	}
	err := e.proxy.Close()
	e.proxy = nil
	return err
}

// Start listens on the same port again. Unless persistence is on, all keys
// are flushed first; the Lua script cache is always flushed, as in a
// restarted redis-server. Starting a running master does nothing.
func (e *Embedded) Start() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errClosed
	}
	if e.proxy != nil {
		return nil
	}
	if !e.persist {
		e.mr.FlushAll()
	}
	if err := e.flushScripts(); err != nil {
		return err
	}
	err := rebind(func() error {
		p, err := newProxyOn(e.addr, e.mr.Addr(), e.clockRequest)
		if err == nil {
			e.proxy = p
		}
		return err
	}, func(err error) bool { return errors.Is(err, syscall.EADDRINUSE) })
	if err != nil {
		return fmt.Errorf("testbed: restart embedded master: %w", err)
	}
	return nil
}

// flushScripts empties miniredis's Lua script cache.
func (e *Embedded) flushScripts() error {
	c := newClient(e.mr.Addr(), "")
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		return fmt.Errorf("testbed: flush scripts: %w", err)
	}
	return nil
}

// Pause makes the proxy hold all bytes in both directions: connections stay
// open and nothing is answered until Resume.
func (e *Embedded) Pause() error {
	return e.setPaused(true)
}

// Resume releases the bytes held since Pause; queued commands are then
// answered.
func (e *Embedded) Resume() error {
	return e.setPaused(false)
}

func (e *Embedded) setPaused(on bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.closed:
		return errClosed
	case e.proxy == nil:
		return errStopped
	}
	e.proxy.SetPaused(on)
	return nil
}

// Close stops the clock goroutine, the proxy and miniredis. It is
// idempotent.
func (e *Embedded) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	close(e.stopTick)
	<-e.tickDone
	var err error
	if e.proxy != nil {
		err = e.proxy.Close()
		e.proxy = nil
	}
	// Miniredis.Close lets go of its server before it stops serving, and a command served meanwhile (INFO stats
	// from a monitor, say) reads the server it let go of and panics; stopping the server first, which waits for
	// the commands being served, leaves Close nothing to serve.
	e.mr.Server().Close()
	e.mr.Close()
	return err
}
