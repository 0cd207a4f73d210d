package cli

import (
	"testing"
	"time"
)

// TestScanSummarySaysWhatALargerBudgetWouldChange: the end of a long scan says how long it took at the budget
// given and, the scan's pace being its budget, what ten times the budget (at most 100%) would take and cost.
func TestScanSummarySaysWhatALargerBudgetWouldChange(t *testing.T) {
	for _, tc := range []struct {
		took   time.Duration
		budget float64
		want   string
	}{
		{374 * time.Second, 3, "redlock-tui: the scan for locks took 6m14s at --scan-budget 3 (each master spending up " +
			"to 3% of a core on it); --scan-budget 30 would take about 37s, each master spending up to 30% of a core meanwhile"},
		{20 * time.Second, 20, "redlock-tui: the scan for locks took 20s at --scan-budget 20 (each master spending up " +
			"to 20% of a core on it); --scan-budget 100 would take about 4.0s, each master spending up to 100% of a core meanwhile"},
		{5 * time.Second, 100, "redlock-tui: the scan for locks took 5.0s at --scan-budget 100 (each master spending " +
			"up to 100% of a core on it)"},
	} {
		if got := scanSummary(tc.took, tc.budget); got != tc.want {
			t.Errorf("scanSummary(%s, %g):\n%s\nwant\n%s", tc.took, tc.budget, got, tc.want)
		}
	}
}
