package monitor

import (
	"testing"
	"time"
)

func TestPTTLAt(t *testing.T) {
	at := time.Unix(1000, 0)
	for _, tc := range []struct {
		name string
		c    MasterLock
		now  time.Time
		want time.Duration
	}{
		{"as read", MasterLock{PTTL: 9 * time.Second, ReadAt: at}, at, 9 * time.Second},
		{"later", MasterLock{PTTL: 9 * time.Second, ReadAt: at}, at.Add(5 * time.Second), 4 * time.Second},
		{"run out", MasterLock{PTTL: 9 * time.Second, ReadAt: at}, at.Add(time.Minute), 0},
		{"no TTL", MasterLock{PTTL: NoTTL, ReadAt: at}, at.Add(time.Minute), NoTTL},
		{"never read", MasterLock{PTTL: 9 * time.Second}, at, 9 * time.Second},
	} {
		if got := tc.c.PTTLAt(tc.now); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
