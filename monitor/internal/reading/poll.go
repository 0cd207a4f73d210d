package reading

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
)

// Reading is the raw result of polling one master once: what it answered, with the local times needed to
// interpret it. Aggregate turns a Reading per master into a Snapshot.
type Reading struct {
	Addr       string        // the master, as the monitor names it
	Err        error         // nil when the master answered; otherwise the rest is empty
	Refused    bool          // with Err: the master answered but cannot be used (login, setup, refused connection)
	Late       bool          `json:",omitempty"` // with Err: no answer yet when the poll stopped waiting, its read still going; not a failure
	Sent       time.Time     // local clock when TIME was sent
	Received   time.Time     // local clock when its reply arrived
	ServerTime time.Time     // the master's TIME reply; zero when TIME was refused
	Role       string        // INFO replication role; "" unknown
	Version    string        // INFO server redis_version; "" unknown
	RunID      string        // INFO server run_id; "" unknown
	Uptime     time.Duration // INFO server uptime_in_seconds; UnknownUptime when unknown
	Replicas   int           // INFO replication connected_slaves; -1 unknown
	Keys       []KeyReading  // keys read: the known ones refreshed (present or absent) and those discovered
	Sweep      Sweep         // discovery progress after this poll
	Untracked  int           // lock keys discovery found beyond Config.MaxKeys, not tracked (the last full sweep's count, or the current one's when higher)
	Primary    string        // for a master named through Sentinels: the primary they named for this poll; "" otherwise
	ReplicaOf  string        // INFO replication master_host:master_port of a replica; "" otherwise
	ReplID     string        // INFO replication master_replid; "" unknown
	ReplID2    string        // INFO replication master_replid2: the history a promoted replica continues; "" unknown

	// Counters are the master's counts of keys it removed itself and of the commands that remove keys (INFO
	// stats and commandstats); EvictionPolicy its INFO memory maxmemory_policy ("" unknown) and MaxMemory its
	// maxmemory in bytes (0: no limit), which tell whether it may evict lock keys (counters.go).
	Counters       KeyCounters
	EvictionPolicy string
	MaxMemory      int64

	// Denied are the commands the master's ACL refuses us, as known after this read; DeniedOnKeys the write
	// commands it refuses on keys outside the user's key patterns; AccessCheck how that was found: "ACL
	// DRYRUN", "probes", or "" not checked yet (access.go).
	Denied       []string
	DeniedOnKeys []string
	AccessCheck  string
	// MissingCommands are the script commands the master does not have (renamed away in its configuration),
	// as known after this read: "EVAL", "EVALSHA"; nil: none known (scripts.go). PlainReads reports that the
	// read ended reading with plain commands: the master runs no read script, or a write pause held them.
	MissingCommands []string
	PlainReads      bool

	// Waiters are Redisson locks' waiters: the subscribers of each hash lock's channel, by key; nil not read.
	Waiters map[string]int

	mode     string     // INFO server redis_mode: "sentinel" for a Sentinel given as a master
	next     *discovery // where discovery stands after this reading; the monitor keeps it if it accepts the reading
	refusals refusals   // what this read met of the master's ACL

	Cluster *ClusterReading // a Redis Cluster read as one master: what each primary answered; nil for a master

	// Refresh is how the known keys were refreshed: RefreshTracking or RefreshPolling ("" for a cluster, polled),
	// and RefreshWhy why a tracked master's keys were all read, or why the master is polled.
	Refresh    string
	RefreshWhy string

	// A tracked master's reading numbered Seq may be a delta (Delta): only the keys that changed, the other
	// known keys as in the reading numbered DeltaOf, the last the monitor took (see monitor.Aggregate).
	// Unread are the keys such a delta had no time to read: their cells are unknown. The recording codec
	// writes them under their own names (codec.go).
	Seq     uint64   `json:"-"`
	DeltaOf uint64   `json:"-"`
	Delta   bool     `json:"-"`
	Unread  []string `json:"-"`

	// Notified reports whether new keys also come through the master's keyspace notifications, and
	// NotifiedWhy which, or why not (keyspace.go); "" for a cluster.
	Notified    bool
	NotifiedWhy string
}

