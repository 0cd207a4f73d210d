package redlock

import (
	"time"
)

// maxCleanups bounds the background releases one client runs at a time;
// beyond it, keys are left to expire.
const maxCleanups = 1024

// minCleanupInterval is the least time between two background releases on
// one master.
const minCleanupInterval = 10 * time.Millisecond

// cleanup releases resource on master i in the background, after the
// command in after is done, until the master confirms or until has passed
// (see releaseUntilConfirmed). The first release is sent at once when now is
// set, after the interval otherwise.
func (c *Client) cleanup(i int, resource, token string, until time.Time, zeros int, after <-chan struct{},
	now bool) {
	c.track(func() { c.releaseUntilConfirmed(i, resource, token, until, zeros, after, now) })
}

// releaseUntilConfirmed releases resource on master i, after the command in
// after is done, until the master confirms or until has passed: a release
// that deleted our key or found another token confirms, and so do zeros
// consecutive answers that found no key. One such answer does not confirm a
// SET whose outcome is unknown: the SET may still be in the master's input on
// a connection the client gave up, and be executed later in the same event
// loop turn; a release sent after that answer came back is executed after it.
// The first release is sent at once when now is set, after the interval
// otherwise. Once the client is closing it makes one last try at once and
// ends: Close waits for that try, so that a failed acquisition's key does not
// outlive a client that exits right after it (as `run` does).
func (c *Client) releaseUntilConfirmed(i int, resource, token string, until time.Time, zeros int,
	after <-chan struct{}, now bool) {
	interval := max(c.cfg.nodeTimeout, minCleanupInterval)
	last := false
	for seen := 0; ; now = false {
		if !now && !c.pause(interval) {
			last = true
		}
		if time.Now().After(until) {
			return
		}
		switch c.releaseOn(i, resource, token, after) {
		case OutcomeOK, OutcomeHeldByOther:
			return
		case OutcomeGone:
			if seen++; seen >= zeros {
				return
			}
		}
		if last {
			return
		}
	}
}

// pause waits d; it reports false when the client closed meanwhile.
func (c *Client) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.closing:
		return false
	}
}

// track runs f in the background unless the client is closed or runs
// maxCleanups already; Close waits for it.
func (c *Client) track(f func()) {
	c.bgMu.Lock()
	defer c.bgMu.Unlock()
	if c.bgClosed || c.bgRunning >= maxCleanups {
		return
	}
	c.bgRunning++
	c.bg.Add(1)
	go func() {
		defer func() {
			c.bgMu.Lock()
			c.bgRunning--
			c.bgMu.Unlock()
			c.bg.Done()
		}()
		f()
	}()
}
