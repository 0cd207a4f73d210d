package demo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest/testbed"
)

// MasterCount is how many embedded masters the demo runs: the page's N=5.
const MasterCount = 5

// MaxTTL is the longest lock TTL used by the workload and the scenarios. A
// delayed restart keeps a crashed master down a bit longer than this.
const MaxTTL = 2 * time.Second

// errClosed is returned by operations on a closed demo.
var errClosed = errors.New("demo: closed")

// maxViolations bounds the violations kept for Violations.
const maxViolations = 100

// Options configures Start. Zero fields take the defaults documented on each.
type Options struct {
	// Clients is the number of simulated clients (default 5, at most 50).
	Clients int
	// Resources is the number of named resources they contend for (default 3,
	// at most 50).
	Resources int
	// Rate scales the workload's speed: 2 makes holds and pauses twice as
	// short (default 1, kept within [MinRate, MaxRate]).
	Rate float64
	// Paused starts the workload paused; SetPaused(false) starts it.
	Paused bool
	// ScenarioPace is the pause between scenario steps, so that people can
	// follow them (default 300ms, at most MaxTTL/5 so that a holder's
	// validity outlasts the steps of its story).
	ScenarioPace time.Duration
	// PresenterTTL is the TTL of the scenarios' locks when they run in slow motion or step by step
	// (default DefaultPresenterTTL, at least MaxTTL): the time a presenter has from A's lock to B's.
	PresenterTTL time.Duration
	// NodeTimeout is how long a simulated client waits for one master in a round (default
	// DefaultNodeTimeout, at most MaxTTL/4). Tests that run many demos side by side on a busy machine
	// raise it, so that a starved client is not taken for a failed master.
	NodeTimeout time.Duration
}

// The bounds of the workload rate.
const (
	MinRate = 0.1
	MaxRate = 10
)

// Defaults applied by Start to zero Options fields.
const (
	DefaultClients      = 5
	DefaultResources    = 3
	DefaultScenarioPace = 300 * time.Millisecond
	// DefaultNodeTimeout is small next to the TTLs, yet above the round trip through the demo's two proxy
	// hops on a busy machine.
	DefaultNodeTimeout = 150 * time.Millisecond
)

// maxClientsOrResources bounds Options.Clients and Options.Resources.
const maxClientsOrResources = 50

// withDefaults checks o and fills in its zero fields.
func (o Options) withDefaults() (Options, error) {
	switch {
	case o.Clients < 0 || o.Clients > maxClientsOrResources:
		return o, fmt.Errorf("demo: %d clients: want 1 to %d", o.Clients, maxClientsOrResources)
	case o.Resources < 0 || o.Resources > maxClientsOrResources:
		return o, fmt.Errorf("demo: %d resources: want 1 to %d", o.Resources, maxClientsOrResources)
	case o.Rate < 0:
		return o, fmt.Errorf("demo: negative rate %v", o.Rate)
	case o.ScenarioPace < 0 || o.ScenarioPace > MaxTTL/5:
		return o, fmt.Errorf("demo: scenario pace %v: want 0 to %v", o.ScenarioPace, MaxTTL/5)
	case o.NodeTimeout < 0 || o.NodeTimeout > MaxTTL/4:
		return o, fmt.Errorf("demo: node timeout %v: want 0 to %v", o.NodeTimeout, MaxTTL/4)
	case o.PresenterTTL != 0 && o.PresenterTTL < MaxTTL:
		return o, fmt.Errorf("demo: presenter TTL %v: want at least %v", o.PresenterTTL, MaxTTL)
	}
	if o.PresenterTTL == 0 {
		o.PresenterTTL = DefaultPresenterTTL
	}
	if o.Clients == 0 {
		o.Clients = DefaultClients
	}
	if o.Resources == 0 {
		o.Resources = DefaultResources
	}
	if o.Rate == 0 {
		o.Rate = 1
	}
	o.Rate = clampRate(o.Rate)
	if o.ScenarioPace == 0 {
		o.ScenarioPace = DefaultScenarioPace
	}
	if o.NodeTimeout == 0 {
		o.NodeTimeout = DefaultNodeTimeout
	}
	return o, nil
}

