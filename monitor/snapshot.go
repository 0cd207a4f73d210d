// Package monitor polls N independent Redis masters, reads every lock key they hold and computes, per resource,
// who holds the Redlock lock, how long it stays valid and what is wrong with the masters (quorum, replicas,
// restarts, clocks). Polling produces raw per-master Readings; the pure function Aggregate turns them, with the
// previous Snapshot, into the next immutable Snapshot.
//
// # Alarms are confirmed by the next poll
//
// A poll is not an instant: it reads each master in turn of its own round trip, and a release sends its DELs
// to the masters one after the other (0.5 ms apart on a quiet machine, up to 18 ms under load). A poll whose
// reads straddle those DELs sees the holder's key gone on some masters and alive on others, exactly as a real
// loss of quorum looks; an acquisition in flight likewise shows two tokens and no holder. So the alarms (a
// quorum lost while the key lives on, a split, one of our locks on no quorum) are raised only when two polls
// in a row show them: the first shows the lock as StateUnconfirmed, without an event or an error, and the
// next confirms it or shows what it was (released, taken over). A release finishes within one node timeout;
// a real loss lasts until the keys' TTL, so it is still there one interval later. We chose this over
// re-reading the key at once after a settle time because it needs no extra I/O, keeps the rule in the pure
// Aggregate, and cannot be fooled by a release slower than the settle time; it costs one poll interval of
// delay on a real alarm (measured by TestGroundTruthFaults: 98 ms at a 100 ms poll, 510 ms at 500 ms), and in
// 60 s runs of about 9 releases a second it took the false alarms from 4 (100 ms) and 3 (500 ms) to none.
//
// A poll is also not one time: a read is only as current as when it was made. A key whose PTTL, counted from
// its read, has run out by the snapshot's time is gone; a read made in a round trip longer than an interval and
// far longer than its key's other reads (a master answering late, out of a pause), whose time is known only to
// within half of it, makes the cell unknown, keeping the value last seen. And a lost quorum is
// judged against the last decided state, so a master back without a key it held takes it from the count.
//
// # Reading the code
//
// The package is the aggregator and the Monitor that drives it; its subpackages hold the rest: reading
// (monitor/internal/reading) reads the masters and hands back a Reading per master, the contract between
// the I/O and Aggregate; lockshape tells lock keys and client families by their shapes; holds keeps each
// lock's holders over the window and their contention figures. Each file, by layer:
//
// The Monitor and the public names:
//   - monitor.go: the Monitor, its polls, the fan-out of the reads and the snapshots it hands out.
//   - clustermonitor.go: NewCluster (a Redis Cluster as one master), Close, ClusterName.
//   - pollnow.go: PollNow, a poll ahead of the interval.
//   - refresh.go: the keys the next poll re-reads (and their fence counters).
//   - recording.go: Poll and ObservePolls for recordings, RecordedConfig for their replay.
//   - reading.go, lockshapes.go, holdlogs.go: the subpackages' public types under monitor's names.
//
// The aggregator, run by Aggregate one step a file:
//   - snapshot.go: Config and the read model: Snapshot, MasterStatus, LockView, Event, Warning.
//   - carried.go: what Aggregate carries from poll to poll beside the read model.
//   - aggregate.go: Aggregate, the steps of one poll.
//   - master.go: a master's status from its reading.
//   - health.go: its health, one state moved by health.next.
//   - clock.go: clock offset and drift, and how they are judged; clockstep.go: a clock that jumps.
//   - failover.go: a primary's failover and its replication race, replicas named with their primary, a
//     Sentinel given as a master.
//   - removals.go: keys evicted or flushed, told from released.
//   - cells.go: what each read says of each key.
//   - lockstate.go: quorum, split, validity: a lock's state in one poll, and LeadToken.
//   - holders.go: sorted-set locks: their holders and each holder's quorum.
//   - conventions.go: the resource a client's key convention names, ResourceText.
//   - locks.go: the walk over resources that builds the locks.
//   - changes.go: a poll with changes builds only the locks that changed.
//   - quiet.go: a poll with nothing new reuses the snapshot before.
//   - history.go: a lock's move from the last snapshot, as events.
//   - alarms.go: the alarms and their confirmation by the next poll.
//   - handover.go: how a holder's keys went, master by master, and the judgement of a change of holder
//     (released, expired, overwritten, or not told); an eviction on some masters told at once.
//   - contended.go: tokens contending with no quorum known (an undecided lock), a warning.
//   - fence.go: fence counters, and a counter gone back.
//   - holdtrack.go: the hold logs' move from poll to poll, and their trouble spans.
//   - contention.go: a snapshot's hold logs and their contention figures; handovers.go: Handovers.
//   - owner.go: our locks (Owner, OwnLock), Snapshot.Lock and Shows.
//   - waiters.go: Redisson's waiters counted per lock.
//   - clusterstate.go: a cluster's primaries' statuses, warnings and events.
//   - warnings.go: what is wrong now, computed without changing the snapshot.
//   - deployment.go: what the masters' ACLs, missing script commands and keys left out cost.
//   - refreshmode.go: a master polled rather than tracked, and the invalidation storm's warning.
//   - since.go: the events and warnings new since the last snapshot.
//   - pttl.go: PTTLAt, a cell's TTL as of now.
//
// Words for people and programs (monitor/vocab holds durations, clock rates and quoted names; monitor/render
// writes a snapshot: the JSON schema and the tables, the Markdown report, holders and contention):
//   - words.go: the words of the monitor's own types: master and lock states, severities, overall health.
//   - holderlist.go: a lock's holders as a list, for the screens and the writers.
//   - strip.go: a lock's timeline as cells.
//   - valuetime.go: a lock's value read as a time, in words.
package monitor

