package lockshape

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Key conventions. Some clients name a lock's key by adding a prefix to the resource their users give, so two
// services locking "billing" through different clients lock different keys and do not exclude each other. The
// dashboard shows the resource beside such a key ("billing (malkusch/lock: lock_billing)"), and the program
// can take a lock in a peer's convention (KeyFormat), so that an operator can hold off that peer's jobs.

// KeyConvention is how one client names a resource's key.
type KeyConvention struct {
	Name   string // as --key-format takes it
	Client string // the client, as shown beside the key
	Prefix string
	// Token, when set, is the shape the key's value must have for a key with Prefix to be taken as the
	// client's: "lock_" is a prefix anyone may use.
	Token *regexp.Regexp
	// Grace is how long before its key expires the holder's lock ends, as the client counts it: malkusch/lock
	// sets its key for one second more than the lock's timeout.
	Grace time.Duration
}

// KeyConventions are the known clients' key conventions, read from their source:
//
//   - malkusch/lock 2.2.1 (php-lock/lock 63c1b26, classes/mutex/SpinlockMutex.php): PREFIX "lock_", the key set
//     for timeout+1 seconds "to ensure that we delete only our keys"; RedisMutex's token is
//     bin2hex(random_bytes(16));
//   - php-lock/lock 3.x (3e64b5e, src/Mutex/AbstractSpinlockMutex.php and RedisMutex.php): "php-malkusch-lock:"
//     and the name, the key set for the timeout in milliseconds plus one;
//   - redis-semaphore 5.7.0 (swarthy/redis-semaphore 63c2d01, src/RedisMutex.ts, src/RedisSemaphore.ts):
//     "mutex:" and "semaphore:";
//   - RedLock.net (samcook/RedLock.net dcfe373, RedLock.cs) and pottery (brainix/pottery e2f4042,
//     pottery/redlock.py): "redlock:";
//   - django-redis (default key function "<KEY_PREFIX>:<version>:<key>", no prefix, version 1): ":1:", with
//     redis-py's Lock token (its cache values share the prefix);
//   - Medusa's locking module (locking-redis provider): "medusa_lock:";
//   - Laravel (Illuminate\Cache\RedisStore::lock under the default prefixes of an app named "laravel"):
//     "laravel_database_laravel_cache:", with its owner token; "laravel:APP" names another app's (KeyFormat).
var KeyConventions = []KeyConvention{
	{Name: "malkusch", Client: "malkusch/lock", Prefix: "lock_", Token: regexp.MustCompile(`^[0-9a-f]{32}$`), Grace: time.Second},
	{Name: "php-lock", Client: "php-lock/lock", Prefix: "php-malkusch-lock:", Grace: time.Millisecond},
	{Name: "redis-semaphore", Client: "redis-semaphore", Prefix: "mutex:"},
	{Name: "redis-semaphore-semaphore", Client: "redis-semaphore", Prefix: "semaphore:"},
	{Name: "redlock-net", Client: "RedLock.net or pottery", Prefix: "redlock:"},
	{Name: "pottery", Client: "RedLock.net or pottery", Prefix: "redlock:"},
	{Name: "django-redis", Client: "django-redis", Prefix: ":1:", Token: redisPyToken},
	{Name: "medusa", Client: "Medusa", Prefix: "medusa_lock:"},
	{Name: "laravel", Client: "Laravel", Prefix: laravelPrefix("laravel"), Token: laravelOwner},
}

// laravelPrefix is the prefix of Laravel's cache locks for an app whose name Laravel slugs as app: the Redis
// connection's "<app>_database_", then the cache store's "<app>_cache" and its ":".
func laravelPrefix(app string) string { return app + "_database_" + app + "_cache:" }

// laravelApp is an app's name as Laravel slugs it (Str::slug(APP_NAME, '_')).
var laravelApp = regexp.MustCompile(`^[a-z0-9_]+$`)

// ConventionOf is the convention a lock's key follows, given its lead token ("" none), or nil.
func ConventionOf(key, token string) *KeyConvention {
	for i := range KeyConventions {
		kc := &KeyConventions[i]
		if len(key) > len(kc.Prefix) && strings.HasPrefix(key, kc.Prefix) && (kc.Token == nil || kc.Token.MatchString(token)) {
			return kc
		}
	}
	return nil
}

// ValidityGrace is how much of the remaining TTL of key, held by token, its holder does not count as its
// lock's (KeyConvention.Grace).
func ValidityGrace(key, token string) time.Duration {
	if kc := ConventionOf(key, token); kc != nil {
		return kc.Grace
	}
	return 0
}

// KeyFormat returns the function that names a resource's key as the convention spec does: one of
// KeyConventions' names, "plain" (the resource itself), or a template in which "{}" stands for the resource
// ("app:{}:lock").
func KeyFormat(spec string) (func(resource string) string, error) {
	switch i := slices.IndexFunc(KeyConventions, func(kc KeyConvention) bool { return kc.Name == spec }); {
	case spec == "" || spec == "plain":
		return func(r string) string { return r }, nil
	case i >= 0:
		prefix := KeyConventions[i].Prefix
		return func(r string) string { return prefix + r }, nil
	case strings.HasPrefix(spec, "laravel:"):
		app := strings.TrimPrefix(spec, "laravel:")
		if !laravelApp.MatchString(app) {
			return nil, fmt.Errorf("key format %q: the app's name as Laravel slugs it (lower-case letters, digits and _: "+
				"\"My Shop\" is my_shop)", spec)
		}
		prefix := laravelPrefix(app)
		return func(r string) string { return prefix + r }, nil
	case strings.Count(spec, "{}") == 1:
		before, after, _ := strings.Cut(spec, "{}")
		return func(r string) string { return before + r + after }, nil
	}
	return nil, fmt.Errorf("unknown key format %q: use %s, laravel:APP, or a template with {} for the resource (app:{}:lock)",
		spec, strings.Join(KeyFormatNames(), ", "))
}

// KeyFormatNames are the names KeyFormat takes, "plain" first.
func KeyFormatNames() []string {
	names := []string{"plain"}
	for _, kc := range KeyConventions {
		names = append(names, kc.Name)
	}
	return names
}
