package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
)

// The --once --json format (WriteJSON) is the types below, from JSONSnapshot down: their field names are part
// of the command-line interface, and docs/json.md is generated from them and their comments
// (internal/docgen). Times are RFC 3339; durations are in milliseconds (_ms) or seconds (_s). The parts
// written elsewhere are JSONCluster (clusteroutput.go), JSONHolder (holders_output.go) and JSONContention
// (contention_output.go).

// JSONSnapshot is the document --once --json prints: one snapshot of the masters and their locks.
type JSONSnapshot struct {
	Seq            uint64        `json:"seq"`             // the snapshot's number: polls since the start
	Time           time.Time     `json:"time"`            // when the poll was taken
	Quorum         int           `json:"quorum"`          // N/2+1 of the masters given
	UpCount        int           `json:"up_count"`        // distinct servers that answered (two addresses of one server, by its run_id, count once)
	Servers        int           `json:"servers"`         // distinct servers among the masters
	Truncated      bool          `json:"truncated"`       // more lock keys than --max-keys: some are not tracked
	Untracked      int           `json:"untracked"`       // how many lock keys were left out
	Unread         int           `json:"unread"`          // locks a master that answered could not read in the last poll
	Unsafe         int           `json:"unsafe"`          // masters that answer but cannot be counted on: replicas, primaries in a failover's replication race
	Swept          bool          `json:"swept"`           // every answering master finished a full scan of its keyspace
	Masters        []JSONMaster  `json:"masters"`         // each master given, in the order given
	Locks          []JSONLock    `json:"locks"`           // each lock, by resource
	Warnings       []string      `json:"warnings"`        // the warnings of the banner, one line each
	WarningDetails []JSONWarning `json:"warning_details"` // the same warnings in parts: severity, kind, master, lock
	Events         []JSONEvent   `json:"events"`          // the most recent events the monitor saw, oldest first

	NotLockShaped int64 `json:"not_lock_shaped"` // keys with a TTL left out as not lock-shaped (default pattern)
}

// JSONMaster is one master of the snapshot: whether it answers, its clock, its server, its discovery scan,
// what its ACL refuses, how its keys are read.
type JSONMaster struct {
	Addr          string     `json:"addr"`                     // as given; a Sentinel's master is MASTERNAME@first-sentinel, a Redis Cluster "cluster" and its first node
	Up            bool       `json:"up"`                       // answered this poll
	Down          bool       `json:"down"`                     // declared down: it refused us, or missed 3 polls in a row, one of its reads failing or timing out
	Missed        int        `json:"missed_polls"`             // polls missed in a row
	LastAnswer    *time.Time `json:"last_answer"`              // when it last answered; null if never
	Error         string     `json:"error,omitempty"`          // why it did not answer, with the next step where there is a usual one
	DuplicateOf   string     `json:"duplicate_of,omitempty"`   // the address of the same server listed earlier (same run_id)
	RTTMS         float64    `json:"rtt_ms"`                   // round trip of this poll's TIME
	RTTSmoothedMS float64    `json:"rtt_smoothed_ms"`          // the round trip, smoothed over the polls
	ClockKnown    bool       `json:"clock_known"`              // its clock offset is measured
	ClockOffsetMS float64    `json:"clock_offset_ms"`          // its clock minus ours (TIME against the round trip's midpoint)
	ClockUncertMS float64    `json:"clock_uncertainty_ms"`     // how far the offset may be off: half the round trip
	DriftPPM      *float64   `json:"drift_ppm"`                // the rate its clock drifts from ours; null until measured
	DriftUncert   *float64   `json:"drift_uncertainty_ppm"`    // how far drift_ppm may be off (the screen rounds the rate to it); null when unknown
	Role          string     `json:"role"`                     // INFO replication role: master, slave, or unknown
	Version       string     `json:"version"`                  // the server's redis_version; "" unknown
	RunID         string     `json:"run_id"`                   // the server process's run_id, which tells two addresses of one server apart
	UptimeS       *int64     `json:"uptime_s"`                 // the server's uptime; null when unknown
	Replicas      *int       `json:"replicas"`                 // replicas connected to it; null when unknown
	LastRestart   *time.Time `json:"last_restart"`             // the server process's start, from its uptime
	Primary       string     `json:"primary,omitempty"`        // a master given through its Sentinels: the primary they name
	FormerPrimary string     `json:"former_primary,omitempty"` // the primary before the last failover seen
	LastFailover  *time.Time `json:"last_failover"`            // when the last failover was seen; null if none
	ReplicaOf     string     `json:"replica_of,omitempty"`     // a replica's primary (master_host:master_port)
	Keys          int        `json:"keys"`                     // lock keys shown that were seen on it in this poll
	Sweep         JSONSweep  `json:"sweep"`                    // how far its discovery scan has got
	Warnings      []string   `json:"warnings"`                 // its own warnings (replica, restarted recently, clock)

	Denied       []string `json:"denied"`                 // commands the master's ACL refuses us ([] none known)
	DeniedOnKeys []string `json:"denied_on_keys"`         // write commands it refuses on keys outside the user's key patterns
	AccessCheck  string   `json:"access_check"`           // how the ACL was checked: "ACL DRYRUN", "probes", or "" not yet
	Missing      []string `json:"missing_commands"`       // script commands it does not have: "EVAL", "EVALSHA" ([] none known)
	PlainReads   bool     `json:"plain_reads"`            // its last read was with plain commands: hash and sorted-set locks unknown
	Policy       string   `json:"maxmemory_policy"`       // INFO memory maxmemory_policy; "" unknown
	MaxMemory    *int64   `json:"maxmemory"`              // bytes, 0 no limit; null when unknown
	EvictedKeys  *int64   `json:"evicted_keys"`           // keys it evicted since it started; null when unknown
	Refresh      string   `json:"refresh"`                // "tracking" (what changed is re-read) or "polling" (every key); --once always polls
	RefreshWhy   string   `json:"refresh_why,omitempty"`  // why polled ("tracking turned off" with --once), or why every key was read in the last poll
	Notified     bool     `json:"notified"`               // new keys also come through its keyspace notifications
	NotifiedWhy  string   `json:"notified_why,omitempty"` // which notifications, or why none

	Cluster *JSONCluster `json:"cluster,omitempty"` // a Redis Cluster watched as one master: each primary's own status
}