import (
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/holds"
	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
	"github.com/redlock-tui/redlock-tui/redlock"
)

// Config tunes polling and aggregation. Zero fields take the defaults documented on each field.
type Config struct {
	Pattern     string        // SCAN MATCH pattern, default "*"; another pattern also shows keys without a TTL
	ScanCount   int           // SCAN COUNT of one discovery step, default 100
	ScanBudget  float64       // share of one master core discovery may use, default 0.03 (3%)
	MaxKeys     int           // distinct lock keys tracked, default 100000; beyond: Snapshot.Truncated
	MaxValueLen int           // tokens longer than this are cut (and marked with their length and digest, longvalues.go), default 256
	Interval    time.Duration // poll interval, default 500ms
	Timeout     time.Duration // per-master deadline for one poll, default 1s
	DownAfter   int           // polls a master may miss before it is declared down, default 3
	DriftFactor float64       // as the Redlock client's, default 0.01; used for validity and clock warnings
	MaxEvents   int           // events kept in Snapshot.Events (most recent), default 500
	FenceSuffix string        // names a resource's fence counter (redlock.WithFenceSuffix), default ":fence"
	Writes      bool          // the program also writes (acquire, extend, release): check the ACL allows that too
	// Permits are the limits of semaphores, by key ("semaphore:pool"): redis-semaphore does not store its
	// limit, so "2 of 3 permits" needs it from the user; without it a semaphore shows "2 holders".
	Permits map[string]int
	// Advise, when set, says what the user can do about a master's error (a password to give, TLS to use); its
	// answer is added to the error's text. The monitor knows no flags; the program that has them does.
	Advise func(addr string, err error) string
	// Owner says which locks this process holds and which tokens it is force-deleting, read at the start of
	// every poll; nil: none (a watcher that writes nothing).
	Owner Owner
	// History is how long each lock's holders are kept (LockView.History), default 15m, and MaxIntervals how
	// many of them at most per lock, default 256: the memory bound of a lock that changes hands very often.
	History      time.Duration
	MaxIntervals int
	// NoTracking makes every master polled: all known keys read on every poll. By default a master that allows
	// it (Redis 6 or later, CLIENT TRACKING and SUBSCRIBE permitted) has only the keys it says changed read
	// again, and all of them every FullReadEvery (default DefaultFullReadEvery) as a safety net (reading's tracking.go).
	NoTracking    bool
	FullReadEvery time.Duration
}

