package reading

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// BenchmarkReadNamedKeys reads 1,000 keys named by notifications in one call, as a poll does, on a real master:
// cache keys without a TTL (a flood of SETs) and with one (SET EX). It reports the master's time per key, as
// the script measures it and the scan budget is charged.
func BenchmarkReadNamedKeys(b *testing.B) {
	srv := redlocktest.RealServers(b, 1, redlocktest.ServerOptions{})[0]
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true, ReadTimeout: time.Minute})
	b.Cleanup(func() { _ = client.Close() })
	// 100,000 keys of each kind, 10,000 a script call: no call blocks the server for long.
	const load = `for i = ARGV[2], ARGV[3] do
  if ARGV[4] == '0' then redis.call('SET', ARGV[1] .. i, 'a value ' .. i)
  else redis.call('SET', ARGV[1] .. i, 'a value ' .. i, 'PX', ARGV[4]) end
end return 1`
	for _, l := range []struct {
		prefix string
		ttl    time.Duration
	}{{"cache:", 0}, {"session:", time.Hour}} {
		for from := 0; from < 100_000; from += 10_000 {
			if err := client.Eval(context.Background(), load, nil, l.prefix, from, from+9_999, l.ttl.Milliseconds()).Err(); err != nil {
				b.Fatal(err)
			}
		}
	}
	p := NewMaster(client, srv.Addr(), nil, false, 0).(*poller)
	b.Cleanup(p.Close)
	cfg := Config{Pattern: DefaultPattern, MaxValueLen: 256}
	for _, prefix := range []string{"cache", "session"} {
		b.Run(prefix, func(b *testing.B) {
			var server time.Duration
			for i := 0; i < b.N; i++ {
				keys := make([]string, notifiedChunk)
				for j := range keys {
					keys[j] = fmt.Sprintf("%s:%d", prefix, (i*notifiedChunk+j)%100_000)
				}
				res, err := p.readCandidates(context.Background(), cfg, keys)
				if err != nil {
					b.Fatal(err)
				}
				server += res.elapsed
			}
			b.ReportMetric(float64(server.Nanoseconds())/float64(b.N*notifiedChunk)/1000, "µs-server/key")
		})
	}
}
