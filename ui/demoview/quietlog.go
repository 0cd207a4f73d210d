package demoview

import (
	"time"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/ui/kit"
)

// The workload's routine failures (a client that gave up acquiring after its retries, a client that crashed)
// come by the dozen a minute and would push what a presenter points at out of the event log. They are
// counted on the demo line instead, over the last minute; the event stream (--events) and the metrics still
// get every one, and a violation's story still lists those that led to it.

// routineWindow is how far back the demo line counts the workload's routine failures.
const routineWindow = time.Minute

// routineFailures keeps the times of the workload's recent routine failures, by kind, oldest first.
type routineFailures struct {
	gaveUp, crashed []time.Time
}

// routine reports whether e is one of the workload's routine failures, which the log leaves out: a
// simulated client's, not a scenario's (whose every step the log keeps).
func routine(e demo.Event) bool {
	return e.Resource != demo.ScenarioResource && (e.Kind == demo.EventAcquireFailed || e.Kind == demo.EventCrashed)
}

// countIfRoutine counts e if it is routine, and reports whether it did.
func (r *routineFailures) countIfRoutine(e demo.Event) bool {
	if !routine(e) {
		return false
	}
	if e.Kind == demo.EventCrashed {
		r.crashed = append(r.crashed, e.Time)
	} else {
		r.gaveUp = append(r.gaveUp, e.Time)
	}
	return true
}

// prune forgets the failures older than routineWindow at now.
func (r *routineFailures) prune(now time.Time) {
	r.gaveUp, r.crashed = since(r.gaveUp, now.Add(-routineWindow)), since(r.crashed, now.Add(-routineWindow))
}

// since returns the times of ts from from on (ts is in order).
func since(ts []time.Time, from time.Time) []time.Time {
	i := 0
	for i < len(ts) && ts[i].Before(from) {
		i++
	}
	return ts[i:]
}

// text is the demo line's count of the last minute's routine failures, "" when there were none.
func (r *routineFailures) text() string {
	switch g, c := len(r.gaveUp), len(r.crashed); {
	case g == 0 && c == 0:
		return ""
	case c == 0:
		return "last minute: " + kit.Plural(g, "client") + " gave up after retries"
	case g == 0:
		return "last minute: " + kit.Plural(c, "client") + " crashed"
	default:
		return "last minute: " + kit.Plural(g, "client") + " gave up after retries, " + kit.Thousands(c) + " crashed"
	}
}