// Config defaults, applied by WithDefaults to zero fields.
const (
	DefaultPattern     = reading.DefaultPattern
	DefaultScanCount   = 100
	DefaultScanBudget  = 0.03
	DefaultMaxKeys     = 100000
	DefaultMaxValueLen = 256
	DefaultInterval    = 500 * time.Millisecond
	MinInterval        = 100 * time.Millisecond // the shortest poll interval the program offers
	MaxInterval        = 30 * time.Second       // the longest poll interval the program offers
	DefaultTimeout     = time.Second
	DefaultDownAfter   = 3
	DefaultDriftFactor = redlock.DefaultDriftFactor
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
	if c.ScanBudget <= 0 {
		c.ScanBudget = DefaultScanBudget
	}
	c.ScanBudget = min(c.ScanBudget, 1)
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
	if c.DownAfter <= 0 {
		c.DownAfter = DefaultDownAfter
	}
	if c.DriftFactor <= 0 {
		c.DriftFactor = DefaultDriftFactor
	}
	if c.MaxEvents <= 0 {
		c.MaxEvents = DefaultMaxEvents
	}
	if c.History <= 0 {
		c.History = DefaultHistory
	}
	if c.MaxIntervals <= 0 {
		c.MaxIntervals = DefaultMaxIntervals
	}
	c.MaxIntervals = max(c.MaxIntervals, holds.ChunkLen)
	if c.FenceSuffix == "" {
		c.FenceSuffix = DefaultFenceSuffix
	}
	if c.FullReadEvery <= 0 {
		c.FullReadEvery = DefaultFullReadEvery
	}
	return c
}

// LockState classifies a resource by how its tokens are spread over the masters.
type LockState string

// Lock states.
const (
	StateHeld    LockState = "held"    // a token is on at least quorum masters, with validity left
	StatePartial LockState = "partial" // tokens present, no holder, all the same token
	StateSplit   LockState = "split"   // two or more tokens, no holder
	StateLost    LockState = "lost"    // a lock registered as ours that no longer has a quorum
	StateStuck   LockState = "stuck"   // the leading token has no TTL on some master: it never expires there
	StateUnknown LockState = "unknown" // too few masters answered to decide whether it is held
	// StateUnconfirmed is an alarm (the holder below quorum while its key lives on, two tokens and no holder,
	// our lock without a quorum) seen by one poll only: a release or an acquisition in flight looks the same
	// to reads that straddle its commands. The next poll confirms it or shows what it was.
	StateUnconfirmed LockState = "unconfirmed"
	// StateFree is a lock that had holders in the window (Config.History) and now has no key on any master
	// that answered, with too few masters not read to hold it: nobody holds it. It stays listed, with its
	// hold log, until its last interval leaves the window, so that its contention does not vanish between
	// two holders. Its cells on masters that did not answer are unknown, never absent; with enough of them
	// to hold it, it is StateUnknown (LockView.Free says it is still such a lock). Not held, and no alarm.
	StateFree LockState = "free"
)

// Snapshot is the state of all masters and locks after one poll. It is immutable once handed out: its slices
// are never modified by later polls.
type Snapshot struct {
	Seq       uint64
	Time      time.Time      // when the poll finished (local clock)
	Quorum    int            // N/2+1
	UpCount   int            // distinct servers that answered (two addresses of one server count once)
	Servers   int            // distinct servers among the masters, as far as run_id tells
	Masters   []MasterStatus // in the order given
	Locks     []*LockView    // sorted by Resource; later snapshots share the views of locks that did not change
	Warnings  []Warning      // current conditions (recomputed each snapshot)
	Events    []Event        // most recent last, at most Config.MaxEvents, carried across snapshots
	Truncated bool           // more lock keys than Config.MaxKeys: some are not tracked (Untracked of them)
	Untracked int            // lock keys discovery found beyond Config.MaxKeys on the master that found the most
	Unread    int            // locks of the previous snapshot that some master that answered could not read in this poll
	Unsafe    int            // masters that answer but cannot be counted on: replicas, primaries in a failover's replication race
	Swept     bool           // every master that answers has finished a full discovery sweep since the start

	// carried is the aggregator's memo of this poll, which the next poll builds on: not part of the read
	// model (carried.go).
	carried
}

