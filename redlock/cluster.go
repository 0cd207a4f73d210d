package redlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/slots"
)

// master is where a round sends its command for one master: an independent master (node), or a Redis
// Cluster taken as one lock service (clusterNode).
type master interface {
	send(c *call)    // queues c without blocking; c is answered exactly once, by its deadline at the latest
	close()          // answers what is queued, stops the background work
	address() string // the master's name in rounds
}

func (n *node) address() string { return n.addr }

// A Redis Cluster is one lock service: a key lives on the one primary that owns its slot, so a lock on a
// cluster is a lock on that primary, quorum 1 of one. clusterNode is that one master of the client. It sends
// each command to the node that owns its key's slot, through a node of its own per primary (the same
// batching, deadlines, replica check and grant rules as an independent master's), and follows the cluster's
// redirections until a node answers for the key: MOVED (the slot has a new owner: recorded, and the slots
// read again in the background), ASK (the slot is migrating and the key has moved: asked once on the node
// named, after ASKING) and TRYAGAIN (a command on several keys of a migrating slot: sent again after a
// pause). A redirection is never a grant, and never an outcome either, unless the redirections run out.
type clusterNode struct {
	name        string
	seed        *redis.Options // every node is dialled with the first seed's settings
	seeds       []string       // nodes given, asked for the slots with the primaries
	maxBatch    int
	setupBudget time.Duration

	mu      sync.Mutex
	owners  slots.Map
	nodes   map[string]*node         // by address, for commands
	topo    map[string]*redis.Client // by address, for CLUSTER SLOTS
	loading chan struct{}            // closed when the slots' reload in progress ends; nil when none runs
	loaded  time.Time                // when the last reload began
	closed  bool
	routes  sync.WaitGroup // commands being routed
	ctx     context.Context
	cancel  context.CancelFunc
}

// Routing bounds.
const (
	// clusterRedirects bounds the nodes one command is sent to before its last reply is taken as its answer.
	clusterRedirects = 5
	// tryAgainPause is the wait before a command that got TRYAGAIN is sent again.
	tryAgainPause = 5 * time.Millisecond
	// minReload is the least time between two reloads of the slots after MOVED replies.
	minReload = 100 * time.Millisecond
)

// errNoOwner is the answer to a command whose slot no known primary owns.
var errNoOwner = errors.New("redlock: no primary of the cluster serves this key's slot (CLUSTER SLOTS)")

// NewCluster returns a client that locks on one Redis Cluster, taken as one lock service: a lock is
// acquired when the primary that owns its key's slot grants it (quorum 1), with the same rules as on an
// independent master (literal grants, deadlines, replicas never counted, compare-and-delete and
// compare-and-extend). seeds are clients of some of the cluster's nodes: their addresses are asked for the
// slots, and every node is dialled with the first one's settings. Redlock needs independent masters, which
// a cluster's primaries are not: to use Redlock's quorum across servers, give New independent masters (or
// the clusters' nodes to one NewCluster each and use them apart).
//
// With WithFencing, a lock's fence counter must live in its key's slot: name the resource with a hash tag,
// such as "{orders}" (its counter is then "{orders}:fence"); Acquire refuses a resource whose counter does
// not hash to the same slot.
func NewCluster(seeds []*redis.Client, opts ...Option) (*Client, error) {
	if len(seeds) == 0 {
		return nil, errors.New("redlock: no cluster nodes given")
	}
	cfg, err := configOf(opts)
	if err != nil {
		return nil, err
	}
	for i, s := range seeds {
		if s == nil {
			return nil, fmt.Errorf("redlock: cluster node %d is nil", i+1)
		}
	}
	c := &Client{cfg: cfg, quorum: 1, warm: make(chan struct{}), warmAll: 1, closing: make(chan struct{}),
		setupBudget: setupBudget(seeds[0].Options())}
	c.nodes = []master{newClusterNode(seeds, cfg.maxBatch, c.setupBudget, c.connected)}
	return c, nil
}

// newClusterNode returns the cluster of seeds as one master, and reads its slots in the background, telling
// onFirst whether that worked.
func newClusterNode(seeds []*redis.Client, maxBatch int, budget time.Duration, onFirst func(bool)) *clusterNode {
	ctx, cancel := context.WithCancel(context.Background())
	cn := &clusterNode{
		name:        "cluster " + seeds[0].Options().Addr,
		seed:        seeds[0].Options(),
		maxBatch:    maxBatch,
		setupBudget: budget,
		nodes:       map[string]*node{},
		topo:        map[string]*redis.Client{},
		ctx:         ctx,
		cancel:      cancel,
	}
	for _, s := range seeds {
		cn.seeds = append(cn.seeds, s.Options().Addr)
	}
	go func() {
		err := cn.reload(time.Now().Add(budget))
		if err == nil {
			cn.mu.Lock()
			for _, addr := range cn.primariesLocked() {
				if cn.closed {
					break
				}
				cn.nodeLocked(addr) // their senders connect now, not on the first round
			}
			cn.mu.Unlock()
		}
		onFirst(err == nil)
	}()
	return cn
}