// jsonMaster is JSONMaster by the name a cluster's primary embeds it under (clusteroutput.go).
type jsonMaster = JSONMaster

// JSONLock is one lock: its state, holder and validity, and what each master holds of it.
type JSONLock struct {
	Resource    string            `json:"resource"`       // the key
	State       monitor.LockState `json:"state"`          // held, partial, split, unconfirmed (checking on the screen), unknown, stuck, lost, or free (no key on any master that answered: listed while its holders are in the window, with its contention)
	Holder      string            `json:"holder"`         // the token on a quorum, or ""; a time when value_time is set, which names no holder
	Count       int               `json:"count"`          // distinct masters with the holder's token, or with the most common token
	Unknown     int               `json:"unknown"`        // distinct masters whose cell is unknown (not read)
	ValidityMS  int64             `json:"validity_ms"`    // how long the holder keeps its quorum, less the drift allowance
	TTLSpreadMS int64             `json:"ttl_spread_ms"`  // how far apart the key's expiries are across masters
	Foreign     bool              `json:"foreign"`        // held, but another token is present on some master
	Mine        bool              `json:"mine"`           // one of this process's own locks
	QuorumLost  bool              `json:"quorum_lost"`    // the last holder's token lives on, but on fewer than a quorum of masters
	Family      string            `json:"family"`         // a hint from the key and value shapes, "" when none
	Heuristic   bool              `json:"heuristic"`      // held by grouping hash holders on thread id (Redisson RedLock)
	Keys        []string          `json:"keys,omitempty"` // every key of a lock over several keys (one token on all)
	FirstSeen   *time.Time        `json:"first_seen"`     // when this process first saw the leading token (not when it was acquired)
	AcquiredAt  *time.Time        `json:"acquired_at"`    // when it was acquired: our own locks only
	Changes     int               `json:"changes"`        // holder changes seen
	LastChange  *time.Time        `json:"last_change"`    // when the last holder change was seen
	Fence       uint64            `json:"fence"`          // the highest fence counter on the masters; 0 for an unfenced lock
	Masters     []JSONMasterLock  `json:"masters"`        // each master's cell, aligned with the top-level masters

	Families   []string     `json:"families"`                   // every client family the shapes fit; [] none
	Logical    string       `json:"logical_resource,omitempty"` // the resource a known key convention names
	Convention string       `json:"convention,omitempty"`       // that convention's client (malkusch/lock)
	Holders    []JSONHolder `json:"holders"`                    // each holder: one token, or a sorted set's members
	Summary    string       `json:"holders_summary,omitempty"`  // a sorted-set lock's holders in words: "3 readers", "2 of 3 permits"
	Limit      int          `json:"limit,omitempty"`            // a semaphore's permits, when known (--permits)
	ValueTime  *time.Time   `json:"value_time,omitempty"`       // the value read as a Unix time (s or ms, within a year of its read): a client that stores its expiry or when it took the lock, not a token; the holder is unknown
	HolderKind string       `json:"holder_kind,omitempty"`      // "anyone" when the value names nobody in particular (Medusa's "*"), "owner" when it is an owner id the caller chose (Medusa's ownerId); absent for a token

	Contention *JSONContention `json:"contention,omitempty"` // once watched for ContentionAfter, 10s (--once --watch 30s)
}

