package testbed

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAServerWhosePortIsTakenIsNotReady: a redis-server started on a port that another server took (tests
// running in parallel can pick the same free port) is not ready because the other answers; it fails to bind,
// and its start is tried again on another port.
func TestAServerWhosePortIsTakenIsNotReady(t *testing.T) {
	requireRedisServer(t)
	holder := startServers(t, 1, ServerOptions{})[0]
	late := &Server{port: holder.Port(), dir: t.TempDir()}
	p, err := late.spawn()
	if err == nil {
		p.kill()
		t.Fatalf("a redis-server on %s, the port of another, was taken as ready", holder.Addr())
	}
	if !errors.Is(err, errPortInUse) {
		t.Fatalf("a redis-server on a taken port: %v, want %v", err, errPortInUse)
	}
}

func TestStartServerGivesDistinctServers(t *testing.T) {
	requireRedisServer(t)
	ss := startServers(t, 3, ServerOptions{})
	ports := map[int]bool{}
	pids := map[int]bool{}
	for _, s := range ss {
		if ports[s.Port()] || pids[s.PID()] || s.PID() <= 0 {
			t.Fatalf("port %d / pid %d not distinct or invalid", s.Port(), s.PID())
		}
		ports[s.Port()], pids[s.PID()] = true, true
		if want := "127.0.0.1:" + strconv.Itoa(s.Port()); s.Addr() != want {
			t.Fatalf("Addr = %s, want %s", s.Addr(), want)
		}
		if err := ping(t, client(t, s)); err != nil {
			t.Fatalf("PING %s: %v", s.Addr(), err)
		}
	}
	// Each is its own server.
	c0, c1 := client(t, ss[0]), client(t, ss[1])
	if err := c0.Set(timeout(t, time.Second), "only0", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := c1.Exists(timeout(t, time.Second), "only0").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS on another server = %d, %v", n, err)
	}
}

func TestServerStopStart(t *testing.T) {
	requireRedisServer(t)
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("persistence=%v", keep), func(t *testing.T) {
			s := startServers(t, 1, ServerOptions{Persistence: keep})[0]
			pid := s.PID()
			testStopStart(t, s, keep)
			if s.PID() == pid || s.PID() == 0 {
				t.Fatalf("PID after restart = %d, before %d", s.PID(), pid)
			}
			if processAlive(pid) {
				t.Fatalf("old process %d still alive", pid)
			}
		})
	}
}

func TestServerPauseResume(t *testing.T) {
	requireRedisServer(t)
	testPauseResume(t, startServers(t, 1, ServerOptions{})[0])
}

func TestServerStopWhilePaused(t *testing.T) {
	requireRedisServer(t)
	s := startServers(t, 1, ServerOptions{})[0]
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	if err := ping(t, client(t, s)); err != nil {
		t.Fatalf("PING after Pause, Stop, Start: %v", err)
	}
}

func TestServerPasswordAndArgs(t *testing.T) {
	requireRedisServer(t)
	s := startServers(t, 1, ServerOptions{Password: "s3cret", Args: []string{"--maxmemory", "12mb"}})[0]
	c := client(t, s)
	mem, err := c.ConfigGet(timeout(t, time.Second), "maxmemory").Result()
	if err != nil {
		t.Fatal(err)
	}
	if mem["maxmemory"] != strconv.Itoa(12<<20) {
		t.Fatalf("maxmemory = %q", mem["maxmemory"])
	}
	anon := newClient(s.Addr(), "")
	defer anon.Close()
	if err := anon.Ping(timeout(t, time.Second)).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Fatalf("PING without password: %v, want NOAUTH", err)
	}
}

func TestStartServerBadArgs(t *testing.T) {
	requireRedisServer(t)
	start := time.Now()
	s, err := StartServer(ServerOptions{Args: []string{"--no-such-option", "1"}})
	if err == nil {
		s.Close()
		t.Fatal("StartServer with a bad option succeeded")
	}
	if !strings.Contains(err.Error(), "no-such-option") {
		t.Errorf("error does not show redis-server's output: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("failing start took %v", d)
	}
}

func TestServerClose(t *testing.T) {
	requireRedisServer(t)
	s, err := StartServer(ServerOptions{Persistence: true})
	if err != nil {
		t.Fatal(err)
	}
	pid := s.PID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if processAlive(pid) {
		t.Fatalf("process %d alive after Close", pid)
	}
	if _, err := os.Stat(s.dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temp dir %s not removed: %v", s.dir, err)
	}
	if err := s.Start(); err == nil {
		t.Fatal("Start after Close succeeded")
	}
}

// TestServerDiesWithTestBinary runs a child test binary that starts a
// server and exits without closing it: the server must die too.
func TestServerDiesWithTestBinary(t *testing.T) {
	requireRedisServer(t)
	if os.Getenv("REDLOCKTEST_ORPHAN_CHILD") == "1" {
		s, err := StartServer(ServerOptions{})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("pid", s.PID())
		os.Exit(0) // no Close: only the parent-death signal can kill it
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithTestBinary$", "-test.count=1")
	cmd.Env = append(os.Environ(), "REDLOCKTEST_ORPHAN_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var pid int
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "pid "); ok {
			pid, _ = strconv.Atoi(rest)
		}
	}
	if pid <= 0 {
		t.Fatalf("no pid in child output:\n%s", out)
	}
	t.Cleanup(func() {
		if t.Failed() && processAlive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	eventually(t, 3*time.Second, func() error {
		if processAlive(pid) {
			return fmt.Errorf("redis-server %d outlived its parent", pid)
		}
		return nil
	})
}

// processAlive reports whether pid runs (a zombie counts as dead).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}
