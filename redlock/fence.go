package redlock

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultFenceSuffix is appended to a resource to name its fence counter on
// every master (see WithFenceSuffix): the counter of "orders" is
// "orders:fence".
const DefaultFenceSuffix = ":fence"

// fencedAcquireSource is the fenced acquire round's command on one master:
// SET resource token NX PX ttl and, only when the key was set, INCR the
// resource's counter, atomically. It returns the counter's new value, or nil
// (as SET NX does) when the key exists. The INCR comes before the SET so
// that a counter holding something other than an integer fails the script
// before it changes anything.
const fencedAcquireSource = `if redis.call("EXISTS", KEYS[1]) == 1 then return false end
local n = redis.call("INCR", KEYS[2])
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
return n`

// raiseSource is the fence round's command on one master: if the key still
// holds our token, raise the counter to ARGV[2] unless it is higher already.
// It returns 1 when the counter is now at least ARGV[2], 0 when there was no
// key, -1 when another token holds it or the key is of another type (an error
// of the GET other than WRONGTYPE is raised again, as in releaseSource).
const raiseSource = `local v = redis.pcall("GET", KEYS[1])
if type(v) == "table" and not string.find(v.err, "WRONGTYPE", 1, true) then return redis.call("GET", KEYS[1]) end
if v == false then return 0 end
if v ~= ARGV[1] then return -1 end
local c = tonumber(redis.call("GET", KEYS[2]) or "0")
if c == nil then return redis.error_reply("fence counter is not an integer") end
if c < tonumber(ARGV[2]) then redis.call("SET", KEYS[2], ARGV[2]) end
return 1`

var (
	fencedAcquireScript = redis.NewScript(fencedAcquireSource)
	raiseScript         = redis.NewScript(raiseSource)
)

func init() {
	scriptSource[fencedAcquireScript] = fencedAcquireSource
	scriptSource[raiseScript] = raiseSource
}

// WithFencing makes every lock the client acquires carry a fencing token
// (Lock.Fence): a number that grows with each acquisition of a resource, so
// that a storage can refuse the writes of a holder whose lock has since been
// taken by another. It costs a counter per resource on every master and, when
// the masters' counters disagree, a second round per acquisition. See the
// package documentation for the guarantee and what it assumes.
func WithFencing() Option { return func(c *config) { c.fencing = true } }

// WithFenceSuffix sets what is appended to a resource to name its fence
// counter (default DefaultFenceSuffix). Every client fencing one resource
// must use the same suffix, and the dashboard must be told it.
func WithFenceSuffix(s string) Option { return func(c *config) { c.fenceSuffix = s } }

// FenceKey is the key of resource's fence counter under suffix.
func FenceKey(resource, suffix string) string { return resource + suffix }

// Fence is the lock's fencing token, or 0 for a client without WithFencing.
// Send it with every write the lock protects; the storage must refuse a write
// whose token is below the highest it has accepted (see FencedStore in
// redlocktest). Extensions keep it.
func (l *Lock) Fence() uint64 { return l.fence }

// fencedAcquireCall is the fenced acquire round's command.
func fencedAcquireCall(resource, counter, token string, ttl time.Duration) func(*call) {
	return func(cl *call) {
		cl.script, cl.keys, cl.argv = fencedAcquireScript, []string{resource, counter}, []any{token, ttl.Milliseconds()}
		cl.kind = replyFencedSet
	}
}

// confirmFence completes a fenced acquisition whose acquire round reached a
// quorum. The token is the largest counter the round's accepting masters
// returned. When a quorum of them returned it, their counters are at least
// the token already; otherwise a fence round raises the counter of every
// master still holding our key to it, and the lock is held only when a
// quorum confirms. It returns the round that decided (the fence round when
// there was one, timed from the acquire round's start), the commands each
// master saw last, the token, and whether the lock is held.
func (c *Client) confirmFence(ctx context.Context, resource, token string, ttl time.Duration, acq Round,
	tail *roundTail) (Round, []<-chan struct{}, uint64, bool) {
	fence, at := fenceOf(acq, tail)
	if at >= c.quorum || c.cfg.skipFenceRound && fence > 0 {
		return acq, tail.finished, fence, true
	}
	counter := FenceKey(resource, c.cfg.fenceSuffix)
	r, t := c.run(ctx, OpFence, resource, nil, tail.finished, raiseCall(resource, counter, token, fence))
	r.Elapsed = r.Start.Add(r.Elapsed).Sub(acq.Start)
	r.Start = acq.Start
	r.Validity = c.validity(ttl, r.Elapsed)
	return r, t.finished, fence, fence > 0 && r.OK >= c.quorum && r.Validity > 0
}

// fenceOf returns the largest counter among the acquire round's accepted
// answers and how many of them returned it.
func fenceOf(r Round, tail *roundTail) (fence uint64, at int) {
	for i, n := range r.Nodes {
		if n.Outcome != OutcomeOK || !tail.answered[i] {
			continue
		}
		v, ok := tail.replies[i].val.(int64)
		if !ok || v <= 0 {
			continue
		}
		switch f := uint64(v); {
		case f > fence:
			fence, at = f, 1
		case f == fence:
			at++
		}
	}
	return fence, at
}

// raiseCall is the fence round's command.
func raiseCall(resource, counter, token string, fence uint64) func(*call) {
	return func(cl *call) {
		cl.script, cl.keys, cl.argv = raiseScript, []string{resource, counter}, []any{token, fmt.Sprint(fence)}
		cl.kind = replyScript
	}
}