// KeyReading is one key as read from one master.
type KeyReading struct {
	Key    string                // the key's name
	Node   string                // a Redis Cluster's key: the node that answered for it (its slot's owner); "" for a master
	Value  string                // capped to Config.MaxValueLen bytes
	Fields []string              // a hash lock (Redisson's): its fields and values, in pairs; nil for a string
	Set    []lockshape.SetMember // a sorted-set lock (Symfony Lock, redis-semaphore): its members; nil otherwise (lockshape)
	PTTL   time.Duration         // remaining TTL as the master reported it; NoTTL when the key never expires
	Absent bool                  // the master answered that the key is not there (or is not a string)

	refused bool     // the master's ACL refused the read of this sorted set (ZRANGE): not read, never absent
	cut     cutState // what is known of a value longer than Value (longvalues.go)
	// Len is the whole value's length when it is longer than Value, and Digest the first 64 bits of its SHA-1
	// (0 when not digested: longer than 1MB); Len is 0 when Value is the whole value (longvalues.go). They sit
	// beside the flags, so that a reading takes no more room than before them.
	Len int32

	ReadAt time.Time // local estimate of when the master evaluated PTTL; zero means the snapshot time
	// ReadWithin is how far ReadAt may be off: half the round trip the read was made in. A read that waited
	// (a master paused, then resumed) is a read of some time within that window, not of ReadAt.
	ReadWithin time.Duration
	Digest     uint64
}

// UnknownUptime marks Reading.Uptime and MasterStatus.Uptime when INFO did not tell.
const UnknownUptime time.Duration = -1

// hashLockLua is a Lua function shared by the scripts: the fields and values of key when it is a small hash
// with a field that names a holder as "<client-id>:<thread-id>" (a Redisson lock), else nil.
const hashLockLua = `local function hashLock(k)
  if redis.call('TYPE', k).ok ~= 'hash' or redis.call('HLEN', k) > 16 then return nil end
  local h = redis.call('HGETALL', k)
  for i = 1, #h, 2 do
    if string.find(h[i], ':%d+$') then return h end
  end
  return nil
end
`

// refreshScript returns, for each key, its value cut to ARGV[1] bytes (a hash lock's fields and values, or a
// sorted-set lock's members; nil when it is none of these) and its PTTL, so a batch of keys costs one round
// trip and values are capped on the server.
var refreshScript = newReadScript(refreshLua)

// refreshLua is refreshScript's body.
var refreshLua = hashLockLua + setLockLua + longValueLua + `local n = tonumber(ARGV[1])
local out = {}
for first = 1, #KEYS, 1000 do
  local last = math.min(first + 999, #KEYS)
  local vals = redis.call('MGET', unpack(KEYS, first, last))
  for i = first, last do
    local v = vals[i - first + 1]
    local ms = redis.call('PTTL', KEYS[i])
    if v then
      if #v > n then v = marked(string.sub(v, 1, n), #v, v) end
    elseif ms ~= -2 then
      v = otherLock(KEYS[i], n) or false
    end
    out[2*i-1] = v
    out[2*i] = ms
  end
end
return out`

// discoverScript continues a SCAN from ARGV[1] (MATCH ARGV[2], COUNT ARGV[3]) until it has run ARGV[5]
// microseconds, scanned ARGV[6] keys, or reached the end of the keyspace. It returns the next cursor, the keys
// scanned, the microseconds it ran, then key, value (cut to ARGV[4] bytes) and PTTL of every lock candidate
// (candidateLua; keys without a TTL taken whatever their value when ARGV[7] is "1"). Candidates are picked on
// the server so a large keyspace of ordinary data costs no transfer. On a redis-server with 1,000,000 ordinary
// keys it costs about 1.6µs of server CPU per key scanned.
var discoverScript = newReadScript(hashLockLua + setLockLua + longValueLua + candidateLua + discoverLua)

// discoverLua is discoverScript's own part.
const discoverLua = `local cursor, pattern, count, n = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local slice, maxScan, anyNoTTL = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7] == '1'
local t = redis.call('TIME')
local t0 = t[1] * 1000000 + t[2]
local out = {'', 0, 0}
local scanned, elapsed = 0, 0
repeat
  local r = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', count)
  cursor = r[1]
  scanned = scanned + #r[2]
  for _, k in ipairs(r[2]) do
    local v, ms, err = candidate(k, n, anyNoTTL)
    if err then return redis.error_reply(err) end
    if v then
      out[#out+1] = k; out[#out+1] = v; out[#out+1] = ms
    end
  end
  t = redis.call('TIME')
  elapsed = t[1] * 1000000 + t[2] - t0
until cursor == '0' or elapsed >= slice or scanned >= maxScan
out[1], out[2], out[3] = cursor, scanned, elapsed
return out`

