package redlock

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkFencedAcquireRelease measures an acquire+release cycle on one
// resource, fenced and unfenced in turns on the same five real masters, so
// that both see the same load. It reports each median and their ratio
// (fenced/unfenced); the bound is 1.6.
func BenchmarkFencedAcquireRelease(b *testing.B) {
	cl := &cluster{masters: benchServers(b)}
	plain, fenced := cl.client(b), cl.client(b, WithFencing())
	ctx := ctxTimeout(b, 10*time.Minute)
	cycle := func(c *Client, resource string) time.Duration {
		start := time.Now()
		l, err := c.Acquire(ctx, resource, 10*time.Second)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(ctx); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	cycle(plain, "bench-plain")
	cycle(fenced, "bench-fenced")
	var p, f []time.Duration
	b.ResetTimer()
	for b.Loop() {
		p = append(p, cycle(plain, "bench-plain"))
		f = append(f, cycle(fenced, "bench-fenced"))
	}
	b.StopTimer()
	slices.Sort(p)
	slices.Sort(f)
	pm, fm := p[len(p)/2], f[len(f)/2]
	b.ReportMetric(float64(pm.Nanoseconds()), "unfenced-p50-ns")
	b.ReportMetric(float64(fm.Nanoseconds()), "fenced-p50-ns")
	b.ReportMetric(float64(fm)/float64(pm), "fenced/unfenced")
}
