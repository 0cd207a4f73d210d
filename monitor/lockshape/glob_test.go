package lockshape

import (
	"context"
	"slices"
	"testing"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestPatternMatchesAsRedisDoes matches keys against glob patterns both here and in a real redis-server (KEYS,
// which matches as SCAN MATCH does): the keys named by notifications pass the pattern exactly when a SCAN
// would have returned them.
func TestPatternMatchesAsRedisDoes(t *testing.T) {
	t.Parallel()
	srv := realServers(t)[0]
	c := srv.NewClient()
	defer c.Close()
	ctx := context.Background()
	keys := []string{"lock:1", "lock:a/b", "lock:", "lock", "Lock:1", "l*ck", "l?ck", "l[ck", `l\ck`, "lack", "lbck",
		"lzck", "lock:x:y", "a]b", "a-b", "ab", "^x", "x", "", "lock:aaaaaaaaaaaaaaaaaab", "[", "]", "-", "é:1"}
	for _, k := range keys {
		if k != "" {
			must(t, c.Set(ctx, k, "v", 0).Err())
		}
	}
	patterns := []string{"*", "lock:*", "lock*", "l?ck", "l[a-c]ck", "l[c-a]ck", "l[^a]ck", "l[!a]ck", `l\*ck`, `l\?ck`,
		`l\[ck`, `l\\ck`, "l[\\]]ck", "a[]]b", "a[-]b", "a[a-]b", "[^", "[", "*[", "l*:*:*", "**", "*a*a*b", "lock:*b",
		"l[", "l[ck", "[]-]", "x\\", "\\", "?", "*?", "é*", "[a-z]*"}
	for _, p := range patterns {
		want, err := c.Keys(ctx, p).Result()
		must(t, err)
		var got []string
		for _, k := range keys {
			if k != "" && MatchesPattern(p, k) {
				got = append(got, k)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("pattern %q matches %q here, %q in redis-server", p, got, want)
		}
	}
}

// realServers starts a redis-server for a test that checks a rule against the server's own (KEYS, Lua).
func realServers(t *testing.T) []*redlocktest.Server {
	t.Helper()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server")
	}
	return redlocktest.StartServers(t, 1, redlocktest.ServerOptions{})
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
