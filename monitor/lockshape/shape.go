package lockshape

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Lock-shaped keys. A Redis that also serves as a cache or a session store holds thousands of keys with a TTL
// next to a few locks. With the default pattern, discovery lists a key with a TTL only when it is lock-shaped:
// a hash lock (Redisson's), or a string whose value has the shape of a lock token (LockShapedValue). The
// others are counted per sweep (Sweep.NotLockShaped) and kept out of the list, the warnings and the restart
// rule; a pattern of the user's own lists every string it matches, as before. Keys without a TTL keep their
// own rule (a token on more than one master is a stuck lock).

// MaxTokenLen is the longest value taken as a bare token: the longest token of a known client is php-lock's
// 64 hex digits, and looksLikeToken, the stuck-lock rule, stops there too.
const MaxTokenLen = 64

var (
	// uuidShape is a UUID of any version in its 36-character text form.
	uuidShape = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	// uuidInKey finds a UUID inside a key name ("session:3fa85f64-5717-4562-b3fc-2c963f66afa6").
	uuidInKey = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	// bsmWithMetadata is bsm/redislock's token (16 random bytes, RawURL base64) followed by the metadata its
	// users may append (redislock.Metadata).
	bsmWithMetadata = regexp.MustCompile(`^[A-Za-z0-9_-]{21}[AQgw].`)
)

// uniqidSince is the earliest time, in Unix seconds, that a uniqid() token is taken to encode (2004): a
// 13-digit millisecond timestamp ("1718000000000"), a common cached value, reads as a time in 1982.
const uniqidSince = 0x40000000

// LockShapedValue reports whether a string value stored under key may be a lock's: whatever it is under a key
// named as a lock (NamedAsLock: a client that stores its expiry time, or anything else, under "lock.<name>"
// is still a lock), otherwise when it has the shape of a lock token (TokenShaped).
func LockShapedValue(key, v string) bool {
	return TokenShaped(key, v) || NamedAsLock(key)
}

// lockWords are the words that name a key as a lock (NamedAsLock), lower case.
var lockWords = []string{"lock", "locks", "mutex", "mutexes", "semaphore", "semaphores", "latch", "latches", "redlock"}

var (
	// camelLower and camelUpper split camelCase words ("orderLock", "HTTPLock") as NamedLockLua does.
	camelLower = regexp.MustCompile(`([a-z0-9])([A-Z])`)
	camelUpper = regexp.MustCompile(`([A-Z])([A-Z][a-z])`)
)

