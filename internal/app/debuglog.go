package app

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// debugLog is --debug FILE: one line for every connection message of go-redis (dials, refusals, broken
// pools), every Redlock round the program runs (what each master did, and how long it took), and every
// poll (each master's answer, round trip and error; the locks seen), for reading after the fact. A nil
// debugLog logs nothing.
type debugLog struct {
	log  *slog.Logger
	file *privateFile // reopened by App.Reopen
}

// openDebug opens FILE for --debug, appending, private (lines name lock tokens: see openPrivate), and makes
// it go-redis's logger; "" opens nothing.
func openDebug(name string) (*debugLog, error) {
	if name == "" {
		return nil, nil
	}
	f, err := openPrivateFile("--debug", name)
	if err != nil {
		return nil, err
	}
	d := &debugLog{log: slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})), file: f}
	redis.SetLogger(d)
	return d, nil
}

// close closes the file.
func (d *debugLog) close() {
	if d != nil {
		d.file.close()
	}
}

// Printf logs a line of go-redis (it is go-redis's logger while --debug is on).
func (d *debugLog) Printf(_ context.Context, format string, args ...any) {
	d.log.Debug("go-redis", "msg", fmt.Sprintf(format, args...))
}

// round logs a Redlock round as the client reports it.
func (d *debugLog) round(a redlock.Action) {
	r := a.Round
	attrs := []any{"op", a.Op, "resource", a.Resource, "ok", r.OK, "of", len(r.Nodes), "quorum", r.Quorum,
		"elapsed", r.Elapsed, "validity", r.Validity}
	if a.Token != "" {
		attrs = append(attrs, "token", a.Token)
	}
	if a.Err != nil {
		attrs = append(attrs, "err", a.Err.Error())
	}
	nodes := make([]string, len(r.Nodes))
	for i, n := range r.Nodes {
		nodes[i] = fmt.Sprintf("%s=%s/%s", n.Addr, n.Outcome, n.Latency)
		if n.Err != nil {
			nodes[i] += "(" + n.Err.Error() + ")"
		}
	}
	d.log.Debug("round", append(attrs, "masters", strings.Join(nodes, " "))...)
}

// observer is the Redlock client option that logs every round; none without --debug.
func (d *debugLog) observer() redlock.Option {
	if d == nil {
		return redlock.WithObserver(nil)
	}
	return redlock.WithObserver(d.round)
}

// poll logs a snapshot: each master's answer and the locks seen.
func (d *debugLog) poll(_ *monitor.Snapshot, s monitor.Snapshot) {
	for _, m := range s.Masters {
		attrs := []any{"seq", s.Seq, "master", m.Addr, "up", m.Up, "down", m.Down, "rtt", m.RTT, "role", m.Role}
		if m.Err != "" {
			attrs = append(attrs, "err", m.Err)
		}
		d.log.Debug("poll", attrs...)
	}
	d.log.Debug("snapshot", "seq", s.Seq, "locks", len(s.Locks), "warnings", len(s.Warnings), "events", len(s.Events))
}
