package monitor

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock"
)

// Symfony Lock's RedisStore, symfony/lock v5.4.40 (d96955c9919fa8609b193ba76e9f527776b70176, the 5.4 LTS that
// Debian ships as php-symfony-lock; 7.1 at 091a6ff7f2417035df966a9a90258fa769f6c57d keeps these scripts),
// Store/RedisStore.php. Each script is its PHP string as written there, with getNowCode()'s text for a
// Redis that allows TIME in scripts (5.0 and later) where the PHP concatenates it; evaluate() runs it with
// the key as KEYS[1] and the ARGV shown at each call.
const symfonyNowCode = `
                local now = redis.call("TIME")
                now = now[1] * 1000 + math.floor(now[2] / 1000)
            `

// symfonySave is RedisStore::save (an exclusive lock); ARGV: microtime(true), the token, ceil(ttl*1000).
const symfonySave = `
            local key = KEYS[1]
            local uniqueToken = ARGV[2]
            local ttl = tonumber(ARGV[3])

            -- asserts the KEY is compatible with current version (old Symfony <5.2 BC)
            if redis.call("TYPE", key).ok == "string" then
                return false
            end

            ` + symfonyNowCode + `

            -- Remove expired values
            redis.call("ZREMRANGEBYSCORE", key, "-inf", now)

            -- is already acquired
            if redis.call("ZSCORE", key, uniqueToken) then
                -- is not WRITE lock and cannot be promoted
                if not redis.call("ZSCORE", key, "__write__") and redis.call("ZCOUNT", key, "-inf", "+inf") > 1  then
                    return false
                end
            elseif redis.call("ZCOUNT", key, "-inf", "+inf") > 0  then
                return false
            end

            redis.call("ZADD", key, now + ttl, uniqueToken)
            redis.call("ZADD", key, now + ttl, "__write__")

            -- Extend the TTL of the key
            local maxExpiration = redis.call("ZREVRANGE", key, 0, 0, "WITHSCORES")[2]
            redis.call("PEXPIREAT", key, maxExpiration)

            return true
        `

// symfonySaveRead is RedisStore::saveRead (a shared lock); ARGV as symfonySave.
const symfonySaveRead = `
            local key = KEYS[1]
            local uniqueToken = ARGV[2]
            local ttl = tonumber(ARGV[3])

            -- asserts the KEY is compatible with current version (old Symfony <5.2 BC)
            if redis.call("TYPE", key).ok == "string" then
                return false
            end

            ` + symfonyNowCode + `

            -- Remove expired values
            redis.call("ZREMRANGEBYSCORE", key, "-inf", now)

            -- lock not already acquired and a WRITE lock exists?
            if not redis.call("ZSCORE", key, uniqueToken) and redis.call("ZSCORE", key, "__write__") then
                return false
            end

            redis.call("ZADD", key, now + ttl, uniqueToken)
            redis.call("ZREM", key, "__write__")

            -- Extend the TTL of the key
            local maxExpiration = redis.call("ZREVRANGE", key, 0, 0, "WITHSCORES")[2]
            redis.call("PEXPIREAT", key, maxExpiration)

            return true
        `

// symfonyDelete is RedisStore::delete; ARGV: the token.
const symfonyDelete = `
            local key = KEYS[1]
            local uniqueToken = ARGV[1]

            -- asserts the KEY is compatible with current version (old Symfony <5.2 BC)
            if redis.call("TYPE", key).ok == "string" then
                return false
            end

            -- lock not already acquired
            if not redis.call("ZSCORE", key, uniqueToken) then
                return false
            end

            redis.call("ZREM", key, uniqueToken)
            redis.call("ZREM", key, "__write__")

            local maxExpiration = redis.call("ZREVRANGE", key, 0, 0, "WITHSCORES")[2]
            if nil ~= maxExpiration then
                redis.call("PEXPIREAT", key, maxExpiration)
            end

            return true
        `

// symfonyToken is RedisStore::getUniqueToken: base64_encode(random_bytes(32)). A CombinedStore hands one Key to
// every store, so one token is on every master.
func symfonyTokenOf() string { return base64.StdEncoding.EncodeToString(randomBytes(32)) }

