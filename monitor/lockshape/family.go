package lockshape

import (
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

// IsClientInternal reports whether a key is bookkeeping of a lock client rather than a lock: Redisson's
// per-reader timeout keys and unlock latches.
func IsClientInternal(key string) bool {
	return strings.HasPrefix(key, "redisson_unlock_latch:") || rwlockTimeout.MatchString(key)
}

// rwlockTimeout matches Redisson's read-lock timeout keys, "{name}:<client-id>:<thread-id>:rwlock_timeout:<n>".
var rwlockTimeout = regexp.MustCompile(`:rwlock_timeout:[0-9]+$`)
