package panels

import (
	"testing"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// TestSparklineScalesToTheBusiestPart: unwatched parts are blank, quiet ones a dot, the others ▁ to █ scaled to
// the busiest part, one handover never blank.
func TestSparklineScalesToTheBusiestPart(t *testing.T) {
	tests := []struct {
		counts []int
		want   string
	}{
		{[]int{monitor.NotWatched, monitor.NotWatched, 0, 1, 2, 4, 8, 16}, "  ·▁▁▂▄█"},
		{[]int{0, 0, 0}, "···"},
		{[]int{1, 1, 1}, "███"},
		{[]int{1, 100}, "▁█"},
	}
	for _, tt := range tests {
		if got := sparkline(tt.counts); got != tt.want {
			t.Errorf("sparkline(%v) = %q, want %q", tt.counts, got, tt.want)
		}
	}
}