// clampRate keeps a workload rate within [MinRate, MaxRate].
func clampRate(r float64) float64 {
	return min(max(r, MinRate), MaxRate)
}

// resourceNames are the workload's resources, in the order they are used.
var resourceNames = []string{
	"billing:nightly", "reports:daily", "cache:rebuild", "email:digest", "search:reindex",
	"backup:snapshot", "invoices:sync", "metrics:rollup",
}

// resourceName names the i-th workload resource.
func resourceName(i int) string {
	if i < len(resourceNames) {
		return resourceNames[i]
	}
	return fmt.Sprintf("jobs:batch-%d", i+1)
}

// Demo is a running demo: the embedded masters, the workload, the fault
// controls and the violation detector. Its methods are safe for concurrent
// use. Close it to stop everything.
//
// Methods number masters and clients from 0, in the order of Addrs and
// Clients; texts for people number masters from 1, as the page does.
type Demo struct {
	opts      Options
	resources []string
	masters   []*testbed.Embedded
	net       []*testbed.Proxy // the workload's path to each master
	clients   []*simClient
	log       *eventLog

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // workload clients and delayed restarts

	mu         sync.Mutex
	paused     bool
	resumed    chan struct{} // closed when the workload is resumed
	rate       float64
	faults     []masterFaults
	det        *detector
	violations []Violation
	nextID     int
	storyFrom  uint64    // seq of the first step of the latest scenario run
	step       *stepGate // the stepped scenario run's gate, nil when none runs

	scenario  sync.Mutex // one scenario at a time
	closeOnce sync.Once
}

// Start starts the five masters and the workload. The workload runs at once
// unless Options.Paused is set.
func Start(opts Options) (*Demo, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	masters, err := testbed.StartEmbeddedCluster(MasterCount)
	if err != nil {
		return nil, fmt.Errorf("demo: start masters: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &Demo{
		opts:    opts,
		masters: masters,
		log:     newEventLog(),
		ctx:     ctx,
		cancel:  cancel,
		paused:  opts.Paused,
		resumed: make(chan struct{}),
		rate:    opts.Rate,
		faults:  make([]masterFaults, MasterCount),
		det:     newDetector(),
	}
	if !opts.Paused {
		close(d.resumed)
	}
	for i := range opts.Resources {
		d.resources = append(d.resources, resourceName(i))
	}
	for i, m := range masters {
		p, err := testbed.NewProxy(m.Addr())
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("demo: network to master %d: %w", i+1, err)
		}
		d.net = append(d.net, p)
		d.faults[i].clockRate = 1
	}
	for i := range opts.Clients {
		c, err := newSimClient(d, fmt.Sprintf("client-%d", i+1), d.proxyAddrs())
		if err != nil {
			d.Close()
			return nil, err
		}
		d.clients = append(d.clients, c)
	}
	for _, c := range d.clients {
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			c.run(ctx)
		}()
	}
	return d, nil
}

// proxyAddrs are the addresses the workload dials, one per master.
func (d *Demo) proxyAddrs() []string {
	addrs := make([]string, len(d.net))
	for i, p := range d.net {
		addrs[i] = p.Addr()
	}
	return addrs
}

// Close stops the workload, any running scenario and delayed restart, and
// the masters, and closes the Events channel. It returns when every
// goroutine the demo started has ended. It is idempotent.
func (d *Demo) Close() error {
	var errs []error
	d.closeOnce.Do(func() {
		d.mu.Lock() // RestartMaster adds to wg only before this
		d.cancel()
		d.mu.Unlock()
		d.wg.Wait()
		d.scenario.Lock() // waits for a running scenario to clean up
		defer d.scenario.Unlock()
		for _, c := range d.clients {
			c.close()
		}
		for _, p := range d.net {
			errs = append(errs, p.Close())
		}
		for _, m := range d.masters {
			errs = append(errs, m.Close())
		}
		d.log.close()
	})
	return errors.Join(errs...)
}