// symfony runs one of RedisStore's scripts as evaluate() does, and reports whether it returned true.
func symfony(t *testing.T, c *redis.Client, script, key, token string, ttl time.Duration) bool {
	t.Helper()
	args := []any{float64(time.Now().UnixMicro()) / 1e6, token, ttl.Milliseconds()}
	if script == symfonyDelete {
		args = []any{token}
	}
	res, err := c.Eval(context.Background(), script, []string{key}, args...).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		t.Fatalf("Symfony's script on %s: %v", key, err)
	}
	return res == int64(1)
}

// symfonyOn runs a RedisStore script for token on the masters listed, as a CombinedStore does on each of its
// stores, and fails unless each store took it.
func symfonyOn(t *testing.T, c *cluster, script, key, token string, ttl time.Duration, on ...int) {
	t.Helper()
	for _, i := range on {
		if !symfony(t, c.admin[i], script, key, token, ttl) {
			t.Fatalf("Symfony's store on master %d refused %s for %s", i, key, token)
		}
	}
}

// locker is a Redlock client on c's masters that tries one round, closed when the test ends.
func (c *cluster) locker(t *testing.T) *redlock.Client {
	t.Helper()
	l, err := redlock.New(c.admin, redlock.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// holderOf returns l's holder with token, failing the test when it has none.
func holderOf(t *testing.T, l LockView, token string) Holder {
	t.Helper()
	for _, h := range l.Holders {
		if h.Token == token {
			return h
		}
	}
	t.Fatalf("%s: no holder %q among %+v", l.Resource, token, l.Holders)
	return Holder{}
}

// checkExpiries fails unless h's member on each master listed expires within (ttl-slack, ttl] of now, and
// nowhere else.
func checkExpiries(t *testing.T, h Holder, now time.Time, ttl time.Duration, on ...int) {
	t.Helper()
	for j, c := range h.Masters {
		want := false
		for _, i := range on {
			want = want || i == j
		}
		left := c.Expires.Sub(now)
		switch {
		case want && (c.State != CellSeen || left <= ttl-5*time.Second || left > ttl+time.Second):
			t.Errorf("holder %.8s on master %d: %+v (%v left), want its own expiry about %v from now", h.Token, j, c, left, ttl)
		case !want && c.State != CellAbsent:
			t.Errorf("holder %.8s on master %d: %+v, want absent", h.Token, j, c)
		}
	}
}

// sweptPoll polls until every master has swept its keyspace once.
func sweptPoll(t *testing.T, c *cluster) Snapshot {
	t.Helper()
	s := c.mon.Poll(context.Background())
	for !s.Swept {
		s = c.mon.Poll(context.Background())
	}
	return s
}

func TestSymfonyLockSortedSetsAreShownWithEachHolder(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 5, Config{})
	ctx := context.Background()
	locker := c.locker(t)
	w, w2 := symfonyTokenOf(), symfonyTokenOf()
	r1, r2, r3 := symfonyTokenOf(), symfonyTokenOf(), symfonyTokenOf()
	// A CombinedStore of five RedisStores with ConsensusStrategy: save() runs on every store; these are the
	// outcomes it leaves behind.
	symfonyOn(t, c, symfonySave, "invoice:quorum", w, formatTTL, 0, 1, 2)
	symfonyOn(t, c, symfonySave, "invoice:minority", w, formatTTL, 3, 4)
	symfonyOn(t, c, symfonySave, "invoice:split", w, formatTTL, 0, 1)
	symfonyOn(t, c, symfonySave, "invoice:split", w2, formatTTL, 2, 3)
	for _, r := range []string{r1, r2, r3} {
		symfonyOn(t, c, symfonySaveRead, "report:shared", r, formatTTL, 0, 1, 2, 3, 4)
	}
	symfonyOn(t, c, symfonySaveRead, "report:minority", r1, formatTTL, 0, 1)
	s := sweptPoll(t, c)

	t.Run("exclusive on a quorum", func(t *testing.T) {
		l := lockOf(t, s, "invoice:quorum")
		h := holderOf(t, l, w)
		if l.State != StateHeld || l.Holder != w || l.Family != "Symfony Lock" || len(l.Holders) != 1 || l.HoldersText() != "write lock" {
			t.Errorf("state %s holder %.8s family %q holders %d %q; want held by the writer, Symfony Lock, \"write lock\"",
				l.State, l.Holder, l.Family, len(l.Holders), l.HoldersText())
		}
		if h.Mode != ModeWrite || h.State != StateHeld || h.Count != 3 || h.Validity <= formatTTL-5*time.Second {
			t.Errorf("holder %+v, want a writer held on 3 with validity near %v", h, formatTTL)
		}
		checkExpiries(t, h, s.Time, formatTTL, 0, 1, 2)
	})
	t.Run("exclusive on a minority", func(t *testing.T) {
		l := lockOf(t, s, "invoice:minority")
		if h := holderOf(t, l, w); l.State != StatePartial || l.Holder != "" || h.State != StatePartial || h.Count != 2 {
			t.Errorf("state %s holder %q, holder %+v; want partial, the writer live on 2", l.State, l.Holder, h)
		}
	})
	t.Run("exclusive split", func(t *testing.T) {
		l := lockOf(t, s, "invoice:split")
		if l.State != StateSplit || len(l.Holders) != 2 {
			t.Errorf("state %s holders %+v; want split between two writers", l.State, l.Holders)
		}
	})
	t.Run("shared by three readers", func(t *testing.T) {
		l := lockOf(t, s, "report:shared")
		if l.State != StateHeld || len(l.Holders) != 3 || l.HoldersText() != "3 readers" || l.Family != "Symfony Lock" {
			t.Fatalf("state %s holders %d %q family %q; want held by 3 readers", l.State, len(l.Holders), l.HoldersText(), l.Family)
		}
		for _, r := range []string{r1, r2, r3} {
			h := holderOf(t, l, r)
			if h.Mode != ModeRead || h.State != StateHeld || h.Count != 5 {
				t.Errorf("reader %+v, want read, held on 5", h)
			}
			checkExpiries(t, h, s.Time, formatTTL, 0, 1, 2, 3, 4)
		}
	})
	t.Run("shared on a minority", func(t *testing.T) {
		l := lockOf(t, s, "report:minority")
		if l.State != StatePartial || holderOf(t, l, r1).Count != 2 {
			t.Errorf("state %s, holders %+v; want partial, the reader on 2", l.State, l.Holders)
		}
	})
	// Symfony refuses a string key (the "< 5.2 BC" check), and SET NX refuses a key of any type: neither side
	// takes what the other holds on a quorum.
	for _, key := range []string{"invoice:quorum", "report:shared"} {
		if l, err := locker.TryAcquire(ctx, key, time.Second); !errors.Is(err, redlock.ErrNotAcquired) {
			t.Errorf("acquiring %s while Symfony holds it: lock %v, err %v; want ErrNotAcquired", key, l, err)
		}
	}
}

func TestSymfonyLockOnASingleStore(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 1, Config{})
	w, r1, r2 := symfonyTokenOf(), symfonyTokenOf(), symfonyTokenOf()
	symfonyOn(t, c, symfonySave, "deploy", w, formatTTL, 0)
	symfonyOn(t, c, symfonySaveRead, "catalog", r1, formatTTL, 0)
	symfonyOn(t, c, symfonySaveRead, "catalog", r2, formatTTL, 0)
	// A second writer, or a writer over readers, is refused by the store itself.
	if symfony(t, c.admin[0], symfonySave, "deploy", symfonyTokenOf(), formatTTL) || symfony(t, c.admin[0], symfonySave, "catalog", w, formatTTL) {
		t.Fatal("Symfony's save took a lock that was held")
	}
	s := sweptPoll(t, c)
	if l := lockOf(t, s, "deploy"); l.State != StateHeld || l.Holder != w || l.HoldersText() != "write lock" {
		t.Errorf("deploy: %s by %.8s (%q), want held by the writer", l.State, l.Holder, l.HoldersText())
	}
	if l := lockOf(t, s, "catalog"); l.State != StateHeld || l.HoldersText() != "2 readers" || l.Holder != strings.Join(sortedOf(r1, r2), ",") {
		t.Errorf("catalog: %s by %q (%q), want held by both readers", l.State, l.Holder, l.HoldersText())
	}
}

