package redlock

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestReleaseConfirmsWhereTheKeyNeverLanded: issue 42. A master that could not be reached (nothing listening)
// or that refuses our DB number never got the lock's key: the release does not call it unconfirmed, and
// Unreached names each with its reason.
func TestReleaseConfirmsWhereTheKeyNeverLanded(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, 4) // the fourth is given with a DB number it refuses
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	badDB := redis.NewClient(&redis.Options{Addr: cl.masters[3].Addr(), DB: 99, MaxRetries: -1, ContextTimeoutEnabled: true})
	refused := redis.NewClient(&redis.Options{Addr: closed, MaxRetries: -1, ContextTimeoutEnabled: true})
	t.Cleanup(func() { badDB.Close(); refused.Close() })
	rc, err := New(append(cl.clients(t)[:3], badDB, refused), WithNodeTimeout(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	ctx := ctxTimeout(t, 10*time.Second)
	lock, err := rc.Acquire(ctx, "landing", 10*time.Second)
	if err != nil {
		t.Fatalf("Acquire on 3 of 5: %v", err)
	}
	var got []string
	for _, n := range lock.Unreached(ctx) {
		if !n.Unsent {
			t.Errorf("%s: the SET is said to have gone out (%v)", n.Addr, n.Err)
		}
		got = append(got, fmt.Sprintf("%s: %v", n.Addr, n.Err))
	}
	if len(got) != 2 || !strings.Contains(strings.Join(got, "\n"), closed+": dial tcp") ||
		!strings.Contains(strings.Join(got, "\n"), "connection refused") || !strings.Contains(strings.Join(got, "\n"), "DB index is out of range") {
		t.Errorf("Unreached = %q; want the closed port (connection refused) and the bad DB (DB index)", got)
	}
	if err := lock.Release(ctx); err != nil {
		t.Errorf("Release with the key gone from every master that had it: %v", err)
	}
}