// Discovery and refresh tuning.
const (
	// scanMargin is kept free before a poll's deadline on top of twice the slowest round trip.
	scanMargin = 10 * time.Millisecond
	// discoverSlice bounds how long one discovery call may keep the master busy, so other clients wait at
	// most this long behind it.
	discoverSlice = 2 * time.Millisecond
	// minKeyCost is the least server time a scanned key is charged, so the budget holds even where the
	// master's TIME does not move (an embedded master with a frozen clock).
	minKeyCost = time.Microsecond
	// pipelinedKeyCost is what a scanned key is charged without scripts, where the server does not time the
	// work: SCAN, GETRANGE and PTTL each cost it about a microsecond, plus the replies.
	pipelinedKeyCost = 5 * time.Microsecond
	// refreshChunk is the number of keys one refresh call reads; refreshPerTrip calls share a round trip.
	refreshChunk   = 1000
	refreshPerTrip = 20
)

// readMode chooses how key values and TTLs are read.
type readMode int

const (
	readScripted  readMode = iota // scripts on the server
	readPipelined                 // plain commands in pipelines, for servers that refuse scripts
)

// poller reads one master. It is used by one read at a time (Monitor.flying), which is what keeps its
// discovery state consistent.
type poller struct {
	client *redis.Client
	addr   string
	mode   readMode
	// scripts is how the master runs the read scripts (scripts.go), and scriptsHeld whether a write pause held
	// them during the current read, which then reads the rest with plain commands.
	scripts     scriptVariant
	scriptsHeld bool
	asking      bool // a Redis Cluster node: scripts run after ASKING, so that keys of a slot it imports can be read

	disc discovery // where discovery stands, as of the last reading the monitor accepted

	access  accessState                         // what the master's ACL lets us run (access.go)
	advise  func(addr string, err error) string // Config.Advise
	lastErr string                              // the error of the last read, "" when it succeeded

	track    *tracker    // refreshes the keys by what changed, where the master allows it; nil: polled (tracking.go)
	keyspace *notifier   // the keys the master's keyspace notifications name, for discovery; nil: none (keyspace.go)
	via      *redis.Conn // during a tracked read: the tracking connection, which keys are read through
}

// discovery is where the sweep of one master's keyspace stands. A read works on a copy, which becomes the
// poller's only when the monitor accepts the reading: a reading dropped at the deadline must not move the
// sweep past keys nobody saw.
type discovery struct {
	cursor    string    // SCAN cursor where discovery continues; "0" at the start of a sweep
	sweep     Sweep     // progress
	last      time.Time // when discovery last ran, for the budget
	sweptFrom time.Time // when the last full sweep started; zero before the first
	untracked int       // lock keys the current sweep found beyond Config.MaxKeys
	lastOver  int       // how many the last full sweep found beyond it
	completed bool      // the last discovery step finished a sweep

	counts sweepCounts // what the current sweep passed over (sweepcounts.go)
}

// leftOut counts n lock keys that the last discovery step found and that were not tracked, in the sweep they
// belong to.
func (d *discovery) leftOut(n int) {
	if d.completed {
		d.lastOver += n
	} else {
		d.untracked += n
	}
}

// untrackedNow is how many lock keys are known not to be tracked: the last full sweep's count, or the current
// sweep's when it already found more.
func (d *discovery) untrackedNow() int { return max(d.untracked, d.lastOver) }

// isServerError reports whether err is an error reply from the server to one command (the connection is
// fine). A refused login or connection setup is not: it leaves the master unusable, so it counts as down.
func isServerError(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && !errors.Is(err, redis.Nil) && !isAuthError(err) && !isSetupError(err)
}

// isAuthError reports whether err is a refused login: wrong or missing password or user.
func isAuthError(err error) bool {
	for _, prefix := range []string{"WRONGPASS", "NOAUTH", "ERR invalid password", "ERR invalid username-password"} {
		if redis.HasErrorPrefix(err, prefix) {
			return true
		}
	}
	return false
}

