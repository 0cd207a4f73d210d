package reading

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/slots"
)

// A Redis Cluster is one lock service: a lock's key lives on the one primary that owns its slot, so a lock is
// held when that primary holds it, whatever the others do (quorum 1 of one service). The monitor reads a
// cluster as one master of the snapshot (clusterPoller): each poll reads the primaries from CLUSTER SLOTS,
// scans each primary's keyspace under the scan budget as it scans a master's, and reads every known key on
// the node that owns its slot, following MOVED and ASK (a slot being resharded), so that a key stays in view
// while its slot moves. Each cell says which primary answered for the key (MasterLock.Node), and the master's
// Cluster holds every primary's own status, derived from its own reading by the same rules as a master's.

// ClusterReading is what one poll read of a Redis Cluster's primaries, for the Reading of the cluster.
type ClusterReading struct {
	Primaries []PrimaryReading // in slot order
}

// PrimaryReading is one primary of a cluster as one poll read it: its own Reading (TIME, INFO, its scan's
// progress; its keys are in the cluster's Reading), its node id and the slots it owns.
type PrimaryReading struct {
	Reading
	ID    string
	Slots []SlotRange
}

// SlotRange is the hash slots from Start to End, both included.
type SlotRange struct {
	Start int // the first slot
	End   int // the last slot, included
}

// maxRedirects bounds the rounds of redirections (MOVED, ASK, TRYAGAIN) a key read follows in one poll.
const maxRedirects = 4

// clusterPoller reads a Redis Cluster as one master of the snapshot. Its nodes are dialled with the first
// seed's settings (credentials, TLS, timeouts) and their own address. It is used by one read at a time
// (Monitor.flying); mu guards its nodes and slot owners against the reads of its nodes, which run together,
// and against Close.
type clusterPoller struct {
	addr  string           // the cluster's display name
	seeds []*redis.Options // nodes given, asked for the slots when no primary answers

	mu     sync.Mutex
	owners slots.Map          // which primary owns each slot, as last read or redirected
	shards []slots.Shard      // the primaries, as last read
	nodes  map[string]*poller // by address: a client and, for a primary, where its scan stands
	// readers read keys by slot on the nodes' clients, apart from the scans that run at the same time: each
	// learns on its own whether the node takes scripts.
	readers map[string]*poller
	closed  bool
}

// Name, Accept and eval make a poller a Source of its own master, and a node of a cluster.

func (p *poller) Name() string { return p.addr }

func (p *poller) Accept(r Reading) {
	if r.next != nil {
		p.disc = *r.next
		if p.keyspace != nil {
			p.keyspace.accepted()
		}
	}
	if p.track != nil && r.Err == nil && r.Seq != 0 {
		p.track.accepted.Store(r.Seq)
	}
}

// eval runs a read script on the poller's node, as it runs them (scripts.go), after ASKING on a cluster's node.
func (p *poller) eval(ctx context.Context, script readScript, keys []string, args ...any) *redis.Cmd {
	if !p.asking {
		return p.client.Do(ctx, p.scriptArgs(script, keys, args)...)
	}
	pipe := p.client.Pipeline()
	pipe.Do(ctx, "asking")
	cmd := pipe.Do(ctx, p.scriptArgs(script, keys, args)...)
	_, _ = pipe.Exec(ctx)
	return cmd
}

func (p *clusterPoller) Name() string { return p.addr }

// Accept moves each primary's scan on to where its reading left it.
func (p *clusterPoller) Accept(r Reading) {
	if r.Cluster == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pr := range r.Cluster.Primaries {
		if n := p.nodes[pr.Addr]; n != nil && pr.next != nil {
			n.disc = *pr.next
		}
	}
}

// close closes the clients of the nodes; a read still running fails.
func (p *clusterPoller) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, n := range p.nodes {
		_ = n.client.Close()
	}
}

// node returns the poller of the node at addr, dialled with the first seed's settings.
func (p *clusterPoller) node(addr string) *poller {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := p.nodes[addr]; n != nil {
		return n
	}
	n := &poller{client: redis.NewClient(slots.NodeOptions(p.seeds[0], addr)), addr: addr, asking: true}
	if p.closed {
		_ = n.client.Close()
	}
	p.nodes[addr] = n
	return n
}

// reader returns the poller that reads keys by slot on the node at addr.
func (p *clusterPoller) reader(addr string) *poller {
	n := p.node(addr)
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.readers[addr]; r != nil {
		return r
	}
	r := &poller{client: n.client, addr: addr, asking: true}
	p.readers[addr] = r
	return r
}

