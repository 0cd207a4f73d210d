// Package monitor polls N independent Redis masters, reads every lock key they hold and computes, per resource,
// who holds the Redlock lock, how long it stays valid and what is wrong with the masters (quorum, replicas,
// restarts, clocks). Polling produces raw per-master Readings; the pure function Aggregate turns them, with the
// previous Snapshot, into the next immutable Snapshot.
package monitor

import "time"

// Config tunes polling and aggregation. Zero fields take the defaults documented on each field.
type Config struct {
	Pattern     string        // SCAN MATCH pattern, default "*"
	ScanCount   int           // SCAN COUNT, default 1000
	MaxKeys     int           // max lock keys tracked per master, default 100000; beyond: Snapshot.Truncated
	MaxValueLen int           // tokens longer than this are cut, default 256
	Interval    time.Duration // poll interval, default 500ms
	Timeout     time.Duration // per-master deadline for one poll, default 1s
	DriftFactor float64       // as the Redlock client's, default 0.01; used for validity and clock warnings
	MaxEvents   int           // events kept in Snapshot.Events (most recent), default 500
}

// Config defaults, applied by WithDefaults to zero fields.
const (
	DefaultPattern     = "*"
	DefaultScanCount   = 1000
	DefaultMaxKeys     = 100000
	DefaultMaxValueLen = 256
	DefaultInterval    = 500 * time.Millisecond
	DefaultTimeout     = time.Second
	DefaultDriftFactor = 0.01
	DefaultMaxEvents   = 500
)

// WithDefaults returns c with every zero (or negative) field replaced by its default.
func (c Config) WithDefaults() Config {
	if c.Pattern == "" {
		c.Pattern = DefaultPattern
	}
	if c.ScanCount <= 0 {
		c.ScanCount = DefaultScanCount
	}
	if c.MaxKeys <= 0 {
		c.MaxKeys = DefaultMaxKeys
	}
	if c.MaxValueLen <= 0 {
		c.MaxValueLen = DefaultMaxValueLen
	}
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.DriftFactor <= 0 {
		c.DriftFactor = DefaultDriftFactor
	}
	if c.MaxEvents <= 0 {
		c.MaxEvents = DefaultMaxEvents
	}
	return c
}

// LockState classifies a resource by how its tokens are spread over the masters.
type LockState string

// Lock states.
const (
	StateHeld    LockState = "held"    // a token is on at least quorum masters
	StatePartial LockState = "partial" // tokens present, no holder, all the same token
	StateSplit   LockState = "split"   // two or more tokens, no holder
	StateLost    LockState = "lost"    // a lock registered as ours that no longer has a quorum
)

// Snapshot is the state of all masters and locks after one poll. It is immutable once handed out: its slices
// are never modified by later polls.
type Snapshot struct {
	Seq       uint64
	Time      time.Time      // when the poll finished (local clock)
	Quorum    int            // N/2+1
	UpCount   int            // masters that answered
	Masters   []MasterStatus // in the order given
	Locks     []LockView     // sorted by Resource
	Warnings  []Warning      // current conditions (recomputed each snapshot)
	Events    []Event        // most recent last, at most Config.MaxEvents, carried across snapshots
	Truncated bool           // some master had more than MaxKeys matching keys
	NotLocks  int            // keys matched but not locks (other types, no TTL), summed over masters

	maxTTL time.Duration // longest lock TTL ever seen, for the restart and clock warnings
}

// MasterStatus is the health of one master as of the snapshot.
type MasterStatus struct {
	Addr             string
	Up               bool
	Err              string        // error text when down
	RTT              time.Duration // last
	RTTSmoothed      time.Duration // EWMA
	ClockKnown       bool          // ClockOffset was measured (TIME answered) in this or an earlier poll
	ClockOffset      time.Duration // server TIME - midpoint(send, receive)
	ClockUncertainty time.Duration // RTT/2
	DriftPPM         float64       // offset change rate across polls, ppm
	DriftKnown       bool
	Role             string        // "master", "slave", or "unknown"
	Version          string        // "" unknown
	RunID            string        // "" unknown
	Uptime           time.Duration // -1 unknown
	Replicas         int           // connected replicas, -1 unknown
	LastRestart      time.Time     // zero if none seen
	Keys             int           // lock keys seen on this master
	Incomplete       bool          // the last poll's scan ran out of time (Config.Timeout) before the end
	Warnings         []string      // per-master warnings (replica, restarted recently, clock)

	hist masterHistory
}

