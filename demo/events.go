package demo

import (
	"sync"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// EventKind says what an Event reports.
type EventKind string

// The kinds of events the demo reports.
const (
	EventAcquired      EventKind = "acquired"       // a client acquired a lock
	EventAcquireFailed EventKind = "acquire-failed" // a client gave up acquiring after its retries
	EventExtended      EventKind = "extended"       // a client's lock was extended
	EventReleased      EventKind = "released"       // a client released its lock
	EventLost          EventKind = "lost"           // a client found its lock lost or run out and stopped
	EventWrite         EventKind = "write"          // a client wrote in its critical section
	EventWriteDropped  EventKind = "write-dropped"  // a client did not write because its lock had run out
	EventWriteRefused  EventKind = "write-refused"  // a fenced store refused a write whose token was stale
	EventCrashed       EventKind = "crashed"        // a client died holding or acquiring a lock; its keys linger until they expire
	EventClientPaused  EventKind = "client-paused"  // a client froze (a stop-the-world GC pause)
	EventClientResumed EventKind = "client-resumed" // a frozen client runs again
	EventFault         EventKind = "fault"          // the presenter broke or repaired something
	EventWorkload      EventKind = "workload"       // the workload was paused, resumed or its rate changed
	EventScenario      EventKind = "scenario"       // a step of a scripted scenario
	EventViolation     EventKind = "violation"      // mutual exclusion was violated
)

// Severity is how much an event of kind k matters: a violation of mutual exclusion is an error; a fault, a
// client that lost its lock, crashed, gave up, froze or thawed, and a write dropped or refused are warnings;
// the rest is the workload going about its life.
func (k EventKind) Severity() monitor.Severity {
	switch k {
	case EventViolation:
		return monitor.SeverityError
	case EventFault, EventLost, EventCrashed, EventAcquireFailed, EventWriteDropped, EventWriteRefused,
		EventClientPaused, EventClientResumed:
		return monitor.SeverityWarning
	}
	return monitor.SeverityInfo
}

// Event is one thing that happened in the demo, in words for the log and with
// enough structure to filter and colour it.
type Event struct {
	Seq      uint64 // increasing from 1 in the order events were logged
	Time     time.Time
	Kind     EventKind
	Client   string // the simulated client concerned, "" if none
	Resource string // the resource concerned, "" if none
	Token    string // the lock token concerned, "" if none
	Master   int    // index into Addrs of the master concerned, -1 if none
	Text     string // a self-contained sentence for people
}

// eventBuffer is how many events the Events channel holds before the oldest
// are dropped.
const eventBuffer = 256

// historyLen is how many recent events are kept to explain a violation.
const historyLen = 512

// leadUpLen is how many events a Violation keeps of the story leading to it.
const leadUpLen = 24

// eventLog numbers events, keeps the recent ones and feeds every subscriber's channel.
type eventLog struct {
	mu     sync.Mutex
	seq    uint64
	last   time.Time // the newest event's time
	recent []Event
	subs   []chan Event
	closed bool
}

// newEventLog returns an empty log.
func newEventLog() *eventLog {
	return &eventLog{}
}

// subscribe returns a new channel that gets the events logged so far (the newest eventBuffer of them) and
// every later one; after close, a closed channel.
func (l *eventLog) subscribe() <-chan Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch := make(chan Event, eventBuffer)
	for _, e := range l.recent[max(len(l.recent)-eventBuffer, 0):] {
		ch <- e
	}
	if l.closed {
		close(ch)
		return ch
	}
	l.subs = append(l.subs, ch)
	return ch
}

// send puts e on ch; when ch is full its oldest event is dropped, so a slow reader loses old news rather
// than stalling the demo.
func send(ch chan Event, e Event) {
	for {
		select {
		case ch <- e:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}

// add stamps e and logs it. Times never go back along the sequence: an event
// stamped by its caller before another was logged takes that one's time, so
// that a log sorted by time reads in the order things were logged. Every
// subscriber gets it.
func (l *eventLog) add(e Event) Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	e.Seq = l.seq
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if e.Time.Before(l.last) {
		e.Time = l.last
	}
	l.last = e.Time
	l.recent = append(l.recent, e)
	if len(l.recent) >= 2*historyLen {
		l.recent = append(l.recent[:0:0], l.recent[len(l.recent)-historyLen:]...)
	}
	for _, ch := range l.subs {
		send(ch, e)
	}
	return e
}

// leadUp returns, oldest first, the last n events from seq from on that
// concern resource or the system as a whole (faults, workload changes).
func (l *eventLog) leadUp(resource string, n int, from uint64) []Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Event
	for i := len(l.recent) - 1; i >= 0 && len(out) < n && l.recent[i].Seq >= from; i-- {
		e := l.recent[i]
		if e.Resource == resource || e.Kind == EventFault || e.Kind == EventWorkload {
			out = append(out, e)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// close closes the subscribers' channels; later events are only kept in history.
func (l *eventLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		l.closed = true
		for _, ch := range l.subs {
			close(ch)
		}
		l.subs = nil
	}
}

// Record is the event as a record of the event stream; addrs are the demo's masters, which the event names
// by index.
func (e Event) Record(addrs []string) events.Record {
	r := events.Record{Time: e.Time, Source: events.SourceDemo, Kind: string(e.Kind), Severity: e.Kind.Severity(),
		Resource: e.Resource, Token: e.Token, Client: e.Client, Text: e.Text}
	if e.Master >= 0 && e.Master < len(addrs) {
		r.Master = addrs[e.Master]
	}
	return r
}
