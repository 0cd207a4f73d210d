package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// TestIsClusterDecidesFromWhatTheMastersTold checks the rule on probes: nodes of one cluster are one cluster,
// a cluster's node beside an independent master or another cluster's node is refused with why, and masters
// that did not answer neither make independent masters a cluster nor join a cluster that does not know them.
func TestIsClusterDecidesFromWhatTheMastersTold(t *testing.T) {
	node := func(name, id string, peers ...string) nodeProbe {
		p := nodeProbe{name: name, known: true, cluster: true, id: id, peers: map[string]bool{id: true}, addrs: map[string]bool{}}
		for _, peer := range peers {
			p.peers[peer] = true
		}
		p.addrs["tcp:"+name] = true
		return p
	}
	plain := func(name string) nodeProbe { return nodeProbe{name: name, known: true} }
	silent := func(name string) nodeProbe { return nodeProbe{name: name, err: errors.New("connection refused")} }
	withAddr := func(p nodeProbe, addr string) nodeProbe { p.addrs["tcp:"+addr] = true; return p }
	for _, tc := range []struct {
		name    string
		probes  []nodeProbe
		forced  bool
		cluster bool
		err     string
	}{
		{"independent masters", []nodeProbe{plain("a:1"), plain("b:1"), plain("c:1")}, false, false, ""},
		{"independent masters, one silent", []nodeProbe{plain("a:1"), silent("b:1")}, false, false, ""},
		{"all silent", []nodeProbe{silent("a:1"), silent("b:1")}, false, false, ""},
		{"one cluster's nodes", []nodeProbe{node("a:1", "A", "B"), node("b:1", "B", "A")}, false, true, ""},
		{"one node of a cluster", []nodeProbe{node("a:1", "A", "B")}, false, true, ""},
		{"--cluster with a silent seed", []nodeProbe{silent("a:1"), node("b:1", "B")}, true, true, ""},
		{"--cluster, all silent", []nodeProbe{silent("a:1")}, true, true, ""},
		{"a silent node the cluster knows", []nodeProbe{withAddr(node("a:1", "A"), "b:1"), silent("b:1")}, false, true, ""},
		{"a cluster and an independent master", []nodeProbe{node("a:1", "A"), plain("b:1")}, false, false,
			"a:1 is a node of a Redis Cluster and b:1 is an independent master: Redlock needs independent masters; " +
				"a Redis Cluster is one lock service: give its nodes alone, or independent masters"},
		{"--cluster and an independent master", []nodeProbe{plain("a:1")}, true, false,
			"--cluster: a:1 is not a node of a Redis Cluster (cluster_enabled:0): Redlock needs independent masters"},
		{"two clusters", []nodeProbe{node("a:1", "A"), node("b:1", "B")}, false, false,
			"a:1 and b:1 are nodes of two different Redis Clusters: Redlock needs independent masters"},
		{"a silent master the cluster does not know", []nodeProbe{node("a:1", "A"), silent("b:1")}, false, false,
			"b:1 did not answer (connection refused) and the Redis Cluster of a:1 does not know it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cluster, err := isCluster(tc.probes, tc.forced)
			var te *TopologyError
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err != "" && (!errors.As(err, &te) || !strings.HasPrefix(err.Error(), tc.err)):
				t.Fatalf("error %v, want a TopologyError starting %q", err, tc.err)
			case cluster != tc.cluster:
				t.Fatalf("cluster = %v, want %v", cluster, tc.cluster)
			}
		})
	}
}

// masters returns the app's masters for addrs, with short timeouts.
func masters(addrs ...string) []Master {
	ms := make([]Master, len(addrs))
	for i, a := range addrs {
		ms[i] = Master{Name: a, Options: &redis.Options{Addr: a, ContextTimeoutEnabled: true, MaxRetries: -1}}
	}
	return ms
}

// TestOpenTellsAClusterFromIndependentMasters opens real masters: a cluster's nodes are one cluster, and a
// cluster's node mixed with an independent master, or with another cluster's node, is a TopologyError.
func TestOpenTellsAClusterFromIndependentMasters(t *testing.T) {
	c1 := redlocktest.StartCluster(t, 3, redlocktest.ServerOptions{})
	c2 := redlocktest.StartCluster(t, 1, redlocktest.ServerOptions{})
	plain := redlocktest.RealServers(t, 2, redlocktest.ServerOptions{})
	for _, tc := range []struct {
		name    string
		addrs   []string
		cluster string
		err     string
	}{
		{"the cluster's nodes", c1.Addrs(), "cluster " + c1.Nodes[0].Addr(), ""},
		{"one node of the cluster", c1.Addrs()[1:2], "cluster " + c1.Nodes[1].Addr(), ""},
		{"independent masters", []string{plain[0].Addr(), plain[1].Addr()}, "", ""},
		{"mixed", []string{c1.Nodes[0].Addr(), plain[0].Addr()}, "", "is a node of a Redis Cluster and"},
		{"two clusters", []string{c1.Nodes[0].Addr(), c2.Nodes[0].Addr()}, "", "are nodes of two different Redis Clusters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Open(Config{Masters: masters(tc.addrs...)})
			if tc.err != "" {
				var te *TopologyError
				if !errors.As(err, &te) || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), redlockNeeds) {
					t.Fatalf("Open = %v, want a TopologyError saying %q and why", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if a.Cluster != tc.cluster {
				t.Fatalf("Cluster = %q, want %q", a.Cluster, tc.cluster)
			}
		})
	}
}

// TestProbeOfARefusedLoginTellsNothing probes a master that refuses the password: a pipeline whose login
// failed leaves its commands without value or error, which must not read as a cluster's node (nor as not
// one): the probe failed, and the master is watched, and shown refusing, as any other.
func TestProbeOfARefusedLoginTellsNothing(t *testing.T) {
	s := redlocktest.RealServers(t, 1, redlocktest.ServerOptions{Password: "secret"})[0]
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), Password: "nope", MaxRetries: -1})
	defer c.Close()
	p := probe(t.Context(), s.Addr(), c)
	if p.known || p.cluster || p.err == nil || !strings.Contains(p.err.Error(), "WRONGPASS") {
		t.Fatalf("probe = %+v; want unknown, failed with WRONGPASS", p)
	}
	a, err := Open(Config{Masters: []Master{{Name: s.Addr(), Options: &redis.Options{Addr: s.Addr(), Password: "nope", MaxRetries: -1}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Cluster != "" {
		t.Errorf("a master refusing the login taken for a cluster: %q", a.Cluster)
	}
}
