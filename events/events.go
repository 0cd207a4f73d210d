// Package events writes what the monitor, the dashboard and the demo saw as a stream of JSON lines, one
// event per line with a timestamp, so that a postmortem can replay what was seen. A Writer is the Sink
// everything reports to; FromMonitor and Warnings turn what is new in a monitor snapshot (Snapshot.EventsSince,
// Snapshot.WarningsSince) into records.
package events

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// Source says which part of the program saw an event.
type Source string

// The sources of events.
const (
	SourceMonitor   Source = "monitor"   // a change between two polls of the masters
	SourceDashboard Source = "dashboard" // an action taken from the dashboard on one of its own locks
	SourceDemo      Source = "demo"      // the demo's simulated clients and faults, violations included
	SourceProgram   Source = "program"   // the program itself: a file it writes stopped, or was reopened
)

// Kinds of the dashboard's own events; the monitor's kinds are monitor.EventKind values, the demo's
// demo.EventKind values (demo.Event.Record makes their records), and warnings are KindWarning and
// KindWarningCleared.
const (
	KindAcquiring          = "acquiring"           // the dashboard started acquiring a lock
	KindAcquireCancelled   = "acquire-cancelled"   // an acquisition from the dashboard was cancelled
	KindAcquired           = "acquired"            // the dashboard acquired a lock
	KindAcquireFailed      = "acquire-failed"      // an acquisition from the dashboard gave up
	KindExtended           = "extended"            // the dashboard extended one of its locks
	KindReleased           = "released"            // the dashboard released one of its locks
	KindLost               = "lost"                // one of the dashboard's locks was lost (a failed extension)
	KindExtendFailed       = "extend-failed"       // an extension failed with errors: the lock may still hold
	KindReleaseUnconfirmed = "release-unconfirmed" // a release some masters did not confirm
	KindReleasedLapsed     = "released-lapsed"     // a release found the lock no longer held (expired, or no quorum)
	KindAutoExtendOn       = "auto-extend-on"      // the dashboard started extending one of its locks as it runs low
	KindAutoExtendOff      = "auto-extend-off"     // the dashboard stopped doing so
	KindForceDeleting      = "force-deleting"      // the dashboard started deleting a lock that is not its own
	KindForceDeleted       = "force-deleted"       // it deleted that lock's token on some masters
	KindForceDeleteFailed  = "force-delete-failed" // the deletion found nothing to delete, or failed
	KindWarning            = "warning"             // a monitor warning appeared
	KindWarningCleared     = "warning-cleared"     // a monitor warning no longer holds
	KindAlreadyHeld        = "already-held"        // a lock held when the watcher started: its first poll found it held, one record each
)

// Kinds of the program's own events (SourceProgram): the files it writes. The flag names the file.
const (
	KindOutputFailed   = "output-failed"   // writing --record or --events failed: that file stops, the program goes on
	KindOutputReopened = "output-reopened" // SIGHUP reopened the files written (--events, --debug, --record) at their paths
)

// SchemaVersion is the version of the stream's records, in each line's schema field: it changes when a field
// is removed or changes meaning, not when one is added.
const SchemaVersion = 1

// TimeLayout is how a line writes its time: RFC 3339 in UTC with milliseconds, 2026-01-02T15:04:05.123Z.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// Record is one line of the stream. Empty fields are left out.
type Record struct {
	Schema   int              `json:"schema"`             // the version of the record's fields, 1 (SchemaVersion): it changes when a field is removed or changes meaning
	Seq      uint64           `json:"seq"`                // increasing from 1 in the order written
	Time     time.Time        `json:"time"`               // when it happened: RFC 3339 in UTC with milliseconds (2026-01-02T15:04:05.123Z)
	Source   Source           `json:"source"`             // monitor, dashboard, demo or program
	Kind     string           `json:"kind"`               // what happened: one of the kinds below
	Severity monitor.Severity `json:"severity"`           // "info", "warning" or "error"
	Resource string           `json:"resource,omitempty"` // the lock concerned
	Master   string           `json:"master,omitempty"`   // the master concerned, as given on the command line
	Token    string           `json:"token,omitempty"`    // the lock token concerned: the holder's, the one that took over, or the one that went (a lock of several holders has none)
	Masters  []string         `json:"masters,omitempty"`  // the masters the token was read on, as given on the command line (in the poll before, for a lock that went)
	Warning  string           `json:"warning,omitempty"`  // warning and warning-cleared: the warning's kind (see Warning kinds)
	Client   string           `json:"client,omitempty"`   // demo: the simulated client concerned
	Text     string           `json:"text"`               // a self-contained sentence for people
}

// UnmarshalJSON reads a record as the stream and a recording write it; one without a severity is information.
func (r *Record) UnmarshalJSON(data []byte) error {
	p := plain{Severity: monitor.SeverityInfo}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*r = Record(p)
	return nil
}