func (cn *clusterNode) address() string { return cn.name }

// key is the key a call is about: the slot it is routed by. Our commands name one key, or several of one slot.
func (c *call) key() string {
	if c.routeKey != "" {
		return c.routeKey
	}
	if c.script != nil {
		if len(c.keys) > 0 {
			return c.keys[0]
		}
		return ""
	}
	if len(c.args) > 1 {
		s, _ := c.args[1].(string)
		return s
	}
	return ""
}

// send routes c in the background; it is answered once, by its deadline at the latest. Its finished channel
// closes once no command routed for it can reach a node any more, so the lock's next command waits for all.
func (cn *clusterNode) send(c *call) {
	if c.queued.IsZero() {
		c.queued = time.Now()
	}
	finished := c.finished
	c.finished = nil // closed by route, after the last command it sent
	cn.mu.Lock()
	closed := cn.closed
	if !closed {
		cn.routes.Add(1)
	}
	cn.mu.Unlock()
	if closed {
		c.answer(reply{err: errClosed})
		if finished != nil {
			close(finished)
		}
		return
	}
	c.timer = time.AfterFunc(time.Until(c.deadline), c.expire)
	go func() {
		defer cn.routes.Done()
		cn.route(c)
		if finished != nil {
			close(finished)
		}
	}()
}

// route sends c to the node that owns its key's slot and follows the redirections, then answers c with the
// last reply: one that says c may have reached a node is answered as sent.
func (cn *clusterNode) route(c *call) {
	if !c.take() {
		return // answered at its deadline before it could be sent
	}
	slot := slots.Of(c.key())
	addr, asking, sent := "", false, false
	last := reply{err: errNoOwner}
	for range clusterRedirects {
		if addr == "" {
			if addr = cn.owner(slot, c.deadline); addr == "" {
				break
			}
		}
		nd := cn.node(addr)
		if nd == nil {
			last = reply{err: errClosed}
			break
		}
		out, finished := make(chan reply, 1), make(chan struct{})
		nd.send(&call{args: c.args, script: c.script, keys: c.keys, argv: c.argv, kind: c.kind, want: c.want, deadline: c.deadline,
			index: c.index, out: out, finished: finished, asking: asking})
		last = <-out
		<-finished
		sent = sent || last.sent
		if r, ok := slots.RedirectOf(last.err, addr); ok {
			if !r.Ask {
				cn.moved(r.Slot, r.Addr)
			}
			addr, asking = r.Addr, r.Ask
			continue
		}
		if slots.IsTryAgain(last.err) && time.Until(c.deadline) > 2*tryAgainPause {
			time.Sleep(tryAgainPause)
			continue
		}
		break
	}
	if !sent {
		c.state.CompareAndSwap(callSent, callQueued) // answered as not sent: no node got it
	}
	c.answer(reply{val: last.val, err: last.err, replica: last.replica})
}

// owner returns the primary that owns slot, reading the slots (by deadline at the latest) when it is not known.
func (cn *clusterNode) owner(slot int, deadline time.Time) string {
	cn.mu.Lock()
	addr := cn.owners.Owner(slot)
	cn.mu.Unlock()
	if addr != "" {
		return addr
	}
	_ = cn.reload(deadline)
	cn.mu.Lock()
	defer cn.mu.Unlock()
	return cn.owners.Owner(slot)
}

// moved records a MOVED reply, and reads the slots again in the background: a slot that moved is likely one of
// many (a resharding, a failover).
func (cn *clusterNode) moved(slot int, addr string) {
	cn.mu.Lock()
	cn.owners.Set(slot, addr)
	again := cn.loading == nil && time.Since(cn.loaded) >= minReload
	cn.mu.Unlock()
	if again {
		go func() { _ = cn.reload(time.Now().Add(cn.setupBudget)) }()
	}
}

