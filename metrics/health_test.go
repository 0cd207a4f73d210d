package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// get answers one GET of h: its status and body.
func get(t *testing.T, h http.Handler) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body)
}

// TestHealthzSaysWhetherThePollsAreRecent: on a clock the test moves, /healthz is 200 from the start until
// maxAge passes without a poll, 200 again after a poll, and 503 once the last poll is older than maxAge.
func TestHealthzSaysWhetherThePollsAreRecent(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	e := New(Options{})
	e.now, e.started = func() time.Time { return now }, now
	h := e.Healthz(30 * time.Second)
	check := func(want int, words string) {
		t.Helper()
		code, body := get(t, h)
		if code != want || !strings.Contains(body, words) {
			t.Errorf("at %s: %d %q; want %d saying %q", now.Format(time.TimeOnly), code, body, want, words)
		}
	}
	check(http.StatusOK, "no poll yet")
	now = now.Add(31 * time.Second)
	check(http.StatusServiceUnavailable, "no poll in the 31s")
	e.Observe(poll(nil, now, nil, nil, nil), nil)
	now = now.Add(10 * time.Second)
	check(http.StatusOK, "the last poll was 10s ago")
	now = now.Add(25 * time.Second)
	check(http.StatusServiceUnavailable, "the last poll was 35s ago")
}

// TestReadyzSaysWhetherAQuorumAnswered: 503 before any poll, 200 when 2 of 3 servers answered, 503 when 1 did.
func TestReadyzSaysWhetherAQuorumAnswered(t *testing.T) {
	e := New(Options{})
	h := e.Readyz()
	if code, body := get(t, h); code != http.StatusServiceUnavailable || !strings.Contains(body, "no poll yet") {
		t.Errorf("before any poll: %d %q; want 503", code, body)
	}
	for _, tc := range []struct {
		up   int
		want int
	}{{3, http.StatusOK}, {2, http.StatusOK}, {1, http.StatusServiceUnavailable}, {0, http.StatusServiceUnavailable}} {
		e.Observe(monitor.Snapshot{Quorum: 2, UpCount: tc.up}, nil)
		if code, body := get(t, h); code != tc.want {
			t.Errorf("%d of 3 servers answered, quorum 2: %d %q; want %d", tc.up, code, body, tc.want)
		}
	}
}
