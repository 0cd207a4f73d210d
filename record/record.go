// Package record writes and reads recordings of what the monitor read, so that a later replay shows the
// locks as they were at any moment of an incident.
//
// A recording is a gzip stream of JSON lines: a header (its format and version, when it started, the masters, the
// monitor's configuration), then one line per poll (what the poll gave the monitor's aggregator: the readings,
// our locks, the time; see monitor.Poll) and one per event that does not come from the polls (the dashboard's
// own actions, the demo's story). Replaying the polls through the same aggregator rebuilds every snapshot as it
// was, with its hold logs, contention and events. A tracked master's reading holds only what changed; a whole
// reading (a polled master's, a tracked master's full read) is written as a delta of the last one written for
// its master and rebuilt whole when read (polled.go), its unchanged keys' TTLs to within how far the times of
// the reads may be off. So a quiet master, tracked or polled, costs a few hundred bytes a poll.
//
// Each line is compressed and flushed to the file as it comes (the compressor's state carries from line to line,
// so repeated fields cost little): what a crashed recorder wrote is readable, and a line it cut short is
// skipped. At the size the user gives, the file is renamed FILE.1 (replacing an older one) and
// a new FILE begins, whose first poll reads every master whole, so that each file replays on its own.
package record

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/monitor"
)

// Format names the file format in a recording's header; Version is the version this build writes and the
// newest it reads.
const (
	Format = "redlock-tui recording"
	// 2: a polled master's whole reading is a delta of the last one (1 wrote it whole); 3: durations are
	// milliseconds, under keys ending in _ms (1 and 2 wrote nanoseconds under the Go fields' names)
	Version = 3
)

// DefaultMaxBytes is the size at which a recording starts a new file unless the user says otherwise.
const DefaultMaxBytes int64 = 256 << 20

// Header is a recording's first line.
type Header struct {
	Format  string                 `json:"format"`  // the file's format: "redlock-tui recording" (Format)
	Version int                    `json:"version"` // the format version it is written in (Version); later ones are refused
	Started time.Time              `json:"started"` // when this file began
	Part    int                    `json:"part"`    // 1 for the first file, then one more at each new file
	Masters []string               `json:"masters"` // the masters watched, as the monitor names them, in its order
	Config  monitor.RecordedConfig `json:"config"`  // the monitor's configuration, which a replay aggregates with
}

// line is one line after the header: a poll or an event. A poll's whole readings hold only the keys that
// changed since the last one of their master, and Polled says how the others stand (polled.go).
type line struct {
	Poll   *monitor.Poll  `json:"poll,omitempty"`   // a poll: what it gave the monitor's aggregator
	Polled []polledKeys   `json:"polled,omitempty"` // with a poll: how the keys of its readings written as deltas stand
	Event  *events.Record `json:"event,omitempty"`  // an event the polls do not remake: the dashboard's own, the demo's
}

// Writer appends polls and events to a recording. It is safe for concurrent use.
type Writer struct {
	mu       sync.Mutex
	path     string
	maxBytes int64
	header   Header
	file     *os.File
	info     os.FileInfo   // file's, to tell whether the path still names it
	buf      *bufio.Writer // over a counter of file's bytes
	gz       *gzip.Writer  // over buf
	size     int64         // bytes written to file
	onNew    func()        // called when a new file begins, for the next poll to read every master whole
	err      error         // the first write error: the recording stops there, until Reopen
	closed   bool          // Close ran
	polled   polledState   // the last whole reading of each master written in this file
}

// Create starts a recording at path, which must not exist (a recording is never appended to another), with
// mode 0600: it names lock tokens. maxBytes (DefaultMaxBytes when not positive) is the size at which a new file
// begins; onNew, when not nil, is called then.
func Create(path string, maxBytes int64, h Header, onNew func()) (*Writer, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	h.Format, h.Version, h.Part = Format, Version, 1
	w := &Writer{path: path, maxBytes: maxBytes, header: h, onNew: onNew}
	if err := w.begin(); err != nil {
		return nil, err
	}
	return w, nil
}

