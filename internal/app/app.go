// Package app wires redlock-tui's parts for one run of the program: the masters (the ones given, or the
// embedded demo's), the monitor that polls them, the Redlock client that writes to them, the debug log, and
// the feed that hands every event to every output (the JSON event stream, the metrics exporter). The command
// line (internal/cli) opens an App, adds what its mode needs, runs the mode over it and closes it.
package app

import (
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/demo"
	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/record"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// Master is one master to talk to, ready to dial.
type Master struct {
	Name    string         // for the screen: host:port, with rediss:// and /db when they apply; never a password
	Options *redis.Options // complete client options: address, credentials, TLS and timeouts
	// Sentinel, when set, names the master through its Sentinels (redis+sentinel://): Options then hold the
	// settings for whichever server they name as its primary, and the name is "mymaster@host:26379".
	Sentinel *redlock.Sentinel
}

// Config is what Open needs.
type Config struct {
	Masters []Master     // in the order given; none: the embedded demo masters
	Cluster bool         // --cluster: the masters are nodes of one Redis Cluster (detected anyway when all are)
	Demo    demo.Options // the demo, when Masters is empty
	Debug   string       // --debug: the file to append the debug log to, "" none
}

// App is one run's masters and what was built over them. Its fields are set by Open and the methods that add
// parts; Close closes everything.
type App struct {
	Clients []*redis.Client    // one client per master, in order
	Names   []string           // the masters' names, aligned with Clients
	Cluster string             // the masters are one Redis Cluster's nodes: its name, the one master watched; "" none
	Demo    *demo.Demo         // the embedded masters and their workload; nil with masters given
	Monitor *monitor.Monitor   // set by Watch
	Own     *monitor.Ownership // our locks, which the monitor reads; set by Watch
	Locker  *redlock.Client    // set by Lock; nil in read-only mode
	Feed    *Feed              // set by Publish; nil without outputs

	debug       *debugLog
	driftFactor float64                // the monitor's, for the metrics' clock allowance; set by Watch
	recorded    monitor.RecordedConfig // the monitor's, for a recording's header; set by Watch
	closers     []func()               // in the order opened; Close runs them backwards
}

// Open starts the debug log, then creates a client per master, or starts the demo's embedded masters when
// none are given, and asks the masters given whether they are a Redis Cluster's nodes (see TopologyError).
// An unreachable master is not an error here, the monitor shows it down.
func Open(cfg Config) (*App, error) {
	a := &App{}
	dbg, err := openDebug(cfg.Debug)
	if err != nil {
		return nil, err
	}
	a.debug = dbg
	a.closers = append(a.closers, dbg.close)
	if len(cfg.Masters) == 0 {
		d, err := demo.Start(cfg.Demo)
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("starting the embedded demo masters: %w", err)
		}
		a.Demo, a.Clients, a.Names = d, d.NewClients(), d.Addrs()
		a.closers = append(a.closers, func() { _ = d.Close() })
	} else {
		for _, m := range cfg.Masters {
			c, err := newClient(m)
			if err != nil {
				closeClients(a.Clients)
				a.Close()
				return nil, err
			}
			a.Clients = append(a.Clients, c)
			a.Names = append(a.Names, m.Name)
		}
	}
	a.closers = append(a.closers, func() { closeClients(a.Clients) })
	if len(cfg.Masters) > 0 {
		if err := a.detectCluster(cfg.Cluster); err != nil {
			a.Close()
			return nil, err
		}
	}
	return a, nil
}

// Watch creates the monitor of the masters (of the cluster, as one master, when they are one Redis Cluster's
// nodes), reading our locks from a new register (App.Own) and logging every poll to the debug log.
func (a *App) Watch(cfg monitor.Config) (*monitor.Monitor, error) {
	own := monitor.NewOwnership()
	cfg.Owner = own
	newMonitor := func() (*monitor.Monitor, error) { return monitor.New(a.Clients, a.Names, cfg) }
	if a.Cluster != "" {
		newMonitor = func() (*monitor.Monitor, error) { return a.watchCluster(cfg) }
	}
	mon, err := newMonitor()
	if err != nil {
		return nil, err
	}
	mon.Observe(own.Settle)
	if a.debug != nil {
		mon.Observe(a.debug.poll)
	}
	a.Monitor, a.Own, a.driftFactor, a.recorded = mon, own, cfg.DriftFactor, cfg.Recorded()
	return mon, nil
}

// Lock creates the Redlock client over the masters (over the cluster, as one lock service, when they are one
// Redis Cluster's nodes) with opts and the debug log's observer: every round is logged.
func (a *App) Lock(opts ...redlock.Option) (*redlock.Client, error) {
	opts = append(opts, a.debug.observer())
	newClient := redlock.New
	if a.Cluster != "" {
		newClient = redlock.NewCluster
	}
	l, err := newClient(a.Clients, opts...)
	if err != nil {
		return nil, err
	}
	a.Locker = l
	a.closers = append(a.closers, l.Close)
	return l, nil
}

// Publish starts the outputs: the feed observes the monitor (Watch must have run) and the demo, and writes to
// them. A failure leaves nothing running.
func (a *App) Publish(out Outputs) error {
	if a.Monitor == nil {
		return errors.New("app: Publish before Watch")
	}
	f, err := startFeed(out, a.Monitor, a.Demo, a.driftFactor, record.Header{Masters: a.Names, Config: a.recorded})
	if err != nil {
		return err
	}
	a.Feed = f
	a.closers = append(a.closers, f.close)
	return nil
}

// Close closes what was opened, newest first: the Redlock client, the outputs, the clients, the demo, the
// debug log. It returns every write error that stopped an output while the program ran (Feed.Failures), or nil.
func (a *App) Close() error {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
	a.closers = nil
	if a.Feed != nil {
		return a.Feed.Failures()
	}
	return nil
}
