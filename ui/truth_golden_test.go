package ui_test

import (
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// The snapshots of these golden screens come from the monitor's own aggregation of raw readings, so the
// screens show what the monitor really reports in each situation.

// reading is master i of a fixture answering at "at" with keys, after three full sweeps.
func reading(i int, at time.Time, keys ...monitor.KeyReading) monitor.Reading {
	addr := fmt.Sprintf("10.0.0.%d:6379", i+1)
	return monitor.Reading{Addr: addr, Sent: at.Add(-400 * time.Microsecond), Received: at, ServerTime: at.Add(-200 * time.Microsecond),
		Role: "master", Version: "7.2.4", RunID: "run-" + addr, Uptime: 3 * time.Hour, Replicas: 0, Keys: keys,
		Sweep: monitor.Sweep{Completed: 3, Total: 1200, LastCompleted: at.Add(-1500 * time.Millisecond)}}
}

// silent is master i of a fixture not answering.
func silent(i int) monitor.Reading {
	return monitor.Reading{Addr: fmt.Sprintf("10.0.0.%d:6379", i+1), Err: fmt.Errorf("no answer within 1s")}
}

// seenAt is a key read at "at".
func seenAt(at time.Time, key, token string, pttl time.Duration) monitor.KeyReading {
	return monitor.KeyReading{Key: key, Value: token, PTTL: pttl, ReadAt: at}
}

// absentKey is a key read and not there.
func absentKey(key string) monitor.KeyReading { return monitor.KeyReading{Key: key, Absent: true} }

// twoPolls aggregates a poll a second before testNow, then one at testNow.
func twoPolls(before, now func(at time.Time) []monitor.Reading) monitor.Snapshot {
	return polls(before, now)
}

// polls aggregates one poll a second, the last at testNow.
func polls(each ...func(at time.Time) []monitor.Reading) monitor.Snapshot {
	var prev *monitor.Snapshot
	var s monitor.Snapshot
	for i, poll := range each {
		at := testNow.Add(-time.Duration(len(each)-1-i) * time.Second)
		s = monitor.Aggregate(prev, poll(at), nil, at, monitor.Config{})
		prev = &s
	}
	return s
}

// silentMasterSnapshot: master 2 of 3 missed the last poll; its cells keep the tokens last seen there, greyed.
func silentMasterSnapshot() monitor.Snapshot {
	keys := func(at time.Time) []monitor.KeyReading {
		return []monitor.KeyReading{seenAt(at, "billing:invoice:42", tokA, 8*time.Second), seenAt(at, "orders:7", tokB, 3*time.Second)}
	}
	return twoPolls(
		func(at time.Time) []monitor.Reading {
			return []monitor.Reading{reading(0, at, keys(at)...), reading(1, at, keys(at)...), reading(2, at, keys(at)[0], absentKey("orders:7"))}
		},
		func(at time.Time) []monitor.Reading {
			return []monitor.Reading{reading(0, at, keys(at)...), silent(1), reading(2, at, keys(at)[0], absentKey("orders:7"))}
		})
}

// stuckSnapshot: a key without a TTL on 3 of 5 masters, the lock nobody released.
func stuckSnapshot() monitor.Snapshot {
	rs := func(at time.Time) []monitor.Reading {
		out := make([]monitor.Reading, 5)
		for i := range out {
			k := []monitor.KeyReading{seenAt(at, "orders:7", tokB, 3*time.Second)}
			if i < 3 {
				k = append(k, seenAt(at, "stuck:deploy", tokC, monitor.NoTTL))
			} else {
				k = append(k, absentKey("stuck:deploy"))
			}
			out[i] = reading(i, at, k...)
		}
		return out
	}
	return twoPolls(rs, rs)
}

// quorumLostSnapshot: held on 3 of 5, then deleted on one of them while its TTL had 9s left, and still so at
// the next poll, which confirms the loss.
func quorumLostSnapshot() monitor.Snapshot { return polls(quorumHeld, quorumLost, quorumLost) }

// quorumHeld is the poll at "at" of quorumLostSnapshot that finds the lock held on three masters of five.
func quorumHeld(at time.Time) []monitor.Reading {
	out := make([]monitor.Reading, 5)
	for i := range out {
		k := absentKey("billing:nightly")
		if i < 3 {
			k = seenAt(at, "billing:nightly", tokA, 10*time.Second)
		}
		out[i] = reading(i, at, k)
	}
	return out
}

// quorumLost is the poll at "at" of quorumLostSnapshot that finds the key gone on one of its three masters.
func quorumLost(at time.Time) []monitor.Reading {
	out := make([]monitor.Reading, 5)
	for i := range out {
		k := absentKey("billing:nightly")
		if i == 0 || i == 2 {
			k = seenAt(at, "billing:nightly", tokA, 9*time.Second)
		}
		out[i] = reading(i, at, k)
	}
	return out
}

// quorumUnconfirmedSnapshot: held on 3 of 5, then one poll finds it deleted on one of them while its TTL had
// 9s left: a release in flight looks the same to that poll, so the alarm waits for the next one.
func quorumUnconfirmedSnapshot() monitor.Snapshot { return polls(quorumHeld, quorumLost) }

// sweepingSnapshot: three masters with a million keys each, their first sweep under way.
func sweepingSnapshot() monitor.Snapshot {
	rs := func(at time.Time) []monitor.Reading {
		out := make([]monitor.Reading, 3)
		for i := range out {
			out[i] = reading(i, at, seenAt(at, "orders:settle", tokA, 9*time.Minute))
			out[i].Sweep = monitor.Sweep{Scanned: int64(380000 + 20000*i), Total: 1000000, Started: at.Add(-15 * time.Second)}
		}
		return out
	}
	return twoPolls(rs, rs)
}
