package metrics

import (
	"fmt"
	"net/http"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// Healthz answers whether the process is polling, for a liveness probe: 200 while the last snapshot was
// observed at most maxAge ago (or, before the first, the exporter was made at most maxAge ago), 503 after.
// Its body says when the last poll was.
func (e *Exporter) Healthz(maxAge time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		e.mu.Lock()
		last, polled := e.observed, !e.observed.IsZero()
		if !polled {
			last = e.started
		}
		e.mu.Unlock()
		age := e.now().Sub(last)
		switch {
		case age > maxAge && polled:
			reply(w, http.StatusServiceUnavailable, "not polling: the last poll was %s ago (more than %s)", vocab.ShortDuration(age), maxAge)
		case age > maxAge:
			reply(w, http.StatusServiceUnavailable, "not polling: no poll in the %s since the start", vocab.ShortDuration(age))
		case polled:
			reply(w, http.StatusOK, "polling: the last poll was %s ago", vocab.ShortDuration(age))
		default:
			reply(w, http.StatusOK, "starting: no poll yet, %s after the start", vocab.ShortDuration(age))
		}
	})
}

// Readyz answers whether a quorum of the masters answered the last poll, for a readiness probe: 200 when at
// least the quorum of distinct servers did, 503 when fewer did or there was no poll yet. Its body says how
// many answered.
func (e *Exporter) Readyz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		e.mu.Lock()
		snap := e.snap
		e.mu.Unlock()
		switch {
		case snap == nil:
			reply(w, http.StatusServiceUnavailable, "not ready: no poll yet")
		case snap.UpCount >= snap.Quorum && snap.Quorum > 0:
			reply(w, http.StatusOK, "ready: %s answered the last poll, quorum %d", vocab.Count(int64(snap.UpCount), "server"), snap.Quorum)
		default:
			reply(w, http.StatusServiceUnavailable, "not ready: %s answered the last poll, fewer than the quorum %d",
				vocab.Count(int64(snap.UpCount), "server"), snap.Quorum)
		}
	})
}

// reply writes status and one line of text.
func reply(w http.ResponseWriter, status int, format string, args ...any) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintf(w, format+"\n", args...)
}
