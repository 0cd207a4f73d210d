package testbed

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// serverReadyTimeout bounds how long a start waits for PING to answer.
	serverReadyTimeout = 5 * time.Second
	// serverStartAttempts is how many free ports StartServer tries.
	serverStartAttempts = 3
	// outputTail is how much of redis-server's output is kept for errors.
	outputTail = 4 << 10
)

// errPortInUse reports that redis-server could not bind its port.
var errPortInUse = errors.New("address already in use")

// ServerOptions configures a redis-server started by StartServer.
type ServerOptions struct {
	// Persistence keeps keys across Stop/Start (an append-only file with
	// fsync on every write, in a temporary directory). By default it is off:
	// save "" and appendonly no.
	Persistence bool
	// Password, if set, is the server's requirepass; NewClient uses it.
	Password string
	// Args are extra redis-server arguments, such as "--maxmemory", "10mb".
	// They come last, so they override the defaults.
	Args []string
}

// Server is a real redis-server process on a loopback port. It implements
// Master: Stop kills it with SIGKILL, Start runs a new process on the same
// port, and Pause/Resume send SIGSTOP/SIGCONT. The process is killed when
// the test binary exits, even without Close (Linux: parent-death signal).
type Server struct {
	opts ServerOptions
	port int
	dir  string // working directory (persistence files)
	// sentinelConf, when set, makes the process a Sentinel (redis-server FILE --sentinel): the name of its
	// configuration file in dir, which the Sentinel rewrites as it learns (see sentinel.go).
	sentinelConf string

	mu     sync.Mutex
	proc   *serverProcess // nil while stopped
	paused bool
	closed bool
}

// serverProcess is one run of redis-server.
type serverProcess struct {
	cmd  *exec.Cmd
	out  *tailBuffer
	done chan struct{} // closed once the process has exited and been reaped
}

