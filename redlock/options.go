package redlock

import (
	"errors"
	"time"
)

// Clock tells the time. Validity arithmetic reads it, so tests can inject a
// clock they move by hand. Now must be monotonic in production (time.Now is).
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// Option configures a Client.
type Option func(*config)

type config struct {
	nodeTimeout   time.Duration
	driftFactor   float64
	retries       int
	retryDelayMin time.Duration
	retryDelayMax time.Duration
	maxExtensions int
	clock         Clock
	maxBatch      int
	fencing       bool
	fenceSuffix   string
	observers     []func(Action) // WithObserver's functions, in the order given
	checkEvery    time.Duration  // WithCheckInterval: 0 automatic, negative off
	noEvictions   bool           // WithoutEvictionCounts: keepers read no INFO stats
	// skipFenceRound, set only by tests, takes the largest counter of the
	// acquire round as the token without the fence round: unsafe, to show
	// that the tests catch it.
	skipFenceRound bool
	// pollOnly, set only by tests and benchmarks, makes Acquire wait the random retry delay alone between rounds,
	// without backing off nor listening for releases: the waiting of earlier versions, to compare with.
	pollOnly bool
}

func defaultConfig() config {
	return config{
		nodeTimeout:   50 * time.Millisecond,
		driftFactor:   DefaultDriftFactor,
		retries:       3,
		retryDelayMin: 50 * time.Millisecond,
		retryDelayMax: 250 * time.Millisecond,
		maxExtensions: 10,
		clock:         systemClock{},
		maxBatch:      512,
		fenceSuffix:   DefaultFenceSuffix,
	}
}

// configOf is the default configuration with opts applied, checked.
func configOf(opts []Option) (config, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	return cfg, cfg.validate()
}

func (c config) validate() error {
	switch {
	case c.nodeTimeout <= 0:
		return errors.New("redlock: node timeout must be positive")
	case c.driftFactor < 0 || c.driftFactor >= 1:
		return errors.New("redlock: drift factor must be in [0, 1)")
	case c.retries < 0:
		return errors.New("redlock: retries must not be negative")
	case c.retryDelayMin < 0 || c.retryDelayMax < c.retryDelayMin:
		return errors.New("redlock: retry delay needs 0 <= min <= max")
	case c.maxExtensions < 0:
		return errors.New("redlock: max extensions must not be negative")
	case c.clock == nil:
		return errors.New("redlock: clock must not be nil")
	case c.fenceSuffix == "":
		return errors.New("redlock: fence suffix must not be empty: the counter would be the lock's key")
	}
	return nil
}

// WithNodeTimeout sets how long one master may take to answer one command
// (default 50ms). It must be small next to the TTL, so that a dead or slow
// master costs a round little of its validity.
func WithNodeTimeout(d time.Duration) Option { return func(c *config) { c.nodeTimeout = d } }

// DefaultDriftFactor is the drift factor of a client built without
// WithDriftFactor: 1% of the TTL is kept back for clock drift.
const DefaultDriftFactor = 0.01

// WithDriftFactor sets the clock drift allowance as a fraction of the TTL
// (default DefaultDriftFactor); 2ms are always added on top of it (see
// DriftAllowance).
func WithDriftFactor(f float64) Option { return func(c *config) { c.driftFactor = f } }

// WithRetries sets how many more rounds Acquire tries after the first fails
// (default 3).
func WithRetries(n int) Option { return func(c *config) { c.retries = n } }

// WithRetryDelay sets the range of the random delay between Acquire rounds
// (default 50ms to 250ms). A random delay desynchronises competing clients.
func WithRetryDelay(min, max time.Duration) Option {
	return func(c *config) { c.retryDelayMin, c.retryDelayMax = min, max }
}

// WithMaxExtensions bounds how many times one lock may be extended (default
// 10). Unbounded extension would let a client keep a lock forever.
func WithMaxExtensions(n int) Option { return func(c *config) { c.maxExtensions = n } }

// WithCheckInterval sets how often a Keeper reads its lock's key on every
// master between extensions (Lock.Check), so that a lock deleted, evicted or
// taken over on a quorum is reported within about that time. By default it
// is a tenth of the lock's TTL, at most DefaultMaxCheckInterval: one GET per
// master per check. Zero or a negative interval turns checks off: a loss is
// then known only at the next extension, a third of the TTL before it lapses.
func WithCheckInterval(d time.Duration) Option {
	return func(c *config) {
		c.checkEvery = d
		if d == 0 {
			c.checkEvery = -1
		}
	}
}

// WithoutEvictionCounts keeps keepers from reading the masters' INFO stats, whose evicted_keys tell an
// eviction from a deletion when a lock is lost (LossEvicted): for masters that do not serve INFO stats as
// redis-server does (the demo's embedded masters). Losses by eviction are then told as deletions.
func WithoutEvictionCounts() Option { return func(c *config) { c.noEvictions = true } }

// WithClock sets the clock used for validity arithmetic (default the system's
// monotonic clock).
func WithClock(clk Clock) Option { return func(c *config) { c.clock = clk } }

// Action is what a client did with one of its locks, as WithObserver reports it: an acquisition (the last
// round of Acquire, or TryAcquire's), an extension or a release.
type Action struct {
	Op       Op // OpAcquire, OpExtend or OpRelease
	Resource string
	Token    string // "" for a failed acquisition
	Fence    uint64 // the lock's fencing token, 0 without WithFencing
	Round    Round  // the last round, with what each master did
	Err      error  // nil: acquired, extended or released
}

// WithObserver calls f after every acquisition, extension and release of the client's locks, on the caller's
// goroutine, for an event log, metrics or a debug log. A failed Acquire is reported once, after its last
// round. f must not block, nor use the client. Each WithObserver adds one; they are called in the order given.
func WithObserver(f func(Action)) Option {
	return func(c *config) {
		if f != nil {
			c.observers = append(c.observers, f)
		}
	}
}

// notify reports a to every observer.
func (c *config) notify(a Action) {
	for _, f := range c.observers {
		f(a)
	}
}
