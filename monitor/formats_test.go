package monitor

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock"
)

// lockFormat is one lock client's format: what its own code writes to a master for one lock. Each write
// follows the client's source at the commit named in its comment (the README's table lists them).
type lockFormat struct {
	name       string
	key        func(resource string) string
	token      func() string
	write      func(ctx context.Context, c *redis.Client, key, token string) error
	family     string
	reentrancy int
	mode       string
}

// randomBytes returns n random bytes.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// uuid4 returns a random version-4 UUID in its 36-character lowercase form.
func uuid4() string {
	b := randomBytes(16)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// uuid1Bytes returns a version-1 UUID of now, with a random clock sequence and node, as 16 bytes.
func uuid1Bytes() []byte {
	ts := uint64(time.Now().UnixNano()/100) + 0x01B21DD213814000
	b := randomBytes(16)
	b[0], b[1], b[2], b[3] = byte(ts>>24), byte(ts>>16), byte(ts>>8), byte(ts)
	b[4], b[5] = byte(ts>>40), byte(ts>>32)
	b[6], b[7] = byte(ts>>56)&0x0f|0x10, byte(ts>>48)
	b[8] = b[8]&0x3f | 0x80
	return b
}

// uuid1 returns a version-1 UUID of now in its 36-character form (the uuid package's v1()).
func uuid1() string {
	h := hex.EncodeToString(uuid1Bytes())
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// alnum returns n characters of [A-Za-z0-9], as redlock-py draws them.
func alnum(n int) string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	out := make([]byte, n)
	for i := range out {
		k, _ := rand.Int(rand.Reader, big.NewInt(int64(len(chars))))
		out[i] = chars[k.Int64()]
	}
	return string(out)
}

const formatTTL = 30 * time.Second

// setNXPX is SET key token NX PX ttl, the acquisition of most clients.
func setNXPX(ctx context.Context, c *redis.Client, key, token string) error {
	return c.SetArgs(ctx, key, token, redis.SetArgs{Mode: "NX", TTL: formatTTL}).Err()
}

// verbatim is a key naming that uses the resource as it is.
func verbatim(r string) string { return r }

// redissonHolder is a Redisson client id and thread id, as RedissonBaseLock.getLockName builds the field.
func redissonHolder(thread int) string { return fmt.Sprintf("%s:%d", uuid4(), thread) }

var lockFormats = []lockFormat{
	// go-redsync/redsync 5560bd2d477db3ce962d5f052bf695543c826751, mutex.go: genValue is 16 bytes of crypto/rand
	// in std base64 (24 characters with padding); acquire is SET NX PX on every pool.
	{name: "redsync", key: verbatim, token: func() string { return base64.StdEncoding.EncodeToString(randomBytes(16)) },
		write: setNXPX, family: "redsync"},
	// mike-marcacci/node-redlock afe5cf92c8247ba7b65b4ae36230f415493c44f0, src/index.ts: randomBytes(16) in hex;
	// ACQUIRE_SCRIPT returns 0 if any key exists, else SET key value PX duration on each key.
	{name: "node-redlock", key: verbatim, token: func() string { return hex.EncodeToString(randomBytes(16)) },
		write: func(ctx context.Context, c *redis.Client, key, token string) error {
			return c.Eval(ctx, `for _, k in ipairs(KEYS) do if redis.call("EXISTS", k) == 1 then return 0 end end
for _, k in ipairs(KEYS) do redis.call("SET", k, ARGV[1], "PX", ARGV[2]) end
return #KEYS`, []string{key}, token, formatTTL.Milliseconds()).Err()
		}, family: "node-redlock or redlock-universal"},
	// samcook/RedLock.net dcfe373b3e288caac4f45b78c88b5943f8b47e42, RedLockNet.SERedis/RedLock.cs: key
	// "redlock:{0}", value Guid.NewGuid().ToString(); StringSet with When.NotExists.
	{name: "RedLock.net", key: func(r string) string { return "redlock:" + r }, token: uuid4, write: setNXPX,
		family: "RedLock.net or pottery"},
	// leandromoreira/redlock-rb f176e5748a41e8b35a9a986fb6cc8eeae203a64f, lib/redlock/scripts.rb: value
	// SecureRandom.uuid; LOCK_SCRIPT sets the key with PX when it does not exist.
	{name: "redlock-rb", key: verbatim, token: uuid4,
		write: func(ctx context.Context, c *redis.Client, key, token string) error {
			return c.Eval(ctx, `if (redis.call("EXISTS", KEYS[1]) == 0 and ARGV[3] == "yes") or redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
end`, []string{key}, token, formatTTL.Milliseconds(), "yes").Err()
		}, family: "UUID: redlock-rb, RedLock.net or pottery"},
	// SPSCommerce/redlock-py 42ef491061c3790307d39356b307c4318032c439, redlock/__init__.py: get_unique_id is
	// 22 characters of ascii_letters+digits; SET NX PX.
	{name: "redlock-py", key: verbatim, token: func() string { return alnum(21) + "b" }, write: setNXPX, family: "redlock-py"},
	// ronnylt/redlock-php 535d616f243fe8d72b96870bc3ddc488bb091d9e, src/RedLock.php: uniqid(), 8 hex digits of
	// seconds and 5 of microseconds; SET NX PX.
	{name: "redlock-php", key: verbatim, token: func() string {
		now := time.Now()
		return fmt.Sprintf("%08x%05x", now.Unix(), now.Nanosecond()/1000)
	}, write: setNXPX, family: "redlock-php"},
	// bsm/redislock 76760bd8b28471f9c2a71f27406b7e825c912b95, redislock.go and obtain.lua: a 22-character
	// RawURL base64 token (no metadata here), MSETNX then PEXPIRE.
	{name: "bsm/redislock", key: verbatim, token: func() string { return "_" + base64.RawURLEncoding.EncodeToString(randomBytes(16))[1:] },
		write: func(ctx context.Context, c *redis.Client, key, token string) error {
			return c.Eval(ctx, `if redis.call("MSETNX", KEYS[1], ARGV[1]) == 0 then return false end
return redis.call("PEXPIRE", KEYS[1], ARGV[2])`, []string{key}, token, formatTTL.Milliseconds()).Err()
		}, family: "bsm/redislock"},
	// redis/redis-py 5.0 redis/lock.py: token uuid.uuid1().hex, SET name token NX PX.
	{name: "redis-py", key: verbatim, token: func() string { return hex.EncodeToString(uuid1Bytes()) }, write: setNXPX,
		family: "redis-py Lock (or django-redis)"},
	// django-redis 5.4 (client/default.py lock, the default key function "%s:%s:%s" of KEY_PREFIX "" and version 1):
	// redis-py's Lock on ":1:<name>".
	{name: "django-redis", key: func(r string) string { return ":1:" + r }, token: func() string { return hex.EncodeToString(uuid1Bytes()) },
		write: setNXPX, family: "django-redis"},
	// npm redislock 1.3.0 (danielstjules/redislock, lib/lock.js): uuid.v1(), SET key id PX ttl NX.
	{name: "redislock", key: verbatim, token: uuid1, write: setNXPX, family: "UUID v1: redislock (npm)"},
	// npm node-redis-warlock 1.0.2 (lib/warlock.js): the key "<name>:lock", UUID.v1 into 16 bytes in base64.
	{name: "node-redis-warlock", key: func(r string) string { return r + ":lock" },
		token: func() string { return base64.StdEncoding.EncodeToString(uuid1Bytes()) }, write: setNXPX, family: "node-redis-warlock"},
	// laravel/framework 10 Illuminate/Cache/RedisLock.php: Str::random(16) as owner, SET key owner EX seconds NX,
	// the key the cache prefix and the name under the connection's prefix.
	{name: "Laravel", key: func(r string) string { return "laravel_database_laravel_cache:" + r }, token: func() string { return alnum(16) },
		write: setNXPX, family: "Laravel"},
	// medusajs/medusa 2.x locking-redis provider: the key "medusa_lock:<key>", the value "execute:<uuid>" for a job
	// run under the lock (or the caller's owner id).
	{name: "Medusa", key: func(r string) string { return "medusa_lock:" + r }, token: func() string { return "execute:" + uuid4() },
		write: setNXPX, family: "Medusa"},
	// This project: redlock/token.go, 20 random bytes in RawURL base64.
	{name: "redlock-tui", key: verbatim, token: func() string { return base64.RawURLEncoding.EncodeToString(randomBytes(20)) },
		write: setNXPX, family: "redlock-tui"},
	// redisson/redisson 66863978b4a92093b97c1f8c96f182a77e81d50e, RedissonLock.tryLockInnerAsync: HINCRBY of
	// the field "<client-uuid>:<thread-id>", then PEXPIRE (30s, the watchdog default); taken twice
	// (re-entered), so its count is 2.
	{name: "Redisson RLock", key: verbatim, token: func() string { return redissonHolder(1) },
		write: func(ctx context.Context, c *redis.Client, key, token string) error {
			for range 2 {
				if err := c.Eval(ctx, `if redis.call("EXISTS", KEYS[1]) == 0 or redis.call("HEXISTS", KEYS[1], ARGV[2]) == 1 then
  redis.call("HINCRBY", KEYS[1], ARGV[2], 1)
  redis.call("PEXPIRE", KEYS[1], ARGV[1])
  return nil
end
return redis.call("PTTL", KEYS[1])`, []string{key}, formatTTL.Milliseconds(), token).Err(); err != nil && !errors.Is(err, redis.Nil) {
					return err
				}
			}
			return nil
		}, family: "Redisson", reentrancy: 2},
	// redisson/redisson 66863978b4a92093b97c1f8c96f182a77e81d50e, RedissonReadLock.tryLockInnerAsync: HSET mode
	// read and the reader's field, a per-reader timeout key "{name}:<holder>:rwlock_timeout:1", PEXPIRE both.
	{name: "Redisson read lock", key: verbatim, token: func() string { return redissonHolder(7) },
		write: func(ctx context.Context, c *redis.Client, key, token string) error {
			timeout := "{" + key + "}:" + token + ":rwlock_timeout:1"
			return c.Eval(ctx, `redis.call("HSET", KEYS[1], "mode", "read")
redis.call("HSET", KEYS[1], ARGV[2], 1)
redis.call("SET", KEYS[2], 1)
redis.call("PEXPIRE", KEYS[2], ARGV[1])
redis.call("PEXPIRE", KEYS[1], ARGV[1])
return 1`, []string{key, timeout}, formatTTL.Milliseconds(), token).Err()
		}, family: "Redisson (read-write lock)", reentrancy: 1, mode: "read"},
}

func TestEveryClientsLockFormatIsRecognised(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 5, Config{})
	ctx := context.Background()
	locker := c.locker(t)
	type planted struct {
		f         lockFormat
		key, a, b string
		layout    string
		want      LockState
		onA, onB  []int
	}
	var all []planted
	for _, f := range lockFormats {
		for _, layout := range []struct {
			name     string
			want     LockState
			onA, onB []int
		}{
			{"quorum", StateHeld, []int{0, 1, 2}, nil},
			{"minority", StatePartial, []int{3, 4}, nil},
			{"split", StateSplit, []int{0, 1}, []int{2, 3}},
		} {
			p := planted{f: f, key: f.key("res:" + f.name + ":" + layout.name), a: f.token(), layout: layout.name,
				want: layout.want, onA: layout.onA, onB: layout.onB}
			for p.b = f.token(); p.b == p.a; p.b = f.token() { // uniqid() repeats within a microsecond
			}
			for _, i := range p.onA {
				if err := f.write(ctx, c.admin[i], p.key, p.a); err != nil {
					t.Fatalf("%s: writing on master %d: %v", f.name, i, err)
				}
			}
			for _, i := range p.onB {
				if err := f.write(ctx, c.admin[i], p.key, p.b); err != nil {
					t.Fatalf("%s: writing on master %d: %v", f.name, i, err)
				}
			}
			all = append(all, p)
		}
	}
	s := c.mon.Poll(ctx)
	for !s.Swept {
		s = c.mon.Poll(ctx)
	}
	for _, p := range all {
		t.Run(p.f.name+"/"+p.layout, func(t *testing.T) {
			l := lockOf(t, s, p.key)
			if l.State != p.want || l.Family != p.f.family {
				t.Errorf("state %s family %q, want %s %q", l.State, l.Family, p.want, p.f.family)
			}
			if p.want == StateHeld && l.Holder != p.a {
				t.Errorf("holder %q, want %q", l.Holder, p.a)
			}
			for _, i := range p.onA {
				cell := l.Masters[i]
				if !cell.Holds(p.a) || cell.PTTL <= 0 || cell.PTTL > formatTTL || cell.Reentrancy() != p.f.reentrancy || cell.Mode() != p.f.mode {
					t.Errorf("master %d: %+v, want the token with a TTL up to %v, reentrancy %d, mode %q", i, cell, formatTTL, p.f.reentrancy, p.f.mode)
				}
			}
			if p.want != StateHeld {
				return
			}
			// SET NX refuses a key of any type: acquiring what another client holds fails.
			if l, err := locker.TryAcquire(ctx, p.key, time.Second); !errors.Is(err, redlock.ErrNotAcquired) {
				t.Errorf("acquiring a resource held by %s: lock %v, err %v; want ErrNotAcquired", p.f.name, l, err)
			}
		})
	}
	for _, l := range s.Locks {
		if strings.Contains(l.Resource, ":rwlock_timeout:") {
			t.Errorf("Redisson's read-lock timeout key %q is listed as a lock", l.Resource)
		}
	}
}

