package testbed

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// startEmbedded starts an embedded master closed at cleanup.
func startEmbedded(t *testing.T, opts EmbeddedOptions) *Embedded {
	t.Helper()
	e, err := StartEmbedded(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// serverTime returns what TIME answers.
func serverTime(t *testing.T, c *redis.Client) time.Time {
	t.Helper()
	now, err := c.Time(timeout(t, time.Second)).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now
}

// TestEmbeddedCommands exercises every command the project relies on.
func TestEmbeddedCommands(t *testing.T) {
	e := startEmbedded(t, EmbeddedOptions{})
	c := client(t, e)
	ctx := timeout(t, 5*time.Second)

	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}
	// SET NX PX: the first wins, the second is refused.
	if ok, err := c.SetNX(ctx, "lock:a", "tok1", time.Second).Result(); err != nil || !ok {
		t.Fatalf("SET NX PX: %v, %v", ok, err)
	}
	if ok, err := c.SetNX(ctx, "lock:a", "tok2", time.Second).Result(); err != nil || ok {
		t.Fatalf("second SET NX PX: %v, %v", ok, err)
	}
	// The exact wire form: SET key val NX PX ms.
	if err := c.Do(ctx, "SET", "lock:b", "tok", "NX", "PX", "5000").Err(); err != nil {
		t.Fatalf("SET NX PX via Do: %v", err)
	}
	if v, err := c.Get(ctx, "lock:a").Result(); err != nil || v != "tok1" {
		t.Fatalf("GET = %q, %v", v, err)
	}
	if _, err := c.Get(ctx, "missing").Result(); !errors.Is(err, redis.Nil) {
		t.Fatalf("GET missing: %v", err)
	}
	if d, err := c.PTTL(ctx, "lock:a").Result(); err != nil || d <= 0 || d > time.Second {
		t.Fatalf("PTTL = %v, %v", d, err)
	}
	if ok, err := c.PExpire(ctx, "lock:a", 3*time.Second).Result(); err != nil || !ok {
		t.Fatalf("PEXPIRE: %v, %v", ok, err)
	}
	if d, err := c.PTTL(ctx, "lock:a").Result(); err != nil || d <= time.Second || d > 3*time.Second {
		t.Fatalf("PTTL after PEXPIRE = %v, %v", d, err)
	}
	if typ, err := c.Type(ctx, "lock:a").Result(); err != nil || typ != "string" {
		t.Fatalf("TYPE = %q, %v", typ, err)
	}

	// Lua: the Redlock release script through EVAL, SCRIPT LOAD and EVALSHA.
	const release = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`
	if n, err := c.Eval(ctx, release, []string{"lock:a"}, "wrong").Int(); err != nil || n != 0 {
		t.Fatalf("EVAL with a wrong token = %d, %v", n, err)
	}
	sha, err := c.ScriptLoad(ctx, release).Result()
	if err != nil {
		t.Fatalf("SCRIPT LOAD: %v", err)
	}
	if n, err := c.EvalSha(ctx, sha, []string{"lock:a"}, "tok1").Int(); err != nil || n != 1 {
		t.Fatalf("EVALSHA = %d, %v", n, err)
	}
	const extend = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`
	if n, err := c.Eval(ctx, extend, []string{"lock:b"}, "tok", 9000).Int(); err != nil || n != 1 {
		t.Fatalf("EVAL extend = %d, %v", n, err)
	}

	if n, err := c.Del(ctx, "lock:b").Result(); err != nil || n != 1 {
		t.Fatalf("DEL = %d, %v", n, err)
	}

	// SCAN MATCH COUNT over more keys than one COUNT.
	for i := range 25 {
		if err := c.Set(ctx, fmt.Sprintf("lock:%02d", i), "t", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Set(ctx, "other", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, "lock:*", 10).Result()
		if err != nil {
			t.Fatalf("SCAN: %v", err)
		}
		for _, k := range keys {
			seen[k] = true
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	if len(seen) != 25 || seen["other"] {
		t.Fatalf("SCAN MATCH lock:* found %d keys: %v", len(seen), seen)
	}
	if n, err := c.DBSize(ctx).Result(); err != nil || n != 26 {
		t.Fatalf("DBSIZE = %d, %v", n, err)
	}
	if now, err := c.Time(ctx).Result(); err != nil || time.Until(now).Abs() > time.Second {
		t.Fatalf("TIME = %v, %v", now, err)
	}
	info, err := c.Info(ctx).Result()
	if err != nil || !strings.Contains(info, "connected_clients") {
		t.Fatalf("INFO = %q, %v", info, err)
	}
}

func TestEmbeddedJumpClock(t *testing.T) {
	e := startEmbedded(t, EmbeddedOptions{})
	c := client(t, e)
	ctx := timeout(t, 5*time.Second)
	if err := c.Set(ctx, "short", "v", time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "long", "v", 10*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	before, nowBefore := serverTime(t, c), e.Now()
	e.JumpClock(2 * time.Second)
	after, nowAfter := serverTime(t, c), e.Now()

	if n, err := c.Exists(ctx, "short").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS short after a 2s jump = %d, %v", n, err)
	}
	d, err := c.PTTL(ctx, "long").Result()
	if err != nil || d > 8*time.Second || d < 7*time.Second {
		t.Fatalf("PTTL long after a 2s jump = %v, %v; want about 8s", d, err)
	}
	if moved := after.Sub(before); moved < 2*time.Second || moved > 3*time.Second {
		t.Fatalf("TIME moved by %v, want about 2s", moved)
	}
	if moved := nowAfter.Sub(nowBefore); moved < 2*time.Second || moved > 3*time.Second {
		t.Fatalf("Now moved by %v, want about 2s", moved)
	}
	if after.Before(nowBefore) || after.After(nowAfter) {
		t.Fatalf("TIME %v outside Now() bracket [%v, %v]", after, nowBefore, nowAfter)
	}
}

func TestEmbeddedClockRate(t *testing.T) {
	e := startEmbedded(t, EmbeddedOptions{})
	c := client(t, e)
	e.SetClockRate(10)
	ctx := timeout(t, 5*time.Second)
	t0 := serverTime(t, c)
	start := time.Now()
	if err := c.Set(ctx, "k", "v", time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 2*time.Second, func() error {
		if n, err := c.Exists(ctx, "k").Result(); err != nil || n != 0 {
			return fmt.Errorf("EXISTS = %d, %v", n, err)
		}
		return nil
	})
	// A 1s TTL at 10x takes 100ms of real time; allow for slow machines,
	// but not for real time.
	if took := time.Since(start); took < 50*time.Millisecond || took > 700*time.Millisecond {
		t.Fatalf("1s TTL at rate 10 expired after %v of real time", took)
	}
	realElapsed := time.Since(start)
	if moved := serverTime(t, c).Sub(t0); moved < 5*realElapsed {
		t.Fatalf("TIME moved %v in %v of real time at rate 10", moved, realElapsed)
	}

	// Rate 0 stops the clock: nothing expires.
	e.SetClockRate(0)
	if err := c.Set(ctx, "frozen", "v", 50*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	frozen := e.Now()
	time.Sleep(150 * time.Millisecond)
	if !e.Now().Equal(frozen) {
		t.Fatalf("clock moved at rate 0: %v -> %v", frozen, e.Now())
	}
	if n, err := c.Exists(ctx, "frozen").Result(); err != nil || n != 1 {
		t.Fatalf("EXISTS frozen = %d, %v; want 1 at rate 0", n, err)
	}
}

func TestEmbeddedRealTimeExpiry(t *testing.T) {
	e := startEmbedded(t, EmbeddedOptions{})
	c := client(t, e)
	ctx := timeout(t, 5*time.Second)
	set := time.Now()
	if err := c.Set(ctx, "k", "v", 200*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	d, err := c.PTTL(ctx, "k").Result()
	if err != nil {
		t.Fatal(err)
	}
	// d is negative (-2) if the key is gone, which only a slow machine
	// excuses.
	if d > 150*time.Millisecond || (d <= 0 && time.Since(set) < 190*time.Millisecond) {
		t.Fatalf("PTTL after 100ms of a 200ms TTL = %v", d)
	}
	time.Sleep(300 * time.Millisecond)
	if n, err := c.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS after 400ms of a 200ms TTL = %d, %v", n, err)
	}
	// Without any command, the key is also gone for Miniredis-level access.
	e.Miniredis().Set("direct", "v")
	e.Miniredis().SetTTL("direct", 50*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	if e.Miniredis().Exists("direct") {
		t.Fatal("key with a 50ms TTL still there after 100ms")
	}
}

func TestEmbeddedStopStart(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("persistence=%v", keep), func(t *testing.T) {
			e := startEmbedded(t, EmbeddedOptions{Persistence: keep})
			testStopStart(t, e, keep)
		})
	}
	t.Run("SetPersistence", func(t *testing.T) {
		e := startEmbedded(t, EmbeddedOptions{})
		e.SetPersistence(true)
		testStopStart(t, e, true)
		e.SetPersistence(false)
		testStopStart(t, e, false)
	})
}

func TestEmbeddedStopRefusesAndFlushesScripts(t *testing.T) {
	e := startEmbedded(t, EmbeddedOptions{Persistence: true})
	c := client(t, e)
	ctx := timeout(t, 5*time.Second)
	sha, err := c.ScriptLoad(ctx, "return 1").Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Stop(); err != nil {
		t.Fatal(err)
	}
	if conn, err := net.DialTimeout("tcp", e.Addr(), time.Second); err == nil {
		conn.Close()
		t.Fatal("stopped master accepted a connection")
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	c2 := client(t, e)
	if err := c2.EvalSha(ctx, sha, nil).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOSCRIPT") {
		t.Fatalf("EVALSHA after restart: %v, want NOSCRIPT", err)
	}
}

func TestEmbeddedPauseResume(t *testing.T) {
	testPauseResume(t, startEmbedded(t, EmbeddedOptions{}))
}

func TestEmbeddedFixedAddr(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	e := startEmbedded(t, EmbeddedOptions{Addr: addr})
	if e.Addr() != addr {
		t.Fatalf("Addr = %s, want %s", e.Addr(), addr)
	}
	if err := ping(t, client(t, e)); err != nil {
		t.Fatal(err)
	}
	if _, err := StartEmbedded(EmbeddedOptions{Addr: addr}); err == nil {
		t.Fatal("a second master on a busy address started")
	}
}

func TestEmbeddedCluster(t *testing.T) {
	es, err := StartEmbeddedCluster(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		t.Cleanup(func() { e.Close() })
	}
	addrs := map[string]bool{}
	for _, e := range es {
		if addrs[e.Addr()] {
			t.Fatalf("duplicate address %s", e.Addr())
		}
		addrs[e.Addr()] = true
	}
	// Clocks are independent.
	es[0].JumpClock(time.Hour)
	if d := es[0].Now().Sub(es[1].Now()); d < 59*time.Minute {
		t.Fatalf("master 0 is %v ahead of master 1, want about 1h", d)
	}
	if d := time.Until(es[2].Now()).Abs(); d > time.Second {
		t.Fatalf("master 2 is %v off real time", d)
	}
	// Keys are independent.
	c0, c1 := client(t, es[0]), client(t, es[1])
	ctx := timeout(t, 5*time.Second)
	if err := c0.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := c1.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS on another master = %d, %v", n, err)
	}
}

func TestEmbeddedClose(t *testing.T) {
	e, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := e.Start(); err == nil {
		t.Fatal("Start after Close succeeded")
	}
	if conn, err := net.DialTimeout("tcp", e.Addr(), time.Second); err == nil {
		conn.Close()
		t.Fatal("closed master accepted a connection")
	}
}

// TestAKeySetWhileTheTickerIsStarvedKeepsItsWholeTTL: a key's TTL starts when its SET reaches the master, not at
// the clock's last tick. The ticker is stopped here, as a loaded machine's scheduler may stop it; a key set then
// must not lose the time the ticker missed when the clock next moves, or it would expire before the client that
// set it had counted out its validity.
func TestAKeySetWhileTheTickerIsStarvedKeepsItsWholeTTL(t *testing.T) {
	e := startEmbedded(t, EmbeddedOptions{})
	c := client(t, e)
	ctx := timeout(t, 5*time.Second)
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	close(e.stopTick) // the ticker stops for good; Close finds it stopped
	<-e.tickDone
	e.stopTick = make(chan struct{})
	const starved, ttl = 300 * time.Millisecond, 2 * time.Second
	time.Sleep(starved)
	before := time.Now()
	if err := c.Set(ctx, "lock:starved", "tok", ttl).Err(); err != nil {
		t.Fatal(err)
	}
	e.Now() // the clock moves, as at the ticker's next tick
	left, err := c.PTTL(ctx, "lock:starved").Result()
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(before); left < ttl-took-time.Millisecond {
		t.Errorf("a %v TTL set after the ticker missed %v had %v left %v later; want at least %v",
			ttl, starved, left, took, ttl-took)
	}
}