// Addrs returns the masters' "127.0.0.1:PORT" addresses, in master order.
// They stay the same across restarts; `redis-cli -p PORT` works against them.
// Dialled directly, they are not behind the latency and partition faults,
// which apply between the simulated clients and the masters.
func (d *Demo) Addrs() []string {
	addrs := make([]string, len(d.masters))
	for i, m := range d.masters {
		addrs[i] = m.Addr()
	}
	return addrs
}

// NewClients returns new go-redis clients for the masters, in master order,
// for the monitor and the dashboard's own Redlock client. They dial Addrs
// (see there which faults they see). The caller closes them.
func (d *Demo) NewClients() []*redis.Client {
	cs := make([]*redis.Client, len(d.masters))
	for i, m := range d.masters {
		cs[i] = m.NewClient()
	}
	return cs
}

// Clients returns the simulated clients' names, in the order PauseClient
// numbers them.
func (d *Demo) Clients() []string {
	names := make([]string, len(d.clients))
	for i, c := range d.clients {
		names[i] = c.name
	}
	return names
}

// Resources returns the workload's resource names.
func (d *Demo) Resources() []string {
	return append([]string(nil), d.resources...)
}

// Events returns a new channel of its own that gets every event, in order:
// the ones logged so far and every later one, so that each reader (the
// screen, the event stream, the metrics) sees all of them. It holds the last
// 256 events: when its reader falls behind, the oldest are dropped. It is
// closed by Close. Call it once per reader and keep the channel.
func (d *Demo) Events() <-chan Event {
	return d.log.subscribe()
}

// SetPaused pauses or resumes the workload. Paused clients finish what they
// hold and then wait; the masters and scenarios keep running.
func (d *Demo) SetPaused(paused bool) {
	d.mu.Lock()
	if paused == d.paused {
		d.mu.Unlock()
		return
	}
	d.paused = paused
	if paused {
		d.resumed = make(chan struct{})
	} else {
		close(d.resumed)
	}
	d.mu.Unlock()
	text := "workload resumed"
	if paused {
		text = "workload paused: clients finish what they hold, then wait"
	}
	d.emit(Event{Kind: EventWorkload, Master: -1, Text: text})
}

// Paused reports whether the workload is paused.
func (d *Demo) Paused() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.paused
}

// SetRate sets the workload's speed: 1 is the normal pace, 2 twice as fast.
// It is kept within [MinRate, MaxRate] and returns the rate now in use. Lock
// TTLs do not change with the rate.
func (d *Demo) SetRate(rate float64) float64 {
	if rate != rate { // NaN
		rate = 1
	}
	rate = clampRate(rate)
	d.mu.Lock()
	d.rate = rate
	d.mu.Unlock()
	d.emit(Event{Kind: EventWorkload, Master: -1, Text: fmt.Sprintf("workload rate set to %.2g×", rate)})
	return rate
}

// Rate returns the workload's speed.
func (d *Demo) Rate() float64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rate
}

// Beliefs returns what every client currently believes it holds, ordered by
// resource and then by when the belief began. A belief whose Until has passed
// is a client that has not noticed yet, or is frozen (Paused).
func (d *Demo) Beliefs() []Belief {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.det.current()
}

// Violations returns the violations found so far, oldest first (the last
// 100).
func (d *Demo) Violations() []Violation {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]Violation(nil), d.violations...)
}

// emit logs an event.
func (d *Demo) emit(e Event) Event {
	return d.log.add(e)
}

// believe records that client holds lock l on resource from now until the
// end of its validity.
func (d *Demo) believe(client, resource string, l *redlock.Lock) {
	now := time.Now()
	d.mu.Lock()
	d.det.prune(now)
	vs := d.det.begin(Belief{Client: client, Resource: resource, Token: l.Token(), Since: now,
		Until: now.Add(l.Validity()), Fence: l.Fence()})
	d.mu.Unlock()
	d.raise(vs)
}

