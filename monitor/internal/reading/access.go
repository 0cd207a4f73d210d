package reading

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Least privilege, said out loud. A master whose ACL refuses one of the commands the monitor needs answers
// every poll, so nothing looks wrong: a refused GETRANGE read as "no key" would show an empty list, a refused
// INFO silently turns the replica and restart checks off. So each master's access is checked at the end of
// the poller's first read, again after a read failed (a new connection) and every accessRecheck: with ACL
// DRYRUN where the server has it and lets the user run it, and with harmless uses of the same commands
// otherwise.
// Refusals met while reading are learned too. Each refused command becomes a warning that says what is off;
// a key whose read was refused is unknown, never absent.

// accessRecheck is how often a master's access is checked again while it answers, so that an ACL changed
// meanwhile (a permission granted or taken) shows within a minute.
const accessRecheck = time.Minute

// accessWait is the least time a check waits for its answer: one pipeline of about twenty small commands.
const accessWait = 100 * time.Millisecond

// neededCommand is a command the program needs, with a use of it that changes nothing. What stops working when
// the master refuses it is the monitor's to say (its access warnings).
type neededCommand struct {
	name  string                          // upper case, as the warning names it
	args  func(key, pattern string) []any // run as a probe, or given to ACL DRYRUN; key does not exist
	write bool                            // checked only when the program writes
}

// neededCommands are the commands the monitor reads with (directly, or in its read scripts) and, when the
// program writes, those of the Redlock client (SET NX PX, the release and extend scripts through EVALSHA and
// EVAL, and PING and ROLE when it connects). Fencing (EXISTS, INCR) and deleting a Redisson lock (TYPE,
// HEXISTS, PUBLISH) are not checked: they are named when refused (see redlock's script errors).
var neededCommands = []neededCommand{
	{name: "TIME", args: plain("TIME")},
	{name: "INFO", args: plain("INFO", "server")},
	{name: "DBSIZE", args: plain("DBSIZE")},
	{name: "SCAN", args: func(_, pattern string) []any { return []any{"SCAN", "0", "MATCH", pattern, "COUNT", "1"} }},
	{name: "GETRANGE", args: onKey("GETRANGE", 0, 0)},
	{name: "PTTL", args: onKey("PTTL")},
	// Flagged no-writes, as the read scripts are: a write pause does not hold it (scripts.go).
	{name: "EVAL", args: plain("EVAL", noWritesShebang+"return 1", 0)},
	{name: "MGET", args: onKey("MGET")},
	{name: "STRLEN", args: onKey("STRLEN")},
	{name: "GET", args: onKey("GET")},
	{name: "TYPE", args: onKey("TYPE")},
	{name: "HLEN", args: onKey("HLEN")},
	{name: "HGETALL", args: onKey("HGETALL")},
	{name: "ZRANGE", args: onKey("ZRANGE", 0, 0)},
	{name: "PUBSUB", args: plain("PUBSUB", "NUMSUB", redissonChannelPrefix)},
	{name: "PING", args: plain("PING"), write: true},
	// NX and XX together are a syntax error, found after the ACL check: the probe never writes.
	{name: "SET", args: onKey("SET", "x", "NX", "XX"), write: true},
	{name: "EVALSHA", args: func(key, _ string) []any { return []any{"EVALSHA", strings.Repeat("0", 40), 1, key} }, write: true},
	{name: "DEL", args: onKey("DEL"), write: true},
	{name: "PEXPIRE", args: onKey("PEXPIRE", 1000), write: true},
	{name: "ROLE", args: plain("ROLE"), write: true},
}

func plain(args ...any) func(string, string) []any {
	return func(string, string) []any { return args }
}

func onKey(name string, rest ...any) func(string, string) []any {
	return func(key, _ string) []any { return append([]any{name, key}, rest...) }
}

// accessState is what the poller knows of its master's ACL.
type accessState struct {
	checkedAt time.Time
	via       string   // "ACL DRYRUN" or "probes"
	denied    []string // found by the check
	learned   []string // refused while reading since the check
	onKeys    []string // write commands the check found refused on its key, by the ACL's key patterns
	missing   []string // script commands the server does not have, found by the check or met by a read, sorted
}

