package redlock

import "context"

// setReleaseSource removes one holder's members (ARGV) from a sorted-set lock (Symfony Lock, redis-semaphore)
// only if every one of them is still in the set, and nothing else: no other holder's member is touched. With
// them goes Symfony's "__write__" marker when it marks this holder (the writer's token and the marker are
// scored alike, and a writer is alone in the set), so that the readers and writers that come next are not
// refused by a marker nobody holds. It returns 1 when removed, 0 when there was no key, -1 when the set no
// longer has those members or the key is no longer a sorted set.
const setReleaseSource = `local t = redis.call("TYPE", KEYS[1]).ok
if t == "none" then return 0 end
if t ~= "zset" then return -1 end
for i = 1, #ARGV do
  if not redis.call("ZSCORE", KEYS[1], ARGV[i]) then return -1 end
end
local w = redis.call("ZSCORE", KEYS[1], "__write__")
if w and redis.call("ZSCORE", KEYS[1], ARGV[1]) == w then
  redis.call("ZREM", KEYS[1], "__write__")
end
redis.call("ZREM", KEYS[1], unpack(ARGV))
return 1`

// ReleaseSetMembers force-releases one holder of a lock another process keeps as a sorted set (Symfony
// Lock's RedisStore, redis-semaphore's semaphores): it removes members, the holder's members as seen (one
// token, or a MultiSemaphore holder's "<id>_0" to "<id>_<n-1>"), on every master where they are all still in
// the set, and nowhere else; the other holders keep theirs. Errors are as for ReleaseToken.
func (c *Client) ReleaseSetMembers(ctx context.Context, resource string, members []string) (Round, error) {
	argv := make([]any, len(members))
	for i, m := range members {
		argv[i] = m
	}
	r, _ := c.run(ctx, OpRelease, resource, nil, nil, func(cl *call) {
		cl.script, cl.keys, cl.argv, cl.kind = setReleaseScript, []string{resource}, argv, replyScript
	})
	return r, releaseError(r, nil)
}
