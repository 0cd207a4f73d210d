package testbed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/slots"
)

// clusterReadyTimeout bounds how long StartCluster waits for every node to agree that the cluster is ok; a
// loaded machine takes a few seconds to exchange the gossip.
const clusterReadyTimeout = 60 * time.Second

// clusterCommandTimeout bounds one command of the cluster's set-up and resharding.
const clusterCommandTimeout = 5 * time.Second

// Cluster is a Redis Cluster of real redis-server processes on loopback ports, every node a primary (no
// replicas), the slots split evenly among them in order: node 0 owns the first third of three, and so on.
// Each node is a Server: it can be stopped, started (its nodes.conf keeps it in the cluster), paused.
type Cluster struct {
	Nodes []*Server
}

// StartCluster starts n redis-server processes with cluster mode on (and opts), assigns them the slots,
// joins them (CLUSTER MEET), and waits until every node reports cluster_state:ok and the same slot owners,
// as `redis-cli --cluster create ... --cluster-replicas 0` does. On failure everything started is closed.
func StartCluster(n int, opts ServerOptions) (*Cluster, error) {
	if n < 1 {
		return nil, errors.New("testbed: a cluster needs at least one node")
	}
	opts.Args = append([]string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
		"--cluster-node-timeout", "5000"}, opts.Args...)
	c := &Cluster{}
	for range n {
		s, err := StartServer(opts)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.Nodes = append(c.Nodes, s)
	}
	if err := c.create(); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// create assigns the slots, gives each node its own config epoch, introduces the nodes to the first one and
// waits until the cluster is ok everywhere.
func (c *Cluster) create() error {
	ctx, cancel := context.WithTimeout(context.Background(), clusterReadyTimeout)
	defer cancel()
	for i, s := range c.Nodes {
		start, end := slotShare(i, len(c.Nodes))
		if err := c.do(ctx, s, "cluster", "addslotsrange", start, end); err != nil {
			return err
		}
		if err := c.do(ctx, s, "cluster", "set-config-epoch", i+1); err != nil {
			return err
		}
	}
	for _, s := range c.Nodes[1:] {
		if err := c.do(ctx, c.Nodes[0], "cluster", "meet", "127.0.0.1", s.Port()); err != nil {
			return err
		}
	}
	return c.WaitAgreed(ctx)
}

// slotShare returns the slots of node i of n as redis-cli --cluster create splits them: 0-5460, 5461-10922
// and 10923-16383 for three.
func slotShare(i, n int) (start, end int) {
	per := float64(slots.Count) / float64(n)
	start = int(math.Round(float64(i)*per-1)) + 1
	if i == 0 {
		start = 0
	}
	end = int(math.Round(float64(i+1)*per - 1))
	if i == n-1 {
		end = slots.Count - 1
	}
	return start, end
}

// do runs one command on s within clusterCommandTimeout.
func (c *Cluster) do(ctx context.Context, s *Server, args ...any) error {
	_, err := c.doResult(ctx, s, args...)
	return err
}

// doResult runs one command on s within clusterCommandTimeout and returns its reply.
func (c *Cluster) doResult(ctx context.Context, s *Server, args ...any) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, clusterCommandTimeout)
	defer cancel()
	cl := s.NewClient()
	defer cl.Close()
	v, err := cl.Do(ctx, args...).Result()
	if err != nil {
		return nil, fmt.Errorf("testbed: %s: %v: %w", s.Addr(), args, err)
	}
	return v, nil
}

// WaitAgreed waits until every node answers, reports cluster_state:ok, knows every node, and maps every slot
// to the same primary, or ctx ends.
func (c *Cluster) WaitAgreed(ctx context.Context) error {
	var last error
	for {
		if last = c.agreed(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("testbed: cluster not agreed: %w", last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// agreed returns why the nodes do not agree yet, nil when they do.
func (c *Cluster) agreed(ctx context.Context) error {
	var first []slots.Shard
	for i, s := range c.Nodes {
		info, err := c.doResult(ctx, s, "cluster", "info")
		if err != nil {
			return err
		}
		text, _ := info.(string)
		if !strings.Contains(text, "cluster_state:ok") {
			return fmt.Errorf("%s: cluster_state not ok", s.Addr())
		}
		if !strings.Contains(text, "cluster_known_nodes:"+strconv.Itoa(len(c.Nodes))+"\r") {
			return fmt.Errorf("%s: does not know every node yet", s.Addr())
		}
		shards, err := c.shards(ctx, s)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Addr(), err)
		}
		if i == 0 {
			first = shards
		} else if fmt.Sprint(shards) != fmt.Sprint(first) {
			return fmt.Errorf("%s sees %v, %s sees %v", c.Nodes[0].Addr(), first, s.Addr(), shards)
		}
	}
	return nil
}

// shards returns the primaries and their slots as s sees them (CLUSTER SLOTS).
func (c *Cluster) shards(ctx context.Context, s *Server) ([]slots.Shard, error) {
	ctx, cancel := context.WithTimeout(ctx, clusterCommandTimeout)
	defer cancel()
	cl := s.NewClient()
	defer cl.Close()
	return slots.Load(ctx, cl)
}

// Addrs returns the nodes' addresses, in order.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.Nodes))
	for i, s := range c.Nodes {
		addrs[i] = s.Addr()
	}
	return addrs
}

// KeysOnEachNode returns, for each node in order, a key made of prefix and a number whose slot that node
// owns as StartCluster assigned the slots.
func (c *Cluster) KeysOnEachNode(prefix string) []string {
	keys := make([]string, len(c.Nodes))
	for i, missing := 0, len(keys); missing > 0; i++ {
		k := prefix + strconv.Itoa(i)
		for n := range keys {
			if start, end := slotShare(n, len(keys)); keys[n] == "" && slots.Of(k) >= start && slots.Of(k) <= end {
				keys[n] = k
				missing--
			}
		}
	}
	return keys
}

// NewClusterClient returns a go-redis cluster client of the nodes, with the package's client settings and
// the redirections go-redis follows by default; the caller closes it. Tests use it to write keys where
// their slots are, as any application would.
func (c *Cluster) NewClusterClient() *redis.ClusterClient {
	return redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                 c.Addrs(),
		Password:              c.Nodes[0].opts.Password,
		ContextTimeoutEnabled: true,
		DialTimeout:           clientDialTimeout,
		ReadTimeout:           clientIOTimeout,
		WriteTimeout:          clientIOTimeout,
	})
}

