package render

import (
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// The fixtures of the monitor's own tests (monitor/aggregate_test.go), for snapshots aggregated from readings.

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// addrs5 are the display names of the five masters most tests use.
var addrs5 = []string{"m0", "m1", "m2", "m3", "m4"}

// cell is one resource's key on one master in a fixture: token, PTTL and how long ago it was read; the zero
// cell means absent.
type cell struct {
	tok  string
	pttl time.Duration
	age  time.Duration // how long before "now" the key was read
}

// fixture builds one up reading per address, each master holding, per resource, the cell at its index (read
// and absent when the cell is zero).
func fixture(now time.Time, addrs []string, locks map[string][]cell) []monitor.Reading {
	rs := make([]monitor.Reading, len(addrs))
	for i, a := range addrs {
		rs[i] = monitor.Reading{Addr: a, Sent: now.Add(-time.Millisecond), Received: now, Uptime: monitor.UnknownUptime,
			Replicas: -1, Sweep: monitor.Sweep{Completed: 1, Total: -1}}
	}
	for res, cells := range locks {
		for i, c := range cells {
			if c.tok == "" {
				rs[i].Keys = append(rs[i].Keys, monitor.KeyReading{Key: res, Absent: true})
				continue
			}
			rs[i].Keys = append(rs[i].Keys, monitor.KeyReading{Key: res, Value: c.tok, PTTL: c.pttl, ReadAt: now.Add(-c.age)})
		}
	}
	return rs
}

// cells returns n cells with token tok and a 10s PTTL, padded with absent cells to five.
func cells(tok string, n int) []cell {
	cs := make([]cell, 5)
	for i := range n {
		cs[i] = cell{tok: tok, pttl: 10 * time.Second}
	}
	return cs
}

// handovers aggregates n polls one second apart, starting at t0, in which lock "r" changes hands at every poll
// (tokens T000, T001, ...) on all five masters, and returns every snapshot.
func handovers(n int) []monitor.Snapshot {
	snaps := make([]monitor.Snapshot, 0, n)
	var prev *monitor.Snapshot
	for i := range n {
		now := t0.Add(time.Duration(i) * time.Second)
		rs := fixture(now, addrs5, map[string][]cell{"r": cells(fmt.Sprintf("T%03d", i), 5)})
		snaps = append(snaps, monitor.Aggregate(prev, rs, nil, now, monitor.Config{}))
		prev = &snaps[len(snaps)-1]
	}
	return snaps
}