// sortedOf returns its arguments sorted.
func sortedOf(ss ...string) []string {
	out := append([]string(nil), ss...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestSetLockRowFollowsReadersAndWritersWithinAPoll(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 3, Config{})
	ctx := context.Background()
	r1, r2, w := symfonyTokenOf(), symfonyTokenOf(), symfonyTokenOf()
	all := []int{0, 1, 2}
	const key = "orders:export"
	var prev Snapshot
	step := func(name string, check func(l LockView, events []Event) string) {
		t.Helper()
		s := c.mon.Poll(ctx)
		var l LockView
		for _, x := range s.Locks {
			if x.Resource == key {
				l = *x
			}
		}
		if why := check(l, newEvents(prev, s)); why != "" {
			t.Errorf("%s: %s (state %s, holders %+v)", name, why, l.State, l.Holders)
		}
		prev = s
	}
	symfonyOn(t, c, symfonySaveRead, key, r1, formatTTL, all...)
	prev = sweptPoll(t, c)
	step("one reader", func(l LockView, _ []Event) string {
		if l.State != StateHeld || l.HoldersText() != "1 reader" {
			return "want held by 1 reader, got " + l.HoldersText()
		}
		return ""
	})
	symfonyOn(t, c, symfonySaveRead, key, r2, formatTTL, all...)
	step("a reader joins", func(l LockView, ev []Event) string {
		if l.HoldersText() != "2 readers" || !hasEvent(ev, EventHolderJoined, r2) || l.Changes != 0 {
			return fmt.Sprintf("want 2 readers, a holder-joined event naming it and no holder change; %q, events %v", l.HoldersText(), ev)
		}
		return ""
	})
	symfonyOn(t, c, symfonyDelete, key, r1, 0, all...)
	step("a reader leaves", func(l LockView, ev []Event) string {
		if l.HoldersText() != "1 reader" || l.Holder != r2 || !hasEvent(ev, EventHolderLeft, r1) {
			return fmt.Sprintf("want the other reader alone and a holder-left event; %q, events %v", l.HoldersText(), ev)
		}
		return ""
	})
	symfonyOn(t, c, symfonyDelete, key, r2, 0, all...)
	symfonyOn(t, c, symfonySave, key, w, formatTTL, all...)
	step("a writer after the readers", func(l LockView, ev []Event) string {
		if l.State != StateHeld || l.Holder != w || l.HoldersText() != "write lock" || l.Changes != 1 || !hasEvent(ev, EventTakenOver, w) {
			return fmt.Sprintf("want the writer holding, one holder change; %q changes %d, events %v", l.HoldersText(), l.Changes, ev)
		}
		return ""
	})
}

// hasEvent reports whether events has one of kind whose text names token.
func hasEvent(events []Event, kind EventKind, token string) bool {
	for _, e := range events {
		if e.Kind == kind && strings.Contains(e.Text, token) {
			return true
		}
	}
	return false
}

func TestExpiredMembersAreShownExpiredNotHeld(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 3, Config{})
	all := []int{0, 1, 2}
	live, lapsing := symfonyTokenOf(), symfonyTokenOf()
	symfonyOn(t, c, symfonySaveRead, "catalog:rebuild", live, formatTTL, all...)
	// Saved after the long one, so that no later save's ZREMRANGEBYSCORE cleans it out: Symfony removes expired
	// members only when a lock is taken.
	symfonyOn(t, c, symfonySaveRead, "catalog:rebuild", lapsing, 300*time.Millisecond, all...)
	time.Sleep(500 * time.Millisecond)
	s := sweptPoll(t, c)
	l := lockOf(t, s, "catalog:rebuild")
	if h := holderOf(t, l, lapsing); h.State != HolderExpired || h.Count != 0 || h.Masters[0].State != CellSeen || h.Masters[0].Expires.After(s.Time) {
		t.Errorf("the lapsed reader: %+v, want expired, still in the set", h)
	}
	if h := holderOf(t, l, live); h.State != StateHeld {
		t.Errorf("the live reader: %+v, want held", h)
	}
	if l.State != StateHeld || l.Holder != live || l.HoldersText() != "1 reader" {
		t.Errorf("lock %s by %.8s (%q), want held by the live reader alone", l.State, l.Holder, l.HoldersText())
	}
}