// MasterStatus is the health of one master as of the snapshot.
type MasterStatus struct {
	Addr             string
	Up               bool          // answered this poll
	Down             bool          // declared down: refused, or missed Config.DownAfter polls in a row
	Missed           int           // polls missed in a row
	LastAnswer       time.Time     // when it last answered; zero if never
	Err              string        // why the last poll got no answer
	DuplicateOf      string        // address of an earlier master that is the same server (same run_id); "" none
	RTT              time.Duration // last
	RTTSmoothed      time.Duration // EWMA
	ClockKnown       bool          // ClockOffset was measured (TIME answered) in this or an earlier poll
	ClockOffset      time.Duration // server TIME - midpoint(send, receive)
	ClockUncertainty time.Duration // RTT/2
	DriftPPM         float64       // offset change rate across polls, ppm
	DriftUncertPPM   float64       // how far DriftPPM may be off: the two offsets' uncertainties over the window
	DriftKnown       bool
	Role             string        // "master", "slave", or "unknown"
	Version          string        // "" unknown
	RunID            string        // "" unknown
	Uptime           time.Duration // -1 unknown
	Replicas         int           // connected replicas, -1 unknown
	LastRestart      time.Time     // start of the server process (from its uptime); zero if unknown
	Primary          string        // for a master named through Sentinels: the primary they named at its last answer
	FormerPrimary    string        // the primary before the last failover; "" none, or not known by address
	LastFailover     time.Time     // when the monitor saw its primary change (EventMasterFailover); zero if never
	ReplicaOf        string        // a replica's primary (INFO master_host:master_port); "" for a master
	Keys             int           // lock keys shown that were seen on this master in this poll
	Sweep            Sweep         // discovery progress
	Warnings         []string      // per-master warnings (replica, restarted recently, clock)
	Denied           []string      // commands its ACL refuses us ("GETRANGE", ...), see access.go; nil: none known
	DeniedOnKeys     []string      // write commands its ACL refuses on keys outside the user's key patterns
	AccessCheck      string        // how Denied was found: "ACL DRYRUN", "probes", or "" not checked yet
	MissingCommands  []string      // script commands it does not have (renamed away): "EVAL", "EVALSHA"; nil: none known
	PlainReads       bool          // its last read was with plain commands (no scripts there, or a write pause held them): its hash and sorted-set locks are unknown
	EvictionPolicy   string        // INFO memory maxmemory_policy ("noeviction", "allkeys-lru", ...); "" unknown (removals.go)
	MaxMemory        int64         // INFO memory maxmemory in bytes, 0 for no limit; meaningful when EvictionPolicy is known
	EvictedKeys      int64         // INFO stats evicted_keys: keys it evicted since it started; -1 unknown
	Refresh          string        // how its keys are refreshed: RefreshTracking or RefreshPolling (reading's tracking.go)
	RefreshWhy       string        // why it is polled, or why its keys were all read in the last poll; "" none
	Notified         bool          // new keys also come through its keyspace notifications, not only the scan (reading)
	NotifiedWhy      string        // which notifications, or why none; "" not known

	Cluster *ClusterStatus // a Redis Cluster watched as one master: its primaries; nil for an independent master

	health  health   // Up, Down, Missed and DuplicateOf are derived from it (setHealth)
	readSeq uint64   // the number of the last tracked read applied, in this poll or before (Reading.seq); 0 none
	removed removals // what its counters say of the keys that went from it since its last answer (removals.go)
	hist    masterHistory
}

// CellState says what is known of one resource's key on one master.
type CellState uint8

// Cell states.
const (
	CellUnknown CellState = iota // not read: the master did not answer, or its scan has not reached the key yet
	CellAbsent                   // the master answered and the key is not there
	CellSeen                     // the key was read in this poll
)

// NoTTL is MasterLock.PTTL for a key that never expires.
const NoTTL = reading.NoTTL

// MasterLock is what one master holds for one resource. An unknown cell keeps the values last seen there. It
// takes 64 bytes: a snapshot of 100,000 locks on five masters holds half a million of them, so what few cells
// have (a hash or sorted-set lock's details, a Redis Cluster key's node) is behind a pointer, read through the
// methods Hash, Reentrancy, Mode, Node and Set.
type MasterLock struct {
	Token  string        // value; a longer one than MaxValueLen is cut, marked "…[<length> bytes, sha1 <digest>]"; for an unknown cell the value last seen, "" if none
	PTTL   time.Duration // remaining TTL when read, NoTTL for a key without expiry
	ReadAt time.Time     // when it was read; for an unknown cell, when it was last seen (zero: never)
	more   *cellMore     // nil for a string lock on a master; never changed once in a cell
	State  CellState
}

