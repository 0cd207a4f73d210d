package lockshape

import "regexp"

// Lock keys without a TTL. A client that sets its key with NX and no expiry (Laravel's lock($name) without
// seconds, django-redis's cache.lock() without a timeout, Medusa's acquire() without expire, and any SETNX then
// crash) leaves a key that no one may ever take again. Under the default pattern such a key is listed, on one
// master as on many, when its name or its value marks it as a lock (MarkedAsLock); a cached value without a TTL
// on one master is not (a token-shaped one needs to be on more than one master, the older rule).

var (
	// laravelKey is a key of Laravel's Redis cache store: its prefix ("laravel_cache:" up to Laravel 10,
	// "laravel_cache_:" from 11, after the app's name), then the name (Illuminate\Cache\RedisStore::lock).
	laravelKey = regexp.MustCompile(`_cache_?:.`)
	// laravelOwner is Laravel's lock owner, Str::random(16), stored as it is; its cached values are serialised
	// ("s:5:\"hello\";", "i:42;").
	laravelOwner = regexp.MustCompile(`^[A-Za-z0-9]{16}$`)
	// djangoKey is a key django-redis made (":<version>:<name>", the default key function with no prefix, or
	// "<prefix>:<version>:<name>").
	djangoKey = regexp.MustCompile(`^[^:]*:[0-9]+:.`)
	// redisPyToken is redis-py's Lock token, uuid.uuid1().hex, that django-redis's cache.lock() writes; its
	// cached values are pickled (binary) or, with a JSON serializer, quoted.
	redisPyToken = regexp.MustCompile(`^[0-9a-f]{32}$`)
)

// MarkedAsLock reports whether a string key, whatever its TTL, is marked as a lock by its name or by its value:
// named as one (NamedAsLock: "medusa_lock:order:8", "lock.orders", "jobs:mutex"), following a known client's key
// convention with its token (ConventionOf), or a lock of Laravel's cache store or of django-redis, whose names
// are the user's own but whose owner tokens are stored raw beside values that are serialised.
func MarkedAsLock(key, value string) bool {
	switch {
	case NamedAsLock(key), ConventionOf(key, value) != nil:
		return true
	case laravelOwner.MatchString(value):
		return laravelKey.MatchString(key)
	case redisPyToken.MatchString(value):
		return djangoKey.MatchString(key)
	}
	return false
}
