package monitor

import (
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
)

// NewCluster returns a Monitor of one Redis Cluster, watched as one lock service and shown as one master
// named name. seeds are clients of some of its nodes; the monitor dials every node with the first one's
// settings and closes those clients in Close (the seeds stay the caller's).
func NewCluster(seeds []*redis.Client, name string, cfg Config) (*Monitor, error) {
	p, err := reading.NewCluster(seeds, name)
	if err != nil {
		return nil, err
	}
	return newMonitor([]reading.Source{p}, cfg.WithDefaults()), nil
}

// Close closes the clients the monitor opened itself (a cluster's nodes, the tracking connections); the
// clients given to New and NewCluster stay the caller's.
func (m *Monitor) Close() error {
	for _, p := range m.pollers {
		p.Close()
	}
	return nil
}

// ClusterName is the name under which the dashboard shows a Redis Cluster given by some of its nodes:
// "cluster " and the first node's name.
func ClusterName(first string) string { return "cluster " + strings.TrimSpace(first) }