// exited reports whether the process has exited.
func (p *serverProcess) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the process group of the process.
func (p *serverProcess) signal(sig syscall.Signal) error {
	if p.exited() {
		return nil
	}
	err := syscall.Kill(-p.cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// kill kills the process group and waits until the process is reaped.
func (p *serverProcess) kill() error {
	err := p.signal(syscall.SIGKILL)
	<-p.done
	return err
}

// HaveRedisServer reports whether redis-server is on PATH.
func HaveRedisServer() bool {
	_, err := exec.LookPath("redis-server")
	return err == nil
}

// StartServer starts redis-server on a free 127.0.0.1 port and waits (at most
// 5s) until it answers PING. The process runs in its own process group, gets
// SIGKILL when the test binary dies (Linux), and is killed by Close.
func StartServer(opts ServerOptions) (*Server, error) {
	return startServer(&Server{opts: opts}, nil)
}

// startServer gives s a temporary directory, has prepare (if not nil) write what s needs into it, and runs s
// on a free port.
func startServer(s *Server, prepare func(dir string) error) (*Server, error) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		return nil, fmt.Errorf("testbed: %w", err)
	}
	dir, err := os.MkdirTemp("", "redlock-testbed-")
	if err != nil {
		return nil, fmt.Errorf("testbed: %w", err)
	}
	s.dir = dir
	if prepare != nil {
		if err := prepare(dir); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("testbed: %w", err)
		}
	}
	for range serverStartAttempts {
		if s.port, err = freePort(); err != nil {
			err = fmt.Errorf("testbed: free port: %w", err)
			break
		}
		if s.proc, err = s.spawn(); !errors.Is(err, errPortInUse) {
			break
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// ReplicaOf makes the server a replica of primary ("host:port") with
// REPLICAOF, as a Sentinel failover or a misconfigured list would; "" makes
// it a master again (REPLICAOF NO ONE). A replica refuses writes with
// READONLY at once; becoming one wipes its keys at the first
// synchronisation.
func (s *Server) ReplicaOf(ctx context.Context, primary string) error {
	args := []any{"replicaof", "no", "one"}
	if primary != "" {
		host, port, err := net.SplitHostPort(primary)
		if err != nil {
			return fmt.Errorf("testbed: replica of %q: %w", primary, err)
		}
		args = []any{"replicaof", host, port}
	}
	c := s.NewClient()
	defer c.Close()
	if err := c.Do(ctx, args...).Err(); err != nil {
		return fmt.Errorf("testbed: %s: %v: %w", s.Addr(), args, err)
	}
	return nil
}

// Addr returns "127.0.0.1:PORT"; it stays the same across Stop and Start.
func (s *Server) Addr() string {
	return "127.0.0.1:" + strconv.Itoa(s.port)
}

// Port returns the server's TCP port.
func (s *Server) Port() int {
	return s.port
}

// PID returns the process id of the running redis-server, or 0 while it is
// stopped or closed.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.proc.exited() {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// CPUTime is the processor time (user and system, every thread) the running redis-server has used, from
// /proc/PID/stat (Linux), so that a benchmark can say what it cost the master.
func (s *Server) CPUTime() (time.Duration, error) {
	pid := s.PID()
	if pid == 0 {
		return 0, errStopped
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name in parentheses may hold spaces; the fields after it start with the state (field 3).
	text := string(data)
	fields := strings.Fields(text[strings.LastIndexByte(text, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("testbed: short /proc stat line %q", text)
	}
	var ticks int64
	for _, f := range fields[11:13] { // utime and stime, fields 14 and 15
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += v
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// clockTicks is USER_HZ, the unit of the CPU times in /proc/PID/stat; it is 100 on every Linux we run on.
const clockTicks = 100

// NewClient returns a new client for Addr (with the server's password) that
// honours context deadlines, dials with a 200ms timeout, reads and writes
// with 500ms timeouts, and never retries a command or a dial. The caller
// closes it.
func (s *Server) NewClient() *redis.Client {
	return newClient(s.Addr(), s.opts.Password)
}

// Stop kills the process with SIGKILL (a crash): connections are closed and
// the port refuses new ones. Stopping a stopped server does nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	return s.stopLocked()
}

func (s *Server) stopLocked() error {
	if s.proc == nil {
		return nil
	}
	err := s.proc.kill()
	s.proc, s.paused = nil, false
	if err != nil {
		return fmt.Errorf("testbed: stop %s: %w", s.Addr(), err)
	}
	return nil
}

// Start runs redis-server again on the same port and waits until it answers
// PING. Keys are lost unless ServerOptions.Persistence was set. Starting a
// running server does nothing; a server whose process died on its own is
// started again.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	if s.proc != nil {
		if !s.proc.exited() {
			return nil
		}
		s.proc, s.paused = nil, false
	}
	return rebind(func() error {
		p, err := s.spawn()
		if err == nil {
			s.proc = p
		}
		return err
	}, func(err error) bool { return errors.Is(err, errPortInUse) })
}

// Pause freezes the process group with SIGSTOP: connections stay open and
// nothing is answered until Resume.
func (s *Server) Pause() error {
	return s.setPaused(true)
}

// Resume continues a paused process with SIGCONT; queued commands are then
// answered.
func (s *Server) Resume() error {
	return s.setPaused(false)
}

func (s *Server) setPaused(on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return errClosed
	case s.proc == nil || s.proc.exited():
		return errStopped
	case s.paused == on:
		return nil
	}
	sig := syscall.SIGCONT
	if on {
		sig = syscall.SIGSTOP
	}
	if err := s.proc.signal(sig); err != nil {
		return fmt.Errorf("testbed: signal %s: %w", s.Addr(), err)
	}
	s.paused = on
	return nil
}

// Close kills the process and removes its temporary directory. It is
// idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return errors.Join(s.stopLocked(), os.RemoveAll(s.dir))
}

// args returns the redis-server command line.
func (s *Server) args() []string {
	args := []string{
		"--port", strconv.Itoa(s.port),
		"--bind", "127.0.0.1",
		"--dir", s.dir,
		"--daemonize", "no",
		"--logfile", "",
		"--loglevel", "warning",
	}
	if s.sentinelConf != "" {
		return s.sentinelArgs(args)
	}
	args = append(args, "--save", "")
	if s.opts.Persistence {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	if s.opts.Password != "" {
		args = append(args, "--requirepass", s.opts.Password)
	}
	return append(args, s.opts.Args...)
}

// spawn starts a redis-server process and waits until it answers PING; on
// failure the process is killed and the error includes its output.
func (s *Server) spawn() (*serverProcess, error) {
	out := &tailBuffer{}
	cmd := exec.Command("redis-server", s.args()...)
	cmd.Dir = s.dir
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("testbed: start redis-server: %w", err)
	}
	p := &serverProcess{cmd: cmd, out: out, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(p.done)
	}()
	if err := s.waitReady(p); err != nil {
		p.kill()
		if strings.Contains(out.String(), "already in use") {
			err = fmt.Errorf("%w (%w)", err, errPortInUse)
		}
		return nil, fmt.Errorf("testbed: redis-server on %s: %w; output:\n%s", s.Addr(), err, out.String())
	}
	return p, nil
}

// waitReady polls the server until p answers, p exits, or
// serverReadyTimeout passes.
func (s *Server) waitReady(p *serverProcess) error {
	c := s.NewClient()
	defer c.Close()
	deadline := time.Now().Add(serverReadyTimeout)
	for {
		// Wait for the port to accept before going through the client, which
		// would log every refused dial.
		err := dialCheck(s.Addr())
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), clientDialTimeout)
			err = answeredBy(ctx, c, p)
			cancel()
		}
		switch {
		case err == nil:
			return nil
		case p.exited():
			return fmt.Errorf("exited early (%v)", p.cmd.ProcessState)
		case time.Now().After(deadline):
			return fmt.Errorf("no PING answer within %v: %w", serverReadyTimeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// answeredBy reports whether c's server is p, by the process id it gives in INFO. Until p has found that
// its port is taken and exited, the server that took the port (another test's, when tests run in parallel)
// answers in its stead.
func answeredBy(ctx context.Context, c *redis.Client, p *serverProcess) error {
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return err
	}
	want := "process_id:" + strconv.Itoa(p.cmd.Process.Pid)
	for line := range strings.Lines(info) {
		if strings.TrimSpace(line) == want {
			return nil
		}
	}
	return errors.New("another process answers on the port")
}

// dialCheck reports whether addr accepts TCP connections.
func dialCheck(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, clientDialTimeout)
	if err != nil {
		return err
	}
	return conn.Close()
}

// tailBuffer keeps the last outputTail (up to twice that) bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 2*outputTail {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-outputTail:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