// JSONMasterLock is what one master holds of a lock: its cell.
type JSONMasterLock struct {
	State  string     `json:"state"`   // "seen", "absent" or "unknown"
	Token  string     `json:"token"`   // the token; for an unknown cell, the token last seen there; for a hash lock, its holder field
	PTTLMS *int64     `json:"pttl_ms"` // the TTL left at the snapshot's time, counted from its read; null without a TTL or when never seen
	ReadAt *time.Time `json:"read_at"` // when it was read, or last seen

	Hash       bool   `json:"hash,omitempty"`       // a hash lock (Redisson): token is its holder field
	Reentrancy int    `json:"reentrancy,omitempty"` // a hash lock's hold count
	Mode       string `json:"mode,omitempty"`       // a read-write hash lock's mode: read or write
	Node       string `json:"node,omitempty"`       // a Redis Cluster's key: the primary that answered for it

	Members []JSONMember `json:"members,omitempty"` // a sorted-set lock's members and scores, as read
}

// JSONMember is one member of a sorted-set lock (Symfony Lock, redis-semaphore), as read.
type JSONMember struct {
	Member string  `json:"member"` // a holder's token, or Symfony's __write__
	Score  float64 `json:"score"`  // its score: an expiry (Symfony) or an acquisition time (redis-semaphore), in ms
}

// JSONSweep is how far a master's discovery scan of its keyspace has got.
type JSONSweep struct {
	Scanned       int64      `json:"scanned"`        // keys scanned in the current sweep
	Total         int64      `json:"total"`          // keys in its database (DBSIZE); -1 unknown
	Completed     int        `json:"completed"`      // full sweeps finished
	LastCompleted *time.Time `json:"last_completed"` // when the last full sweep ended; null if none yet

	NotLockShaped int64 `json:"not_lock_shaped"` // keys with a TTL the last sweep left out as not lock-shaped
	Refused       int64 `json:"refused"`         // keys whose read the master's ACL refused in the last sweep
}

// JSONWarning is one warning of the banner, in parts.
type JSONWarning struct {
	Severity monitor.Severity `json:"severity"`           // "warning" or "error" ("info" for the keys left out as not lock-shaped)
	Kind     string           `json:"kind"`               // what it is about: quorum-lost, master-down, ... (docs/events.md lists them)
	Master   string           `json:"master,omitempty"`   // the master it is about, when it is about one
	Resource string           `json:"resource,omitempty"` // the lock it is about, when it is about one
	Text     string           `json:"text"`               // a sentence for people
}

// JSONEvent is one event the monitor saw between two polls.
type JSONEvent struct {
	Time     time.Time         `json:"time"`               // when it was seen
	Kind     monitor.EventKind `json:"kind"`               // what happened: lock-appeared, released, quorum-lost, ... (docs/events.md lists them)
	Resource string            `json:"resource,omitempty"` // the lock concerned; left out for a master's event
	Master   string            `json:"master,omitempty"`   // the master concerned; left out for a lock's event
	Text     string            `json:"text"`               // a sentence for people
}

// The parts of the format written beside their conversions: a Redis Cluster's primaries, a lock's holders, a
// lock's contention.
type (
	// JSONCluster is a Redis Cluster watched as one master: its primaries.
	JSONCluster = jsonCluster
	// JSONPrimary is one primary of a cluster: the fields of a master, its node id and its slots.
	JSONPrimary = jsonPrimary
	// JSONHolder is one holder of a lock, and where it is live.
	JSONHolder = jsonHolder
	// JSONHolderMaster is one holder's expiry on one master.
	JSONHolderMaster = jsonHolderMaster
	// JSONContention is how a lock changed hands over what was watched.
	JSONContention = jsonContention
	// JSONFigures are a lock's contention figures over one period.
	JSONFigures = jsonFigures
	// JSONInterval is one holder's tenure of a lock, as the polls saw it.
	JSONInterval = jsonInterval
)