// line is a Record as the stream writes it: its time as TimeLayout in UTC.
type line struct {
	Time string `json:"time"`
	plain
}

// plain is a Record's fields without its time's own encoding, for line.
type plain Record

// Sink receives events. The dashboard calls Emit for its own actions (acquired, extended, released, lost);
// implementations are safe for concurrent use and never block for long.
type Sink interface {
	Emit(Record)
}

// Writer writes records to w as JSON lines. It is a Sink; it is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	seq uint64
	err error // the first write error; later records are dropped
}

// NewWriter returns a Writer appending to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Emit numbers r, stamps it with the current time when it has none and with SchemaVersion, and writes it as
// one line, its time in UTC with milliseconds (TimeLayout). After a
// write error nothing more is written; Err reports it.
func (wr *Writer) Emit(r Record) {
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	wr.mu.Lock()
	defer wr.mu.Unlock()
	if wr.err != nil {
		return
	}
	wr.seq++
	r.Seq, r.Schema = wr.seq, SchemaVersion
	out, err := json.Marshal(line{Time: r.Time.UTC().Format(TimeLayout), plain: plain(r)})
	if err != nil {
		wr.err = fmt.Errorf("events: encoding: %w", err)
		return
	}
	if _, err := wr.w.Write(append(out, '\n')); err != nil {
		wr.err = fmt.Errorf("events: writing: %w", err)
	}
}

// SetOutput makes w the writer of the next records, and resumes a stream that a write error stopped (Err is
// nil again); the numbering goes on. A reopened file (SIGHUP) is given this way.
func (wr *Writer) SetOutput(w io.Writer) {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	wr.w, wr.err = w, nil
}

// Err returns the first error that stopped the stream, or nil.
func (wr *Writer) Err() error {
	wr.mu.Lock()
	defer wr.mu.Unlock()
	return wr.err
}

// FromMonitor turns monitor events into records.
func FromMonitor(evs []monitor.Event) []Record {
	out := make([]Record, len(evs))
	for i, e := range evs {
		out[i] = Record{Time: e.Time, Source: SourceMonitor, Kind: string(e.Kind), Severity: e.Kind.Severity(),
			Resource: e.Resource, Master: e.Master, Text: e.Text}
	}
	return out
}

// Warnings returns a record for each warning of s that prev did not have (KindWarning) and each of prev's
// that s no longer has (KindWarningCleared), as monitor's Snapshot.WarningsSince tells them apart.
func Warnings(prev *monitor.Snapshot, s monitor.Snapshot) []Record {
	raised, cleared := s.WarningsSince(prev)
	var out []Record
	for _, w := range raised {
		out = append(out, warningRecord(s.Time, KindWarning, w))
	}
	for _, w := range cleared {
		out = append(out, warningRecord(s.Time, KindWarningCleared, w))
	}
	return out
}

// warningRecord is the record of a warning raised or cleared at t.
func warningRecord(t time.Time, kind string, w monitor.Warning) Record {
	return Record{Time: t, Source: SourceMonitor, Kind: kind, Severity: w.Severity, Master: w.Master,
		Resource: w.Resource, Warning: w.Kind, Text: w.Kind + ": " + w.Text}
}

// DashboardSeverity is the severity of a kind of the dashboard's own events: a lock of ours lost or an
// acquisition that failed is an error; an extension that failed or was refused, a release not confirmed or
// that found the lock gone already, and a force-deletion that deleted nothing are warnings; the rest is
// information.
func DashboardSeverity(kind string) monitor.Severity {
	switch kind {
	case KindLost, KindAcquireFailed:
		return monitor.SeverityError
	case KindExtendFailed, KindReleaseUnconfirmed, KindReleasedLapsed, KindForceDeleteFailed:
		return monitor.SeverityWarning
	}
	return monitor.SeverityInfo
}

// Dashboard is the record of one of the dashboard's own actions: kind, the lock's resource and token, and
// the sentence the screen's event log shows, the same on the screen and in the stream.
func Dashboard(at time.Time, kind, resource, token, text string) Record {
	return Record{Time: at, Source: SourceDashboard, Kind: kind, Severity: DashboardSeverity(kind),
		Resource: resource, Token: token, Text: text}
}

// ProgramSeverity is the severity of a kind of the program's own events: a file that stopped is an error,
// files reopened are information.
func ProgramSeverity(kind string) monitor.Severity {
	if kind == KindOutputFailed {
		return monitor.SeverityError
	}
	return monitor.SeverityInfo
}

// Program is the record of one of the program's own events: its kind, and its sentence, which names the flag
// of the file concerned (--record, --events).
func Program(at time.Time, kind, text string) Record {
	return Record{Time: at, Source: SourceProgram, Kind: kind, Severity: ProgramSeverity(kind), Text: text}
}
