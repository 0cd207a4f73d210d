package vocab

import (
	"math"
	"testing"
	"time"
)

func TestThousandsGroupsDigitsByThree(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12000, "12,000"}, {100000, "100,000"},
		{1234567, "1,234,567"}, {-1234, "-1,234"},
	} {
		if got := Thousands(tt.n); got != tt.want {
			t.Errorf("Thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
		if got := Thousands(int(tt.n)); got != tt.want {
			t.Errorf("Thousands(int(%d)) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestCountAddsSExceptForOneAndGroupsDigits(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{
		{0, "0 polls"}, {1, "1 poll"}, {2, "2 polls"}, {1000, "1,000 polls"},
	} {
		if got := Count(tt.n, "poll"); got != tt.want {
			t.Errorf("Count(%d, poll) = %q, want %q", tt.n, got, tt.want)
		}
		if got := Count(int64(tt.n), "poll"); got != tt.want {
			t.Errorf("Count(int64(%d), poll) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestExactDurationWritesLimitsWithoutTrailingZeroUnits(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{24 * time.Hour, "24h"}, {48 * time.Hour, "48h"}, {90 * time.Minute, "1h30m"}, {time.Hour + 5*time.Second, "1h00m05s"},
		{time.Hour + 90*time.Second, "1h01m30s"}, {90 * time.Second, "1m30s"}, {65 * time.Second, "1m05s"},
		{2 * time.Minute, "2m"}, {30 * time.Second, "30s"}, {2500 * time.Millisecond, "2.5s"},
		{24*time.Hour + time.Millisecond, "24h00m00.001s"}, {100 * time.Millisecond, "100ms"},
		{time.Millisecond, "1ms"}, {1500 * time.Microsecond, "1.5ms"}, {0, "0s"}, {-90 * time.Second, "-1m30s"},
		{math.MinInt64, time.Duration(math.MinInt64).String()},
	} {
		if got := ExactDuration(tt.d); got != tt.want {
			t.Errorf("ExactDuration(%d) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestShortDurationRoundsToWhatMatters: the dashboard's cells and sentences write durations this way.
func TestShortDurationRoundsToWhatMatters(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{850 * time.Millisecond, "850ms"},
		{8200 * time.Millisecond, "8.2s"},
		{42 * time.Second, "42s"},
		{12*time.Minute + 5*time.Second, "12m05s"},
		{3*time.Hour + 4*time.Minute, "3h04m"},
		{250 * time.Hour, "10d"},
		{-2 * time.Second, "-2.0s"},
	}
	for _, tc := range tests {
		if got := ShortDuration(tc.d); got != tc.want {
			t.Errorf("ShortDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