// redis-semaphore 5.7.0 (swarthy/redis-semaphore 63c2d013a3182aa4deeb7c60fd1465687e11cb36). The scripts are
// its own, as written in the files named; each Redlock variant runs the same script on each of its clients.

// semaphoreAcquireLua is src/semaphore/acquire/lua.ts: KEYS[1] "semaphore:<name>" (src/RedisSemaphore.ts);
// ARGV: limit, identifier (crypto.randomUUID(), src/Lock.ts), lockTimeout, now (Date.now() of the client,
// src/semaphore/acquire/index.ts).
const semaphoreAcquireLua = `
  local key = KEYS[1]
  local limit = tonumber(ARGV[1])
  local identifier = ARGV[2]
  local lockTimeout = tonumber(ARGV[3])
  local now = tonumber(ARGV[4])
  local expiredTimestamp = now - lockTimeout

  redis.call('zremrangebyscore', key, '-inf', expiredTimestamp)

  if redis.call('zcard', key) < limit then
    redis.call('zadd', key, now, identifier)
    redis.call('pexpire', key, lockTimeout)
    return 1
  else
    return 0
  end`

// multiSemaphoreAcquireLua is src/multiSemaphore/acquire/lua.ts; ARGV: limit, permits, identifier,
// lockTimeout, now.
const multiSemaphoreAcquireLua = `
  local key = KEYS[1]
  local limit = tonumber(ARGV[1])
  local permits = tonumber(ARGV[2])
  local identifier = ARGV[3]
  local lockTimeout = tonumber(ARGV[4])
  local now = tonumber(ARGV[5])
  local expiredTimestamp = now - lockTimeout
  local args = {}

  redis.call('zremrangebyscore', key, '-inf', expiredTimestamp)

  if (redis.call('zcard', key) + permits) <= limit then
    for i=0, permits - 1 do
      table.insert(args, now)
      table.insert(args, identifier .. '_' .. i)
    end
    redis.call('zadd', key, unpack(args))
    redis.call('pexpire', key, lockTimeout)
    return 1
  else
    return 0
  end`

