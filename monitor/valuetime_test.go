package monitor

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestValueTimeReadsUnixSecondsAndMillisecondsNearTheRead(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		value string
		want  time.Time
		ok    bool
	}{
		{strconv.FormatInt(at.Add(30*time.Second).UnixMilli(), 10), at.Add(30 * time.Second), true},
		{strconv.FormatInt(at.Add(-time.Hour).Unix(), 10), at.Add(-time.Hour), true},
		{strconv.FormatInt(at.Unix(), 10) + ".25", at.Add(250 * time.Millisecond), true},
		{strconv.FormatInt(at.Add(200*24*time.Hour).Unix(), 10), at.Add(200 * 24 * time.Hour), true},
		{strconv.FormatInt(at.Add(400*24*time.Hour).UnixMilli(), 10), time.Time{}, false}, // over a year away
		{"1000000000", time.Time{}, false},                                                // 2001
		{"42", time.Time{}, false},
		{strconv.FormatInt(at.UnixMicro(), 10), time.Time{}, false}, // microseconds: not a width it reads
		{strconv.FormatInt(at.UnixMilli(), 10) + ".5", time.Time{}, false},
		{"17640000O0", time.Time{}, false},
		{"q3VqG8cT1ZpXh0sQm4RkWc2YbLe", time.Time{}, false},
		{"", time.Time{}, false},
	} {
		got, ok := ValueTime(tc.value, at)
		if ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("ValueTime(%q) = %v, %v; want %v, %v", tc.value, got, ok, tc.want, tc.ok)
		}
	}
	if got := ValueTimeText(at.Add(12*time.Second), at); got != "expires at 12:00:12, in 12s" {
		t.Errorf("a time to come: %q", got)
	}
	if got := ValueTimeText(at.Add(-3*time.Second), at); got != "timestamp 11:59:57, 3.0s ago" {
		t.Errorf("a time past: %q", got)
	}
}

// TestALockStoredAsItsExpiryIsListedWithoutAHolder is item 7 on real masters, with the default pattern: a
// client that stores its expiry in Unix milliseconds under lock.<name> (and one that stores a long JSON value
// under lock:<name>) is listed and held; its value is read as the time it is, its holder unknown; a
// millisecond timestamp cached under another name is still left out.
func TestALockStoredAsItsExpiryIsListedWithoutAHolder(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 3, Config{})
	expiry := time.Now().Add(30 * time.Second)
	stamp := strconv.FormatInt(expiry.UnixMilli(), 10)
	c.set(t, "lock.orders", stamp, 30*time.Second, 0, 1, 2)
	big := fmt.Sprintf(`{"owner":"web-1","note":%q}`, strings.Repeat("x", 300))
	c.set(t, "lock:report", big, 30*time.Second, 0, 1, 2)
	c.set(t, "last-seen:ann", stamp, 30*time.Second, 0, 1, 2)
	s := pollUntil(t, c.mon, 20*time.Second, "every master swept, lock.orders and lock:report held", func(s Snapshot) bool {
		a, b := s.Lock("lock.orders"), s.Lock("lock:report")
		return s.Swept && a != nil && a.State == StateHeld && b != nil && b.State == StateHeld
	})
	l := s.Lock("lock.orders")
	if d := l.ValueTime.Sub(expiry); l.ValueTime.IsZero() || d > time.Millisecond || d < -time.Millisecond {
		t.Errorf("lock.orders' value read as %v, want its expiry %v", l.ValueTime, expiry)
	}
	if s.Lock("last-seen:ann") != nil || s.NotLockShaped() < 1 {
		t.Errorf("a millisecond timestamp under last-seen:ann: listed %v, %d keys not lock-shaped; want it left out and counted",
			s.Lock("last-seen:ann") != nil, s.NotLockShaped())
	}
	if !s.Lock("lock:report").ValueTime.IsZero() {
		t.Error("a JSON value is read as a time")
	}
	// What the writers make of it: render's TestALockStoredAsItsExpiryIsWrittenWithoutAHolder.
}
