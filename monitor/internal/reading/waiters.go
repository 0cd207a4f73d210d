package reading

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// redissonChannelPrefix names the channel a Redisson lock publishes its release on; the clients waiting for the
// lock subscribe to it, so its subscribers are the lock's waiters.
const redissonChannelPrefix = "redisson_lock__channel"

// redissonChannel is the channel of the Redisson lock on key, as Redisson names it (RedissonObject.prefixName):
// the key in braces, unless it has a hash tag of its own.
func redissonChannel(key string) string {
	if strings.Contains(key, "{") {
		return redissonChannelPrefix + ":" + key
	}
	return redissonChannelPrefix + ":{" + key + "}"
}

// waiterChunk is how many channels one PUBSUB NUMSUB asks about; a poll sends them all in one pipeline.
const waiterChunk = 500

// readWaiters counts, in one round trip, the subscribers of the channel of every hash lock (Redisson's) in r,
// when another round trip fits in the poll. Counts it could not read stay unknown (not in r.Waiters).
func (p *poller) readWaiters(ctx context.Context, r *Reading, slowest time.Duration) {
	var channels []string
	keyOf := map[string]string{}
	for _, k := range r.Keys {
		if k.Fields != nil && !k.Absent {
			ch := redissonChannel(k.Key)
			keyOf[ch] = k.Key
			channels = append(channels, ch)
		}
	}
	if len(channels) == 0 || !timeLeft(ctx, slowest) {
		return
	}
	pipe := p.client.Pipeline()
	var cmds []*redis.MapStringIntCmd
	for chunk := range slices.Chunk(channels, waiterChunk) {
		cmds = append(cmds, pipe.PubSubNumSub(ctx, chunk...))
	}
	_, _ = pipe.Exec(ctx) // each command's error is looked at below
	for _, cmd := range cmds {
		counts, err := cmd.Result()
		if err != nil {
			r.refusals.refused("PUBSUB", err)
			continue
		}
		if r.Waiters == nil {
			r.Waiters = make(map[string]int, len(channels))
		}
		for ch, n := range counts {
			if key, ok := keyOf[ch]; ok {
				r.Waiters[key] = int(n)
			}
		}
	}
}
