package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/redlock-tui/redlock-tui/internal/app"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// Exit statuses of the run subcommand besides the command's own, chosen
// where commands rarely exit, next to the shell's 126 and 127.
const (
	ExitNotAcquired = 75  // the lock was not acquired within --wait (sysexits' EX_TEMPFAIL: try again later)
	ExitLockLost    = 76  // the lock was lost while the command ran; the command was terminated
	ExitCannotRun   = 126 // the command was found but could not be started
	ExitNotFound    = 127 // the command was not found
)

// Defaults of run's own flags.
const (
	defaultGrace = 5 * time.Second
	// minReleaseTimeout bounds the release after the command exits from below; it is at least ten node
	// timeouts, so a slow master gets its chance, and never unbounded.
	minReleaseTimeout = 2 * time.Second
)

// forwardedSignals are passed on to the command's process group. SIGINT and SIGQUIT from a terminal would reach
// it directly as well only if it shared our process group, which it does not (see commandSysProcAttr), so each
// arrives once. The watchdog in that group ignores them all (see watchdogScript).
var forwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGUSR1, syscall.SIGUSR2}

// runConfig is run's validated command line.
type runConfig struct {
	Config                 // connection and lock settings, parsed and checked as for the dashboard
	Resource string        // the lock's key: the resource given, in the --key-format convention
	Command  []string      // the command and its arguments
	Wait     time.Duration // keep trying to acquire for this long; 0: --retries rounds only
	Grace    time.Duration // after SIGTERM on loss, how long the command has before SIGKILL
	Verbose  bool          // say on stderr how the lock was won and how long it was held
}

// parseRunConfig parses run's arguments (after "run"): the connection and lock flags, parsed and checked as
// for the dashboard, with the same variables from the environment (applyEnv), a profile (refused when read_only: see applyRunProfile), and run's own. A
// flag of the dashboard's that run does not take is refused by name. Its errors are *UsageError. With --help
// only Help is set.
func parseRunConfig(args []string, env Environment) (runConfig, error) {
	var v flagValues
	var rc runConfig
	fs := newRunFlagSet(&v, &rc)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return runConfig{}, runFlagError(err, fs)
	}
	if err := applyEnv(fs, env); err != nil {
		return runConfig{}, err
	}
	if v.cfg.Help {
		return runConfig{Config: Config{Help: true}}, nil
	}
	rest, dash := fs.Args(), fs.ArgsLenAtDash()
	switch {
	case dash < 0 && len(rest) > 1:
		return runConfig{}, usagef("put -- between the resource and the command (run RESOURCE -- COMMAND [ARGS...])")
	case dash < 0 && len(rest) == 1 || dash == 1 && len(rest) == 1:
		return runConfig{}, usagef("no command after the resource (run RESOURCE -- COMMAND [ARGS...])")
	case dash < 0 || dash == 0:
		return runConfig{}, usagef("no resource (run RESOURCE -- COMMAND [ARGS...])")
	case dash > 1:
		return runConfig{}, usagef("one resource before --, got %d (%q ...)", dash, rest[0])
	case rest[0] == "":
		return runConfig{}, usagef("the resource must not be empty")
	case rest[1] == "":
		return runConfig{}, usagef("the command must not be empty")
	case rc.Wait < 0:
		return runConfig{}, usagef("--wait must not be negative, got %s", vocab.ExactDuration(rc.Wait))
	case rc.Grace < 0:
		return runConfig{}, usagef("--grace must not be negative, got %s", vocab.ExactDuration(rc.Grace))
	}
	c := v.cfg
	if err := applyRunProfile(fs, &c, &v, env); err != nil {
		return runConfig{}, err
	}
	if err := validateScalars(runGroups, &c, &v); err != nil {
		return runConfig{}, err
	}
	if len(v.masters) == 0 {
		return runConfig{}, usagef("--masters: run needs your masters, or --profile (demo masters would vanish with it)")
	}
	masters, err := parseMasters(v.masters, &c, &v, env)
	if err != nil {
		return runConfig{}, err
	}
	c.Masters = masters
	rc.Config, rc.Resource, rc.Command = c, keyOf(c, rest[0]), rest[1:]
	return rc, nil
}