// cellMore is what only some cells have.
type cellMore struct {
	hash       bool
	reentrancy int
	mode, node string
	set        []SetMember
}

// Hash reports whether the cell is a hash lock (Redisson): Token is its holder field(s), "<client-uuid>:<thread-id>".
func (c MasterLock) Hash() bool { return c.more != nil && c.more.hash }

// Reentrancy is a hash lock's hold count for its holder; 0 for a string.
func (c MasterLock) Reentrancy() int {
	if c.more == nil {
		return 0
	}
	return c.more.reentrancy
}

// Mode is a hash read-write lock's mode field ("read" or "write"); "" otherwise.
func (c MasterLock) Mode() string {
	if c.more == nil {
		return ""
	}
	return c.more.mode
}

// Node is, for a Redis Cluster's key, the primary that answered for it (its slot's owner); "" on a master.
func (c MasterLock) Node() string {
	if c.more == nil {
		return ""
	}
	return c.more.node
}

// WithHash returns c as a hash lock's cell (Redisson): Token its holder field, held reentrancy times, in mode
// ("read" or "write" for a read-write lock, "" otherwise).
func (c MasterLock) WithHash(reentrancy int, mode string) MasterLock {
	m := c.moreCopy()
	m.hash, m.reentrancy, m.mode = true, reentrancy, mode
	c.more = m
	return c
}

// WithNode returns c as a Redis Cluster key's cell, read from node, its slot's owner.
func (c MasterLock) WithNode(node string) MasterLock {
	m := c.moreCopy()
	m.node = node
	c.more = m
	return c
}

// WithSet returns c as a sorted-set lock's cell, with members (Token is then their names, joined).
func (c MasterLock) WithSet(members []SetMember) MasterLock {
	m := c.moreCopy()
	m.set = members
	c.more = m
	return c
}

// moreCopy returns a copy of what c has beyond a string lock's cell, to change: a cell's is never changed.
func (c MasterLock) moreCopy() *cellMore {
	if c.more == nil {
		return &cellMore{}
	}
	m := *c.more
	return &m
}

// Set is a sorted-set lock's members (Token is then their names, joined); nil otherwise (sets.go).
func (c MasterLock) Set() []SetMember {
	if c.more == nil {
		return nil
	}
	return c.more.set
}

// Present reports whether the key was seen on this master in this poll.
func (c MasterLock) Present() bool { return c.State == CellSeen }

// Holds reports whether the key was seen on this master in this poll with token as its value.
func (c MasterLock) Holds(token string) bool { return c.State == CellSeen && c.Token == token }

// LockView is one resource across all masters.
type LockView struct {
	Resource  string
	State     LockState
	Holder    string        // token present on >= quorum masters, "" if none
	Count     int           // distinct masters with the holder's token, or with the most common token
	Unknown   int           // distinct masters whose cell is unknown
	Masters   []MasterLock  // aligned with Snapshot.Masters
	TTLSpread time.Duration // spread of the holder's (or most common token's) expiries across masters
	Foreign   bool          // held, but another token is present on some master
	Mine      bool          // token registered as ours
	// Expired: ours, and our token is gone after the validity we held it with ran out (OwnLock.ValidUntil):
	// it expired at its TTL, not released; a warning, not a loss, until it is released or one TTL later.
	Expired    bool
	QuorumLost bool      // the last holder's token lives on, but on fewer than a quorum of masters
	Family     string    // the client family the key and value shapes suggest: a hint, never a certainty
	ValueTime  time.Time // the lead token read as a Unix time (ValueTime): a client that stores a time, not a token, so the holder is unknown; zero otherwise
	Heuristic  bool      // held by grouping hash holders on thread id (Redisson RedLock: one client id per master)
	Keys       []string  // every key of a lock over several keys (one random token on all, as node-redlock and bsm/redislock take them); nil for one key
	FirstSeen  time.Time // when this monitor first saw the leading token (not when it was acquired)
	AcquiredAt time.Time // ours: when we acquired it; zero otherwise
	Changes    int       // holder changes seen
	LastChange time.Time // when the last holder change was seen
	Fence      uint64    // the highest fence counter of the resource on the masters (fenced locks); 0 none
	History    *HoldLog  // its holders over the window (Config.History); shared between snapshots, never changed
	// Waiters are a Redisson lock's waiters: the most subscribers a master counts on its channel (waiters.go),
	// when WaitersKnown; other clients' waiters do not show on the masters.
	Waiters      int
	WaitersKnown bool

	// Holders are the holders of a lock that several may hold at once (a sorted set: Symfony Lock's shared and
	// exclusive locks, redis-semaphore's permits), held ones first; nil for a lock of one token. The lock is
	// held when one of them is; Holder is then the held ones' tokens, joined by commas (see holders.go).
	Holders []Holder
	Limit   int // a semaphore's permits, when known (Config.Permits); 0 unknown
	// Families are every client family the key's and token's shapes fit (Family names them for people).
	Families []string
	// HolderKind says what the lead value names when it is not a token drawn for one acquisition:
	// lockshape.HolderAnyone (Medusa's "*", nobody in particular) or lockshape.HolderOwner (an owner id the
	// caller chose, Medusa's ownerId); "" for a token (HolderKindText writes it).
	HolderKind string
	// Logical is the resource a known client's key convention names ("billing" for malkusch/lock's
	// "lock_billing"), and Convention that client; both "" for a key named as its resource.
	Logical, Convention string

	hist lockHistory

	// validEnd is when the holder's keys drop below a quorum (see ValidityAt); zero when no token has a quorum.
	validEnd    time.Time
	driftFactor float64
	// expiredUntil is when Expired stops being told: one TTL after our validity ran out.
	expiredUntil time.Time
}