// begin creates the file and writes its header.
func (w *Writer) begin() error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("--record %s: the file exists: give a new file (a recording is never appended to)", w.path)
	}
	if err != nil {
		return fmt.Errorf("--record: %w", err)
	}
	if w.info, err = f.Stat(); err != nil {
		f.Close()
		return fmt.Errorf("--record: %w", err)
	}
	w.file, w.size, w.polled = f, 0, polledState{} // a file replays on its own
	w.buf = bufio.NewWriterSize(&counter{w: f, n: &w.size}, 64<<10)
	w.gz, _ = gzip.NewWriterLevel(w.buf, gzip.BestSpeed) // a valid level: no error
	return w.writeLine(w.header)
}

// WritePoll appends a poll, its whole readings as deltas of the last ones of their masters.
func (w *Writer) WritePoll(p monitor.Poll) error {
	return w.append(func() line {
		var l line
		p.Readings, l.Polled = w.polled.encode(p.Readings)
		l.Poll = &p
		return l
	})
}

// WriteEvent appends an event that the polls do not remake: the dashboard's own, the demo's.
func (w *Writer) WriteEvent(r events.Record) error {
	return w.append(func() line { return line{Event: &r} })
}

// append writes the line that next returns, under the lock, and begins a new file once the size is reached.
func (w *Writer) append(next func() line) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if err := w.writeLine(next()); err != nil {
		w.err = err
		return err
	}
	if w.size < w.maxBytes {
		return nil
	}
	if err := w.rotate(); err != nil {
		w.err = err
		return err
	}
	return nil
}

// writeLine writes v as one JSON line, compressed and flushed to the file.
func (w *Writer) writeLine(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	data = append(data, '\n')
	if _, err := w.gz.Write(data); err != nil {
		return fmt.Errorf("recording %s: %w", w.path, err)
	}
	if err := w.gz.Flush(); err != nil {
		return fmt.Errorf("recording %s: %w", w.path, err)
	}
	if err := w.buf.Flush(); err != nil {
		return fmt.Errorf("recording %s: %w", w.path, err)
	}
	return nil
}

// finish ends the compressed stream and closes the file.
func (w *Writer) finish() error {
	err := w.gz.Close()
	if ferr := w.buf.Flush(); err == nil {
		err = ferr
	}
	if cerr := w.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording %s: %w", w.path, err)
	}
	return nil
}

// rotate renames the file FILE.1 and begins a new one.
func (w *Writer) rotate() error {
	if err := w.finish(); err != nil {
		return err
	}
	if err := os.Rename(w.path, w.path+".1"); err != nil {
		return fmt.Errorf("recording %s: %w", w.path, err)
	}
	w.header.Part++
	w.header.Started = time.Now()
	if w.onNew != nil {
		w.onNew()
	}
	return w.begin()
}

// Reopen ends the file written and begins a new one at the path, as a log is reopened after logrotate renamed
// it (SIGHUP): the new file's header names the next part, and its first poll reads every master whole, so that
// it replays on its own. When the path still names the file written and the recording is well, nothing
// changes. When a write error stopped the recording, the recording resumes: in a new file at the path, the
// stopped one, if it is still there, set aside as FILE.1 as at the size limit. After a Reopen that succeeds,
// Err is nil.
func (w *Writer) Reopen() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	same := w.file != nil && w.isAtPath()
	if same && w.err == nil {
		return nil
	}
	if w.file != nil {
		_ = w.finish() // a stream a write error broke ends as well as it can; its reader skips a cut line
		w.file = nil
	}
	if same {
		if err := os.Rename(w.path, w.path+".1"); err != nil {
			w.err = fmt.Errorf("recording %s: %w", w.path, err)
			return w.err
		}
	}
	w.header.Part++
	w.header.Started = time.Now()
	if w.onNew != nil {
		w.onNew()
	}
	if err := w.begin(); err != nil {
		if w.file != nil { // created, but its header could not be written
			_ = w.file.Close()
		}
		w.file, w.err = nil, err
		return err
	}
	w.err = nil
	return nil
}

// isAtPath reports whether the path names the file written (it was not renamed or removed).
func (w *Writer) isAtPath() bool {
	at, err := os.Lstat(w.path)
	return err == nil && os.SameFile(at, w.info)
}

// counter counts the bytes written through it to w in *n.
type counter struct {
	w io.Writer
	n *int64
}

// Write writes p to w and counts what was written.
func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	return n, err
}

// Path is the path of the file written.
func (w *Writer) Path() string { return w.path }

// Err returns the first error that stopped the recording, or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close ends the recording.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if w.file == nil {
		return w.err
	}
	err := w.finish()
	w.file = nil
	if w.err != nil {
		return w.err
	}
	return err
}