// noteMissing adds the script commands a read found missing.
func (a *accessState) noteMissing(cmds []string) {
	for _, c := range cmds {
		if !slices.Contains(a.missing, c) {
			a.missing = append(a.missing, c)
		}
	}
	slices.Sort(a.missing)
}

// due reports whether the access should be checked (again).
func (a *accessState) due(now time.Time) bool {
	return a.checkedAt.IsZero() || now.Sub(a.checkedAt) >= accessRecheck
}

// list returns every command known to be refused, sorted, and the write commands refused on some keys.
func (a *accessState) list() (denied, onKeys []string) {
	for _, c := range slices.Concat(a.denied, a.learned) {
		if !slices.Contains(denied, c) {
			denied = append(denied, c)
		}
	}
	slices.Sort(denied)
	return denied, slices.Clone(a.onKeys)
}

// refusals are what a read met of the master's ACL: commands it refused, and keys whose read it refused.
type refusals struct {
	commands []string
	keys     int64
}

// refused reports whether err is the master's ACL refusing cmd or the key it was run on, and notes which. A
// read script refused its keys (read-only key patterns, %R~*, refuse the keys EVAL declares) is refused as a
// whole: reads fall back to plain commands.
func (r *refusals) refused(cmd string, err error) bool {
	switch {
	case !isRefusalOf(cmd, err):
		return false
	case isKeyRefusal(err.Error()) && cmd != "EVAL":
		r.keys++
	case !slices.Contains(r.commands, cmd):
		r.commands = append(r.commands, cmd)
	}
	return true
}

// add notes the refusals of o too.
func (r *refusals) add(o refusals) {
	for _, c := range o.commands {
		if !slices.Contains(r.commands, c) {
			r.commands = append(r.commands, c)
		}
	}
	r.keys += o.keys
}

// refusedName finds the command an ACL refusal names: "NOPERM this user has no permissions to run the 'select'
// command".
var refusedName = regexp.MustCompile(`'([^']+)' command`)

// isRefusalOf reports whether err is an ACL refusal (NOPERM) of cmd, or of the keys it names: not one that
// names another command, such as the SELECT that go-redis sends on each new connection.
func isRefusalOf(cmd string, err error) bool {
	if !redis.HasErrorPrefix(err, "NOPERM") {
		return false
	}
	m := refusedName.FindStringSubmatch(err.Error())
	return m == nil || strings.EqualFold(m[1], cmd)
}

// isKeyRefusal reports whether an ACL refusal is about the keys (or channels) a command names rather than the
// command: "NOPERM this user has no permissions to access one of the keys used as arguments".
func isKeyRefusal(msg string) bool {
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "key") || strings.Contains(msg, "channel")
}