// SetValidity makes v's validity at time at validity, with no drift allowance beyond the fixed one: for views
// made outside Aggregate, such as a test's.
func (v *LockView) SetValidity(at time.Time, validity time.Duration) {
	v.validEnd, v.driftFactor = at.Add(validity+redlock.DriftAllowance(0, 0)), 0
}

// Free reports whether v has no key: it is listed for its holders over the window alone (StateFree, or
// StateUnknown when too many masters were not read to call it free), until they leave the window.
func (v *LockView) Free() bool { return v.hist.free }

// ValidityAt is how long after t the holder keeps a quorum, corrected for read time, less the drift allowance;
// 0 when no token has a quorum, or it has run out. A snapshot may share a lock's view with the ones before it
// (nothing about the lock changed): its validity is of a time, not of a view.
func (v *LockView) ValidityAt(t time.Time) time.Duration {
	if v.validEnd.IsZero() {
		return 0
	}
	remaining := v.validEnd.Sub(t)
	return max(0, remaining-redlock.DriftAllowance(remaining, v.driftFactor))
}

// EventKind names what happened in an Event.
type EventKind string

// Event kinds.
const (
	EventLockAppeared       EventKind = "lock-appeared"
	EventLockHeld           EventKind = "held"        // a holder became known where the lock had none (first seen partial or split)
	EventTakenOver          EventKind = "taken-over"  // another token took the quorum
	EventLockReleased       EventKind = "released"    // gone from every master before its TTL ran out
	EventLockEvicted        EventKind = "evicted"     // gone before its TTL from masters that evicted keys meanwhile (removals.go)
	EventLockFlushed        EventKind = "flushed"     // gone before its TTL from masters flushed meanwhile (FLUSHALL, FLUSHDB)
	EventLockExpired        EventKind = "expired"     // gone from every master at its TTL
	EventLockDeleted        EventKind = "deleted"     // gone from every master after this process force-deleted it
	EventQuorumLost         EventKind = "quorum-lost" // the holder fell below quorum while its key lives on
	EventLockSplit          EventKind = "lock-split"
	EventLockLost           EventKind = "lock-lost" // one of our locks has no quorum
	EventLockStuck          EventKind = "lock-stuck"
	EventMasterNotAnswering EventKind = "master-not-answering"
	EventMasterDown         EventKind = "master-down"
	EventMasterUp           EventKind = "master-up"
	EventMasterRestarted    EventKind = "master-restarted"
	EventMasterFlushed      EventKind = "master-flushed" // FLUSHALL or FLUSHDB ran there: its keys fell at once
	EventClockWarning       EventKind = "clock-warning"
	EventHolderJoined       EventKind = "holder-joined" // a holder joined the holders of a lock several may hold (a reader, a permit)
	EventHolderLeft         EventKind = "holder-left"   // one of them left while others hold on
)