// runFlagError is the usage error of a flag run (fs) does not know: a dashboard's flag is named as one that
// does not apply to run, another told with run's flags it is close to (flagParseError).
func runFlagError(err error, fs *pflag.FlagSet) error {
	var v flagValues
	dashboard := newFlagSet(dashboardGroups, &v)
	msg := err.Error()
	var f *pflag.Flag
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		f = dashboard.Lookup(name)
	} else if rest, ok := strings.CutPrefix(msg, "unknown shorthand flag: '"); ok && len(rest) > 0 {
		f = dashboard.ShorthandLookup(rest[:1])
	}
	if f != nil {
		return usagef("--%s does not apply to run", f.Name)
	}
	return flagParseError(err, fs)
}

// runGroups are the dashboard's flag groups that run takes.
var runGroups = []flagGroup{connectionFlags, runProfileFlags, lockFlags, keyFormatFlags, debugFlags}

// newRunFlagSet declares run's flags: the connection, lock and debugging groups, and run's own.
func newRunFlagSet(v *flagValues, rc *runConfig) *pflag.FlagSet {
	own := flagGroup{"Run", func(fs *pflag.FlagSet, v *flagValues) {
		fs.DurationVar(&rc.Wait, "wait", 0,
			"keep trying to acquire for this long (rounds every --retry-delay, longer while the lock is held, and at "+
				"once when its holder announces its release); 0: give up after --retries")
		fs.DurationVar(&rc.Grace, "grace", defaultGrace,
			"when the lock is lost the command gets SIGTERM, then SIGKILL after this long")
		fs.BoolVar(&rc.Verbose, "verbose", false,
			"say on stderr how the lock was won (rounds, wait) and, at the end, how long it was held")
		fs.BoolVarP(&v.cfg.Help, "help", "h", false, "print this help and exit")
	}, nil}
	fs := newFlagSet(append(runGroups, own), v)
	// The dashboard's words for these do not fit run: its masters are required, its TTL is the command's lock's.
	fs.Lookup("masters").Usage = "your Redis masters (required): host:port or redis://[user[:password]@]host[:port][/db] " +
		"or rediss://..., or redis+sentinel://host:26379[,host:26379]/MASTERNAME; comma list or repeated"
	fs.Lookup("ttl").Usage = "TTL of the lock; while the command runs it is extended by this each time a third is left"
	fs.Lookup("retries").Usage = "acquire rounds tried after the first fails, without --wait"
	return fs
}

// runUsage is run's --help text.
func runUsage() string {
	var v flagValues
	var rc runConfig
	fs := newRunFlagSet(&v, &rc)
	return `redlock-tui run: run a command while holding a Redlock lock on your masters.

Usage:
  redlock-tui run -m host1:6379,host2:6379,... [flags] RESOURCE -- COMMAND [ARGS...]

The lock is acquired (see --wait and --retries), extended while the command runs (by --ttl each time a third
of it is left), and released when the command exits. The command runs in a process group of its own, the job's,
and gets REDLOCK_RESOURCE, REDLOCK_TOKEN and REDLOCK_VALID_UNTIL (RFC 3339, when the lock lapses unless
extended). Signals sent to run (INT, TERM, HUP, QUIT, USR1, USR2) are passed on to the job's process group;
HUP also reopens the --debug file at its path, as daemons reopen their logs once logrotate renamed them.

Between extensions run reads the lock's key on every master (a tenth of --ttl apart, at most a second), so a
lock deleted, evicted or taken over on a quorum is known within about a second. An extension that fails with
errors or timeouts proves nothing and is tried again until the lock's validity runs out. When the lock is lost
(taken over, evicted, deleted, or expired after failed extensions; stderr says which), the job's process group
gets SIGTERM at once and SIGKILL after --grace.

When the command exits, whatever it left in its process group (a shell's background jobs, which ignore the
SIGINT or SIGQUIT that ended the shell) gets SIGTERM, then SIGKILL after --grace, and the lock is released
only once the group is empty: no part of the job runs on without the lock.

If run dies, even of SIGKILL, the job's whole process group is SIGKILLed within milliseconds: a watchdog that
run starts before the command (/bin/sh, leading the group, ignoring the signals above) does it as soon as the
kernel, tearing run down, closes its pipe from run. On Linux the kernel SIGKILLs the command itself as well.
Not guaranteed: a process that left the group (setsid, a daemon's double fork) escapes all of this; if someone
kills the watchdog, run starts another at once and says so, and should run die before that (or with it), only
the command itself is killed (on Linux). The lock is only as good as its TTL: a run that was killed leaves the
key on the masters until it expires, and a run stalled (stopped, a paused VM) for longer than --ttl can lose
the lock while the command runs on until run resumes (see --fencing).

Flags (` + envHelp + `):
` + fs.FlagUsages() + `
Exit status: the command's (128+N when killed by signal N); 2 bad usage; 75 not acquired (another holder, or
no quorum) within --wait or --retries; 76 the lock was lost while the command ran (taken over, evicted, deleted
or expired: stderr says which) and the job was ended; 126 the command (or the watchdog) could not be started;
127 it was not found.
`
}

