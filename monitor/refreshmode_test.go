package monitor

import (
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestTrackingFellBackOnlyWhenTrackingWasWanted watches a real master with tracking turned off (--no-tracking)
// and with it on: neither fell back from tracking; a master that refuses it does (TestTrackingRefusedByACLPolls
// and the storm tests).
func TestTrackingFellBackOnlyWhenTrackingWasWanted(t *testing.T) {
	t.Parallel()
	if *polling {
		t.Skip("a test of tracking, run without -polling")
	}
	servers := realServers(t, 1)
	for _, cfg := range []Config{{NoTracking: true}, {}} {
		c := watch(t, []redlocktest.Master{servers[0]}, cfg)
		want := RefreshTracking
		if cfg.NoTracking {
			want = RefreshPolling
		}
		s := pollUntil(t, c.mon, 20*time.Second, "the master "+want, func(s Snapshot) bool {
			return s.Masters[0].Refresh == want
		})
		if m := s.Masters[0]; m.TrackingFellBack() {
			t.Errorf("no-tracking %v: %s %q says it fell back from tracking", cfg.NoTracking, m.Refresh, m.RefreshWhy)
		}
		_ = c.mon.Close()
	}
}
