package lockshape

import (
	"encoding/base64"
	"encoding/hex"
	"regexp"
	"strings"
)

// familyShapes are the value shapes of known Redlock clients' tokens, most specific first (32 hex digits are
// also 32 base64 characters). Several clients share a shape, and any client can be given custom tokens, so
// a match is a hint: family names every client it fits for people, families lists them for programs. The
// README's table gives the source of each.
var familyShapes = []struct {
	shape    *regexp.Regexp
	family   string
	families []string
}{
	{regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), "UUID: redlock-rb, RedLock.net or pottery",
		[]string{"redlock-rb", "RedLock.net", "pottery"}},
	// danielstjules/redislock 1.3.0 (npm redislock), lib/lock.js: this._id = uuid.v1(), SET key id PX ttl NX.
	{regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), "UUID v1: redislock (npm)",
		[]string{"redislock"}},
	// alexpota/redlock-universal e5aac03 (0.8.5), src/utils/crypto.ts generateLockValue: 16 random bytes in hex.
	{regexp.MustCompile(`^[0-9a-f]{32}$`), "node-redlock or redlock-universal", []string{"node-redlock", "redlock-universal"}},
	{regexp.MustCompile(`^[1-9a-f][0-9a-f]{63}$`), "php-lock/lock", []string{"php-lock/lock"}},
	{regexp.MustCompile(`^[0-9A-F]{40}$`), "redlock-cpp", []string{"redlock-cpp"}},
	{regexp.MustCompile(`^[0-9a-f]{13}$`), "redlock-php", []string{"redlock-php"}},
	{regexp.MustCompile(`^[A-Za-z0-9+/]{21}[AQgw]==$`), "redsync", []string{"redsync"}},
	{regexp.MustCompile(`^[A-Za-z0-9_-]{26}[AEIMQUYcgkosw048]$`), "redlock-tui", []string{"redlock-tui"}},
	{regexp.MustCompile(`^[A-Za-z0-9]{21}[AQgw]$`), "redlock-py or bsm/redislock", []string{"redlock-py", "bsm/redislock"}},
	{regexp.MustCompile(`^[A-Za-z0-9]{22}$`), "redlock-py", []string{"redlock-py"}},
	{regexp.MustCompile(`^[A-Za-z0-9_-]{21}[AQgw]$`), "bsm/redislock", []string{"bsm/redislock"}},
	{regexp.MustCompile(`^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$`), "Symfony Lock (before 5.2)", []string{"Symfony Lock"}},
	{regexp.MustCompile(`^[A-Za-z0-9+/]{32}$`), "Redis::DistLock", []string{"Redis::DistLock"}},
}

// uuidIdentifier is redis-semaphore's identifier: crypto.randomUUID(), with "-<identifierSuffix>" when given.
var uuidIdentifier = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}(-.+)?$`)

// FamilyHint names the client family that a lock's key and token shapes suggest, for people, and lists every
// family they fit, for programs; "" and nil when they suggest none. It is a hint, never a certainty: shapes
// collide, and tokens can be chosen by the application.
func FamilyHint(resource, token string, hash bool, mode string) (string, []string) {
	one := func(f string) (string, []string) { return f, []string{f} }
	switch {
	case hash && mode != "":
		return one("Redisson (read-write lock)")
	case hash:
		return one("Redisson")
	case strings.HasPrefix(resource, "lock_") && len(token) == 32:
		return "malkusch/lock", []string{"malkusch/lock", "node-redlock", "redlock-universal"}
	case strings.HasPrefix(resource, "mutex:") && uuidIdentifier.MatchString(token):
		return one("redis-semaphore")
	case len(token) == 16 && token[7]>>4 == 4 && token[8]&0xC0 == 0x80:
		return one("Redlock-cs (binary GUID)")
	case strings.HasPrefix(resource, "medusa_lock:"):
		return one("Medusa")
	case laravelKey.MatchString(resource) && laravelOwner.MatchString(token):
		return one("Laravel")
	case strings.HasSuffix(resource, ":lock") && warlockToken(token):
		return one("node-redis-warlock")
	case uuid1Hex(token) && djangoKey.MatchString(resource):
		return one("django-redis")
	case uuid1Hex(token):
		return "redis-py Lock (or django-redis)", []string{"redis-py", "django-redis"}
	}
	for _, f := range familyShapes {
		if f.shape.MatchString(token) {
			if strings.HasPrefix(resource, "redlock:") && strings.HasPrefix(f.family, "UUID") {
				return "RedLock.net or pottery", []string{"RedLock.net", "pottery"}
			}
			return f.family, f.families
		}
	}
	return "", nil
}

// Clients named by their key and token together (the shapes are in nottl.go): Laravel (illuminate/cache,
// RedisLock: the owner Str::random(16) under the cache store's prefix), django-redis (":<version>:<name>",
// redis-py's Lock inside), and node-redis-warlock 1.0.2 (lib/warlock.js: the key "<name>:lock", the token a
// version-1 UUID's 16 bytes in base64).

// uuid1Hex reports whether token is redis-py's Lock token, uuid1().hex: 32 hex digits of a version-1 UUID of
// the RFC's variant whose time is between 2010 and 2100 (a random 32-hex token, node-redlock's, is one in
// about 2,600 times).
func uuid1Hex(token string) bool {
	if len(token) != 32 || token[12] != '1' || strings.IndexByte("89ab", token[16]) < 0 {
		return false
	}
	b, err := hex.DecodeString(token)
	return err == nil && uuid1Plausible(b)
}

// warlockToken reports whether token is node-redis-warlock's: a version-1 UUID's 16 bytes in base64.
func warlockToken(token string) bool {
	b, err := base64.StdEncoding.DecodeString(token)
	return err == nil && len(b) == 16 && b[6]>>4 == 1 && b[8]&0xC0 == 0x80 && uuid1Plausible(b)
}

// uuid1Plausible reports whether the 16 bytes of a version-1 UUID hold a time between 2010 and 2100: its
// 60-bit count of 100 ns since 1582-10-15.
func uuid1Plausible(b []byte) bool {
	ts := uint64(b[6]&0x0F)<<56 | uint64(b[7])<<48 | uint64(b[4])<<40 | uint64(b[5])<<32 |
		uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	const gregorianToUnix = 0x01B21DD213814000 // 100 ns intervals from 1582-10-15 to 1970-01-01
	if ts < gregorianToUnix {
		return false
	}
	unix := int64((ts - gregorianToUnix) / 1e7)
	return unix >= uuid1Since && unix < uuid1Until
}

// The years a version-1 UUID's time may fall in, as Unix seconds: 2010 to 2100.
const (
	uuid1Since = 1262304000
	uuid1Until = 4102444800
)

// IsClientInternal reports whether a key is bookkeeping of a lock client rather than a lock: Redisson's
// per-reader timeout keys and unlock latches.
func IsClientInternal(key string) bool {
	return strings.HasPrefix(key, "redisson_unlock_latch:") || rwlockTimeout.MatchString(key)
}

// rwlockTimeout matches Redisson's read-lock timeout keys, "{name}:<client-id>:<thread-id>:rwlock_timeout:<n>".
var rwlockTimeout = regexp.MustCompile(`:rwlock_timeout:[0-9]+$`)