// extendBelief records that a client's lock now stays valid for validity.
func (d *Demo) extendBelief(token string, validity time.Duration) {
	d.mu.Lock()
	vs := d.det.extend(token, time.Now().Add(validity))
	d.mu.Unlock()
	d.raise(vs)
}

// wrote records a write under token and logs it with text.
func (d *Demo) wrote(client, resource, token, text string) {
	now := time.Now()
	d.mu.Lock()
	vs := d.det.wrote(token, now)
	d.mu.Unlock()
	d.emit(Event{Time: now, Kind: EventWrite, Client: client, Resource: resource, Token: token, Master: -1, Text: text})
	d.raise(vs)
}

// fencedWrite has the holder of lock l write value to store with the lock's
// fencing token, and logs what the store did: accepted the write, or refused
// it because it accepted a higher token already, which is a stale write
// stopped rather than a violation.
func (d *Demo) fencedWrite(client, resource string, l *redlock.Lock, store *testbed.FencedStore, value string) {
	err := store.Write(l.Fence(), value)
	now := time.Now()
	d.mu.Lock()
	vs := d.det.fencedWrite(l.Token(), now, err == nil)
	d.mu.Unlock()
	e := Event{Time: now, Kind: EventWrite, Client: client, Resource: resource, Token: l.Token(), Master: -1,
		Text: fmt.Sprintf("%s writes %s with fencing token %d: the store accepts it", client, resource, l.Fence())}
	if stale, ok := errors.AsType[*testbed.StaleTokenError](err); ok {
		e.Kind = EventWriteRefused
		e.Text = fmt.Sprintf("the store refuses %s's write to %s with fencing token %d: it accepted token %d "+
			"already (a stale write stopped: safe)", client, resource, stale.Token, stale.Highest)
	}
	d.emit(e)
	d.raise(vs)
}

// RefusedWrites returns how many stale writes the demo's fenced stores
// refused: writes that would have broken exclusion without fencing.
func (d *Demo) RefusedWrites() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.det.refused
}

// stopBelieving records that the holder of token no longer believes it holds
// the lock.
func (d *Demo) stopBelieving(token string) {
	d.mu.Lock()
	d.det.stop(token, time.Now())
	d.mu.Unlock()
}

// setBeliefPaused records that the holder of token froze or runs again.
func (d *Demo) setBeliefPaused(token string, paused bool) {
	d.mu.Lock()
	d.det.setPaused(token, paused)
	d.mu.Unlock()
}

// raise numbers, keeps and logs violations found by the detector. A
// violation is kept before its event is sent, so that a reader who sees the
// event finds it in Violations.
func (d *Demo) raise(vs []Violation) {
	for _, v := range vs {
		var from uint64
		if v.Resource == ScenarioResource {
			d.mu.Lock()
			from = d.storyFrom
			d.mu.Unlock()
		}
		v.Events = d.log.leadUp(v.Resource, leadUpLen, from)
		v.Time = time.Now()
		d.mu.Lock()
		d.nextID++
		v.ID = d.nextID
		d.violations = append(d.violations, v)
		if len(d.violations) > maxViolations {
			d.violations = d.violations[len(d.violations)-maxViolations:]
		}
		d.mu.Unlock()
		d.emit(Event{Time: v.Time, Kind: EventViolation, Resource: v.Resource, Client: v.Second.Client,
			Token: v.Second.Token, Master: -1, Text: "VIOLATION: " + v.Text})
	}
}

// waitRunning waits while the workload is paused. It returns the workload
// rate, and false when ctx ended.
func (d *Demo) waitRunning(ctx context.Context) (float64, bool) {
	d.mu.Lock()
	resumed := d.resumed
	d.mu.Unlock()
	select {
	case <-resumed:
	case <-ctx.Done():
		return 0, false
	}
	return d.Rate(), true
}

// sleep waits d or until ctx ends; it reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
