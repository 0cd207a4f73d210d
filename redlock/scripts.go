package redlock

import "github.com/redis/go-redis/v9"

// releaseSource deletes the key only if it holds our token.
// It returns 1 when deleted, 0 when there was no key, -1 when another token holds it.
const releaseSource = `local v = redis.call("GET", KEYS[1])
if v == ARGV[1] then return redis.call("DEL", KEYS[1]) end
if v == false then return 0 end
return -1`

// extendSource renews the key's TTL only if it holds our token; a free key is
// not taken again. It returns 1 when renewed, 0 when there was no key, -1 when
// another token holds it.
const extendSource = `local v = redis.call("GET", KEYS[1])
if v == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
if v == false then return 0 end
return -1`

var (
	releaseScript         = redis.NewScript(releaseSource)
	extendScript          = redis.NewScript(extendSource)
	redissonReleaseScript = redis.NewScript(redissonReleaseSource)
	scriptSource          = map[*redis.Script]string{releaseScript: releaseSource, extendScript: extendSource,
		redissonReleaseScript: redissonReleaseSource}
)
