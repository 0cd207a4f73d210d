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
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/redlock-tui/redlock-tui/internal/app"
	"github.com/redlock-tui/redlock-tui/internal/textfmt"
	"github.com/redlock-tui/redlock-tui/monitor"
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
	Verbose  bool          // say on stderr how long the acquisition waited and how the hold went (runwait.go)
}

// parseRunConfig parses run's arguments (after "run"): the connection and lock flags, parsed and checked as
// for the dashboard, and run's own. A flag of the dashboard's that run does not take (a profile among them:
// it may be read-only or production, which run, a writer, has no flag to override) is refused by name. Its
// errors are *UsageError. With --help only Help is set.
func parseRunConfig(args []string, env Environment) (runConfig, error) {
	var v flagValues
	var rc runConfig
	fs := newRunFlagSet(&v, &rc)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		return runConfig{}, runFlagError(err)
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
		return runConfig{}, usagef("--wait must not be negative, got %s", rc.Wait)
	case rc.Grace < 0:
		return runConfig{}, usagef("--grace must not be negative, got %s", rc.Grace)
	}
	c := v.cfg
	if err := validateScalars(runGroups, &c, &v); err != nil {
		return runConfig{}, err
	}
	if len(v.masters) == 0 {
		return runConfig{}, usagef("--masters: run needs your masters (demo masters would vanish with it)")
	}
	masters, err := parseMasters(v.masters, &c, &v, env)
	if err != nil {
		return runConfig{}, err
	}
	c.Masters = masters
	rc.Config, rc.Resource, rc.Command = c, keyOf(c, rest[0]), rest[1:]
	return rc, nil
}

// runFlagError is the usage error of a flag run does not know: a dashboard's flag is named as one that does
// not apply to run.
func runFlagError(err error) error {
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
	return &UsageError{Msg: msg}
}

// runGroups are the dashboard's flag groups that run takes.
var runGroups = []flagGroup{connectionFlags, lockFlags, keyFormatFlags, debugFlags}