// Event is a change seen between two snapshots.
type Event struct {
	Time     time.Time
	Kind     EventKind
	Resource string // "" for master events
	Master   string // "" for lock events
	Text     string
}

// Severity says how much a Warning or an Event matters.
type Severity int

// Severities. Their values are not their order (the zero Severity is a warning): compare them by Rank.
const (
	SeverityWarning Severity = iota // something the operator should look at
	SeverityError                   // locking is unsafe or impossible
	SeverityInfo                    // the ordinary life of locks and masters (events only)
)

// Severity is how much an event of kind k matters, decided here, beside the kinds, for every reader (the
// screen, the event stream): a lock or a master going about its life is information; a split, tokens contending
// with no quorum possible or known, a lock taken at once after its holder's key expired (the holder may still
// run), or a master that is down, restarted, flushed or drifting is a warning; a lost quorum, one of our locks
// lost, a lock evicted or flushed from under its holder, a holder's key overwritten while it had TTL left, a fence
// counter gone back (a fencing token may be handed out twice), or a lock key without a TTL (no one can take it
// again) makes locking unsafe or impossible.
func (k EventKind) Severity() Severity {
	switch k {
	case EventLockSplit, EventMasterNotAnswering, EventMasterDown, EventMasterRestarted,
		EventMasterFailover, EventClockWarning, EventClusterFailover, EventMasterFlushed, EventTakenAfterExpiry,
		EventLockContended:
		return SeverityWarning
	case EventQuorumLost, EventLockLost, EventFenceBackwards, EventLockEvicted, EventLockFlushed, EventOverwritten,
		EventLockStuck:
		return SeverityError
	}
	return SeverityInfo
}

// Warning is a condition that holds in this snapshot.
type Warning struct {
	Severity Severity
	Kind     string // see the Warn* constants
	Master   string // "" when about the whole set
	Resource string // the lock it is about; "" when not about one lock
	Text     string
}

// Warning kinds.
const (
	WarnQuorumDown    = "quorum-down"    // fewer than quorum distinct servers answered
	WarnMasterDown    = "master-down"    // one master does not answer
	WarnDuplicate     = "duplicate"      // two addresses are the same server (same run_id)
	WarnReplica       = "replica"        // a master is a replica
	WarnHasReplicas   = "has-replicas"   // a master has replicas
	WarnRestart       = "restart"        // a master started less than the longest TTL ago
	WarnMasterCount   = "master-count"   // fewer than 3 or an even number of masters
	WarnClockOffset   = "clock-offset"   // clock offset large compared with the drift allowance
	WarnClockDrift    = "clock-drift"    // clock rate off by more than the drift factor allows
	WarnTruncated     = "truncated"      // more than MaxKeys lock keys
	WarnUnread        = "unread"         // locks some master that answered could not read in the last poll
	WarnSweeping      = "sweeping"       // a master's first discovery sweep has not finished: locks may be missing
	WarnLockLost      = "lock-lost"      // one of our locks lost its quorum
	WarnOwnExpired    = "expired"        // one of our locks expired at its TTL, not released (LockView.Expired)
	WarnQuorumLost    = "quorum-lost"    // a held lock fell below quorum while its key lives on
	WarnStuck         = "stuck"          // a lock key without a TTL
	WarnForeignTokens = "foreign-tokens" // a held lock has another token on some master
	WarnContended     = "contended"      // tokens contend with no quorum, and the masters not read decide whether one has it
)

// WarningID identifies a warning across snapshots.
type WarningID struct {
	Severity               Severity
	Kind, Master, Resource string
}

// ID is w's identity across snapshots: its severity, kind, master and lock, not its text, which carries
// figures that change from poll to poll. Two locks in the same trouble are two warnings.
func (w Warning) ID() WarningID { return WarningID{w.Severity, w.Kind, w.Master, w.Resource} }

// String renders the warning as one line, e.g. "error: 127.0.0.1:6379: ...".
func (w Warning) String() string {
	if w.Master != "" {
		return w.Severity.String() + ": " + w.Master + ": " + w.Text
	}
	return w.Severity.String() + ": " + w.Text
}

// WatchedFrom is the first snapshot's time: the monitor's figures cover no time before it.
func (s *Snapshot) WatchedFrom() time.Time { return s.watchedFrom }