// loadShards reads the primaries and their slots from whichever node answers CLUSTER SLOTS first, asking
// the primaries last known and the seeds together, and records them as the slots' owners.
func (p *clusterPoller) loadShards(ctx context.Context) ([]slots.Shard, error) {
	p.mu.Lock()
	var addrs []string
	seen := map[string]bool{}
	for _, s := range p.shards {
		addrs, seen[s.Primary] = append(addrs, s.Primary), true
	}
	for _, o := range p.seeds {
		if !seen[o.Addr] {
			addrs, seen[o.Addr] = append(addrs, o.Addr), true
		}
	}
	p.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		shards []slots.Shard
		err    error
	}
	answers := make(chan answer, len(addrs))
	for _, addr := range addrs {
		n := p.node(addr)
		go func() {
			shards, err := slots.Load(ctx, n.client)
			if err != nil {
				err = fmt.Errorf("%s: %w", addr, err)
			}
			answers <- answer{shards, err}
		}()
	}
	var errs []error
	for range addrs {
		a := <-answers
		if a.err == nil {
			p.mu.Lock()
			p.shards, p.owners = a.shards, slots.NewMap(a.shards)
			p.mu.Unlock()
			return a.shards, nil
		}
		errs = append(errs, a.err)
	}
	return nil, fmt.Errorf("no node told the cluster's slots (CLUSTER SLOTS): %w", errors.Join(errs...))
}

// Read polls the cluster once: its primaries from CLUSTER SLOTS; then, together, each primary's TIME, INFO
// and scan (as a master's, under the scan budget) and the known keys, each on the node that owns its slot.
// A primary that does not answer, or whose keys cannot be read, leaves its keys out of the reading: unknown,
// not absent. The cluster fails the poll only when no primary answered.
func (p *clusterPoller) Read(ctx context.Context, cfg Config, known *KnownList) Reading {
	shards, err := p.loadShards(ctx)
	if err != nil {
		r := (&poller{addr: p.addr}).failed(err)
		r.Cluster = &ClusterReading{} // a cluster still, though its primaries are not known
		return r
	}
	prims := make([]PrimaryReading, len(shards))
	var wg sync.WaitGroup
	for i, sh := range shards {
		n := p.node(sh.Primary)
		prims[i] = PrimaryReading{ID: sh.ID, Slots: slotRanges(sh.Ranges)}
		wg.Go(func() { prims[i].Reading = n.Read(ctx, cfg, nil) })
	}
	var keys []KeyReading
	var failed map[string]error
	wg.Go(func() { keys, failed = p.readRouted(ctx, cfg, known.List()) })
	wg.Wait()
	return p.merge(cfg, prims, keys, failed, known)
}

// merge makes the cluster's Reading from its primaries' and the known keys read by slot (failed: the nodes
// whose keys could not be read, with why): the keys of every primary that answered, at most Config.MaxKeys
// distinct ones in all (the rest counted untracked, as Monitor.capFound does across masters); the slowest
// primary's round trip; the primaries' scans together. The cluster's own clock, uptime and role are those
// of no single server: they are left unknown here, and each primary's are in Cluster.
func (p *clusterPoller) merge(cfg Config, prims []PrimaryReading, refreshed []KeyReading, failed map[string]error, known *KnownList) Reading {
	r := Reading{Addr: p.addr, Role: "master", Uptime: UnknownUptime, Replicas: -1, Cluster: &ClusterReading{Primaries: prims}}
	var errs []error
	refused := true
	for i := range prims {
		pr := &prims[i]
		if err := failed[pr.Addr]; err != nil && pr.Err == nil {
			pr.Reading = (&poller{addr: pr.Addr}).failed(fmt.Errorf("reading its keys: %w", err))
		}
		if pr.Err != nil {
			errs = append(errs, fmt.Errorf("primary %s (slots %s): %w", pr.Addr, SlotsText(pr.Slots), pr.Err))
			refused = refused && pr.Refused
		}
	}
	if len(errs) == len(prims) {
		return Reading{Addr: p.addr, Err: errors.Join(errs...), Refused: refused, Cluster: r.Cluster}
	}
	answered := map[string]bool{}
	for _, pr := range prims {
		answered[pr.Addr] = pr.Err == nil
	}
	for _, k := range refreshed {
		if answered[k.Node] || !isPrimary(prims, k.Node) {
			r.Keys = append(r.Keys, k)
		}
	}
	p.capDiscovered(cfg, prims, known)
	p.mu.Lock()
	defer p.mu.Unlock()
	r.Sweep.Total = 0
	for i := range prims {
		pr := &prims[i]
		sweep, untracked := pr.Sweep, pr.Untracked
		if pr.Err != nil {
			if n := p.nodes[pr.Addr]; n != nil {
				sweep, untracked = n.disc.sweep, n.disc.untrackedNow()
			}
		} else {
			if pr.Received.Sub(pr.Sent) >= r.Received.Sub(r.Sent) {
				r.Sent, r.Received = pr.Sent, pr.Received
			}
			if r.Version == "" {
				r.Version = pr.Version
			}
			for _, k := range pr.Keys {
				k.Node = pr.Addr
				r.Keys = append(r.Keys, k)
			}
			pr.Keys = nil
		}
		r.Untracked += untracked
		addSweep(&r.Sweep, sweep, i == 0)
	}
	r.PlainReads = p.plainLocked()
	return r
}

