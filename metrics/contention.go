package metrics

import (
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// The descriptions of the contention metrics of the resources named in advance.
var (
	descHandovers = desc("lock_handovers_total", "Holders seen beginning their tenure of the lock since this process started "+
		"(each to within a poll interval).", "resource")
	descHold = desc("lock_hold_seconds", "How long each holder held the lock, as the polls saw it: each value is "+
		"known to within the poll interval.", "resource")
	descGap = desc("lock_free_gap_seconds", "How long the lock stayed free between one holder's end and the next one's "+
		"start, as the polls saw it (0 when one poll saw it taken over).", "resource")
	descWaiters = desc("lock_waiters", "Clients waiting for the lock where the library shows them (Redisson: the "+
		"subscribers of its channel); absent when unknown.", "resource")
)

// Bucket bounds, in seconds, of the hold time and free gap histograms.
var (
	holdBuckets = []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 1800, 3600, 7200, 14400, 43200, 86400}
	gapBuckets  = []float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 5, 30}
)

// tally is what the exporter has counted of one resource's holders: each interval counted once, by the newest
// start and end counted so far.
type tally struct {
	seenStart, seenEnd time.Time
	handovers          float64
	holds, gaps        histogram
}

// histogram is a Prometheus histogram kept by hand: a count per bucket (not cumulative), the sum and count.
type histogram struct {
	counts []uint64
	sum    float64
	n      uint64
}

// observe adds v to h, whose buckets are bounds.
func (h *histogram) observe(v float64, bounds []float64) {
	if h.counts == nil {
		h.counts = make([]uint64, len(bounds))
	}
	if i, _ := slices.BinarySearch(bounds, v); i < len(bounds) {
		h.counts[i]++
	}
	h.sum += v
	h.n++
}

// copy is h with counts of its own.
func (h histogram) copy() histogram {
	h.counts = slices.Clone(h.counts)
	return h
}

// metric is h as a constant histogram of resource.
func (h histogram) metric(d *prometheus.Desc, bounds []float64, resource string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(bounds))
	var cum uint64
	for i, b := range bounds {
		if h.counts != nil {
			cum += h.counts[i]
		}
		buckets[b] = cum
	}
	return prometheus.MustNewConstHistogram(d, h.n, h.sum, buckets, resource)
}

// count adds to t the intervals of log not counted yet: acquisitions, the gaps before them, and the holds that
// ended. A holder already there when the monitor first saw the lock is not an acquisition.
func (t *tally) count(log *monitor.HoldLog) {
	since := t.seenEnd
	if !since.IsZero() {
		since = since.Add(-time.Nanosecond) // the last interval counted: the gap before the next is measured from it
	}
	ivs := log.Intervals(since)
	var newStart, newEnd time.Time
	for k, iv := range ivs {
		if iv.StartKnown && iv.Start.After(t.seenStart) {
			t.handovers++
			if k > 0 && ivs[k-1].Ended != monitor.EndOpen {
				t.gaps.observe(max(iv.Start.Sub(ivs[k-1].End), 0).Seconds(), gapBuckets)
			}
		}
		if iv.Ended != monitor.EndOpen && iv.End.After(t.seenEnd) && iv.StartKnown {
			t.holds.observe(iv.End.Sub(iv.Start).Seconds(), holdBuckets)
		}
		newStart = maxTime(newStart, iv.Start)
		if iv.Ended != monitor.EndOpen {
			newEnd = maxTime(newEnd, iv.End)
		}
	}
	t.seenStart, t.seenEnd = maxTime(t.seenStart, newStart), maxTime(t.seenEnd, newEnd)
}

// maxTime returns the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// tallyContention counts the new intervals of every resource named in advance in s. Called with e.mu held.
func (e *Exporter) tallyContention(s *monitor.Snapshot) {
	if e.tallies == nil {
		e.tallies = map[string]*tally{}
	}
	for _, r := range e.resources {
		t := e.tallies[r]
		if t == nil {
			t = &tally{}
			e.tallies[r] = t
		}
		t.count(s.HoldLog(r))
	}
}

// collectContention writes the contention metrics of the resources named in advance, from copies of their
// tallies, and the waiters s shows.
func collectContention(ch chan<- prometheus.Metric, s *monitor.Snapshot, resources []string, tallies map[string]tally) {
	for _, r := range resources {
		t := tallies[r]
		ch <- prometheus.MustNewConstMetric(descHandovers, prometheus.CounterValue, t.handovers, r)
		ch <- t.holds.metric(descHold, holdBuckets, r)
		ch <- t.gaps.metric(descGap, gapBuckets, r)
		if s == nil {
			continue
		}
		if l := s.Lock(r); l != nil && l.WaitersKnown {
			ch <- prometheus.MustNewConstMetric(descWaiters, prometheus.GaugeValue, float64(l.Waiters), r)
		}
	}
}