// isSetupError reports whether err comes from setting up a connection (HELLO, AUTH, SELECT, CLIENT SETNAME):
// go-redis wraps those errors, and no command can run on such a master.
func isSetupError(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	for _, prefix := range []string{"failed to initialize connection options", "failed to authenticate", "failed to resolve credentials"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// failed is the reading of a master that could not be read. Refused marks the errors that will not go away
// by waiting: a refused login or connection setup, nothing listening, a command refused.
func (p *poller) failed(err error) Reading {
	refused := isAuthError(err) || isSetupError(err) || isServerError(err) || strings.Contains(err.Error(), "connection refused") ||
		isNotAMaster(err)
	if isSetupError(err) && !strings.HasPrefix(err.Error(), "connection setup refused") {
		err = fmt.Errorf("connection setup refused: %w", err)
	}
	p.access = accessState{}    // checked again on the next connection
	p.scripts = scriptsNoWrites // and how it runs scripts: a master restarted may have another configuration
	err = p.withAdvice(err, refused)
	return Reading{Addr: p.addr, Err: err, Refused: refused}
}

// Read polls the master once: its primary from its Sentinels (if it has any), TIME, then INFO and the refresh
// of the known keys, then discovery under its budget. known is the sorted list of keys to refresh.
func (p *poller) Read(ctx context.Context, cfg Config, known *KnownList) Reading {
	r := Reading{Addr: p.addr, Uptime: UnknownUptime, Replicas: -1}
	p.scriptsHeld = false
	d := p.disc
	if d.cursor == "" {
		d.cursor, d.sweep.Total = "0", -1
	}
	if err := p.locatePrimary(ctx, &r); err != nil {
		return p.failed(err)
	}
	r.Sent = time.Now()
	t, err := p.client.Time(ctx).Result()
	r.Received = time.Now()
	switch {
	case err == nil:
		r.ServerTime = t
	case r.refusals.refused("TIME", err):
		// The ACL refused TIME: the master is up, its clock unknown; the refusal's round trip times it.
	case isServerError(err):
		// TIME refused otherwise: time a PING instead. A PING refused too means no command can run there.
		r.Sent = time.Now()
		err = p.client.Ping(ctx).Err()
		r.Received = time.Now()
		if isServerError(err) {
			// Neither TIME nor PING runs: the connection's own setup (HELLO, AUTH, SELECT) is refused.
			err = fmt.Errorf("connection setup refused (HELLO, AUTH or SELECT): %w", err)
		}
		if err != nil {
			return p.failed(err)
		}
	default:
		return p.failed(err)
	}
	slowest := r.Received.Sub(r.Sent)
	if err := p.refreshKeys(ctx, cfg, known.List(), &r, &d, &slowest); err != nil {
		return p.failed(err)
	}
	if err := p.discover(ctx, cfg, known, &r, &d, slowest); err != nil {
		return p.failed(err)
	}
	p.readWaiters(ctx, &r, slowest)
	p.checkAccess(ctx, cfg, slowest)
	r.Sweep, r.next, p.lastErr = d.sweep, &d, ""
	p.learn(r.refusals)
	p.access.noteMissing(r.MissingCommands)
	r.Denied, r.DeniedOnKeys = p.access.list()
	r.AccessCheck, r.MissingCommands = p.access.via, slices.Clone(p.access.missing)
	r.PlainReads = !p.scripted()
	return r
}

// ReadKeys reads the value and PTTL of keys, for the keys discovery found on other masters in this poll.
func (p *poller) ReadKeys(ctx context.Context, cfg Config, keys []string) Reading {
	r := Reading{Addr: p.addr}
	if len(keys) == 0 {
		return r
	}
	t := p.tracking()
	if t != nil {
		p.via = t.read // tracked from their first read, as the keys refreshed are
		defer func() { p.via = nil }()
	}
	err := p.readAgain(ctx, &r, keys, cfg.MaxValueLen)
	for p.retryScript(err, &r) {
		r.Keys = nil
		err = p.readAgain(ctx, &r, keys, cfg.MaxValueLen)
	}
	if errors.Is(err, errScriptsHeld) { // the tracking connection waited on a write pause: read on another
		t.dropRead()
		t, p.via = nil, nil
		r.Keys = nil
		err = p.readAgain(ctx, &r, keys, cfg.MaxValueLen)
	}
	if err != nil {
		if t != nil {
			t.dropRead()
		}
		return p.failed(err)
	}
	if t != nil {
		t.remember(r.Keys, cfg.Interval)
	}
	p.learn(r.refusals)
	return r
}

// timeLeft reports whether another round trip as slow as slowest still fits before ctx's deadline.
func timeLeft(ctx context.Context, slowest time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return !ok || time.Until(deadline) >= 2*slowest+scanMargin
}

// refresh reads INFO and DBSIZE, and the value and PTTL of every known key, in pipelines of several batches.
// Keys it has no time left to read are not in r.Keys: unknown, not absent.
func (p *poller) refresh(ctx context.Context, cfg Config, known []string, r *Reading, d *discovery, slowest *time.Duration) error {
	first := true
	for len(known) > 0 || first {
		if !first && !timeLeft(ctx, *slowest) {
			return nil
		}
		rest := known // read again, with plain commands, when a write pause holds the scripts
		pipe := p.keyReader().Pipeline()
		var info []*redis.StringCmd // server, replication, stats, memory, commandstats: one section each (Redis 6 takes one)
		var size *redis.IntCmd
		if first {
			for _, section := range infoSections {
				info = append(info, pipe.Info(ctx, section))
			}
			size = pipe.DBSize(ctx)
		}
		var batches []*queuedRead
		var chunks [][]string
		for range refreshPerTrip {
			if len(known) == 0 {
				break
			}
			chunk := known[:min(refreshChunk, len(known))]
			known = known[len(chunk):]
			chunks = append(chunks, chunk)
			batches = append(batches, p.queueRead(ctx, pipe, chunk, cfg.MaxValueLen))
		}
		sent := time.Now()
		bound, cancel := p.pauseBound(ctx, *slowest)
		_, err := pipe.Exec(bound)
		cancel()
		// Per-command errors are examined below; a connection that failed or could not log in fails the poll.
		if err != nil && !errors.Is(err, redis.Nil) && !isServerError(err) {
			if !p.heldByPause(ctx, err) {
				return err
			}
			if p.via != nil {
				return errScriptsHeld
			}
			known = rest
			continue
		}
		rtt := time.Since(sent)
		*slowest = max(*slowest, rtt)
		if first {
			parseInfo(info, r)
			if err := p.notAMaster(ctx, r); err != nil {
				return err
			}
			r.refusals.refused("INFO", info[0].Err())
			r.refusals.refused("DBSIZE", size.Err())
			if n, err := size.Result(); err == nil {
				d.sweep.Total = n
			}
			first = false
		}
		tripFrom := len(r.Keys)
		for i, b := range batches {
			before := len(r.Keys)
			err := b.collect(r, chunks[i], sent, rtt, cfg.MaxValueLen)
			for p.retryScript(err, r) {
				r.Keys = r.Keys[:before]
				err = p.readAgain(ctx, r, chunks[i], cfg.MaxValueLen)
			}
			if err != nil {
				return err
			}
		}
		p.readWhole(ctx, r, tripFrom, nil)
	}
	return nil
}

// discover continues the sweep of the keyspace for new lock keys, within the share of the master's CPU that
// Config.ScanBudget allows for the time since it last ran, and within the poll's deadline. It adds the keys it
// finds to r.Keys, up to tracked+found = Config.MaxKeys.
func (p *poller) discover(ctx context.Context, cfg Config, known *KnownList, r *Reading, d *discovery, slowest time.Duration) error {
	t := &tracking{known: known, tracked: known.Counted(), found: map[string]bool{}}
	if r.Delta {
		t.cached = p.track // a delta has only what changed, and the master tells when a cached key does
	}
	now := time.Now()
	since := cfg.Interval
	if !d.last.IsZero() {
		since = min(now.Sub(d.last), 2*cfg.Interval)
	}
	d.last = now
	budget := time.Duration(float64(since) * cfg.ScanBudget)
	d.completed = false
	defer func() {
		r.Untracked = d.untrackedNow()
		p.keyspace.noteFound(t.found)
	}()
	used, err := p.discoverNotified(ctx, cfg, t, r, d, budget, slowest) // keyspaceread.go
	if err != nil {
		return err
	}
	limit := budget
	if p.keyspace.coveredSince(d.sweptFrom) {
		limit = min(budget, used+time.Duration(float64(budget)*notifiedScanShare))
		r.NotifiedWhy += "; the scan, a safety net, at " + strconv.Itoa(int(100*notifiedScanShare)) + "% of its budget"
	}
	for used < limit && timeLeft(ctx, slowest) && time.Since(now) < cfg.Interval/2 {
		if d.sweep.Started.IsZero() {
			d.sweep.Started = time.Now()
		}
		slice := min(limit-used, discoverSlice)
		sent := time.Now()
		var res discovered
		if p.scripted() {
			res, err = p.discoverScripted(ctx, cfg, d.cursor, slice, slowest)
			if p.heldByPause(ctx, err) || p.afterScriptError(err, r) { // a cluster that cannot serve now refuses no script
				continue
			}
		} else {
			res, err = p.discoverPipelined(ctx, cfg, d.cursor, slice)
		}
		if err != nil {
			if r.refusals.refused("SCAN", err) {
				return fmt.Errorf("SCAN denied: locks cannot be found on this master: %w", err)
			}
			return err
		}
		rtt := time.Since(sent)
		slowest = max(slowest, rtt)
		used += max(res.elapsed, time.Duration(res.scanned)*res.minCost)
		r.refusals.add(res.refusals)
		notLockShaped := t.keep(cfg, res.keys, sent.Add(rtt/2), rtt/2, r, d)
		d.cursor = res.cursor
		d.sweep.Scanned += res.scanned
		d.count(notLockShaped, res.refusals.keys)
		if d.cursor == "0" {
			d.lastOver, d.untracked, d.completed, d.sweptFrom = d.untracked, 0, true, d.sweep.Started
			d.sweepDone()
			d.sweep.Completed++
			d.sweep.LastCompleted = time.Now()
			d.sweep.Scanned, d.sweep.Started = 0, time.Time{}
			return nil // at most one full sweep per poll
		}
	}
	return nil
}

// tracking is what one poll's discovery on one master has tracked so far.
type tracking struct {
	known   *KnownList      // the keys known before the poll
	tracked int             // distinct keys tracked: the known ones (free locks' aside) and the new ones kept
	found   map[string]bool // the keys this poll's discovery kept
	cached  *tracker        // with a delta reading: the tracker, whose cached keys are left out
}

// keep adds to r.Keys the keys of one discovery step that are lock-shaped (with the default pattern; a sorted
// set under any pattern, see lockshape.SetShapeOf), not found already, and known or within Config.MaxKeys, read at readAt to within within; beyond the cap they are
// counted as left out. It returns how many were not lock-shaped.
func (t *tracking) keep(cfg Config, keys []KeyReading, readAt time.Time, within time.Duration, r *Reading, d *discovery) int64 {
	var notLockShaped int64
	for _, k := range keys {
		switch {
		case lockshape.IsClientInternal(k.Key), t.found[k.Key], t.isCached(k.Key), k.cut == cutUnread:
			continue
		case k.refused:
			r.refusals.note("ZRANGE")
			continue
		case k.Set != nil && lockshape.SetShapeOf(k.Key, k.Set, k.PTTL, r.serverNow()) == lockshape.NotASetLock,
			k.cut == cutSkipped, // a long value the script found no lock
			cfg.Pattern == DefaultPattern && !lockShaped(k):
			notLockShaped++
			continue
		case !t.known.Has(k.Key) && t.tracked >= cfg.MaxKeys:
			d.leftOut(1) // the sweep goes on, so it ends, but what it finds is not tracked
			continue
		case !t.known.Has(k.Key):
			t.tracked++ // the cap counts distinct keys: a key known already, or found twice, is not new
		}
		t.found[k.Key] = true
		k.ReadAt, k.ReadWithin = readAt, within
		r.Keys = append(r.Keys, k)
	}
	return notLockShaped
}

// isCached reports whether the tracker holds key, for a delta reading.
func (t *tracking) isCached(key string) bool {
	return t.cached != nil && t.cached.holds(key, t.known)
}

// discovered is the result of one discovery step.
type discovered struct {
	cursor   string
	scanned  int64
	elapsed  time.Duration // server time it took, as the server measured it (0 when unknown)
	minCost  time.Duration // the least each key scanned is charged to the budget
	keys     []KeyReading
	refusals refusals // what the step met of the master's ACL
}

// discoverScripted runs one discovery step as discoverScript, waiting for it as pauseBound says.
func (p *poller) discoverScripted(ctx context.Context, cfg Config, cursor string, slice, slowest time.Duration) (discovered, error) {
	maxScan := max(int64(slice/minKeyCost), 1)
	ctx, cancel := p.pauseBound(ctx, slowest)
	defer cancel()
	res, err := p.eval(ctx, discoverScript, nil, cursor, cfg.Pattern, cfg.ScanCount, cfg.MaxValueLen,
		slice.Microseconds(), maxScan, anyNoTTL(cfg)).Slice()
	if err != nil {
		return discovered{}, err
	}
	if len(res) < 3 || (len(res)-3)%3 != 0 {
		return discovered{}, fmt.Errorf("monitor: discovery script returned %d values", len(res))
	}
	d := discovered{minCost: minKeyCost, keys: make([]KeyReading, 0, (len(res)-3)/3)}
	d.cursor, _ = res[0].(string)
	d.scanned, _ = res[1].(int64)
	us, _ := res[2].(int64)
	d.elapsed = time.Duration(us) * time.Microsecond
	for i := 3; i < len(res); i += 3 {
		k, _ := res[i].(string)
		ms, _ := res[i+2].(int64)
		d.keys = append(d.keys, keyReading(k, res[i+1], ms, cfg.MaxValueLen))
	}
	return d, nil
}

// discoverPipelined runs one discovery step with plain commands, for a master that refuses scripts: one SCAN
// page, then the PTTL and capped value of each key in a second round trip.
func (p *poller) discoverPipelined(ctx context.Context, cfg Config, cursor string, slice time.Duration) (discovered, error) {
	at, _ := strconv.ParseUint(cursor, 10, 64)
	count := max(int64(slice/pipelinedKeyCost), 1)
	keys, next, err := p.client.Scan(ctx, at, cfg.Pattern, count).Result()
	if err != nil {
		return discovered{}, err
	}
	d := discovered{cursor: strconv.FormatUint(next, 10), scanned: int64(len(keys)), minCost: pipelinedKeyCost}
	if len(keys) == 0 {
		return d, nil
	}
	var r Reading
	if err := p.readFound(ctx, &r, keys, cfg); err != nil {
		return discovered{}, err
	}
	d.refusals, d.keys = r.refusals, pipelinedCandidates(cfg, r.Keys)
	return d, nil
}

// looksLikeToken reports whether v has the shape of a lock token: 16 to 64 letters, digits or + / = _ -, as
// discoverScript decides for keys without a TTL.
func looksLikeToken(v string) bool {
	if len(v) < 16 || len(v) > 64 {
		return false
	}
	for _, c := range v {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("+/=_-", c)) {
			return false
		}
	}
	return true
}

// readAgain reads keys in a round trip of their own, in batches of refreshChunk: a script's arguments are
// unpacked on the server's Lua stack, which 10,000 keys overflow (a refusal that would turn the master to
// pipelined reads for good).
func (p *poller) readAgain(ctx context.Context, r *Reading, keys []string, maxLen int) error {
	return p.readAgainIf(ctx, r, keys, maxLen, nil)
}

// readFound is readAgain of keys for discovery: a value longer than Config.MaxValueLen read with plain commands
// is read whole only where it may be a lock (readWhole).
func (p *poller) readFound(ctx context.Context, r *Reading, keys []string, cfg Config) error {
	return p.readAgainIf(ctx, r, keys, cfg.MaxValueLen, func(k *KeyReading) bool { return mayBeLongLock(k, cfg) })
}

// readAgainIf is readAgain, reading whole the long values plain commands read where worth says (nil: all).
func (p *poller) readAgainIf(ctx context.Context, r *Reading, keys []string, maxLen int, worth func(*KeyReading) bool) error {
	pipe := p.keyReader().Pipeline()
	var batches []*queuedRead
	for rest := keys; len(rest) > 0; rest = rest[min(refreshChunk, len(rest)):] {
		batches = append(batches, p.queueRead(ctx, pipe, rest[:min(refreshChunk, len(rest))], maxLen))
	}
	sent := time.Now()
	bound, cancel := p.pauseBound(ctx, 0)
	_, _ = pipe.Exec(bound)
	cancel()
	rtt := time.Since(sent)
	from := len(r.Keys)
	for i, b := range batches {
		chunk := keys[i*refreshChunk : min((i+1)*refreshChunk, len(keys))]
		err := b.collect(r, chunk, sent, rtt, maxLen)
		if p.heldByPause(ctx, err) {
			r.Keys = r.Keys[:from]
			if p.via != nil {
				return errScriptsHeld
			}
			return p.readAgainIf(ctx, r, keys, maxLen, worth) // with plain commands
		}
		if err != nil {
			return err
		}
	}
	p.readWhole(ctx, r, from, worth)
	return nil
}

// queuedRead is a batch read queued in a pipeline, in one of the two read modes.
type queuedRead struct {
	eval   *redis.Cmd
	values []*redis.StringCmd
	pttls  []*redis.DurationCmd
}

// queueRead queues the read of keys' values (capped) and PTTLs on pipe.
func (p *poller) queueRead(ctx context.Context, pipe redis.Pipeliner, keys []string, maxLen int) *queuedRead {
	q := &queuedRead{}
	if len(keys) == 0 {
		return q
	}
	if p.scripted() {
		q.eval = p.queueRefreshScript(ctx, pipe, keys, maxLen)
		return q
	}
	q.values = make([]*redis.StringCmd, len(keys))
	q.pttls = make([]*redis.DurationCmd, len(keys))
	for i, k := range keys {
		q.values[i] = pipe.GetRange(ctx, k, 0, int64(maxLen)) // a byte more: a longer value is told
		q.pttls[i] = pipe.PTTL(ctx, k)
	}
	return q
}

// scriptError is a read script's error reply: the batch must be read again, as the master runs scripts after
// it (retryScript).
type scriptError struct{ err error }

func (e *scriptError) Error() string { return "monitor: read script refused: " + e.err.Error() }

// retryScript reports whether a batch whose read returned err must be read again: err is a read script's error
// reply, after which the master runs scripts another way, or not at all (afterScriptError).
func (p *poller) retryScript(err error, r *Reading) bool {
	var se *scriptError
	return errors.As(err, &se) && p.afterScriptError(se.err, r)
}

// collect appends a reading of every key of the batch to r: present with its value and PTTL, or absent. A
// script's error reply is a *scriptError: the caller reads the batch again (retryScript).
func (q *queuedRead) collect(r *Reading, keys []string, sent time.Time, rtt time.Duration, maxLen int) error {
	readAt := sent.Add(rtt / 2)
	switch {
	case q.eval != nil:
		res, err := q.eval.Slice()
		if err != nil {
			if isServerError(err) {
				return &scriptError{err}
			}
			return err
		}
		if len(res) != 2*len(keys) {
			return errors.New("monitor: read script returned " + strconv.Itoa(len(res)) + " values for " + strconv.Itoa(len(keys)) + " keys")
		}
		for i, k := range keys {
			v := res[2*i]
			ms, _ := res[2*i+1].(int64)
			if v == nil {
				ms = -2 // neither a string nor a hash lock: no lock here
			}
			kr := keyReading(k, v, ms, maxLen)
			if kr.refused {
				r.refusals.note("ZRANGE")
				continue // not read: unknown, never absent
			}
			if kr.cut == cutUnread {
				continue
			}
			kr.ReadAt, kr.ReadWithin = readAt, rtt/2
			r.Keys = append(r.Keys, kr)
		}
	case q.values != nil:
		for i, k := range keys {
			v, err := q.values[i].Result()
			if r.refusals.refused("GETRANGE", err) {
				continue // not read: unknown, never absent
			}
			if err != nil && !isServerError(err) {
				return err
			}
			isString := err == nil
			d, err := q.pttls[i].Result()
			if r.refusals.refused("PTTL", err) {
				continue
			}
			if err != nil {
				return err
			}
			ms := int64(d)
			if d > 0 {
				ms = d.Milliseconds()
			}
			if !isString && ms != -2 {
				continue // a key that is not a string (a hash or a sorted-set lock) is not read so: unknown, never absent
			}
			kr := keyReading(k, v, ms, maxLen) // a value longer than maxLen is cutUnread: readWhole reads it
			kr.ReadAt, kr.ReadWithin = readAt, rtt/2
			r.Keys = append(r.Keys, kr)
		}
	}
	return nil
}

// keyReading builds the reading of one key from its value (a string, or a hash lock's fields and values as
// the scripts return them) and raw PTTL reply (-2 gone, -1 no TTL).
func keyReading(key string, value any, pttlMS int64, maxLen int) KeyReading {
	if pttlMS == -2 {
		return KeyReading{Key: key, Absent: true}
	}
	kr := KeyReading{Key: key, PTTL: time.Duration(pttlMS) * time.Millisecond}
	if pttlMS < 0 {
		kr.PTTL = NoTTL
	}
	switch v := value.(type) {
	case string:
		kr.Value, kr.Digest, kr.Len, kr.cut = parseLongValue(v, maxLen)
	case []any:
		if members, refused, ok := setReading(v, maxLen); ok {
			kr.Set, kr.refused = members, refused
			break
		}
		for _, f := range v {
			s, _ := f.(string)
			kr.Fields = append(kr.Fields, s[:min(len(s), maxLen)])
		}
	}
	return kr
}

// infoSections are the INFO sections a poll reads, each in a command of its own, in the order parseInfo takes
// them.
var infoSections = []string{"server", "replication", "stats", "memory", "commandstats"}

// parseInfo fills the INFO fields of r from the answers to infoSections; a section the server refuses leaves
// its fields unknown.
func parseInfo(info []*redis.StringCmd, r *Reading) {
	fields := map[string]string{}
	answered := make([]bool, len(infoSections))
	for i, cmd := range info {
		text, err := cmd.Result()
		if err != nil {
			continue
		}
		answered[i] = true
		sc := bufio.NewScanner(strings.NewReader(text))
		for sc.Scan() {
			if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":"); ok {
				fields[k] = v
			}
		}
	}
	if v, ok := fields["role"]; ok {
		r.Role = v
	}
	r.Version = fields["redis_version"]
	r.RunID = fields["run_id"]
	if v, err := strconv.ParseInt(fields["uptime_in_seconds"], 10, 64); err == nil && v >= 0 {
		r.Uptime = time.Duration(v) * time.Second
	}
	if v, err := strconv.Atoi(fields["connected_slaves"]); err == nil && v >= 0 {
		r.Replicas = v
	}
	failoverInfo(fields, r)
	r.Counters = keyCountersOf(fields, answered[2], answered[4])
	if v, err := strconv.ParseInt(fields["maxmemory"], 10, 64); err == nil && answered[3] {
		r.EvictionPolicy, r.MaxMemory = fields["maxmemory_policy"], v
	}
}
