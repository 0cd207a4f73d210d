package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestClusterNodeNotKnownAsOneSaysWhatItIs gives a cluster's nodes through a user whose ACL refuses INFO and
// CLUSTER, so that they cannot tell they are a cluster's nodes and are watched as independent masters: a
// node asked for a key of another node's slot answers MOVED, and its error says what it is and what to give.
func TestClusterNodeNotKnownAsOneSaysWhatItIs(t *testing.T) {
	t.Parallel()
	c := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{})
	cc := c.NewClusterClient()
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, k := range c.KeysOnEachNode("lock:") {
		if err := cc.Set(ctx, k, "tok-"+k+"-xxxxxxxxxxxxxxxx", time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	var urls []string
	for _, n := range c.Nodes {
		admin := n.NewClient()
		err := admin.Do(ctx, "ACL", "SETUSER", "blind", "on", ">pw", "~*", "&*", "+@all", "-info", "-cluster").Err()
		admin.Close()
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, "redis://blind:pw@"+n.Addr())
	}
	_, stdout, stderr := runCapture([]string{"--once", "--json", "-m", strings.Join(urls, ",")}, realEnv)
	var snap struct {
		Masters []struct {
			Addr  string `json:"addr"`
			Error string `json:"error"`
		} `json:"masters"`
	}
	if err := json.Unmarshal([]byte(stdout), &snap); err != nil || len(snap.Masters) != 3 {
		t.Fatalf("--once --json: stderr %q, stdout not a snapshot of 3 masters (%v):\n%s", stderr, err, stdout)
	}
	moved := 0
	for _, m := range snap.Masters {
		if strings.HasPrefix(m.Error, "MOVED ") {
			moved++
			if !strings.HasSuffix(m.Error, adviceCluster) {
				t.Errorf("%s: %q does not say what it is", m.Addr, m.Error)
			}
		}
	}
	if moved == 0 {
		t.Errorf("no master answered MOVED: %+v\n%s", snap.Masters, stdout)
	}
}

// TestClusterFlagNeedsTheNodes: --cluster says what the masters given are, so it needs them; the demo's
// embedded masters are not a cluster.
func TestClusterFlagNeedsTheNodes(t *testing.T) {
	for _, args := range [][]string{{"--cluster"}, {"--cluster", "--demo", "--once"}} {
		code, stdout, stderr := runCapture(args, fakeEnv(nil, nil))
		if code != ExitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--cluster says") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and one line about --cluster", args, code, stdout, stderr, ExitUsage)
		}
	}
}
