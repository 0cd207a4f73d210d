package cli

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"

	"github.com/redlock-tui/redlock-tui/events"
	"github.com/redlock-tui/redlock-tui/internal/app"
	"github.com/redlock-tui/redlock-tui/ui"
	"github.com/redlock-tui/redlock-tui/ui/dialogs"
)

// runDashboard runs the full-screen dashboard until the user quits, then prints the UI's summary on the
// restored terminal. With --metrics, --events or --record the feed serves them while it runs.
func runDashboard(a *app.App, cfg Config, sys system) int {
	notices := &screenNotices{}
	if cfg.Metrics != "" || cfg.Events != "" || cfg.Record != "" {
		out := outputs(cfg, sys)
		out.Notify = notices.tell
		if err := a.Publish(out); err != nil {
			fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
			return ExitFailure
		}
	}
	// Read-only: no Redlock client exists at all, so no write can be issued
	// whatever the UI does; the UI also disables the write keys and says why.
	if !cfg.ReadOnly {
		if _, err := a.Lock(lockerOptions(cfg)...); err != nil {
			fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
			return ExitUsage
		}
	}
	status := runScreen(a, cfg, sys, notices)
	if closed := closeOutputs(a, sys); status == ExitOK { // after the screen is gone, so that the message can be read
		status = closed
	}
	return status
}

// screenNotices hands the feed's notices to the screen (ui.OutputMsg), keeping those that come before it
// starts.
type screenNotices struct {
	mu      sync.Mutex
	p       *tea.Program
	pending []app.Notice
}

// tell shows n on the screen, or keeps it until the screen starts.
func (s *screenNotices) tell(n app.Notice) {
	s.mu.Lock()
	p := s.p
	if p == nil {
		s.pending = append(s.pending, n)
	}
	s.mu.Unlock()
	if p != nil {
		p.Send(ui.OutputMsg{Record: n.Record, Stopped: n.Stopped}) // returns at once once the program has ended
	}
}

// attach makes p the screen the notices go to, and sends it those kept.
func (s *screenNotices) attach(p *tea.Program) {
	s.mu.Lock()
	s.p = p
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	if len(pending) > 0 {
		go func() { // Send waits for the program's loop, which starts with Run
			for _, n := range pending {
				p.Send(ui.OutputMsg{Record: n.Record, Stopped: n.Stopped})
			}
		}()
	}
}

// runScreen runs the Bubble Tea program over a, with the feed's notices, and prints its summary.
func runScreen(a *app.App, cfg Config, sys system, notices *screenNotices) int {
	title := fmt.Sprintf("%d masters", len(a.Names))
	switch {
	case a.Demo != nil:
		title = "demo"
	case a.Cluster != "":
		title = "Redis Cluster"
	}
	var sink events.Sink // the dashboard's actions go to the event stream in the event log's words
	if a.Feed != nil {
		sink = a.Feed
	}
	ui.SetBackground(cfg.Background, os.Stdout, sys.Getenv) // before New: the styles are made for it
	model := ui.New(ui.Options{
		Events:    sink,
		Monitor:   a.Monitor,
		Locker:    a.Locker,
		Ownership: a.Own,
		Keys:      sys.keys,
		ReadOnly:  cfg.ReadOnly,
		TTL:       cfg.TTL,
		Poll:      cfg.Poll,
		Title:     title,
		Now:       time.Now,
		Demo:      a.Demo,

		Profile:      cfg.Profile,
		ProfileColor: cfg.ProfileColor,
		Production:   cfg.Production,
		KeyFormat:    keyFormatter(cfg),
		WhoHolds:     whoSampler(a),
	})
	// Mouse: a click selects a row, the wheel scrolls; shift+drag still selects text in most terminals.
	opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithoutSignalHandler(), tea.WithMouseCellMotion()}
	if !term.IsTerminal(os.Stdin.Fd()) {
		opts = append(opts, tea.WithInputTTY()) // keys come from the terminal even when stdin is redirected
	}
	p := tea.NewProgram(model, opts...)
	notices.attach(p)
	stopSignals := quitOnSignal(p, func() { notices.tell(a.Reopen()) })
	final, err := p.Run()
	stopSignals()
	if m, ok := final.(*ui.Model); ok {
		fmt.Fprintln(sys.stdout, m.Summary())
	}
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

// quitGrace bounds how long the dashboard may take to release our locks and
// quit after a signal, before it is stopped regardless.
const quitGrace = 5 * time.Second

// quitOnSignal makes SIGINT, SIGTERM and SIGHUP quit the dashboard the way
// the quit key does, so that the locks we hold are released and the terminal
// is restored; a second signal, or quitGrace without an exit, kills the
// program (Run still restores the terminal). A SIGHUP while the terminal is
// still there is not its hangup but a request to reopen the files written, as
// daemons take it (logrotate): it calls reopen instead, when not nil. It
// returns a function that stops listening.
func quitOnSignal(p *tea.Program, reopen func()) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for quit := false; !quit; {
			select {
			case sig := <-sigs:
				quit = sig != syscall.SIGHUP || reopen == nil || !terminalThere()
				if !quit {
					reopen()
				}
			case <-done:
				return
			}
		}
		// As a confirmed quit: the dashboard releases our locks, then quits, asking nobody.
		p.Send(dialogs.QuitMsg{})
		select {
		case <-sigs:
		case <-time.After(quitGrace):
		case <-done:
			return
		}
		p.Kill()
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// terminalThere reports whether the dashboard's terminal still answers: after a hangup, asking its size fails.
func terminalThere() bool {
	_, _, err := term.GetSize(os.Stdout.Fd())
	return err == nil
}