// plainLocked reports whether some node of the cluster reads with plain commands (no scripts there, or a
// write pause held them), so that hash and sorted-set locks it owns are unknown. p.mu is held.
func (p *clusterPoller) plainLocked() bool {
	for addr, n := range p.nodes {
		if !n.scripted() || p.readers[addr] != nil && !p.readers[addr].scripted() {
			return true
		}
	}
	return false
}

// isPrimary reports whether addr is one of prims.
func isPrimary(prims []PrimaryReading, addr string) bool {
	for _, pr := range prims {
		if pr.Addr == addr {
			return true
		}
	}
	return false
}

// capDiscovered keeps the keys the primaries' scans found that are not known within Config.MaxKeys distinct
// keys in all, as Monitor.capFound does across masters.
func (p *clusterPoller) capDiscovered(cfg Config, prims []PrimaryReading, known *KnownList) {
	var found []string
	seen := map[string]bool{}
	rs := make([]*Reading, len(prims))
	for i := range prims {
		rs[i] = &prims[i].Reading
		for _, k := range prims[i].Keys {
			if !seen[k.Key] && !known.Has(k.Key) {
				seen[k.Key] = true
				found = append(found, k.Key)
			}
		}
	}
	CapKeys(rs, found, max(cfg.MaxKeys-known.Counted(), 0))
}

// addSweep adds one primary's scan to the cluster's: keys scanned, in the keyspaces, passed over as not
// lock-shaped and refused add up; the cluster
// has completed as many full sweeps as its least advanced primary, and its last one when that primary did.
func addSweep(total *Sweep, s Sweep, first bool) {
	total.Scanned += s.Scanned
	total.NotLockShaped += s.NotLockShaped
	total.Refused += s.Refused
	if s.Total >= 0 && total.Total >= 0 {
		total.Total += s.Total
	} else {
		total.Total = -1
	}
	if first || s.Completed < total.Completed {
		total.Completed = s.Completed
	}
	if first || s.LastCompleted.Before(total.LastCompleted) {
		total.LastCompleted = s.LastCompleted
	}
	if !s.Started.IsZero() && (total.Started.IsZero() || s.Started.Before(total.Started)) {
		total.Started = s.Started
	}
}

// ReadKeys reads keys, each on the node that owns its slot.
func (p *clusterPoller) ReadKeys(ctx context.Context, cfg Config, keys []string) Reading {
	r := Reading{Addr: p.addr}
	if len(keys) == 0 {
		return r
	}
	got, failed := p.readRouted(ctx, cfg, keys)
	if len(got) == 0 && len(failed) > 0 {
		var errs []error
		for addr, err := range failed {
			errs = append(errs, fmt.Errorf("%s: %w", addr, err))
		}
		return (&poller{addr: p.addr}).failed(errors.Join(errs...))
	}
	r.Keys = got
	return r
}

// route is keys of one slot to read on one node, after ASKING when asking.
type route struct {
	slot   int
	keys   []string
	addr   string
	asking bool
}

// readRouted reads keys, each on the node that owns its slot: the keys of one slot in one command, the
// commands for one node in one pipeline, the nodes together. A MOVED reply records the slot's new owner and
// reads the keys there; ASK reads them once on the node named, after ASKING (the slot is migrating and they
// have moved already); TRYAGAIN (keys of a migrating slot, some moved) reads them one by one; each for at most
// maxRedirects rounds. Keys that could not be read are left out (unknown, not absent), and the nodes that
// failed are returned with why.
func (p *clusterPoller) readRouted(ctx context.Context, cfg Config, keys []string) ([]KeyReading, map[string]error) {
	bySlot := map[int][]string{}
	for _, k := range keys {
		s := slots.Of(k)
		bySlot[s] = append(bySlot[s], k)
	}
	var todo []route
	failed := map[string]error{}
	p.mu.Lock()
	for s, ks := range bySlot {
		if owner := p.owners.Owner(s); owner != "" {
			todo = append(todo, route{slot: s, keys: ks, addr: owner})
		}
	}
	p.mu.Unlock()
	var got []KeyReading
	for round := 0; round < maxRedirects && len(todo) > 0 && ctx.Err() == nil; round++ {
		byNode := map[string][]route{}
		for _, rt := range todo {
			byNode[rt.addr] = append(byNode[rt.addr], rt)
		}
		todo = nil
		var mu sync.Mutex
		var wg sync.WaitGroup
		for addr, routes := range byNode {
			n := p.reader(addr)
			wg.Go(func() {
				keys, again, err := p.readRoutes(ctx, cfg, n, routes)
				mu.Lock()
				defer mu.Unlock()
				got = append(got, keys...)
				todo = append(todo, again...)
				if err != nil {
					failed[addr] = err
				}
			})
		}
		wg.Wait()
	}
	return got, failed
}