// runUnderLock is the run subcommand: it returns the exit status.
func runUnderLock(args []string, sys system) int {
	cfg, err := parseRunConfig(args, sys.Environment)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui run: %v\n", err)
		return ExitUsage
	}
	if cfg.Help {
		fmt.Fprint(sys.stdout, runUsage())
		return ExitOK
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(sys.stderr, "redlock-tui run: %s\n", w)
	}
	if cfg.TLSSkipVerify {
		fmt.Fprintln(sys.stderr, "redlock-tui run: WARNING: --tls-skip-verify: the masters' TLS certificates are NOT verified")
	}
	// Signals are caught from the start: one that comes while acquiring ends the attempt, and none can kill
	// run between acquiring and starting the command, which would leave the lock held until its TTL.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, forwardedSignals...)
	defer signal.Stop(sigs)

	a, err := app.Open(app.Config{Masters: cfg.Masters, Cluster: cfg.Cluster, Debug: cfg.Debug})
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui run: %v\n", err)
		return openFailure(err)
	}
	defer a.Close()
	retries := cfg.Retries
	if cfg.Wait > 0 {
		retries = math.MaxInt // --wait bounds the attempts instead
	}
	opts := lockerOptions(cfg.Config,
		redlock.WithRetries(retries),
		redlock.WithMaxExtensions(math.MaxInt), // the command decides how long the lock is needed
	)
	if cfg.Verbose {
		opts = append(opts, redlock.WithObserver(func(a redlock.Action) { sayFailedExtension(a, sys.stderr) }))
	}
	locker, err := a.Lock(opts...)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui run: %v\n", err)
		return ExitUsage
	}

	lock, status := acquireForRun(locker, cfg, sigs, sys)
	if lock == nil {
		return status
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*cfg.NodeTimeout) // every SET is answered within one
	won := acquiredOn{unreached: lock.Unreached(ctx)}
	cancel()
	won.sayUnreached(cfg.Resource, len(locker.Masters()), sys.stderr)
	if cfg.Verbose {
		fmt.Fprintf(sys.stderr, "redlock-tui run: acquired %q %v, valid %s\n", cfg.Resource, lock.Acquisition(),
			vocab.ShortDuration(lock.Validity()))
	}
	acquired := time.Now()
	reopen := func() { // SIGHUP reopens --debug, as daemons reopen their logs, besides reaching the command
		if cfg.Debug == "" {
			return
		}
		if n := a.Reopen(); len(n.NotReopened) > 0 {
			fmt.Fprintf(sys.stderr, "redlock-tui run: %s\n", n.Record.Text)
		}
	}
	status = superviseCommand(lock, cfg, sigs, sys, reopen)
	releaseAfterRun(lock, cfg, status == ExitLockLost, &won, sys)
	if cfg.Verbose {
		fmt.Fprintf(sys.stderr, "redlock-tui run: held %q for %s, extended %s; exit status %d\n", cfg.Resource,
			vocab.ShortDuration(time.Since(acquired)), vocab.Count(lock.Extensions(), "time"), status)
	}
	return status
}

// sayFailedExtension is run's observer with --verbose: an extension that failed without proving the lock lost
// is tried again by the keeper, and said on stderr.
func sayFailedExtension(a redlock.Action, stderr io.Writer) {
	if a.Op == redlock.OpExtend && errors.Is(a.Err, redlock.ErrNotExtended) {
		fmt.Fprintf(stderr, "redlock-tui run: %v; trying again while its validity lasts\n", a.Err)
	}
}

// acquireForRun acquires the lock, giving up after --wait (or --retries) or when a forwarded signal arrives.
// It returns the lock, or nil and the exit status.
func acquireForRun(locker *redlock.Client, cfg runConfig, sigs <-chan os.Signal, sys system) (*redlock.Lock, int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if cfg.Wait > 0 {
		ctx, cancel = context.WithTimeout(ctx, cfg.Wait)
		defer cancel()
	}
	var got os.Signal
	stopped := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case got = <-sigs:
			cancel()
		case <-stopped:
		}
	}()
	lock, err := locker.Acquire(ctx, cfg.Resource, cfg.TTL)
	close(stopped)
	<-watched
	switch {
	case got != nil:
		if lock != nil {
			releaseAfterRun(lock, cfg, false, nil, sys)
		}
		fmt.Fprintf(sys.stderr, "redlock-tui run: %s while acquiring %q; the command was not started\n", got, cfg.Resource)
		return nil, 128 + signalNumber(got)
	case err != nil:
		if a := anyAdvice(err, cfg.Masters); a != "" {
			err = fmt.Errorf("%w: %s", err, a)
		}
		fmt.Fprintf(sys.stderr, "redlock-tui run: %q not acquired: %v%s\n", cfg.Resource, err, waitHint(cfg.Wait))
		return nil, ExitNotAcquired
	}
	return lock, ExitOK
}

