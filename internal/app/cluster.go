package app

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// A Redis Cluster is one lock service: its nodes are not independent masters, and Redlock's quorum over them
// would count one service several times (or, as MOVED replies, not at all). Open tells the masters given
// apart: when every one is a node of one cluster (or --cluster says so), the run watches and locks on that
// cluster as one master; a cluster mixed with independent masters, or two clusters, is refused.

// TopologyError is masters that cannot be used together (a Redis Cluster's nodes mixed with independent
// masters, two clusters): a mistake in the masters given, found by asking them, that the command line
// reports as bad usage.
type TopologyError struct{ Msg string }

// Error returns the message.
func (e *TopologyError) Error() string { return e.Msg }

// redlockNeeds is why mixing is refused, said with every refusal.
const redlockNeeds = "Redlock needs independent masters; a Redis Cluster is one lock service: give its nodes alone, or independent masters"

// probeTimeout bounds the questions asked of each master when the program starts.
const probeTimeout = 2 * time.Second

// nodeProbe is what a master told of its cluster mode.
type nodeProbe struct {
	name    string
	err     error           // it did not answer
	known   bool            // it told whether it is a cluster's node
	cluster bool            // it is one (INFO cluster_enabled:1, or CLUSTER MYID answered)
	id      string          // its node id, "" unknown
	peers   map[string]bool // the node ids it knows, itself included; nil unknown
	addrs   map[string]bool // the addresses of the nodes it knows, as redlock.ServerKey names them
}

// probe asks the master behind c whether it is a node of a Redis Cluster, and of which: INFO cluster, CLUSTER
// MYID and CLUSTER NODES in one round trip, within probeTimeout.
func probe(ctx context.Context, name string, c *redis.Client) nodeProbe {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	p := nodeProbe{name: name}
	pipe := c.Pipeline()
	info := pipe.Info(ctx, "cluster")
	myID := pipe.ClusterMyID(ctx)
	nodes := pipe.ClusterNodes(ctx)
	// A command of a pipeline that failed before its reply (a refused login) has neither a value nor an error:
	// only a value, or an error of its own, tells anything.
	_, execErr := pipe.Exec(ctx)
	if text, err := info.Result(); err == nil && strings.Contains(text, "cluster_enabled:") {
		p.known, p.cluster = true, strings.Contains(text, "cluster_enabled:1")
	}
	id, err := myID.Result()
	switch {
	case err == nil && id != "":
		p.known, p.cluster, p.id = true, true, id
	case err != nil && strings.Contains(err.Error(), "cluster support disabled"):
		p.known = true
	}
	if !p.known && execErr != nil {
		p.err = execErr
		return p
	}
	if text, err := nodes.Result(); err == nil && text != "" && p.cluster {
		p.peers, p.addrs = map[string]bool{}, map[string]bool{}
		for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			p.peers[f[0]] = true
			addr, _, _ := strings.Cut(f[1], "@")
			if host, port, err := net.SplitHostPort(addr); err == nil && host != "" && port != "0" {
				p.addrs[redlock.ServerKey(&redis.Options{Network: "tcp", Addr: addr})] = true
			}
		}
	}
	return p
}

// sameCluster reports whether a and b, both cluster nodes, are nodes of one cluster: one knows the other's
// id. Nodes that did not tell their ids are taken to be.
func sameCluster(a, b nodeProbe) bool {
	if a.id == "" || b.id == "" || a.peers == nil && b.peers == nil {
		return true
	}
	return a.peers[b.id] || b.peers[a.id]
}

// isCluster decides from the probes of the masters given whether they are one Redis Cluster (forced: the
// --cluster flag), or refuses them with a TopologyError saying why. Masters that did not answer do not make
// independent masters a cluster; beside cluster nodes, they must be nodes that cluster knows, or be forced.
func isCluster(probes []nodeProbe, forced bool) (bool, error) {
	var nodes, plain, silent []nodeProbe
	for _, p := range probes {
		switch {
		case p.known && p.cluster:
			nodes = append(nodes, p)
		case p.known:
			plain = append(plain, p)
		default:
			silent = append(silent, p)
		}
	}
	switch {
	case forced && len(plain) > 0:
		return false, &TopologyError{fmt.Sprintf("--cluster: %s is not a node of a Redis Cluster (cluster_enabled:0): %s",
			plain[0].name, redlockNeeds)}
	case len(nodes) == 0:
		return forced, nil
	case len(plain) > 0:
		return false, &TopologyError{fmt.Sprintf("%s is a node of a Redis Cluster and %s is an independent master: %s",
			nodes[0].name, plain[0].name, redlockNeeds)}
	}
	for _, n := range nodes[1:] {
		if !sameCluster(nodes[0], n) {
			return false, &TopologyError{fmt.Sprintf("%s and %s are nodes of two different Redis Clusters: %s",
				nodes[0].name, n.name, redlockNeeds)}
		}
	}
	for _, s := range silent {
		if !forced && !knownTo(nodes, s.name) {
			return false, &TopologyError{fmt.Sprintf("%s did not answer (%v) and the Redis Cluster of %s does not know it: "+
				"cannot tell whether it is one of its nodes (give --cluster if it is): %s", s.name, s.err, nodes[0].name, redlockNeeds)}
		}
	}
	return true, nil
}

// knownTo reports whether some probe of nodes lists the node at name ("host:port", maybe a URL).
func knownTo(nodes []nodeProbe, name string) bool {
	addr := name
	if _, rest, ok := strings.Cut(name, "://"); ok {
		addr, _, _ = strings.Cut(rest, "/")
	}
	key := redlock.ServerKey(&redis.Options{Network: "tcp", Addr: addr})
	for _, n := range nodes {
		if n.addrs[key] {
			return true
		}
	}
	return false
}

// detectCluster probes the masters of a together and sets a.Cluster when they are one cluster.
func (a *App) detectCluster(forced bool) error {
	probes := make([]nodeProbe, len(a.Clients))
	var wg sync.WaitGroup
	for i, c := range a.Clients {
		wg.Go(func() { probes[i] = probe(context.Background(), a.Names[i], c) })
	}
	wg.Wait()
	cluster, err := isCluster(probes, forced)
	if err != nil {
		return err
	}
	if cluster {
		a.Cluster = monitor.ClusterName(a.Names[0])
	}
	return nil
}

// watchCluster creates the monitor of the cluster, which closes the clients of its nodes with the app.
func (a *App) watchCluster(cfg monitor.Config) (*monitor.Monitor, error) {
	mon, err := monitor.NewCluster(a.Clients, a.Cluster, cfg)
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, func() { _ = mon.Close() })
	return mon, nil
}
