package reading

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Source is one master of the snapshot as a poll reads it: an independent master (NewMaster) or a Redis Cluster
// read as one lock service (NewCluster). It is used by one read at a time: a read of it must have returned
// before the next begins, which is what keeps its discovery consistent.
type Source interface {
	Name() string                                                    // the master's display name
	Read(ctx context.Context, cfg Config, known *KnownList) Reading  // a poll's first read: refresh and discovery
	ReadKeys(ctx context.Context, cfg Config, keys []string) Reading // the keys other masters found
	Accept(r Reading)                                                // the monitor took r: discovery moves on
	ReadWholeNext()                                                  // the next reading is whole, not a delta
	Close()                                                          // closes the clients the source opened itself
}

// NewMaster returns the Source of the master reached through client, shown as addr. advise, when set, says
// what the user can do about a read's error (monitor.Config.Advise). A tracked master has its keys refreshed
// by what it says changed, where it allows it, and all of them read again every fullReadEvery (tracking.go).
func NewMaster(client *redis.Client, addr string, advise func(addr string, err error) string, tracked bool,
	fullReadEvery time.Duration) Source {
	p := &poller{client: client, addr: addr, advise: advise, keyspace: newNotifier(client)}
	if tracked {
		p.track = newTracker(client, fullReadEvery)
	}
	return p
}

// NewCluster returns the Source of one Redis Cluster, shown as name. seeds are clients of some of its nodes;
// every node is dialled with the first one's settings, and those clients are closed by Close (the seeds stay
// the caller's).
func NewCluster(seeds []*redis.Client, name string) (Source, error) {
	if len(seeds) == 0 {
		return nil, errors.New("monitor: no cluster nodes")
	}
	p := &clusterPoller{addr: name, nodes: map[string]*poller{}, readers: map[string]*poller{}}
	for i, c := range seeds {
		if c == nil {
			return nil, fmt.Errorf("monitor: cluster node %d is nil", i)
		}
		p.seeds = append(p.seeds, c.Options())
	}
	return p, nil
}

// ReadWholeNext makes the master's next reading whole, where it is tracked.
func (p *poller) ReadWholeNext() {
	if p.track != nil {
		p.track.accepted.Store(0)
	}
}

// ReadWholeNext does nothing: a cluster is polled, its readings always whole.
func (p *clusterPoller) ReadWholeNext() {}

// Close closes the tracking and notification connections.
func (p *poller) Close() {
	if p.track != nil {
		p.track.close()
	}
	if p.keyspace != nil {
		p.keyspace.close()
	}
}

// Close closes the clients of the nodes; a read still running fails.
func (p *clusterPoller) Close() { p.close() }