// superviseCommand runs the command while a keeper holds the lock: it passes signals on, and when the lock is
// lost it terminates the command's process group (SIGTERM, then SIGKILL after the grace period). A watchdog
// started first leads that group and kills it should run die (see startWatchdog). When the command exits,
// whatever it left in its process group (a shell's background jobs, which ignore the SIGINT that ended the
// shell) is terminated the same way, and the lock is kept until the group is empty: no part of the job runs
// on without it. It returns run's exit status once the group is empty.
func superviseCommand(lock *redlock.Lock, cfg runConfig, sigs <-chan os.Signal, sys system, reopen func()) int {
	wd, err := startWatchdog(0)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui run: %v; the command was not started\n", err)
		return ExitCannotRun
	}
	group := wd.pid // the watchdog leads the job's process group; the pgid stays taken until it is reaped
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, sys.stdout, sys.stderr
	cmd.Env = append(os.Environ(), commandEnv(lock)...)
	cmd.SysProcAttr = commandSysProcAttr(group)
	if err := cmd.Start(); err != nil {
		wd.release()
		fmt.Fprintf(sys.stderr, "redlock-tui run: %v\n", err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return ExitNotFound
		}
		return ExitCannotRun
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	keeper := lock.AutoExtend()
	defer keeper.Stop()
	lost := keeper.Lost()
	status := -1 // the command's exit status, once it has exited
	wasLost, killed := false, false
	var kill <-chan time.Time
	var poll *time.Ticker // while what the command left in its group is ending
	var polled <-chan time.Time
	terminate := func() { // SIGTERM now (and SIGCONT, for a stopped process), SIGKILL after --grace
		signalGroup(group, syscall.SIGTERM)
		signalGroup(group, syscall.SIGCONT)
		if kill == nil && !killed {
			kill = time.After(cfg.Grace)
		}
	}
	finish := func() int {
		if poll != nil {
			poll.Stop()
		}
		if wasLost {
			return ExitLockLost
		}
		return status
	}
	watchdogExited := wd.exited
	for {
		select {
		case sig := <-sigs:
			signalGroup(group, sig)
			if sig == syscall.SIGHUP {
				reopen()
			}
		case err, ok := <-lost:
			lost = nil
			if ok { // the keeper ends without a loss only when it is stopped
				fmt.Fprintf(sys.stderr, "redlock-tui run: %s; terminating the command\n", lossText(err))
				wasLost = true
				terminate()
			}
		case <-kill:
			what := "the command"
			if status >= 0 {
				what = "what the command left in its process group"
			}
			fmt.Fprintf(sys.stderr, "redlock-tui run: %s outlived --grace %s; killing it\n", what, cfg.Grace)
			killed = true // the watchdog dies of this too
			signalGroup(group, syscall.SIGKILL)
			kill = nil
		case <-watchdogExited:
			watchdogExited = nil
			if killed {
				continue
			}
			if next := replaceWatchdog(wd, group, sys); next != nil {
				wd, watchdogExited = next, next.exited
			}
		case err := <-exited:
			exited = nil
			status = commandStatus(err, cmd.ProcessState)
			if wasLost {
				// Lost: whatever the command started must not run on without the lock either.
				signalGroup(group, syscall.SIGKILL)
				wd.abandon()
				return finish()
			}
			left := othersInGroup(group, wd.pid)
			if left == 0 {
				wd.release()
				return finish()
			}
			fmt.Fprintf(sys.stderr, "redlock-tui run: the command exited and left %s in its process group; "+
				"terminating them before the lock is released\n", processes(left))
			terminate()
			poll = time.NewTicker(groupPollInterval)
			polled = poll.C
		case <-polled:
			if othersInGroup(group, wd.pid) == 0 {
				wd.release() // done, or gone already (killed with the group)
				return finish()
			}
		}
	}
}

// processes counts processes: "1 process", "2 processes".
func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
}

// groupPollInterval is how often run looks whether what the command left in its process group has ended.
const groupPollInterval = 20 * time.Millisecond