// reload reads the slots from whichever node answers first, the primaries known and the seeds together, and
// waits for it until deadline; a reload in progress is waited for rather than started again.
func (cn *clusterNode) reload(deadline time.Time) error {
	cn.mu.Lock()
	if cn.closed {
		cn.mu.Unlock()
		return errClosed
	}
	wait := cn.loading
	if wait == nil {
		wait = make(chan struct{})
		cn.loading, cn.loaded = wait, time.Now()
		addrs := append(cn.primariesLocked(), cn.seeds...)
		clients := make([]*redis.Client, 0, len(addrs))
		seen := map[string]bool{}
		for _, a := range addrs {
			if !seen[a] {
				seen[a] = true
				clients = append(clients, cn.topoLocked(a))
			}
		}
		go cn.load(clients, wait)
	}
	cn.mu.Unlock()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-wait:
		return nil
	case <-t.C:
		return context.DeadlineExceeded
	}
}

// load asks clients for the slots together, within the setup budget, takes the first answer, and closes done.
func (cn *clusterNode) load(clients []*redis.Client, done chan struct{}) {
	ctx, cancel := context.WithTimeout(cn.ctx, cn.setupBudget)
	defer cancel()
	answers := make(chan []slots.Shard, len(clients))
	for _, cl := range clients {
		go func() {
			shards, err := slots.Load(ctx, cl)
			if err != nil {
				shards = nil
			}
			answers <- shards
		}()
	}
	for range clients {
		if shards := <-answers; shards != nil {
			cn.mu.Lock()
			cn.owners = slots.NewMap(shards)
			cn.mu.Unlock()
			break
		}
	}
	cn.mu.Lock()
	cn.loading = nil
	cn.mu.Unlock()
	close(done)
}

// primariesLocked returns the addresses of the primaries known; cn.mu is held.
func (cn *clusterNode) primariesLocked() []string {
	seen := map[string]bool{}
	var addrs []string
	for s := 0; s < slots.Count; s++ {
		if a := cn.owners.Owner(s); a != "" && !seen[a] {
			seen[a] = true
			addrs = append(addrs, a)
		}
	}
	return addrs
}

// node returns the node for commands at addr, nil once closed.
func (cn *clusterNode) node(addr string) *node {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.closed {
		return nil
	}
	return cn.nodeLocked(addr)
}

// nodeLocked returns the node for commands at addr, made on first use; cn.mu is held.
func (cn *clusterNode) nodeLocked(addr string) *node {
	if nd := cn.nodes[addr]; nd != nil {
		return nd
	}
	nd := newNode(slots.NodeOptions(cn.seed, addr), cn.maxBatch, nil)
	cn.nodes[addr] = nd
	return nd
}

// topoLocked returns the client that reads the slots from addr, made on first use; cn.mu is held. It never
// retries, and a command's context bounds it.
func (cn *clusterNode) topoLocked(addr string) *redis.Client {
	if cl := cn.topo[addr]; cl != nil {
		return cl
	}
	o := slots.NodeOptions(cn.seed, addr)
	o.ContextTimeoutEnabled, o.MaxRetries, o.PoolSize, o.MinIdleConns = true, -1, 1, 0
	cl := redis.NewClient(o)
	cn.topo[addr] = cl
	return cl
}

// close answers every command queued on the nodes, waits for the commands being routed, and closes the nodes
// and the clients that read the slots.
func (cn *clusterNode) close() {
	cn.mu.Lock()
	cn.closed = true
	nodes := make([]*node, 0, len(cn.nodes))
	for _, nd := range cn.nodes {
		nodes = append(nodes, nd)
	}
	cn.mu.Unlock()
	cn.cancel()
	for _, nd := range nodes {
		nd.close()
	}
	cn.routes.Wait()
	cn.mu.Lock()
	defer cn.mu.Unlock()
	for _, cl := range cn.topo {
		_ = cl.Close()
	}
}

// clusterWarning is TopologyWarning's text for a cluster, ok false for independent masters.
func (c *Client) clusterWarning() (string, bool) {
	if len(c.nodes) != 1 {
		return "", false
	}
	if _, ok := c.nodes[0].(*clusterNode); !ok {
		return "", false
	}
	return "a Redis Cluster is one lock service: a lock is lost when the primary that owns its key fails over " +
		"before its replica got the key (replication is asynchronous)", true
}

// checkFenceSlot refuses, on a cluster with fencing, a resource whose fence counter is in another slot than its
// key: the acquire script must write both on one node.
func (c *Client) checkFenceSlot(resource string) error {
	if !c.cfg.fencing || len(c.nodes) != 1 {
		return nil
	}
	if _, ok := c.nodes[0].(*clusterNode); !ok {
		return nil
	}
	counter := FenceKey(resource, c.cfg.fenceSuffix)
	if slots.Of(resource) != slots.Of(counter) {
		return fmt.Errorf("redlock: fencing on a Redis Cluster needs %q and its counter %q in one slot: name the "+
			"resource with a hash tag, such as {%s}", resource, counter, resource)
	}
	return nil
}
