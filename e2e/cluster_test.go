package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/internal/cli"
	"github.com/redlock-tui/redlock-tui/monitor/monitortest"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// The tests in this file run the built binary against a real Redis Cluster (redlocktest.StartCluster).

// TestOnceJSONOnAClusterShowsEveryLockWithItsPrimary sets a lock on a key of every primary's slots through a
// cluster client and checks that --once --json, given the cluster's nodes or only one of them, shows the
// cluster as one master of quorum 1 with its three primaries, and every lock held on the primary that owns it.
func TestOnceJSONOnAClusterShowsEveryLockWithItsPrimary(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	c := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{})
	cc := c.NewClusterClient()
	defer cc.Close()
	ctx := context.Background()
	keys := c.KeysOnEachNode("orders:")
	for _, k := range keys {
		if err := cc.Set(ctx, k, "token-of-"+k, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, given := range [][]string{c.Addrs(), c.Addrs()[2:]} {
		code, stdout, stderr := runBinary(t, bin, nil, "--once", "--json", "-m", strings.Join(given, ","))
		if code != cli.ExitOK || stderr != "" {
			t.Fatalf("-m %v: exit %d, stderr %q; want 0 and nothing on stderr", given, code, stderr)
		}
		s := monitortest.DecodeJSON(t, stdout)
		if s.Quorum != 1 || len(s.Masters) != 1 || s.Masters[0].Addr != "cluster "+given[0] || !s.Masters[0].Up {
			t.Fatalf("-m %v: quorum %d, masters %+v; want the cluster as one master, up, quorum 1", given, s.Quorum, s.Masters)
		}
		if p := s.Masters[0].Cluster; p == nil || len(p.Primaries) != 3 {
			t.Fatalf("-m %v: cluster %+v, want 3 primaries", given, p)
		}
		if len(s.Locks) != len(keys) {
			t.Fatalf("-m %v: %d locks, want %d:\n%s", given, len(s.Locks), len(keys), stdout)
		}
		owner := map[string]string{}
		for i, k := range keys {
			owner[k] = c.Nodes[i].Addr()
		}
		for _, l := range s.Locks {
			if l.State != "held" || l.Holder != "token-of-"+l.Resource || l.Count != 1 || l.Masters[0].Node != owner[l.Resource] {
				t.Errorf("-m %v: lock %+v; want it held on %s", given, l, owner[l.Resource])
			}
		}
	}

	// A primary down: the locks of the others are read, none is said absent, the warnings name the primary and
	// its slots, and --once does not report success (the locks in those slots are not known).
	if err := c.Nodes[2].Stop(); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runBinary(t, bin, nil, "--once", "--json", "-m", strings.Join(c.Addrs(), ","))
	s := monitortest.DecodeJSON(t, stdout)
	if code != cli.ExitNoQuorum {
		t.Errorf("a primary down: exit %d, want %d", code, cli.ExitNoQuorum)
	}
	for _, l := range s.Locks {
		if l.Masters[0].State == "absent" || l.Resource == keys[2] {
			t.Errorf("lock %s shown %s with its primary down: %+v", l.Resource, l.Masters[0].State, l)
		}
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), c.Nodes[2].Addr()+": cluster primary of slots 10923-16383: down") {
		t.Errorf("no warning naming the primary down and its slots: %q", s.Warnings)
	}
	if p := s.Masters[0].Cluster; p == nil || len(p.Primaries) != 3 || p.Primaries[2].Up {
		t.Errorf("a primary down: cluster %+v; want the third primary not up", p)
	}
}

// TestRunOnAClusterHoldsTheLockOnItsPrimary runs a command under a lock on a cluster: while it runs, the key
// holds REDLOCK_TOKEN, and a --once run from inside the command shows the lock held by that token on the
// primary that owns it; when it exits, the key is gone.
func TestRunOnAClusterHoldsTheLockOnItsPrimary(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	c := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{})
	cc := c.NewClusterClient()
	defer cc.Close()
	dir := t.TempDir()
	seeds := strings.Join(c.Addrs(), ",")
	resource := c.KeysOnEachNode("billing:")[1]
	script := `echo "$REDLOCK_TOKEN" > "$D/token"; "$1" --once --json -m "$2" > "$D/once.json"`
	cmd := startRun(t, bin, dir, "run", "-m", seeds, "--ttl", "30s", resource, "--", "sh", "-c", script, "sh", bin, seeds)
	if code := cmd.wait(2 * time.Minute); code != 0 {
		t.Fatalf("run exited %d; stderr %q", code, cmd.stderr.String())
	}
	token := strings.TrimSpace(readFileEventually(t, filepath.Join(dir, "token")))
	data, err := os.ReadFile(filepath.Join(dir, "once.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := monitortest.DecodeJSON(t, string(data))
	found := false
	for _, l := range s.Locks {
		if l.Resource == resource {
			found = true
			if l.State != "held" || l.Holder != token || l.Masters[0].Node != c.Nodes[1].Addr() {
				t.Errorf("lock while the command ran: %+v; want held by %q on %s", l, token, c.Nodes[1].Addr())
			}
		}
	}
	if !found || token == "" {
		t.Fatalf("token %q; the --once inside the command did not show %q:\n%s", token, resource, data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if v, err := cc.Get(ctx, resource).Result(); !errors.Is(err, redis.Nil) {
		t.Errorf("after run: %q = %q, %v; want it released", resource, v, err)
	}
}

// TestMixingAClusterWithIndependentMastersIsRefused gives a cluster's node with an independent master, two
// clusters' nodes, and --cluster with an independent master: each is bad usage (exit 2), one line that says
// why, for the dashboard's modes and for run, and the command does not run.
func TestMixingAClusterWithIndependentMastersIsRefused(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	c1 := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{})
	c2 := redlocktest.StartCluster(t, 1, redlocktest.ServerOptions{})
	plain := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{})[0]
	dir := t.TempDir()
	const why = "Redlock needs independent masters; a Redis Cluster is one lock service: give its nodes alone, or independent masters"
	for _, tc := range []struct {
		name string
		args []string
		says string
	}{
		{"a cluster and a master", []string{"--once", "-m", c1.Nodes[0].Addr() + "," + plain.Addr()},
			c1.Nodes[0].Addr() + " is a node of a Redis Cluster and " + plain.Addr() + " is an independent master"},
		{"two clusters", []string{"--once", "--json", "-m", c1.Nodes[1].Addr() + "," + c2.Nodes[0].Addr()},
			"are nodes of two different Redis Clusters"},
		{"--cluster and a master", []string{"--once", "--cluster", "-m", plain.Addr()}, "--cluster: " + plain.Addr() + " is not a node"},
		{"run with a cluster and a master", []string{"run", "-m", plain.Addr() + "," + c1.Nodes[2].Addr(), "job", "--",
			"touch", filepath.Join(dir, "ran")}, "is a node of a Redis Cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runBinary(t, bin, nil, tc.args...)
			if code != cli.ExitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 ||
				!strings.Contains(stderr, tc.says) || !strings.Contains(stderr, why) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line saying %q and why", code, stdout, stderr, tc.says)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Errorf("run ran its command on masters it refused")
	}
}
