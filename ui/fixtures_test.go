package ui

import (
	"fmt"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/monitortest"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// heldLock is resource held by token on all n masters with pttl left.
func heldLock(resource, token string, n int, pttl time.Duration) monitor.LockView {
	lv := monitor.LockView{Resource: resource, State: monitor.StateHeld, Holder: token, Count: n}
	lv.SetValidity(t0, pttl-10*time.Millisecond)
	for range n {
		lv.Masters = append(lv.Masters, monitor.MasterLock{State: monitor.CellSeen, Token: token, PTTL: pttl, ReadAt: t0})
	}
	return lv
}

// threeMasters is a snapshot skeleton of three masters, all up.
func threeMasters(at time.Time, locks ...monitor.LockView) monitor.Snapshot {
	ms := make([]monitor.MasterStatus, 3)
	for i := range ms {
		ms[i] = monitor.MasterStatus{Addr: fmt.Sprintf("127.0.0.1:%d", 7000+i), Up: true}
	}
	return monitor.Snapshot{Time: at, Quorum: 2, UpCount: 3, Servers: 3, Masters: ms, Locks: monitortest.Views(locks)}
}