// semaphoreTimeout is the lockTimeout of the tests' semaphores (redis-semaphore's default, src/misc.ts).
const semaphoreTimeout = 10 * time.Second

// acquireSemaphore runs semaphoreAcquireLua for identifier on the masters listed, with the client's clock at
// now, and fails unless each took it.
func acquireSemaphore(t *testing.T, c *cluster, name, identifier string, limit int, now time.Time, on ...int) {
	t.Helper()
	for _, i := range on {
		res, err := c.admin[i].Eval(context.Background(), semaphoreAcquireLua, []string{"semaphore:" + name},
			limit, identifier, semaphoreTimeout.Milliseconds(), now.UnixMilli()).Result()
		if err != nil || res != int64(1) {
			t.Fatalf("redis-semaphore's acquire of %s on master %d: %v %v", name, i, res, err)
		}
	}
}

func TestRedisSemaphoreLocksAreShownWithTheirPermits(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 5, Config{Permits: map[string]int{"pool": 3}})
	ctx := context.Background()
	locker := c.locker(t)
	now := time.Now()
	a, b, m := uuid4(), uuid4(), uuid4()
	// RedlockSemaphore (src/redlockSemaphore/acquire.ts): the acquire script on every client, held with a
	// quorum of them; a limit of 3, two holders.
	acquireSemaphore(t, c, "pool", a, 3, now, 0, 1, 2, 3, 4)
	acquireSemaphore(t, c, "pool", b, 3, now, 0, 1, 2)
	// Semaphore (src/RedisSemaphore.ts): the same script on one client; here on two masters of five.
	acquireSemaphore(t, c, "single", a, 2, now, 0, 1)
	// RedlockMultiSemaphore (src/redlockMultiSemaphore/acquire.ts): one holder takes 2 of 4 permits.
	for i := range 3 {
		if res, err := c.admin[i].Eval(ctx, multiSemaphoreAcquireLua, []string{"semaphore:batch"}, 4, 2, m,
			semaphoreTimeout.Milliseconds(), now.UnixMilli()).Result(); err != nil || res != int64(1) {
			t.Fatalf("multi-semaphore acquire on master %d: %v %v", i, res, err)
		}
	}
	// RedisMutex and RedlockMutex (src/mutex/acquire.ts): SET key identifier PX lockTimeout NX, on "mutex:<name>".
	for i := range 3 {
		if err := c.admin[i].SetArgs(ctx, "mutex:billing", m, redis.SetArgs{Mode: "NX", TTL: semaphoreTimeout}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	s := sweptPoll(t, c)

	l := lockOf(t, s, "semaphore:pool")
	if l.State != StateHeld || l.HoldersText() != "2 of 3 permits" || l.Family != "redis-semaphore" || l.Limit != 3 {
		t.Errorf("pool: %s %q family %q limit %d; want held, 2 of 3 permits, redis-semaphore", l.State, l.HoldersText(), l.Family, l.Limit)
	}
	if l.Logical != "pool" || l.Convention != "redis-semaphore" || l.ResourceText() != "pool (redis-semaphore: semaphore:pool)" {
		t.Errorf("pool is named %q, want its resource beside the key", l.ResourceText())
	}
	for _, tc := range []struct {
		id    string
		count int
		on    []int
	}{{a, 5, []int{0, 1, 2, 3, 4}}, {b, 3, []int{0, 1, 2}}} {
		h := holderOf(t, l, tc.id)
		if h.Mode != ModePermit || h.State != StateHeld || h.Count != tc.count || h.Permits != 1 {
			t.Errorf("holder %+v, want a permit held on %d", h, tc.count)
		}
		checkExpiries(t, h, s.Time, semaphoreTimeout, tc.on...)
	}
	if l := lockOf(t, s, "semaphore:single"); l.State != StatePartial || holderOf(t, l, a).Count != 2 || l.HoldersText() != "" {
		t.Errorf("single: %s %q, want partial: one instance's semaphore on 2 masters of 5", l.State, l.HoldersText())
	}
	if l := lockOf(t, s, "semaphore:batch"); l.State != StateHeld || holderOf(t, l, m).Permits != 2 || l.HoldersText() != "2 permits, 1 holder" {
		t.Errorf("batch: %s %q, want one holder of 2 permits", l.State, l.HoldersText())
	}
	if l := lockOf(t, s, "mutex:billing"); l.State != StateHeld || l.Family != "redis-semaphore" || l.ResourceText() != "billing (redis-semaphore: mutex:billing)" {
		t.Errorf("mutex: %s family %q named %q, want held, redis-semaphore, billing beside the key", l.State, l.Family, l.ResourceText())
	}
	for _, key := range []string{"semaphore:pool", "semaphore:batch", "mutex:billing"} {
		if l, err := locker.TryAcquire(ctx, key, time.Second); !errors.Is(err, redlock.ErrNotAcquired) {
			t.Errorf("acquiring %s while redis-semaphore holds it: lock %v, err %v; want ErrNotAcquired", key, l, err)
		}
	}
	// Without the limit from the user, the count of holders is all there is.
	if l := lockOf(t, sweptPoll(t, watch(t, c.masters, Config{})), "semaphore:pool"); l.HoldersText() != "2 holders" {
		t.Errorf("without --permits: %q, want \"2 holders\"", l.HoldersText())
	}
}

func TestAnExpiredSemaphoreHolderIsShownExpired(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 3, Config{})
	now := time.Now()
	live, lapsed := uuid4(), uuid4()
	acquireSemaphore(t, c, "pool", live, 3, now, 0, 1, 2)
	// A client whose acquisition is older than lockTimeout (its clock behind, or its refresh never ran): the
	// script keeps it until the next acquisition's clean-up, and PEXPIREs the key again.
	acquireSemaphore(t, c, "pool", lapsed, 3, now.Add(-semaphoreTimeout-5*time.Second), 0, 1, 2)
	s := sweptPoll(t, c)
	l := lockOf(t, s, "semaphore:pool")
	if h := holderOf(t, l, lapsed); h.State != HolderExpired || h.Count != 0 {
		t.Errorf("lapsed holder %+v, want expired", h)
	}
	if l.State != StateHeld || l.HoldersText() != "1 holder" || l.Holder != live {
		t.Errorf("pool: %s by %.8s (%q), want held by the live holder alone", l.State, l.Holder, l.HoldersText())
	}
}

