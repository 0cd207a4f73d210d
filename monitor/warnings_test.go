package monitor

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestWarningsOnlyReadTheSnapshot checks that computing the warnings changes nothing in the snapshot (the
// masters' warnings and clock history are Aggregate's to set), and that Aggregate hands each master the
// texts of the warnings about it.
func TestWarningsOnlyReadTheSnapshot(t *testing.T) {
	rs := fixture(t0, addrs5, map[string][]cell{"r": cells("A", 1)})
	rs[1].ServerTime = rs[1].Received.Add(time.Second) // a clock far ahead
	rs[2].Role, rs[3].Replicas = "slave", 2
	rs[4] = Reading{Addr: "m4", Err: errors.New("connection refused"), Refused: true}
	s := Aggregate(nil, rs, map[string]OwnLock{"r": {Token: "A", TTL: 10 * time.Second}}, t0, Config{})

	before := deepCopy(s)
	clocks := judgeClocks(s.Masters, s.maxTTL, DefaultDriftFactor)
	ws := warnings(&s, clocks, t0, Config{}.WithDefaults())
	if !reflect.DeepEqual(before, s) {
		t.Errorf("warnings modified the snapshot")
	}
	for _, m := range s.Masters {
		if want := textsAbout(ws, m.Addr); !reflect.DeepEqual(m.Warnings, want) {
			t.Errorf("master %s has warnings %q, want the texts about it %q", m.Addr, m.Warnings, want)
		}
	}
	for _, kind := range []string{WarnClockOffset, WarnReplica, WarnHasReplicas, WarnMasterDown, WarnLockLost} {
		if !slices.ContainsFunc(ws, func(w Warning) bool { return w.Kind == kind }) {
			t.Errorf("no %s warning among %v: the fixture no longer covers every writer of warnings", kind, ws)
		}
	}
}