// Owner returns the node that owns slot, as node 0 (or the first that answers) sees it.
func (c *Cluster) Owner(ctx context.Context, slot int) (*Server, error) {
	var last error
	for _, s := range c.Nodes {
		shards, err := c.shards(ctx, s)
		if err != nil {
			last = err
			continue
		}
		m := slots.NewMap(shards)
		for _, n := range c.Nodes {
			if n.Addr() == m.Owner(slot) {
				return n, nil
			}
		}
		return nil, fmt.Errorf("testbed: slot %d is owned by %q, not a node of this cluster", slot, m.Owner(slot))
	}
	return nil, fmt.Errorf("testbed: no node told the slots: %w", last)
}

// Migration is a slot being moved from one node to another, step by step as `redis-cli --cluster reshard`
// moves it, so that a test can look at the cluster between the steps: after BeginMigration the slot is
// MIGRATING on its owner and IMPORTING on the target, and the keys are still on the owner; after MoveKeys
// they are on the target, which serves them only after ASKING; after Commit the target owns the slot.
type Migration struct {
	c        *Cluster
	Slot     int
	From, To *Server
	fromID   string
	toID     string
}

// BeginMigration starts moving slot to node to: IMPORTING on the target, then MIGRATING on the owner.
func (c *Cluster) BeginMigration(ctx context.Context, slot int, to *Server) (*Migration, error) {
	from, err := c.Owner(ctx, slot)
	if err != nil {
		return nil, err
	}
	if from == to {
		return nil, fmt.Errorf("testbed: slot %d is on %s already", slot, to.Addr())
	}
	m := &Migration{c: c, Slot: slot, From: from, To: to}
	if m.fromID, err = c.myID(ctx, from); err != nil {
		return nil, err
	}
	if m.toID, err = c.myID(ctx, to); err != nil {
		return nil, err
	}
	if err := c.do(ctx, to, "cluster", "setslot", slot, "importing", m.fromID); err != nil {
		return nil, err
	}
	if err := c.do(ctx, from, "cluster", "setslot", slot, "migrating", m.toID); err != nil {
		return nil, err
	}
	return m, nil
}

// myID returns the node id of s.
func (c *Cluster) myID(ctx context.Context, s *Server) (string, error) {
	v, err := c.doResult(ctx, s, "cluster", "myid")
	if err != nil {
		return "", err
	}
	id, _ := v.(string)
	return id, nil
}

// MoveKeys moves every key of the slot from its owner to the target with MIGRATE, and returns how many.
func (m *Migration) MoveKeys(ctx context.Context) (int, error) {
	host, port, _ := net.SplitHostPort(m.To.Addr())
	moved := 0
	for {
		v, err := m.c.doResult(ctx, m.From, "cluster", "getkeysinslot", m.Slot, 100)
		if err != nil {
			return moved, err
		}
		keys, _ := v.([]any)
		if len(keys) == 0 {
			return moved, nil
		}
		args := []any{"migrate", host, port, "", 0, 5000, "keys"}
		args = append(args, keys...)
		if err := m.c.do(ctx, m.From, args...); err != nil {
			return moved, err
		}
		moved += len(keys)
	}
}

// Commit gives the slot to the target: SETSLOT NODE on the target, the former owner and every other node,
// then waits until all agree.
func (m *Migration) Commit(ctx context.Context) error {
	order := []*Server{m.To, m.From}
	for _, s := range m.c.Nodes {
		if s != m.To && s != m.From {
			order = append(order, s)
		}
	}
	for _, s := range order {
		if err := m.c.do(ctx, s, "cluster", "setslot", m.Slot, "node", m.toID); err != nil {
			return err
		}
	}
	return m.c.WaitAgreed(ctx)
}

// Close kills every node and removes their directories. It is idempotent.
func (c *Cluster) Close() error {
	var errs []error
	for _, s := range c.Nodes {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}
