package redlock

import (
	"context"
	"strings"
)

// redissonReleaseSource deletes a Redisson lock (a hash whose fields are its holders, "<client-id>:<thread-id>")
// only if every holder field given (ARGV[3] on) is still in it, then publishes ARGV[2] on channel ARGV[1] so
// that its waiters wake, as Redisson's own forceUnlock does. It returns 1 when deleted, 0 when there was no
// key, -1 when the hash no longer has those holders or the key is no longer a hash.
const redissonReleaseSource = `local t = redis.call("TYPE", KEYS[1]).ok
if t == "none" then return 0 end
if t ~= "hash" then return -1 end
for i = 3, #ARGV do
  if redis.call("HEXISTS", KEYS[1], ARGV[i]) == 0 then return -1 end
end
redis.call("DEL", KEYS[1])
redis.call("PUBLISH", ARGV[1], ARGV[2])
return 1`

// ReleaseRedisson force-releases a lock another process took with Redisson (a hash lock), on every master
// where it is still held by holders, the hash fields seen ("<client-id>:<thread-id>"), and nowhere else.
// mode is the read-write lock's mode field ("read" or "write"), "" for a plain RLock: it picks the channel and
// message Redisson's waiters listen for. Errors are as for ReleaseToken.
func (c *Client) ReleaseRedisson(ctx context.Context, resource string, holders []string, mode string) (Round, error) {
	channel, message := redissonUnlockMessage(resource, mode)
	argv := []any{channel, message}
	for _, h := range holders {
		argv = append(argv, h)
	}
	r, _ := c.run(ctx, OpRelease, resource, nil, nil, func(cl *call) {
		cl.script, cl.keys, cl.argv, cl.kind = redissonReleaseScript, []string{resource}, argv, replyScript
	})
	return r, releaseError(r, nil)
}

// redissonUnlockMessage is the channel and message of Redisson's forceUnlock for a lock named name: an RLock
// publishes 0 on redisson_lock__channel:{name}; a read-write lock publishes on redisson_rwlock:{name}, 0 for a
// read lock and 1 for a write lock. A name that already has braces is not wrapped again.
func redissonUnlockMessage(name, mode string) (channel, message string) {
	prefix, message := "redisson_lock__channel", "0"
	switch mode {
	case "read":
		prefix = "redisson_rwlock"
	case "write":
		prefix, message = "redisson_rwlock", "1"
	}
	if strings.Contains(name, "{") {
		return prefix + ":" + name, message
	}
	return prefix + ":{" + name + "}", message
}
