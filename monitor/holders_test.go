package monitor

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
)

// masterWithSet is master i answering at "at" with its clock ahead of ours by ahead, and key holding members.
func masterWithSet(i int, at time.Time, ahead time.Duration, key string, pttl time.Duration, members ...SetMember) Reading {
	return Reading{Addr: fmt.Sprintf("10.0.0.%d:6379", i+1), Sent: at, Received: at, ServerTime: at.Add(ahead),
		Uptime: time.Hour, Replicas: 0, Keys: []KeyReading{{Key: key, Set: members, PTTL: pttl, ReadAt: at}}}
}

func TestAHoldersExpiryIsReadOnItsMastersClock(t *testing.T) {
	// Symfony scores with the master's TIME: on a master 5s ahead of us, a score 10s after its clock's now is
	// 10s from our now, not 15s.
	ahead := 5 * time.Second
	score := float64(t0.Add(ahead + 10*time.Second).UnixMilli())
	var rs []Reading
	for i := range 3 {
		rs = append(rs, masterWithSet(i, t0, ahead, "report", 10*time.Second,
			SetMember{Member: "reader-0123456789abcdef", Score: score}, SetMember{Member: lockshape.WriteMarker, Score: score}))
	}
	l := lockOf(t, Aggregate(nil, rs, nil, t0, Config{}), "report")
	h := holderOf(t, l, "reader-0123456789abcdef")
	if left := h.Masters[0].Expires.Sub(t0); left < 10*time.Second-time.Millisecond || left > 10*time.Second+time.Millisecond {
		t.Errorf("the member expires %v from now, want 10s: the score is on the master's clock", left)
	}
	if h.Mode != ModeWrite || l.State != StateHeld {
		t.Errorf("holder %+v, lock %s; want a writer holding", h, l.State)
	}
}

func TestASetNotReadKeepsItsHoldersUnknownNotAbsent(t *testing.T) {
	score := float64(t0.Add(30 * time.Second).UnixMilli())
	poll := func(at time.Time, silent ...int) []Reading {
		var rs []Reading
		for i := range 3 {
			r := masterWithSet(i, at, 0, "report", 30*time.Second-at.Sub(t0), SetMember{Member: "reader-0123456789abcdef", Score: score})
			for _, s := range silent {
				if s == i {
					r = Reading{Addr: r.Addr, Err: errors.New("no answer")}
				}
			}
			rs = append(rs, r)
		}
		return rs
	}
	first := Aggregate(nil, poll(t0), nil, t0, Config{})
	at := t0.Add(time.Second)
	l := lockOf(t, Aggregate(&first, poll(at, 1, 2), nil, at, Config{}), "report")
	h := holderOf(t, l, "reader-0123456789abcdef")
	if l.State != StateUnknown || h.State != StateUnknown || h.Masters[1].State != CellUnknown || h.Masters[1].Expires.IsZero() {
		t.Errorf("lock %s, holder %+v; want both unknown, the silent masters' members as last seen", l.State, h)
	}
}