func TestRedissonRedLockAcrossClientsIsGroupedByThread(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 5, Config{})
	ctx := context.Background()
	// RedissonMultiLock locks each master's RLock with the same thread id; each RLock comes from its own
	// RedissonClient, so each master's field has another client id.
	for i := range 3 {
		if err := c.admin[i].HSet(ctx, "billing:redlock", fmt.Sprintf("%s:42", uuid4()), 1).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.admin[i].PExpire(ctx, "billing:redlock", formatTTL).Err(); err != nil {
			t.Fatal(err)
		}
	}
	l := lockOf(t, c.mon.Poll(ctx), "billing:redlock")
	if l.State != StateHeld || !l.Heuristic || l.Count != 3 || l.Family != "Redisson" {
		t.Errorf("state %s heuristic %v count %d family %q; want held on 3 by grouping on the thread id, marked heuristic",
			l.State, l.Heuristic, l.Count, l.Family)
	}
}

func TestALockOverSeveralKeysIsShownAsOne(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 3, Config{})
	ctx := context.Background()
	// node-redlock's ACQUIRE_SCRIPT (src/index.ts at afe5cf9): one random value SET PX on every key of the lock.
	token := hex.EncodeToString(randomBytes(16))
	for _, a := range c.admin {
		if err := a.Eval(ctx, `for _, k in ipairs(KEYS) do if redis.call("EXISTS", k) == 1 then return 0 end end
for _, k in ipairs(KEYS) do redis.call("SET", k, ARGV[1], "PX", ARGV[2]) end
return #KEYS`, []string{"orders:1", "orders:2"}, token, formatTTL.Milliseconds()).Err(); err != nil {
			t.Fatal(err)
		}
	}
	c.set(t, "orders:3", hex.EncodeToString(randomBytes(16)), formatTTL, 0, 1, 2)
	s := c.mon.Poll(ctx)
	for _, key := range []string{"orders:1", "orders:2"} {
		if l := lockOf(t, s, key); !slices.Equal(l.Keys, []string{"orders:1", "orders:2"}) {
			t.Errorf("%s: keys %v, want both keys of the one lock", key, l.Keys)
		}
	}
	if l := lockOf(t, s, "orders:3"); l.Keys != nil {
		t.Errorf("a lock with a token of its own has keys %v, want none", l.Keys)
	}
}
