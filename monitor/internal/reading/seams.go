package reading

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Seams for the monitor's white-box tests, which drive a Monitor over real servers and reach into its sources
// (a read mode forced, a notification connection looked at); nothing else calls them. The package is internal
// to the monitor, so they are no one else's API.

// Bounds the tests measure against.
const (
	MaxNotified   = maxNotified   // keys a notification queue holds
	NotifiedChunk = notifiedChunk // keys named by notifications read in one batch
	MinKeyCost    = minKeyCost    // the least a key read is charged against the scan budget
	WaiterChunk   = waiterChunk   // Redisson channels counted in one PUBSUB NUMSUB
)

// SetPlain makes master source s read with plain commands (plain) or with the read scripts.
func SetPlain(s Source, plain bool) {
	p := s.(*poller)
	p.mode = readScripted
	if plain {
		p.mode = readPipelined
	}
}

// Plain reports whether master source s reads with plain commands.
func Plain(s Source) bool { return s.(*poller).mode == readPipelined }

// ClusterPlain reports whether some node of cluster source s reads with plain commands.
func ClusterPlain(s Source) bool {
	cp := s.(*clusterPoller)
	cp.mu.Lock()
	defer cp.mu.Unlock()
	for addr, n := range cp.nodes {
		if n.mode != readScripted || cp.readers[addr] != nil && cp.readers[addr].mode != readScripted {
			return true
		}
	}
	return false
}

// SetFlaggedScripts makes master source s run its read scripts flagged no-writes (flagged), or plain, as
// before Redis 7.
func SetFlaggedScripts(s Source, flagged bool) {
	s.(*poller).scripts = scriptsCompat
	if flagged {
		s.(*poller).scripts = scriptsNoWrites
	}
}

// SetStormBackoff sets the first wait of master source s before tracking is tried again after a storm.
func SetStormBackoff(s Source, d time.Duration) { s.(*poller).track.backoff = d }

// InvalidationID is the CLIENT ID of the tracker's invalidation connection, as it last connected; 0 none.
func InvalidationID(s Source) int64 { return s.(*poller).track.invID.Load() }

// Subscription is master source s's keyspace notification connection, and whether its receiver runs on it.
func Subscription(s Source) (*redis.PubSub, bool) {
	n := s.(*poller).keyspace
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sub, n.running
}

// NotifiedQueue is how many keys master source s's notifications have queued, of other events than a lock's,
// and how many were dropped while the queue was full.
func NotifiedQueue(s Source) (queued int, dropped int64) {
	n := s.(*poller).keyspace
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.plain.keys), n.dropped
}

// WaitNotified waits until every notification master source s's server sent before the call is in.
func WaitNotified(ctx context.Context, s Source) error { return s.(*poller).keyspace.waitBarrier(ctx) }

// RedissonChannel is the channel Redisson's waiters for the lock at key subscribe to.
func RedissonChannel(key string) string { return redissonChannel(key) }

// MarkedToken is the token of a value longer than the n bytes read of it: its prefix marked with its length
// and digest.
func MarkedToken(whole string, n int) string {
	return markedToken(whole[:n], len(whole), digestOf(whole))
}

// RecheckNotifications makes master source s's next read check its server's notification setting again.
func RecheckNotifications(s Source) { s.(*poller).keyspace.checkedAt = time.Time{} }

// PingRefused reports whether master source s's notification connection met a refusal of its barrier's PING.
func PingRefused(s Source) bool { return s.(*poller).keyspace.pingRefused.Load() }

// ReadNamed reads keys on master source s as the keys its notifications name are read, and returns how long
// the server took to run it.
func ReadNamed(ctx context.Context, s Source, cfg Config, keys []string) (time.Duration, error) {
	res, err := s.(*poller).readCandidates(ctx, cfg, keys)
	return res.elapsed, err
}