// readRoutes reads routes on node n in one pipeline. It returns the keys read, the routes to follow
// elsewhere or again, and the error that left keys unread on n (the last one, when several).
func (p *clusterPoller) readRoutes(ctx context.Context, cfg Config, n *poller, routes []route) ([]KeyReading, []route, error) {
	pipe := n.client.Pipeline()
	queued := make([]*queuedRead, len(routes))
	for i, rt := range routes {
		if rt.asking {
			pipe.Do(ctx, "asking")
		}
		queued[i] = n.queueRead(ctx, pipe, rt.keys, cfg.MaxValueLen)
	}
	sent := time.Now()
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) && !isServerError(err) {
		return nil, nil, err
	}
	rtt := time.Since(sent)
	var r Reading
	var again []route
	var lastErr error
	for i, rt := range routes {
		q := queued[i]
		err := q.err()
		if rd, ok := slots.RedirectOf(err, n.addr); ok {
			if !rd.Ask {
				p.mu.Lock()
				p.owners.Set(rd.Slot, rd.Addr)
				p.mu.Unlock()
			}
			again = append(again, route{slot: rt.slot, keys: rt.keys, addr: rd.Addr, asking: rd.Ask})
			continue
		}
		switch {
		case slots.IsTryAgain(err) && len(rt.keys) > 1:
			for _, k := range rt.keys {
				again = append(again, route{slot: rt.slot, keys: []string{k}, addr: rt.addr, asking: rt.asking})
			}
			continue
		case isServerError(err) && isClusterState(err):
			lastErr = err // the cluster does not serve the slot now: its keys stay unknown
			continue
		}
		before := len(r.Keys)
		err = q.collect(&r, rt.keys, sent, rtt, cfg.MaxValueLen)
		if n.retryScript(err, &r) {
			r.Keys = r.Keys[:before]
			again = append(again, rt)
			continue
		}
		if err != nil {
			r.Keys = r.Keys[:before]
			lastErr = err
		}
	}
	for i := range r.Keys {
		r.Keys[i].Node = n.addr
	}
	return r.Keys, again, lastErr
}

// isClusterState reports whether err says that the cluster cannot serve a slot now (CLUSTERDOWN, TRYAGAIN,
// a node loading or without its primary; inside a script, the cluster down or a key that is not the node's)
// rather than that the read itself was refused.
func isClusterState(err error) bool {
	for _, prefix := range []string{"CLUSTERDOWN", "TRYAGAIN", "LOADING", "MASTERDOWN"} {
		if redis.HasErrorPrefix(err, prefix) {
			return true
		}
	}
	return err != nil && (strings.Contains(err.Error(), "while the cluster is down") ||
		strings.Contains(err.Error(), "access a non local key in a cluster node"))
}

// err is the error that stopped a queued read as a whole: the script's, or the first PTTL's in pipelined
// mode (a GETRANGE error only says the key is not a string).
func (q *queuedRead) err() error {
	if q.eval != nil {
		return q.eval.Err()
	}
	for _, c := range q.pttls {
		if err := c.Err(); err != nil {
			return err
		}
	}
	return nil
}

// slotRanges converts the package slots' ranges.
func slotRanges(rs []slots.Range) []SlotRange {
	out := make([]SlotRange, len(rs))
	for i, r := range rs {
		out[i] = SlotRange(r)
	}
	return out
}

// IsRedirect reports whether err is a MOVED or ASK reply: the master is a node of a Redis Cluster.
func IsRedirect(err error) bool {
	_, ok := slots.RedirectOf(err, "")
	return ok
}

// SlotsText writes ranges as "0-5460,10923".
func SlotsText(rs []SlotRange) string {
	conv := make([]slots.Range, len(rs))
	for i, r := range rs {
		conv[i] = slots.Range(r)
	}
	return slots.SlotsText(conv)
}