func TestARefusedSetReadIsUnknownNotAbsent(t *testing.T) {
	t.Parallel()
	a := newACLServer(t)
	ctx := context.Background()
	w := symfonyTokenOf()
	if !symfony(t, a.admin, symfonySave, "invoice:42", w, formatTTL) {
		t.Fatal("Symfony's save refused")
	}
	a.setUser(t, "watcher", documentedACL(t, "watcher"))
	mon, err := New([]*redis.Client{a.client(t, "watcher")}, []string{a.srv.Addr()}, Config{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	s := mon.Poll(ctx)
	for !s.Swept {
		s = mon.Poll(ctx)
	}
	if l := lockOf(t, s, "invoice:42"); l.State != StateHeld || l.Holder != w {
		t.Fatalf("before: %s by %.8s, want held by the writer", l.State, l.Holder)
	}
	if err := a.admin.Do(ctx, "ACL", "SETUSER", "watcher", "-zrange").Err(); err != nil {
		t.Fatal(err)
	}
	s = mon.Poll(ctx)
	l := lockOf(t, s, "invoice:42")
	if l.Masters[0].State != CellUnknown || l.State != StateUnknown || l.Masters[0].Set() == nil {
		t.Errorf("after ZRANGE was refused: %s, cell %+v; want unknown, keeping the set last seen", l.State, l.Masters[0])
	}
	if !hasWarning(s, "denied:zrange", a.srv.Addr()) {
		t.Errorf("no warning that ZRANGE is denied: %v", s.Warnings)
	}
}

func TestMalkuschLockIsNamedByItsResourceAndValidForItsTimeout(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 3, Config{})
	ctx := context.Background()
	// malkusch/lock 2.2.1 (php-lock/lock 63c1b268f521a702cb8755ed92631c1fac1775e6): SpinlockMutex names the key
	// "lock_" . $name and acquires it for $this->timeout + 1 seconds; RedisMutex's token is
	// bin2hex(random_bytes(16)), and PHPRedisMutex::add is set($key, $value, ['nx', 'ex' => $expire]).
	const timeout = 30
	token := randomHex(16)
	for i := range 3 {
		if err := c.admin[i].Do(ctx, "SET", "lock_billing", token, "NX", "EX", timeout+1).Err(); err != nil {
			t.Fatal(err)
		}
	}
	l := lockOf(t, sweptPoll(t, c), "lock_billing")
	if l.ResourceText() != "billing (malkusch/lock: lock_billing)" || l.Family != "malkusch/lock" {
		t.Errorf("named %q, family %q; want billing beside its key, malkusch/lock", l.ResourceText(), l.Family)
	}
	// The holder counts its lock as timeout seconds from its acquisition, one second less than the key lives.
	if v := l.ValidityAt(time.Now()); l.State != StateHeld || v > timeout*time.Second || v < (timeout-2)*time.Second {
		t.Errorf("%s with validity %v, want held for just under %ds (its timeout), not %ds (the key's TTL)", l.State, v, timeout, timeout+1)
	}
}

// randomHex is n random bytes in hex.
func randomHex(n int) string { return fmt.Sprintf("%x", randomBytes(n)) }

func TestAKeyFormatExcludesThePeersLocks(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 3, Config{})
	ctx := context.Background()
	locker := c.locker(t)
	// Each peer's own acquisition, as its source writes it (see the other tests of this file and
	// formats_test.go): SET NX with its token under its key.
	peers := []struct {
		format string
		take   func(i int, key string) error
	}{
		{"malkusch", func(i int, key string) error {
			return c.admin[i].Do(ctx, "SET", key, randomHex(16), "NX", "EX", 31).Err()
		}},
		{"php-lock", func(i int, key string) error {
			return c.admin[i].Do(ctx, "SET", key, randomHex(32), "PX", 30001, "NX").Err()
		}},
		{"redis-semaphore", func(i int, key string) error {
			return c.admin[i].SetArgs(ctx, key, uuid4(), redis.SetArgs{Mode: "NX", TTL: semaphoreTimeout}).Err()
		}},
		{"redlock-net", func(i int, key string) error {
			return c.admin[i].SetArgs(ctx, key, uuid4(), redis.SetArgs{Mode: "NX", TTL: formatTTL}).Err()
		}},
		// redis-py's Lock inside django-redis: SET name token NX PX; Medusa's locking-redis: SET key value NX PX;
		// Laravel's RedisLock: SET key owner EX seconds NX (the keys as formats_test.go writes them).
		{"django-redis", func(i int, key string) error {
			return c.admin[i].SetArgs(ctx, key, hex.EncodeToString(uuid1Bytes()), redis.SetArgs{Mode: "NX", TTL: formatTTL}).Err()
		}},
		{"medusa", func(i int, key string) error {
			return c.admin[i].SetArgs(ctx, key, "execute:"+uuid4(), redis.SetArgs{Mode: "NX", TTL: formatTTL}).Err()
		}},
		{"laravel", func(i int, key string) error {
			return c.admin[i].Do(ctx, "SET", key, alnum(16), "EX", 30, "NX").Err()
		}},
		{"laravel:shop", func(i int, key string) error {
			return c.admin[i].Do(ctx, "SET", key, alnum(16), "EX", 30, "NX").Err()
		}},
	}
	for _, p := range peers {
		t.Run(p.format, func(t *testing.T) {
			format, err := KeyFormat(p.format)
			if err != nil {
				t.Fatal(err)
			}
			key := format("billing")
			// We hold "billing" in the peer's convention: the peer's SET NX finds the key taken.
			ours, err := locker.TryAcquire(ctx, key, formatTTL)
			if err != nil {
				t.Fatalf("acquiring %s: %v", key, err)
			}
			// The peer tries every master, as its own Redlock round does; ours may still be landing on the last
			// master (a round ends at a quorum), so the peer is refused on a quorum, not everywhere.
			won := 0
			for i := range 3 {
				if err := p.take(i, key); err == nil {
					won++
				} else if !errors.Is(err, redis.Nil) {
					t.Fatal(err)
				}
			}
			if won >= 2 {
				t.Errorf("the peer's acquisition of %s while we hold it won %d masters of 3, want fewer than a quorum", key, won)
			}
			if err := ours.Release(ctx); err != nil {
				t.Fatal(err)
			}
			for _, a := range c.admin { // the peer's failed round releases what it took
				if err := a.Del(ctx, key).Err(); err != nil {
					t.Fatal(err)
				}
			}
			// Once ours is released the peer takes it on every master, and then holds us off.
			for i := range 3 {
				if err := p.take(i, key); err != nil {
					t.Fatalf("the peer's acquisition of %s on master %d: %v", key, i, err)
				}
			}
			if _, err := locker.TryAcquire(ctx, key, time.Second); !errors.Is(err, redlock.ErrNotAcquired) {
				t.Errorf("acquiring %s while the peer holds it: %v, want ErrNotAcquired", key, err)
			}
		})
	}
	// redis-semaphore's semaphore script on a key we hold fails with WRONGTYPE: its RedlockSemaphore counts that
	// master as refusing (.catch(() => 0)), its Semaphore throws. Either way no permit is taken.
	format, _ := KeyFormat("redis-semaphore-semaphore")
	ours, err := locker.TryAcquire(ctx, format("pool"), formatTTL)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Release(ctx)
	// The client returns at a quorum: master 0's SET may land a moment later (seen with one core busy).
	for deadline := time.Now().Add(5 * time.Second); c.admin[0].Get(ctx, format("pool")).Val() != ours.Token(); {
		if time.Now().After(deadline) {
			t.Fatalf("master 0 does not hold our %s", format("pool"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := c.admin[0].Eval(ctx, semaphoreAcquireLua, []string{format("pool")}, 3, uuid4(),
		semaphoreTimeout.Milliseconds(), time.Now().UnixMilli()).Result(); err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("redis-semaphore's acquire on the key we hold: %v, want WRONGTYPE", err)
	}
}