// ms converts d to fractional milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// timePtr is nil for the zero time, so JSON shows null.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// WriteJSON writes s as one JSON document, the --once --json format: quorum, masters (addr, up, ...), locks
// (resource, state, holder, masters aligned with the top-level ones with token and pttl_ms, ...), warnings as
// strings, plus details. Strings are JSON-escaped; bytes that are not UTF-8 become U+FFFD.
func WriteJSON(w io.Writer, s monitor.Snapshot) error {
	out := JSONSnapshot{
		Seq: s.Seq, Time: s.Time, Quorum: s.Quorum, UpCount: s.UpCount, Servers: s.Servers, Truncated: s.Truncated, Untracked: s.Untracked, Unread: s.Unread, Unsafe: s.Unsafe, Swept: s.Swept,
		Masters:        make([]JSONMaster, len(s.Masters)),
		Locks:          make([]JSONLock, len(s.Locks)),
		Warnings:       make([]string, len(s.Warnings)),
		WarningDetails: make([]JSONWarning, len(s.Warnings)),
		Events:         make([]JSONEvent, len(s.Events)),
		NotLockShaped:  s.NotLockShaped(),
	}
	for i, m := range s.Masters {
		out.Masters[i] = toJSONMaster(m)
	}
	for i, l := range s.Locks {
		jl := JSONLock{
			Resource: l.Resource, State: l.State, Holder: l.Holder, Count: l.Count, Unknown: l.Unknown,
			ValidityMS: l.ValidityAt(s.Time).Milliseconds(), TTLSpreadMS: l.TTLSpread.Milliseconds(),
			Foreign: l.Foreign, Mine: l.Mine, QuorumLost: l.QuorumLost, Family: l.Family, Heuristic: l.Heuristic, Keys: l.Keys, FirstSeen: timePtr(l.FirstSeen),
			AcquiredAt: timePtr(l.AcquiredAt), Changes: l.Changes,
			LastChange: timePtr(l.LastChange), Fence: l.Fence, Masters: make([]JSONMasterLock, len(l.Masters)),
		}
		for j, c := range l.Masters {
			jc := JSONMasterLock{State: c.State.String(), Token: c.Token, ReadAt: timePtr(c.ReadAt),
				Hash: c.Hash(), Reentrancy: c.Reentrancy(), Mode: c.Mode(), Node: c.Node()}
			for _, m := range c.Set() {
				jc.Members = append(jc.Members, JSONMember{m.Member, m.Score})
			}
			if c.Token != "" && c.PTTL != monitor.NoTTL {
				pttl := c.PTTLAt(s.Time).Milliseconds() // counted from its read, at the snapshot's time
				jc.PTTLMS = &pttl
			}
			jl.Masters[j] = jc
		}
		jl.Families, jl.Logical, jl.Convention = append([]string{}, l.Families...), l.Logical, l.Convention
		jl.ValueTime, jl.HolderKind = timePtr(l.ValueTime), l.HolderKind
		jl.Holders, jl.Summary, jl.Limit = jsonHolders(l, s.Time), l.HoldersText(), l.Limit
		jl.Contention = jsonContentionOf(&s, l)
		out.Locks[i] = jl
	}
	for i, wn := range s.Warnings {
		out.Warnings[i] = wn.String()
		out.WarningDetails[i] = JSONWarning{Severity: wn.Severity, Kind: wn.Kind, Master: wn.Master, Resource: wn.Resource, Text: wn.Text}
	}
	for i, e := range s.Events {
		out.Events[i] = JSONEvent{Time: e.Time, Kind: e.Kind, Resource: e.Resource, Master: e.Master, Text: e.Text}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// toJSONMaster converts one master's status, a cluster's primaries included.
func toJSONMaster(m monitor.MasterStatus) JSONMaster {
	jm := JSONMaster{
		Addr: m.Addr, Up: m.Up, Down: m.Down, Missed: m.Missed, LastAnswer: timePtr(m.LastAnswer), Error: m.Err,
		DuplicateOf: m.DuplicateOf,
		RTTMS:       ms(m.RTT), RTTSmoothedMS: ms(m.RTTSmoothed),
		ClockKnown: m.ClockKnown, ClockOffsetMS: ms(m.ClockOffset), ClockUncertMS: ms(m.ClockUncertainty),
		Role: m.Role, Version: m.Version, RunID: m.RunID,
		LastRestart: timePtr(m.LastRestart), Keys: m.Keys, Warnings: append([]string{}, m.Warnings...),
		Primary: m.Primary, FormerPrimary: m.FormerPrimary, LastFailover: timePtr(m.LastFailover), ReplicaOf: m.ReplicaOf,
		Sweep: JSONSweep{Scanned: m.Sweep.Scanned, Total: m.Sweep.Total, Completed: m.Sweep.Completed, LastCompleted: timePtr(m.Sweep.LastCompleted),
			NotLockShaped: m.Sweep.NotLockShaped, Refused: m.Sweep.Refused},
		Denied: append([]string{}, m.Denied...), DeniedOnKeys: append([]string{}, m.DeniedOnKeys...), AccessCheck: m.AccessCheck,
		Missing: append([]string{}, m.MissingCommands...), PlainReads: m.PlainReads,
		Refresh: m.Refresh, RefreshWhy: m.RefreshWhy, Notified: m.Notified, NotifiedWhy: m.NotifiedWhy,
	}
	if m.DriftKnown {
		jm.DriftPPM, jm.DriftUncert = &m.DriftPPM, &m.DriftUncertPPM
	}
	if m.Uptime >= 0 {
		up := int64(m.Uptime / time.Second)
		jm.UptimeS = &up
	}
	if m.Replicas >= 0 {
		jm.Replicas = &m.Replicas
	}
	if m.EvictionPolicy != "" {
		jm.Policy, jm.MaxMemory = m.EvictionPolicy, &m.MaxMemory
	}
	if m.EvictedKeys >= 0 {
		jm.EvictedKeys = &m.EvictedKeys
	}
	jm.Cluster = toJSONCluster(m.Cluster)
	return jm
}

// WriteTable writes s as plain-text tables: masters, locks, warnings. Key names, tokens, addresses and error
// texts are escaped so they cannot carry terminal control sequences.
func WriteTable(w io.Writer, s monitor.Snapshot) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	trunc := ""
	if s.Truncated {
		trunc = fmt.Sprintf("  TRUNCATED: %d more not tracked", s.Untracked)
	}
	if n := s.NotLockShaped(); n > 0 {
		trunc += fmt.Sprintf(" (and %s not lock-shaped)", vocab.Count(n, "key"))
	}
	p("snapshot %d at %s: %d/%d masters up, quorum %d, %s%s%s\n\n",
		s.Seq, s.Time.Format(time.RFC3339), s.UpCount, s.Servers, s.Quorum, vocab.Count(len(s.Locks), "lock"), freeText(s.Locks), trunc)
	tableMasters(p, s.Masters)
	tableClusters(p, s.Masters)
	if len(s.Locks) > 0 {
		tableLocks(p, byName(s.Locks), s.Servers, s.Time)
	}
	if len(s.Warnings) > 0 {
		p("\nWARNINGS\n")
		for _, wn := range s.Warnings {
			p("%s\n", untrusted.Escape(wn.String()))
		}
	}
	return tw.Flush()
}

// freeText is " (N free)" for the free locks of locks (listed for their holders in the window, no key), ""
// when there are none.
func freeText(locks []*monitor.LockView) string {
	free := 0
	for _, l := range locks {
		if l.State == monitor.StateFree {
			free++
		}
	}
	if free == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d free)", free)
}