// lossText says how the lock was lost, for run's stderr.
func lossText(err error) string {
	if cause := redlock.CauseOf(err); cause != "" {
		return fmt.Sprintf("the lock was lost (%s): %v", cause, err)
	}
	return fmt.Sprintf("the lock was lost: %v", err)
}

// replaceWatchdog starts a watchdog into the job's process group after someone else ended the last one, and
// says so on stderr. It returns nil when none could be started; the ended one then stays in place: releasing
// or abandoning it does no harm.
func replaceWatchdog(ended *watchdog, group int, sys system) *watchdog {
	next, err := startWatchdog(group)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui run: the watchdog (pid %d) ended (%v) and no other could be started: %v; "+
			"should run die now, its command's children would survive it\n", ended.pid, ended.state, err)
		return nil
	}
	_ = ended.stdin.Close()
	fmt.Fprintf(sys.stderr, "redlock-tui run: the watchdog (pid %d) ended (%v); another (pid %d) guards the command's "+
		"process group\n", ended.pid, ended.state, next.pid)
	return next
}

// commandEnv is what the command learns about its lock. REDLOCK_FENCE is set only for a lock that carries a
// fencing token: a non-zero Fence, which a client with fencing gives its locks.
func commandEnv(lock *redlock.Lock) []string {
	env := []string{
		"REDLOCK_RESOURCE=" + lock.Resource(),
		"REDLOCK_TOKEN=" + lock.Token(),
		"REDLOCK_VALID_UNTIL=" + time.Now().Add(lock.Validity()).UTC().Format(time.RFC3339Nano),
	}
	if f := lock.Fence(); f != 0 {
		env = append(env, "REDLOCK_FENCE="+strconv.FormatUint(f, 10))
	}
	return env
}

// commandStatus is the exit status of a command that ended: its own, or 128+N when signal N killed it.
func commandStatus(waitErr error, st *os.ProcessState) int {
	if st == nil {
		return ExitFailure // Wait failed without the process ending, which os/exec does not do after Start
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// signalNumber is the number of a signal from forwardedSignals.
func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return int(syscall.SIGTERM)
}

// signalGroup sends sig to every process of the group led by pid; a group that is gone is no error.
func signalGroup(pid int, sig os.Signal) {
	_ = syscall.Kill(-pid, sig.(syscall.Signal)) // ESRCH: nothing left to signal
}

// releaseAfterRun releases the lock within a bounded time and says so when a master that may hold the key
// (won, nil when not known: every master may) did not confirm, naming each with its reason: the key then
// expires there at its TTL. A master that never got the key is not reported, nor, after a loss, finding
// nothing to release.
func releaseAfterRun(lock *redlock.Lock, cfg runConfig, lost bool, won *acquiredOn, sys system) {
	ctx, cancel := context.WithTimeout(context.Background(), max(minReleaseTimeout, 10*cfg.NodeTimeout))
	defer cancel()
	err := lock.Release(ctx)
	var re *redlock.RoundError
	switch {
	case err == nil, lost:
	case errors.Is(err, redlock.ErrIncomplete) && errors.As(err, &re) && len(re.Round.Nodes) > 0:
		if won == nil {
			won = &acquiredOn{}
		}
		if where := won.unconfirmedWhereHeld(re.Round); len(where) > 0 {
			fmt.Fprintf(sys.stderr, "redlock-tui run: release of %q unconfirmed on %d of %d masters: %s; the key expires there within %s\n",
				cfg.Resource, len(where), len(re.Round.Nodes), strings.Join(where, "; "), cfg.TTL)
		}
	case errors.Is(err, redlock.ErrIncomplete):
		fmt.Fprintf(sys.stderr, "redlock-tui run: %v; the key expires there within %s\n", err, cfg.TTL)
	default:
		fmt.Fprintf(sys.stderr, "redlock-tui run: releasing: %v\n", err)
	}
}

// lockerOptions are the Redlock client options the command line sets, for the dashboard and run alike,
// followed by extra.
func lockerOptions(cfg Config, extra ...redlock.Option) []redlock.Option {
	opts := []redlock.Option{
		redlock.WithNodeTimeout(cfg.NodeTimeout),
		redlock.WithRetries(cfg.Retries),
		redlock.WithRetryDelay(cfg.RetryDelayMin, cfg.RetryDelayMax),
		redlock.WithDriftFactor(cfg.DriftFactor),
	}
	if cfg.Fencing {
		opts = append(opts, redlock.WithFencing())
	}
	return append(opts, extra...)
}