// newRunFlagSet declares run's flags: the connection, lock and debugging groups, and run's own.
func newRunFlagSet(v *flagValues, rc *runConfig) *pflag.FlagSet {
	own := flagGroup{"Run", func(fs *pflag.FlagSet, v *flagValues) {
		fs.DurationVar(&rc.Wait, "wait", 0,
			"keep trying to acquire for this long (rounds every --retry-delay); 0: give up after --retries")
		fs.DurationVar(&rc.Grace, "grace", defaultGrace,
			"when the lock is lost the command gets SIGTERM, then SIGKILL after this long")
		fs.BoolVar(&rc.Verbose, "verbose", false, "say on stderr how long the lock was waited for (rounds) and held")
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
extended). Signals sent to run (INT, TERM, HUP, QUIT, USR1, USR2) are passed on to the job's process group. When
the lock is lost (the masters answer an extension with "not there" on a quorum), the job's process group gets
SIGTERM at once and SIGKILL after --grace. When an extension fails with errors or timeouts, which proves
nothing, the command runs on for the validity the lock had, and is then terminated the same way.

If run dies, even of SIGKILL, the job's whole process group is SIGKILLed within milliseconds: a watchdog that
run starts before the command (/bin/sh, leading the group, ignoring the signals above) does it as soon as the
kernel, tearing run down, closes its pipe from run. On Linux the kernel SIGKILLs the command itself as well.
Not guaranteed: a process that left the group (setsid, a daemon's double fork) escapes all of this; what the
command leaves in the background when it exits normally runs on without the lock; if someone kills the
watchdog, run starts another at once and says so, and should run die before that (or with it), only the
command itself is killed (on Linux). The lock is only as good as its TTL: a run that was killed leaves the key
on the masters until it expires, and a run stalled (stopped, a paused VM) for longer than --ttl can lose the
lock while the command runs on until run resumes (see --fencing).

Flags:
` + fs.FlagUsages() + `
Exit status: the command's (128+N when killed by signal N); 2 bad usage; 75 not acquired within --wait;
76 the lock was lost while the command ran; 126 the command (or the watchdog) could not be started; 127 it was
not found.
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
	valid := &validity{}
	locker, err := a.Lock(lockerOptions(cfg.Config,
		redlock.WithRetries(retries),
		redlock.WithMaxExtensions(math.MaxInt), // the command decides how long the lock is needed
		redlock.WithObserver(valid.observe),
	)...)
	if err != nil {
		fmt.Fprintf(sys.stderr, "redlock-tui run: %v\n", err)
		return ExitUsage
	}

	lock, status := acquireForRun(locker, cfg, sigs, sys)
	if lock == nil {
		return status
	}
	held := time.Now()
	status = superviseCommand(lock, valid, cfg, sigs, sys)
	releaseAfterRun(lock, cfg, status == ExitLockLost, sys)
	if cfg.Verbose {
		fmt.Fprintf(sys.stderr, "redlock-tui run: held %q for %s, extended %s; the command exited %d\n",
			cfg.Resource, monitor.ShortDuration(time.Since(held)), textfmt.Plural(lock.Extensions(), "time"), status)
	}
	return status
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
	w := startWait()
	lock, err := locker.AcquireWithProgress(ctx, cfg.Resource, cfg.TTL, w.round)
	w.done()
	close(stopped)
	<-watched
	switch {
	case got != nil:
		if lock != nil {
			releaseAfterRun(lock, cfg, false, sys)
		}
		fmt.Fprintf(sys.stderr, "redlock-tui run: %s while acquiring %q; the command was not started\n", got, cfg.Resource)
		return nil, 128 + signalNumber(got)
	case err != nil:
		if a := anyAdvice(err, cfg.Masters); a != "" {
			err = fmt.Errorf("%w: %s", err, a)
		}
		fmt.Fprintf(sys.stderr, "redlock-tui run: %q not acquired: %v\n", cfg.Resource, err)
		if cfg.Verbose {
			fmt.Fprintf(sys.stderr, "redlock-tui run: %s\n", w.text(false))
		}
		return nil, ExitNotAcquired
	}
	if cfg.Verbose {
		fmt.Fprintf(sys.stderr, "redlock-tui run: acquired %q %s\n", cfg.Resource, w.text(true))
	}
	return lock, ExitOK
}

// superviseCommand runs the command while the keeper holds the lock: it passes signals on, and when the lock
// is lost it terminates the command's process group (SIGTERM, then SIGKILL after the grace period). A watchdog
// started first leads that group and kills it should run die (see startWatchdog). It returns run's exit status
// once the command has exited.
func superviseCommand(lock *redlock.Lock, valid *validity, cfg runConfig, sigs <-chan os.Signal, sys system) int {
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

	keep := keepLock(lock, valid, sys)
	defer keep.stop()
	wasLost, killed := false, false
	var kill <-chan time.Time
	terminate := func(why string) { // the lock is lost: SIGTERM now, SIGKILL after --grace
		fmt.Fprintf(sys.stderr, "redlock-tui run: %s; terminating the command\n", why)
		wasLost = true
		signalGroup(group, syscall.SIGTERM)
		kill = time.After(cfg.Grace)
	}
	watchdogExited := wd.exited
	for {
		select {
		case sig := <-sigs:
			signalGroup(group, sig)
		case err, ok := <-keep.lost:
			if keep.proven(err, ok) {
				terminate(err.Error())
			}
		case <-keep.expired:
			keep.expired = nil
			terminate("the lock's validity ran out after the failed extension")
		case <-kill:
			fmt.Fprintf(sys.stderr, "redlock-tui run: the command outlived --grace %s after losing the lock; killing it\n", cfg.Grace)
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
			if wasLost {
				// Lost: whatever the command started must not run on without the lock either.
				signalGroup(group, syscall.SIGKILL)
				wd.abandon()
				return ExitLockLost
			}
			wd.release() // as before the watchdog: what the command left in the background is not killed
			return commandStatus(err, cmd.ProcessState)
		}
	}
}

// keeping extends run's lock while the command runs, through a redlock.Keeper. An extension that failed with
// errors or timeouts does not prove the lock lost: its keys may still hold the token until the validity the
// lock had, which is as long as Redlock promises it anyway. The client ends the lock on such a failure, so it
// cannot be extended again; the command runs on until that validity runs out, and is terminated then. A loss
// the masters proved (redlock.ProvesLost) terminates it at once.
type keeping struct {
	lock    *redlock.Lock
	valid   *validity
	keeper  *redlock.Keeper
	lost    <-chan error     // the keeper's; nil once it has spoken
	expired <-chan time.Time // fires when the validity of a lock whose extension failed runs out; nil otherwise
	stderr  io.Writer
}

// keepLock starts keeping lock, whose validity valid follows.
func keepLock(lock *redlock.Lock, valid *validity, sys system) *keeping {
	k := &keeping{lock: lock, valid: valid, keeper: lock.AutoExtend(), stderr: sys.stderr}
	k.lost = k.keeper.Lost()
	return k
}

// proven takes what the keeper's Lost channel gave (ok false: closed) and reports whether the lock is proven
// lost; when it may still hold, it says for how long and arranges for expired to fire then.
func (k *keeping) proven(err error, ok bool) bool {
	k.lost = nil
	if !ok {
		return false // the keeper ended without a loss: it was stopped
	}
	if valid := k.valid.left(); !redlock.ProvesLost(err) && valid > 0 {
		fmt.Fprintf(k.stderr, "redlock-tui run: %v; not lost: its keys may still hold it for %s, then the command "+
			"is terminated\n", err, valid.Round(time.Millisecond))
		k.expired = time.After(valid)
		return false
	}
	return true
}

// validity follows the end of run's lock's validity through the Redlock client's reports: the client ends a
// lock whose extension failed, and forgets its validity, but the keys may hold the token until then.
type validity struct {
	mu    sync.Mutex
	until time.Time
}

// observe is the Redlock client's observer: a successful acquire or extend round moves the end.
func (v *validity) observe(a redlock.Action) {
	if a.Err == nil && (a.Op == redlock.OpAcquire || a.Op == redlock.OpExtend) {
		v.mu.Lock()
		v.until = a.Round.ValidUntil()
		v.mu.Unlock()
	}
}

// left is the validity left.
func (v *validity) left() time.Duration {
	v.mu.Lock()
	defer v.mu.Unlock()
	return time.Until(v.until)
}

// stop stops the keeper.
func (k *keeping) stop() { k.keeper.Stop() }

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

// releaseAfterRun releases the lock within a bounded time and says so when a master did not confirm: the key
// then expires there at its TTL. After a loss, finding nothing to release is expected and not reported.
func releaseAfterRun(lock *redlock.Lock, cfg runConfig, lost bool, sys system) {
	ctx, cancel := context.WithTimeout(context.Background(), max(minReleaseTimeout, 10*cfg.NodeTimeout))
	defer cancel()
	err := lock.Release(ctx)
	switch {
	case err == nil, lost:
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