// NamedAsLock reports whether key's name says it is a lock: one of its words is lock, mutex, semaphore or latch
// (or their plurals, or redlock), its words split on every byte that is not an ASCII letter or digit and at
// camelCase ("lock.orders", "orders:mutex", "jobLatch", "HTTPLock"; not "clock:x", "deadlock", "unlocked").
// The discovery scripts' namedLock (NamedLockLua) is the same rule.
func NamedAsLock(key string) bool {
	lower := strings.ToLower(key)
	if !strings.Contains(lower, "lock") && !strings.Contains(lower, "mutex") && !strings.Contains(lower, "semaphore") &&
		!strings.Contains(lower, "latch") {
		return false // most keys: no word to look for
	}
	split := camelUpper.ReplaceAllString(camelLower.ReplaceAllString(key, "$1 $2"), "$1 $2")
	for _, w := range strings.FieldsFunc(split, func(r rune) bool { return !isAlnum(r) }) {
		if slices.Contains(lockWords, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

// isAlnum reports whether r is an ASCII letter or digit (Lua's %w).
func isAlnum(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// NamedLockLua is NamedAsLock for the discovery scripts: namedLock(k) reports whether k's name says it is a
// lock, so that a long value under it is digested and returned as a lock's.
const NamedLockLua = `local lockWords = {lock = true, locks = true, mutex = true, mutexes = true, semaphore = true, semaphores = true,
  latch = true, latches = true, redlock = true}
local function namedLock(k)
  local lower = string.lower(k)
  if not (string.find(lower, 'lock', 1, true) or string.find(lower, 'mutex', 1, true) or
      string.find(lower, 'semaphore', 1, true) or string.find(lower, 'latch', 1, true)) then
    return false
  end
  local split = string.gsub(string.gsub(k, '([%l%d])(%u)', '%1 %2'), '(%u)(%u%l)', '%1 %2')
  for w in string.gmatch(split, '%w+') do
    if lockWords[string.lower(w)] then return true end
  end
  return false
end
`

// TokenShaped reports whether a string value, stored under key, has the shape of a lock token:
//
//   - 1 to 64 characters of letters, digits and + / = _ . : - (the alphabets of random tokens, hex, base64,
//     UUIDs and hand-made tokens such as "token-a"), that are not a number, a date or an address (digits with
//     . : - + T Z only) unless they read as a uniqid() of a time after 2004 (redlock-php's token, which can be
//     all digits; a 13-digit millisecond timestamp reads as 1982). Every token of the clients in the README's
//     table (familyShapes) is such a string;
//   - bsm/redislock's token followed by metadata, or Redlock-cs's binary GUID.
//
// Not lock-shaped: JSON, serialised objects, text, binary data, values longer than 64 characters, numbers
// (counters, timestamps), and a UUID stored under a key that itself names a UUID and whose other words say it
// maps ids (session:<uuid> holding a user id; idUnderID). That last rule spares keys whose name says lock
// ("redlock:", "lock:", "mutex"; RedLock.net and pottery name theirs so) and a UUID beside other words
// ("import:<uuid>"): an entity's lock is named after it.
// A sorted set's members are judged by it alone (SetShapeOf), whatever the set's name.
func TokenShaped(key, v string) bool {
	switch {
	case binaryGUID(v):
		return true
	case v != "" && len(v) <= MaxTokenLen && allIn(v, isTokenByte):
		// Every token of familyShapes is such a string; only a uniqid() can be all digits.
		if isNumeric(v) {
			return isUniqid(v)
		}
		return len(v) != len("3fa85f64-5717-4562-b3fc-2c963f66afa6") || !uuidShape.MatchString(v) || !idUnderID(key)
	case bsmWithMetadata.MatchString(v):
		return len(v) <= MaxTokenLen || !allIn(v, isBase64Byte) // a long base64 run is a blob, not token+metadata
	}
	return false
}

// isUniqid reports whether v is PHP's uniqid() (redlock-php's token: 8 hex digits of Unix seconds, 5 of
// microseconds) of a time after 2004.
func isUniqid(v string) bool {
	if len(v) != 13 || !allIn(v, func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }) {
		return false
	}
	secs, _ := strconv.ParseUint(v[:8], 16, 64)
	return secs >= uniqidSince
}

// idUnderID reports whether key names a UUID, is not named as a lock, and is a cache of ids by its other words:
// an id stored under an id ("session:<uuid>" holding a user's UUID). A UUID-named key whose other words say
// nothing of a cache ("import:<uuid>", "jobs:<uuid>:export") is a lock's as "locks:<uuid>" is: an application
// locking one entity names the lock after it, and its client's token is a UUID (redlock-rb, RedLock.net, pottery,
// npm redislock). A key that is nothing but UUIDs says nothing either way and stays out, as before.
func idUnderID(key string) bool {
	lower := strings.ToLower(key)
	if strings.Contains(lower, "lock") || strings.Contains(lower, "mutex") || !uuidInKey.MatchString(key) {
		return false
	}
	words := strings.FieldsFunc(uuidInKey.ReplaceAllString(lower, ":"), func(r rune) bool { return !isAlnum(r) })
	return len(words) == 0 || slices.ContainsFunc(words, func(w string) bool { return slices.Contains(cacheWords, w) })
}

// cacheWords are the words that, beside a UUID in a key's name, say the key maps one id to another (a session, a
// user, a credential or one-time code and whom it is for, a cached lookup) rather than locks the entity: lower
// case, singular and plural. An entity's noun ("order:<uuid>", "import:<uuid>") is not among them: a lock is named
// after what it locks.
var cacheWords = []string{"session", "sessions", "sess", "sid", "cache", "cached", "user", "users", "uid", "account",
	"accounts", "customer", "customers", "member", "members", "device", "devices", "profile", "profiles", "token",
	"tokens", "auth", "oauth", "refresh", "csrf", "jwt", "id", "ids", "ref", "refs", "alias", "aliases", "lookup",
	"map", "mapping", "idx", "index", "api", "apikey", "key", "keys", "password", "reset", "verify", "verification",
	"confirm", "confirmation", "email", "otp", "code", "invite", "invitation", "invitations", "magic", "nonce"}

// binaryGUID reports whether v is 16 raw bytes of a version-4 GUID, Redlock-cs's token (see FamilyHint).
func binaryGUID(v string) bool {
	return len(v) == 16 && v[7]>>4 == 4 && v[8]&0xC0 == 0x80
}

// allIn reports whether every byte of s satisfies ok.
func allIn(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func isBase64Byte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("+/=_-", c) >= 0
}

func isTokenByte(c byte) bool { return isBase64Byte(c) || c == '.' || c == ':' }

// isNumeric reports whether v is a number, a date, a time or an address: digits, with . : - + T Z between
// them ("42", "3.14", "2025-03-01T12:00:00Z", "10.0.0.1:6379").
func isNumeric(v string) bool {
	return strings.ContainsAny(v, "0123456789") &&
		allIn(v, func(c byte) bool { return '0' <= c && c <= '9' || strings.IndexByte(".:-+TZ", c) >= 0 })
}