// tableMasters writes the masters' table with p.
func tableMasters(p func(string, ...any), masters []monitor.MasterStatus) {
	p("MASTER\tSTATUS\tRTT\tCLOCK OFFSET\tDRIFT\tROLE\tVERSION\tUPTIME\tREPLICAS\tKEYS\tSCANNED\n")
	for _, m := range masters {
		status := m.StateText()
		scanned := "sweep " + m.Sweep.Progress()
		if m.Sweep.Completed > 0 {
			scanned = fmt.Sprintf("%d sweeps", m.Sweep.Completed)
		}
		rtt, offset, drift, uptime, replicas := "-", "?", "?", "?", "?"
		if m.Up {
			rtt = vocab.Latency(m.RTT)
		}
		if m.ClockKnown {
			offset = vocab.Offset(m.ClockOffset, m.ClockUncertainty)
		}
		if m.DriftKnown {
			drift = vocab.DriftText(m.DriftPPM, m.DriftUncertPPM)
		}
		if m.Uptime >= 0 {
			uptime = m.Uptime.String()
		}
		if m.Replicas >= 0 {
			replicas = strconv.Itoa(m.Replicas)
		}
		p("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", column(untrusted.Escape(m.Addr)), column(untrusted.Escape(status)), rtt,
			offset, drift, column(untrusted.Escape(m.RoleText())), orUnknown(column(untrusted.Escape(m.Version))), uptime, replicas, m.Keys, scanned)
	}
}

