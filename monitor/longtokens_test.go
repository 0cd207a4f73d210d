package monitor

import (
	"context"
	"crypto/sha1"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestTokensAreComparedWhole puts one value longer than Config.MaxValueLen on three real masters (a lock held
// 3/3), then makes it differ on two of them only after its first MaxValueLen bytes: the lock must be split,
// not held, though what is shown of the three tokens is alike. Under a pattern of the user's any value is
// listed; under the default one, bsm/redislock's token followed by its users' metadata is.
func TestTokensAreComparedWhole(t *testing.T) {
	t.Parallel()
	prefix := strings.Repeat("x", DefaultMaxValueLen+44)
	bsm := "AAAAAAAAAAAAAAAAAAAAAQ" + `{"owner":"` + strings.Repeat("worker-7 ", 40) + `"}`
	tests := []struct {
		name, pattern, key, value string
	}{
		{"a pattern of the user's", "long:*", "long:lock", prefix},
		{"the default pattern, a token with metadata", "", "jobs:nightly", bsm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers := realServers(t, 3)
			masters := make([]redlocktest.Master, len(servers))
			for i, s := range servers {
				masters[i] = s
			}
			c := watch(t, masters, Config{Pattern: tt.pattern})
			t.Cleanup(func() { _ = c.mon.Close() })
			c.set(t, tt.key, tt.value+"-same", time.Minute, 0, 1, 2)
			s := pollUntil(t, c.mon, 20*time.Second, "the long token held on 3 masters", func(s Snapshot) bool {
				l := s.Lock(tt.key)
				return l != nil && l.State == StateHeld && l.Count == 3
			})
			if h := s.Lock(tt.key).Holder; !strings.HasPrefix(h, tt.value[:DefaultMaxValueLen]) || !strings.Contains(h, "bytes, sha1 ") {
				t.Errorf("the holder of a long token is shown as %q: want its first %d bytes and a mark of its length and digest", h, DefaultMaxValueLen)
			}
			ctx := context.Background()
			for i, tail := range map[int]string{1: "-one", 2: "-two"} {
				if err := c.admin[i].Set(ctx, tt.key, tt.value+tail, redis.KeepTTL).Err(); err != nil {
					t.Fatal(err)
				}
			}
			pollUntil(t, c.mon, 20*time.Second, "the lock split: three tokens alike in their first bytes", func(s Snapshot) bool {
				l := s.Lock(tt.key)
				return l != nil && l.State == StateSplit && l.Holder == "" && l.Count == 1
			})
		})
	}
}

// TestLongTokensReadWithPlainCommandsAreComparedWhole watches three real masters, one without script commands
// (read with plain commands, which read a value longer than Config.MaxValueLen again whole and digest it as the
// scripts do): one long token on all three is held 3/3, and once the master without scripts has another that
// differs only after its first bytes, the lock is held by the other two with a foreign token there.
func TestLongTokensReadWithPlainCommandsAreComparedWhole(t *testing.T) {
	t.Parallel()
	if redlocktest.Backend() != "redis-server" {
		t.Skip("needs redis-server (rename-command)")
	}
	var scriptless []string
	for _, cmd := range []string{"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO"} {
		scriptless = append(scriptless, "--rename-command", cmd, "")
	}
	servers := append(redlocktest.StartServers(t, 1, redlocktest.ServerOptions{Args: scriptless}),
		redlocktest.StartServers(t, 2, redlocktest.ServerOptions{})...)
	masters := make([]redlocktest.Master, len(servers))
	for i, s := range servers {
		masters[i] = s
	}
	c := watch(t, masters, Config{Pattern: "long:*"})
	t.Cleanup(func() { _ = c.mon.Close() })
	const key = "long:plain"
	value := strings.Repeat("y", DefaultMaxValueLen+10)
	c.set(t, key, value+"-same", time.Minute, 0, 1, 2)
	pollUntil(t, c.mon, 20*time.Second, "the long token held on 3 masters, one read with plain commands", func(s Snapshot) bool {
		l := s.Lock(key)
		return s.Swept && s.Masters[0].PlainReads && l != nil && l.State == StateHeld && l.Count == 3
	})
	if err := c.admin[0].Set(context.Background(), key, value+"-other", redis.KeepTTL).Err(); err != nil {
		t.Fatal(err)
	}
	s := pollUntil(t, c.mon, 20*time.Second, "the lock held by the two others, a foreign token on the first", func(s Snapshot) bool {
		l := s.Lock(key)
		return l != nil && l.State == StateHeld && l.Count == 2 && l.Foreign
	})
	if cell := s.Lock(key).Masters[0]; cell.State != CellSeen || cell.Token != markedToken(value+"-other", DefaultMaxValueLen) {
		t.Fatalf("the long token read with plain commands: %+v", cell)
	}
}

// markedToken is the token shown of a value longer than the n bytes read of it, as the dashboard shows it: its
// first n bytes marked with its length and the first 64 bits of its SHA-1, in hex.
func markedToken(whole string, n int) string {
	sum := sha1.Sum([]byte(whole))
	return fmt.Sprintf("%s…[%d bytes, sha1 %x]", whole[:n], len(whole), sum[:8])
}
