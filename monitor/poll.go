package monitor

import (
	"bufio"
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Reading is the raw result of polling one master once: what it answered, with the local times needed to
// interpret it. Aggregate turns a Reading per master into a Snapshot.
type Reading struct {
	Addr       string
	Err        error         // nil when the master answered; otherwise it is down and the rest is empty
	Sent       time.Time     // local clock when TIME was sent
	Received   time.Time     // local clock when its reply arrived
	ServerTime time.Time     // the master's TIME reply; zero when TIME was refused
	Role       string        // INFO replication role; "" unknown
	Version    string        // INFO server redis_version; "" unknown
	RunID      string        // INFO server run_id; "" unknown
	Uptime     time.Duration // INFO server uptime_in_seconds; UnknownUptime when unknown
	Replicas   int           // INFO replication connected_slaves; -1 unknown
	Keys       []KeyReading  // lock keys: strings with a TTL
	NotLocks   int           // keys matched but left out: other types or no TTL
	Truncated  bool          // more lock keys than Config.MaxKeys
	Incomplete bool          // the scan stopped short of the deadline: keys past that point were not read
}

// KeyReading is one lock key as read from one master.
type KeyReading struct {
	Key    string
	Value  string        // capped to Config.MaxValueLen bytes
	PTTL   time.Duration // remaining TTL as the master reported it
	ReadAt time.Time     // local estimate of when the master evaluated PTTL; zero means the snapshot time
}

// UnknownUptime marks Reading.Uptime and MasterStatus.Uptime when INFO did not tell.
const UnknownUptime time.Duration = -1

// readScript returns, for each key, its value cut to ARGV[1] bytes (nil when it is not a string) and its PTTL,
// so a batch of keys costs one round trip and values are capped on the server. On 5 redis-server masters with
// 100,000 keys in all (BenchmarkPoll100k) it costs about 0.72s of CPU per poll, client and servers together,
// against 0.80s for the pipeline of GETRANGE+PTTL per key that readPipelined sends; an earlier script doing
// GETRANGE per key cost more than both.
const readScript = `local n = tonumber(ARGV[1])
local out = {}
for first = 1, #KEYS, 1000 do
  local last = math.min(first + 999, #KEYS)
  local vals = redis.call('MGET', unpack(KEYS, first, last))
  for i = first, last do
    local v = vals[i - first + 1]
    if v and #v > n then v = string.sub(v, 1, n) end
    out[2*i-1] = v
    out[2*i] = redis.call('PTTL', KEYS[i])
  end
end
return out`

// scanMargin is kept free before a poll's deadline on top of twice the slowest round trip, for the reply to be
// handed over.
const scanMargin = 10 * time.Millisecond

// readMode chooses how key values and TTLs are read.
type readMode int

const (
	readScripted  readMode = iota // one EVAL per batch
	readPipelined                 // GETRANGE+PTTL per key in a pipeline, for servers that refuse scripts
)

// poller reads one master. It is used by one poll at a time.
type poller struct {
	client *redis.Client
	addr   string
	mode   readMode
}

// isServerError reports whether err is an error reply from the server to one command (the connection is
// fine). A refused login is not: it leaves the master unusable, so it counts as down.
func isServerError(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && !errors.Is(err, redis.Nil) && !isAuthError(err)
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

// read polls the master once: TIME, INFO, then SCAN with each batch of keys read in the same round trip as the
// next SCAN step.
func (p *poller) read(ctx context.Context, cfg Config) Reading {
	r := Reading{Addr: p.addr, Uptime: UnknownUptime, Replicas: -1}
	r.Sent = time.Now()
	t, err := p.client.Time(ctx).Result()
	r.Received = time.Now()
	switch {
	case err == nil:
		r.ServerTime = t
	case isServerError(err):
		// TIME refused (ACL): the master is up, its clock unknown; time a PING instead.
		r.Sent = time.Now()
		err = p.client.Ping(ctx).Err()
		r.Received = time.Now()
		if err != nil && !isServerError(err) {
			return Reading{Addr: p.addr, Err: err}
		}
	default:
		return Reading{Addr: p.addr, Err: err}
	}
	if err := p.scan(ctx, cfg, &r); err != nil {
		return Reading{Addr: p.addr, Err: err}
	}
	return r
}

// scan walks the keyspace. The first round trip also carries INFO; every later one carries the read of the
// previous SCAN page, so a poll costs one round trip per SCAN page plus one. When the next round trip would
// likely end past ctx's deadline, it stops and marks the reading incomplete, so a large keyspace yields what
// was read rather than a master reported down.
func (p *poller) scan(ctx context.Context, cfg Config, r *Reading) error {
	var (
		cursor  uint64
		pending []string
		first   = true
		done    bool
		slowest time.Duration // longest round trip so far
	)
	deadline, hasDeadline := ctx.Deadline()
	for {
		if !first && hasDeadline && time.Until(deadline) < 2*slowest+scanMargin {
			r.Incomplete = true
			return nil
		}
		pipe := p.client.Pipeline()
		var server, repl *redis.StringCmd
		if first {
			server = pipe.Info(ctx, "server")
			repl = pipe.Info(ctx, "replication")
		}
		var scanCmd *redis.ScanCmd
		if !done {
			scanCmd = pipe.Scan(ctx, cursor, cfg.Pattern, int64(cfg.ScanCount))
		}
		batch := p.queueRead(ctx, pipe, pending, cfg.MaxValueLen)
		sent := time.Now()
		// Per-command errors are examined below; a connection that failed or could not log in fails the poll.
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) && !isServerError(err) {
			return err
		}
		rtt := time.Since(sent)
		slowest = max(slowest, rtt)
		readAt := sent.Add(rtt / 2)
		if first {
			parseInfo(server, repl, r)
			first = false
		}
		err := batch.collect(r, pending, readAt, cfg.MaxValueLen)
		if errors.Is(err, errRetryPipelined) {
			p.mode = readPipelined
			err = p.readAgain(ctx, r, pending, cfg.MaxValueLen)
		}
		if err != nil {
			return err
		}
		if len(r.Keys) >= cfg.MaxKeys {
			r.Truncated = len(r.Keys) > cfg.MaxKeys || !done || cursor != 0
			r.Keys = r.Keys[:cfg.MaxKeys:cfg.MaxKeys]
			return nil
		}
		if done {
			return nil
		}
		keys, next, err := scanCmd.Result()
		if err != nil {
			return err
		}
		pending, cursor = keys, next
		done = cursor == 0
		if done && len(pending) == 0 {
			return nil
		}
	}
}

// readAgain reads keys in a round trip of their own.
func (p *poller) readAgain(ctx context.Context, r *Reading, keys []string, maxLen int) error {
	pipe := p.client.Pipeline()
	batch := p.queueRead(ctx, pipe, keys, maxLen)
	sent := time.Now()
	_, _ = pipe.Exec(ctx)
	return batch.collect(r, keys, sent.Add(time.Since(sent)/2), maxLen)
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
	if p.mode == readScripted {
		q.eval = pipe.Eval(ctx, readScript, keys, maxLen)
		return q
	}
	q.values = make([]*redis.StringCmd, len(keys))
	q.pttls = make([]*redis.DurationCmd, len(keys))
	for i, k := range keys {
		q.values[i] = pipe.GetRange(ctx, k, 0, int64(maxLen)-1)
		q.pttls[i] = pipe.PTTL(ctx, k)
	}
	return q
}

// errRetryPipelined reports that the server refused the read script; the batch must be read again.
var errRetryPipelined = errors.New("monitor: read script refused")

// collect appends the batch's lock keys to r and counts the rest as not locks. A server that refuses the
// script switches the poller to pipelined reads for the batch and every later one.
func (q *queuedRead) collect(r *Reading, keys []string, readAt time.Time, maxLen int) error {
	switch {
	case q.eval != nil:
		res, err := q.eval.Slice()
		if err != nil {
			if isServerError(err) {
				return errRetryPipelined
			}
			return err
		}
		if len(res) != 2*len(keys) {
			return errors.New("monitor: read script returned " + strconv.Itoa(len(res)) + " values for " + strconv.Itoa(len(keys)) + " keys")
		}
		for i, k := range keys {
			v, isString := res[2*i].(string)
			ms, _ := res[2*i+1].(int64)
			addKey(r, k, v, isString, ms, readAt, maxLen)
		}
	case q.values != nil:
		for i, k := range keys {
			v, err := q.values[i].Result()
			isString := err == nil
			if err != nil && !isServerError(err) {
				return err
			}
			d, err := q.pttls[i].Result()
			if err != nil {
				return err
			}
			ms := int64(d)
			if d > 0 {
				ms = d.Milliseconds()
			}
			addKey(r, k, v, isString, ms, readAt, maxLen)
		}
	}
	return nil
}

// addKey files one key read as a lock or a not-lock. pttlMS is the raw PTTL reply: -2 gone, -1 no TTL.
func addKey(r *Reading, key, value string, isString bool, pttlMS int64, readAt time.Time, maxLen int) {
	switch {
	case pttlMS == -2: // expired or deleted since SCAN
	case !isString || pttlMS < 0:
		r.NotLocks++
	default:
		if len(value) > maxLen {
			value = value[:maxLen]
		}
		r.Keys = append(r.Keys, KeyReading{Key: key, Value: value, PTTL: time.Duration(pttlMS) * time.Millisecond, ReadAt: readAt})
	}
}

// parseInfo fills the INFO fields of r; a section the server refuses leaves its fields unknown.
func parseInfo(server, repl *redis.StringCmd, r *Reading) {
	fields := map[string]string{}
	for _, cmd := range []*redis.StringCmd{server, repl} {
		text, err := cmd.Result()
		if err != nil {
			continue
		}
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
}
