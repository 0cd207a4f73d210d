package redlock

import "github.com/redis/go-redis/v9"

// releaseSource deletes the key only if it holds our token.
// It returns 1 when deleted, 0 when there was no key, -1 when another token
// holds it or the key is of another type (another client's lock, a sorted set
// or a hash): GET runs under pcall, so such a key confirms that ours is not
// there instead of failing the script with WRONGTYPE. Any other error of that
// GET (the ACL refusing it) is raised again, by the same GET, on a line that
// names it: it says nothing of the key.
const releaseSource = `local v = redis.pcall("GET", KEYS[1])
if type(v) == "table" and not string.find(v.err, "WRONGTYPE", 1, true) then return redis.call("GET", KEYS[1]) end
if v == ARGV[1] then return redis.call("DEL", KEYS[1]) end
if v == false then return 0 end
return -1`

// extendSource renews the key's TTL only if it holds our token; a free key is
// not taken again. It returns 1 when renewed, 0 when there was no key, -1 when
// another token holds it or the key is of another type. An error of the GET
// other than WRONGTYPE is raised again, as in releaseSource.
const extendSource = `local v = redis.pcall("GET", KEYS[1])
if type(v) == "table" and not string.find(v.err, "WRONGTYPE", 1, true) then return redis.call("GET", KEYS[1]) end
if v == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end
if v == false then return 0 end
return -1`

var (
	releaseScript         = redis.NewScript(releaseSource)
	extendScript          = redis.NewScript(extendSource)
	redissonReleaseScript = redis.NewScript(redissonReleaseSource)
	setReleaseScript      = redis.NewScript(setReleaseSource)
	scriptSource          = map[*redis.Script]string{releaseScript: releaseSource, extendScript: extendSource,
		redissonReleaseScript: redissonReleaseSource, setReleaseScript: setReleaseSource}
)