// MasterLock is what one master holds for one resource.
type MasterLock struct {
	Down    bool          // master down: nothing known
	Present bool          // a key exists there
	Token   string        // value (capped to MaxValueLen), "" if absent
	PTTL    time.Duration // remaining TTL there, as read
}

// LockView is one resource across all masters.
type LockView struct {
	Resource   string
	State      LockState
	Holder     string        // token present on >= quorum masters, "" if none
	Count      int           // masters with the holder's token, or with the most common token when no holder
	Masters    []MasterLock  // aligned with Snapshot.Masters
	Validity   time.Duration // held: time until the holder drops below quorum, corrected for read time, less drift allowance; 0 otherwise
	TTLSpread  time.Duration // spread of the holder's (or most common token's) expiries across masters
	Foreign    bool          // held, but another token is present on some master
	Mine       bool          // token registered as ours
	HeldSince  time.Time     // when the current holder's token was first seen
	Changes    int           // holder changes seen
	LastChange time.Time     // when the last holder change was seen

	hist lockHistory
}

// EventKind names what happened in an Event.
type EventKind string

// Event kinds.
const (
	EventLockAppeared    EventKind = "lock-appeared"
	EventHolderChanged   EventKind = "holder-changed"
	EventLockReleased    EventKind = "lock-released"
	EventLockSplit       EventKind = "lock-split"
	EventLockLost        EventKind = "lock-lost"
	EventMasterDown      EventKind = "master-down"
	EventMasterUp        EventKind = "master-up"
	EventMasterRestarted EventKind = "master-restarted"
	EventClockWarning    EventKind = "clock-warning"
)

// Event is a change seen between two snapshots.
type Event struct {
	Time     time.Time
	Kind     EventKind
	Resource string // "" for master events
	Master   string // "" for lock events
	Text     string
}

// Severity ranks a Warning.
type Severity int

// Severities.
const (
	SeverityWarning Severity = iota // something the operator should look at
	SeverityError                   // locking is unsafe or impossible
)

// String returns "warning" or "error".
func (s Severity) String() string {
	if s == SeverityError {
		return "error"
	}
	return "warning"
}

// Warning is a condition that holds in this snapshot.
type Warning struct {
	Severity Severity
	Kind     string // see the Warn* constants
	Master   string // "" when about the whole set
	Text     string
}

// Warning kinds.
const (
	WarnQuorumDown    = "quorum-down"    // fewer than quorum masters up
	WarnMasterDown    = "master-down"    // one master does not answer
	WarnDuplicate     = "duplicate"      // two addresses are the same server (same run_id)
	WarnReplica       = "replica"        // a master is a replica
	WarnHasReplicas   = "has-replicas"   // a master has replicas
	WarnRestart       = "restart"        // a master restarted less than the longest TTL seen ago
	WarnMasterCount   = "master-count"   // fewer than 3 or an even number of masters
	WarnClockOffset   = "clock-offset"   // clock offset large compared with the drift allowance
	WarnClockDrift    = "clock-drift"    // clock rate off by more than the drift factor allows
	WarnTruncated     = "truncated"      // more than MaxKeys lock keys on a master
	WarnIncomplete    = "incomplete"     // a master's scan ran out of time
	WarnLockLost      = "lock-lost"      // one of our locks lost its quorum
	WarnForeignTokens = "foreign-tokens" // a held lock has another token on some master
)

// String renders the warning as one line, e.g. "error: 127.0.0.1:6379: ...".
func (w Warning) String() string {
	if w.Master != "" {
		return w.Severity.String() + ": " + w.Master + ": " + w.Text
	}
	return w.Severity.String() + ": " + w.Text
}
