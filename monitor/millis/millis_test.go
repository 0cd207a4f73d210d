package millis

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// TestDurationsRoundTripAsMilliseconds: whole milliseconds are written as integers, others as decimals to the
// nanosecond, and read back to the same duration; numbers no duration holds are refused.
func TestDurationsRoundTripAsMilliseconds(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		text string
	}{
		{4880 * time.Millisecond, "4880"},
		{0, "0"},
		{-time.Millisecond, "-1"},
		{173456 * time.Nanosecond, "0.173456"},
		{-time.Nanosecond, "-0.000001"},
		{24*time.Hour + time.Nanosecond, "86400000.000001"},
		{time.Duration(math.MaxInt64 / int64(time.Millisecond) * int64(time.Millisecond)), "9223372036854"},
	} {
		b, err := json.Marshal(Duration(tc.d))
		if err != nil || string(b) != tc.text {
			t.Errorf("%v written as %s (%v), want %s", tc.d, b, err, tc.text)
		}
		var back Duration
		if err := json.Unmarshal([]byte(tc.text), &back); err != nil || time.Duration(back) != tc.d {
			t.Errorf("%s read as %v (%v), want %v", tc.text, time.Duration(back), err, tc.d)
		}
	}
	for _, text := range []string{"9223372036855", "1e300", "-1e300", `"5"`, "true", "9223372036854775807"} {
		var d Duration
		if err := json.Unmarshal([]byte(text), &d); err == nil {
			t.Errorf("%s read as %v, want an error", text, time.Duration(d))
		} else if strings.Contains(err.Error(), "panic") {
			t.Error(err)
		}
	}
}