// byName returns locks in the order people read their resources, as the dashboard lists them
// (vocab.CompareNames: orders:lock:492 before orders:lock:4902); the snapshot's own order, by bytes, stays
// for the JSON document and the lookups.
func byName(locks []*monitor.LockView) []*monitor.LockView {
	out := slices.Clone(locks)
	slices.SortFunc(out, func(a, b *monitor.LockView) int { return vocab.CompareNames(a.Resource, b.Resource) })
	return out
}

// tableLocks writes the locks' table with p; servers is the number of distinct servers, a lock's count is out
// of it.
func tableLocks(p func(string, ...any), locks []*monitor.LockView, servers int, now time.Time) {
	p("\nRESOURCE\tSTATE\tHOLDER\tCOUNT\tVALIDITY\tSPREAD\tFLAGS\tPER MASTER (token:pttl)\n")
	for _, l := range locks {
		var flags []string
		for _, q := range l.Qualifiers(now) {
			flags = append(flags, string(q))
		}
		cells := make([]string, len(l.Masters))
		for j, c := range l.Masters {
			cells[j] = tableCell(c, now)
		}
		holder := monitor.HolderKindText(l.HolderKind, untrusted.Escape(short(l.Holder)))
		switch {
		case l.Holders != nil:
			holder = l.HoldersText()
		case !l.ValueTime.IsZero():
			holder = monitor.UnknownHolderText(l.ValueTime, now)
		}
		p("%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\t%s\n", column(untrusted.Escape(l.ResourceText())), l.State.Label(), orDash(holder), l.Count,
			servers, vocab.ShortDuration(l.ValidityAt(now)), l.TTLSpread.Round(spreadPrecision), orDash(strings.Join(flags, ",")),
			strings.Join(cells, " "))
		if l.Holders != nil {
			tableHolders(p, l, servers, now)
		}
	}
}

// spreadPrecision is what the table rounds a lock's TTL spread to: spreads are often under a millisecond.
const spreadPrecision = 100 * time.Microsecond

// tableCell writes one master's cell of a lock at now: token:pttl (counted from its read), token:no-ttl, "-"
// absent, "?" unknown, with the token last seen there when there is one.
func tableCell(c monitor.MasterLock, now time.Time) string {
	pttl := vocab.ShortDuration(c.PTTLAt(now))
	switch {
	case c.State == monitor.CellUnknown && c.Token != "":
		return "?(" + untrusted.Escape(short(c.Token)) + ")"
	case c.State == monitor.CellUnknown:
		return "?"
	case c.State == monitor.CellAbsent:
		return "-"
	case c.Set() != nil && c.PTTL == monitor.NoTTL:
		return fmt.Sprintf("set(%d):no-ttl", len(c.Set()))
	case c.Set() != nil:
		return fmt.Sprintf("set(%d):%s", len(c.Set()), pttl)
	case c.PTTL == monitor.NoTTL:
		return untrusted.Escape(short(c.Token)) + ":no-ttl" + onNode(c)
	}
	return untrusted.Escape(short(c.Token)) + ":" + pttl + onNode(c)
}

// onNode is "@" and the primary that answered for a cluster's key, "" on a master.
func onNode(c monitor.MasterLock) string {
	if c.Node() == "" {
		return ""
	}
	return "@" + untrusted.Escape(c.Node())
}

// columnWidth caps a table column: the table pads every row to its widest cell, so one long key name (or
// error text) would otherwise widen every line of the output.
const columnWidth = 64

// column cuts escaped text to columnWidth runes, marking the cut with "…".
func column(s string) string {
	if utf8.RuneCountInString(s) <= columnWidth {
		return s
	}
	n := 0
	for i := range s {
		if n == columnWidth-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// short cuts a token for a table cell.
func short(s string) string {
	const width = 24
	if len(s) <= width {
		return s
	}
	for i := width; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return s[:width] + "…"
}

// orDash shows "-" for an empty cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// orUnknown shows "?" for an unknown value.
func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}
