package monitor

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// pythonEnv set to "required" fails TestRedisPyLocksAreNamed when Debian's redis-py (python3-redis, for
// /usr/bin/python3) is not installed; otherwise the test is skipped. CI installs it.
const pythonEnv = "REDLOCK_TEST_PYTHON"

// redisPyLocks takes, with Debian's real redis-py, the lock "jobs:nightly" as redis-py's Lock names it and
// ":1:report" as django-redis's cache.lock() does, each with one token (Lock.acquire(token=...), a uuid1().hex
// drawn by Python) on every master given, and prints the two tokens as JSON.
const redisPyLocks = `
import json, sys, uuid, redis
tokens = {"jobs:nightly": uuid.uuid1().hex, ":1:report": uuid.uuid1().hex}
for addr in sys.argv[1:]:
    host, port = addr.rsplit(":", 1)
    r = redis.Redis(host=host, port=int(port))
    for name, token in tokens.items():
        if not r.lock(name, timeout=60).acquire(blocking=False, token=token):
            sys.exit("not acquired: " + name + " on " + addr)
print(json.dumps(tokens))
`

// TestRedisPyLocksAreNamed: locks taken by the real redis-py (Debian's python3-redis) are held, with redis-py's
// token as holder, and named as its (issue 46): plain as redis-py's Lock, under django-redis's key as
// django-redis (the JSON's family: render's TestTheJSONNamesEachLocksFamily).
func TestRedisPyLocksAreNamed(t *testing.T) {
	t.Parallel()
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import redis").Run(); err != nil {
		if os.Getenv(pythonEnv) == "required" {
			t.Fatalf("%s cannot import redis (apt-get install python3-redis): %v", python, err)
		}
		t.Skipf("Debian's redis-py is not installed (%v)", err)
	}
	c, servers := serverCluster(t, 3, Config{})
	var addrs []string
	for _, s := range servers {
		addrs = append(addrs, s.Addr())
	}
	out, err := exec.Command(python, append([]string{"-c", redisPyLocks}, addrs...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-py: %v: %s", err, out)
	}
	var tokens map[string]string
	if err := json.Unmarshal(out, &tokens); err != nil {
		t.Fatalf("redis-py printed %q: %v", out, err)
	}
	ctx := context.Background()
	s := c.mon.Poll(ctx)
	for !s.Swept {
		s = c.mon.Poll(ctx)
	}
	for key, family := range map[string]string{"jobs:nightly": "redis-py Lock (or django-redis)", ":1:report": "django-redis"} {
		l := lockOf(t, s, key)
		if l.State != StateHeld || l.Holder != tokens[key] || l.Family != family {
			t.Errorf("%s: %s by %q named %q; want held by redis-py's %q, named %q", key, l.State, l.Holder, l.Family,
				tokens[key], family)
		}
	}
}

// TestNpmRedislockLocksAreNamed: a lock taken by the real npm redislock 1.3.0 (monitor/testdata/noderedlock,
// installed by npm ci) is held, with its uuid.v1() token as holder, and named as its (issue 46).
func TestNpmRedislockLocksAreNamed(t *testing.T) {
	t.Parallel()
	const dir = "testdata/noderedlock" // the ground-truth tests' node packages
	if _, err := exec.LookPath("node"); err != nil || !fileExists(filepath.Join(dir, "node_modules", "redislock")) {
		if os.Getenv("REDLOCK_TEST_NODE") == "required" {
			t.Fatalf("REDLOCK_TEST_NODE=required but npm redislock is not installed: npm ci --prefix monitor/%s", dir)
		}
		t.Skip("npm redislock is not installed (npm ci --prefix monitor/" + dir + ")")
	}
	c, servers := serverCluster(t, 3, Config{})
	var addrs []string
	for _, s := range servers {
		addrs = append(addrs, s.Addr())
	}
	out, err := exec.Command("node", append([]string{filepath.Join(dir, "redislock.js")}, addrs...)...).Output()
	if err != nil {
		t.Fatalf("redislock: %v: %s", err, out)
	}
	var got struct{ Token string }
	if err := json.Unmarshal(out, &got); err != nil || got.Token == "" {
		t.Fatalf("redislock printed %q: %v", out, err)
	}
	ctx := context.Background()
	s := c.mon.Poll(ctx)
	for !s.Swept {
		s = c.mon.Poll(ctx)
	}
	if l := lockOf(t, s, "jobs:npm"); l.State != StateHeld || l.Holder != got.Token || l.Family != "UUID v1: redislock (npm)" {
		t.Errorf("jobs:npm: %s by %q named %q; want held by redislock's %q, named \"UUID v1: redislock (npm)\"", l.State,
			l.Holder, l.Family, got.Token)
	}
}

// fileExists reports whether path names a file or directory.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
