package app

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/redlock-tui/redlock-tui/events"
)

// privateFile is a file of openPrivate's that can be reopened at its path, as daemons reopen their logs on
// SIGHUP once logrotate has renamed them: it writes to whichever file is open.
type privateFile struct {
	flag, name string

	mu sync.Mutex
	f  *os.File
}

// openPrivateFile opens name for flag as openPrivate does.
func openPrivateFile(flag, name string) (*privateFile, error) {
	f, err := openPrivate(flag, name)
	if err != nil {
		return nil, err
	}
	return &privateFile{flag: flag, name: name, f: f}, nil
}

// Write writes p to the file open.
func (p *privateFile) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.f.Write(b)
}

// reopen opens the path again (a new file when it was renamed or removed, with openPrivate's rules) and
// writes there from now on, closing the file written so far; when it cannot, that file stays open.
func (p *privateFile) reopen() error {
	f, err := openPrivate(p.flag, p.name)
	if err != nil {
		return err
	}
	p.mu.Lock()
	old := p.f
	p.f = f
	p.mu.Unlock()
	_ = old.Close() // an append-only file: nothing written is lost
	return nil
}

// close closes the file open.
func (p *privateFile) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.f.Close()
}

// Reopen reopens the files the run writes at their paths, the debug log (--debug), the event stream (--events)
// and the recording (--record), as daemons do on SIGHUP after logrotate renamed them: each goes on in a new
// file at its path (a recording's new file begins with a header and replays on its own; see
// record.Writer.Reopen), and a file a write error stopped resumes. It returns the record of what it did, which
// the event stream, if any, has been given, with the files still stopped; a file that could not be reopened is
// also an output-failed event.
func (a *App) Reopen() Notice {
	var done, failed []string
	if a.debug != nil {
		if err := a.debug.file.reopen(); err != nil {
			failed = append(failed, err.Error())
		} else {
			done = append(done, "--debug "+a.debug.file.name)
		}
	}
	if a.Feed != nil {
		d, f := a.Feed.reopen()
		done, failed = append(done, d...), append(failed, f...)
	}
	text := "SIGHUP: nothing to reopen (no --events, --debug or --record file)"
	switch {
	case len(done) > 0 && len(failed) > 0:
		text = fmt.Sprintf("SIGHUP: reopened %s; not reopened: %s", strings.Join(done, ", "), strings.Join(failed, "; "))
	case len(done) > 0:
		text = "SIGHUP: reopened " + strings.Join(done, ", ")
	case len(failed) > 0:
		text = "SIGHUP: not reopened: " + strings.Join(failed, "; ")
	}
	n := Notice{Record: events.Program(time.Now(), events.KindOutputReopened, text), NotReopened: failed}
	if a.Feed != nil {
		a.Feed.emit(n.Record)
		n.Stopped = a.Feed.Stopped()
	}
	return n
}

// outputFailure is a file a write error stopped: its flag and the error.
type outputFailure struct {
	flag string
	err  error
}

// Error names the flag and the error.
func (o outputFailure) Error() string { return o.flag + ": " + o.err.Error() }

// Unwrap is the write error.
func (o outputFailure) Unwrap() error { return o.err }

// joinFailures is the failures as one error, nil for none.
func joinFailures(fs []outputFailure) error {
	errs := make([]error, len(fs))
	for i, f := range fs {
		errs[i] = f
	}
	return errors.Join(errs...)
}