// checkAccess finds which of the needed commands the master refuses, and which script commands it does not
// have (scripts.go), when a check is due: ACL DRYRUN for the client's user, a harmless use of each command and
// a call of each script command without arguments go out in one pipeline. It comes last in a read, when the
// read itself is done, and only when a round trip as slow as slowest still fits before ctx's deadline; it
// waits for its answer at most accessWait or four such round trips, so that it does not make a read late.
// DRYRUN's answers are used where it ran (Redis 7 and later, for a user allowed to run it); the probes'
// otherwise. A check that got no answer is made again at the next read.
func (p *poller) checkAccess(ctx context.Context, cfg Config, slowest time.Duration) {
	now := time.Now()
	if !p.access.due(now) || !timeLeft(ctx, slowest) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, max(accessWait, 4*slowest))
	defer cancel()
	var cmds []neededCommand
	for _, c := range neededCommands {
		if !c.write || cfg.Writes {
			cmds = append(cmds, c)
		}
	}
	key := probeKey(cfg.Pattern)
	user := p.client.Options().Username
	if user == "" {
		user = "default"
	}
	pipe := p.client.Pipeline()
	dry := make([]*redis.Cmd, len(cmds))
	probes := make([]*redis.Cmd, len(cmds))
	for i, c := range cmds {
		args := c.args(key, cfg.Pattern)
		dry[i] = pipe.Do(ctx, append([]any{"ACL", "DRYRUN", user}, args...)...)
		probes[i] = pipe.Do(ctx, args...)
	}
	presence := queuePresenceProbes(ctx, pipe)
	_, _ = pipe.Exec(ctx)
	for _, cmd := range slices.Concat(dry, probes, presence) {
		var re redis.Error
		if err := cmd.Err(); err != nil && !errors.As(err, &re) {
			return // no answer (a timeout, a closed connection): not checked
		}
	}
	a := accessState{checkedAt: now, via: "probes", missing: missingOf(presence)}
	if dry[0].Err() == nil {
		a.via = "ACL DRYRUN"
	}
	for i, c := range cmds {
		var refused, onKey bool
		if a.via == "ACL DRYRUN" {
			answer, _ := dry[i].Val().(string)
			refused, onKey = strings.Contains(answer, "permissions to run"), strings.Contains(answer, "permissions to access")
		} else if err := probes[i].Err(); isRefusalOf(c.name, err) {
			onKey = isKeyRefusal(err.Error())
			refused = !onKey
		}
		switch {
		case refused:
			a.denied = append(a.denied, c.name)
		case onKey && c.write:
			// Refused on the probe's key, which is inside the pattern: the user may not write such keys. A read
			// refused so is not told here: the reads count the keys refused (Sweep.Refused).
			a.onKeys = append(a.onKeys, c.name)
		}
	}
	p.access = a
}

// learn adds the commands a read found refused to what is known of the master's access.
func (p *poller) learn(r refusals) {
	for _, c := range r.commands {
		if !slices.Contains(p.access.learned, c) {
			p.access.learned = append(p.access.learned, c)
		}
	}
}

// probeKey is a key that does not exist, for the checks: inside pattern when it has a '*' to put a random name
// in (so that ACL key patterns as narrow as the pattern allow it), else outside it, so that a pattern naming
// one key never has that key touched.
func probeKey(pattern string) string {
	b := make([]byte, 15)
	_, _ = rand.Read(b)
	name := "redlock-tui-access-check-" + base64.RawURLEncoding.EncodeToString(b)
	var out strings.Builder
	filled := false
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			if !filled {
				out.WriteString(name)
				filled = true
			}
		case '?':
			out.WriteByte('x')
		case '\\':
			if i+1 < len(pattern) {
				i++
				out.WriteByte(pattern[i])
			}
		case '[':
			end := strings.IndexByte(pattern[i+1:], ']')
			if end <= 0 || pattern[i+1] == '^' {
				return name // a class too odd to fill in: stay outside the pattern
			}
			out.WriteByte(pattern[i+1])
			i += end + 1
		default:
			out.WriteByte(c)
		}
	}
	if !filled {
		return name
	}
	return out.String()
}

// withAdvice adds Config.Advise's advice to a read's error: at once for a refusal (a login refused), and for
// other errors only when the previous read failed the same way, since a connection closed once is also what
// a master's restart looks like, while a port that wants TLS closes every connection.
func (p *poller) withAdvice(err error, refused bool) error {
	again := err.Error() == p.lastErr
	p.lastErr = err.Error()
	if p.advise == nil || !refused && !again {
		return err
	}
	advice := p.advise(p.addr, err)
	if advice == "" {
		return err
	}
	return &advisedError{err: err, advice: advice}
}

// advisedError is an error with what the user can do about it: "NOAUTH Authentication required. The master
// needs a password: ...", or "EOF: the server may require TLS: ...".
type advisedError struct {
	err    error
	advice string
}

func (e *advisedError) Error() string {
	msg := e.err.Error()
	if strings.HasSuffix(msg, ".") {
		return msg + " " + strings.ToUpper(e.advice[:1]) + e.advice[1:]
	}
	return msg + ": " + e.advice
}

func (e *advisedError) Unwrap() error { return e.err }
