package reading

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// How the read scripts run. A master that pauses its writes (CLIENT PAUSE WRITE: a failover, a resharding,
// an operator) still answers reads, and a monitor that waited for the pause to end would show the master down
// while it serves every lock it holds. A plain EVAL waits out such a pause (the server cannot know it does not
// write); a script that declares it does not write does not. So each master runs the read scripts in the first
// of these ways it accepts:
//
//   - EVAL of the script flagged "#!lua flags=no-writes" (Redis 7 and later);
//   - EVAL_RO of the plain script, where EVAL is not a command (renamed away in the master's configuration):
//     read-only scripts, which a write pause does not hold either (Redis 7 and later);
//   - EVAL of the plain script, where the server does not know script flags (before Redis 7). A write pause
//     holds it, so such a read waits for its scripts at most scriptPauseWait, then reads the rest with plain
//     commands (GETRANGE and PTTL, which a write pause lets through): strings are read, Redisson's hash locks
//     and sorted-set locks are unknown for that read, never absent.
//
// A master where none of them runs is read with plain commands only (readPipelined).

// scriptVariant is how a master runs the read scripts.
type scriptVariant uint8

const (
	scriptsNoWrites scriptVariant = iota // EVAL of the script flagged no-writes (Redis 7)
	scriptsReadOnly                      // EVAL_RO of the plain script: EVAL is not a command there (Redis 7)
	scriptsCompat                        // EVAL of the plain script: the server knows no script flags (Redis 6)
)

// noWritesShebang flags a read script as one that writes nothing, which a write pause lets through, and that
// may read keys of several slots (a Redis Cluster node's, as a plain script may).
const noWritesShebang = "#!lua flags=no-writes,allow-cross-slot-keys\n"

// readScript is a read script as the masters run it: plain, or flagged no-writes.
type readScript struct{ plain, flagged string }

// newReadScript returns the read script of the Lua body.
func newReadScript(body string) readScript {
	return readScript{plain: body, flagged: noWritesShebang + body}
}

// scriptArgs returns the command that runs s with keys and args, as the master runs the read scripts now.
func (p *poller) scriptArgs(s readScript, keys []string, args []any) []any {
	name, body := "EVAL", s.flagged
	switch p.scripts {
	case scriptsReadOnly:
		name, body = "EVAL_RO", s.plain
	case scriptsCompat:
		body = s.plain
	}
	out := make([]any, 0, 3+len(keys)+len(args))
	out = append(out, name, body, len(keys))
	for _, k := range keys {
		out = append(out, k)
	}
	return append(out, args...)
}

// scripted reports whether this read runs scripts: the master runs them, and no write pause held them during
// this read.
func (p *poller) scripted() bool { return p.mode == readScripted && !p.scriptsHeld }

// afterScriptError moves the poller on from a read script's error reply: to the next way of running scripts
// when the error says this one is not the master's (EVAL not a command, script flags unknown), and reports
// true, for the read to be made again; otherwise to plain commands for good, as for a master that refuses
// scripts, reporting true as well, unless err is no script's refusal (the cluster cannot serve now).
func (p *poller) afterScriptError(err error, r *Reading) bool {
	switch {
	case !isServerError(err) || isClusterState(err):
		return false
	case p.scripts == scriptsNoWrites && isUnknownCommand(err, "eval"):
		p.scripts = scriptsReadOnly
		r.noteMissing("EVAL")
		return true
	case p.scripts == scriptsNoWrites && flagsUnknown(err):
		p.scripts = scriptsCompat
		return true
	}
	if p.scripts == scriptsReadOnly && isUnknownCommand(err, "eval_ro") {
		r.noteMissing("EVAL")
	}
	r.refusals.refused("EVAL", err)
	p.mode = readPipelined
	return true
}

// isUnknownCommand reports whether err is the server's answer to a command it does not have (renamed away
// in its configuration): "ERR unknown command 'eval', with args beginning with: ...".
func isUnknownCommand(err error, name string) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	return strings.HasPrefix(msg, "err unknown command") &&
		(strings.Contains(msg, "'"+name+"'") || strings.Contains(msg, "`"+name+"`"))
}

// flagsUnknown reports whether err is a server's refusal of the no-writes shebang: a Lua syntax error before
// Redis 7, or a flag it does not know.
func flagsUnknown(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Error compiling script") || strings.Contains(msg, "shebang")
}

// scriptPauseWait is the least time a read waits for scripts that a write pause may hold (scriptsCompat)
// before it reads with plain commands: a read of thousands of keys takes a few milliseconds.
const scriptPauseWait = 100 * time.Millisecond

// pauseBound returns the context a scripted round trip runs in: ctx, or, where a write pause holds the
// scripts (scriptsCompat), one that ends after scriptPauseWait or eight round trips as slow as slowest,
// whichever is longer, but at most a third of the time ctx has left: the poll waits for a master about one
// interval once the others have answered, and the read with plain commands must fit in what remains.
func (p *poller) pauseBound(ctx context.Context, slowest time.Duration) (context.Context, context.CancelFunc) {
	if p.scripts != scriptsCompat || !p.scripted() {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, min(max(scriptPauseWait, 8*slowest), timeUntil(ctx)/3))
}

// heldByPause reports whether err, the error of a scripted round trip run in bound (pauseBound of ctx), says
// that a write pause holds the scripts: a plain script timed out while ctx has time left. The rest of the read
// is then made with plain commands.
func (p *poller) heldByPause(ctx context.Context, err error) bool {
	if p.scripts != scriptsCompat || !p.scripted() || err == nil || ctx.Err() != nil || !isTimeout(err) {
		return false
	}
	p.scriptsHeld = true
	return true
}

// isTimeout reports whether err is a deadline that passed: the context's, or the connection's read timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// errScriptsHeld reports that a write pause held a read's scripts on a connection that cannot be used again
// (the tracking read connection): the read is made again, with plain commands, on another.
var errScriptsHeld = errors.New("monitor: a write pause held the read scripts")

// Script commands a master may not have: renamed away in its configuration (rename-command EVAL ""), for
// every client.
const (
	CmdEval    = "EVAL"
	CmdEvalSHA = "EVALSHA"
)

// scriptCommands are the script commands whose presence the access check probes, by a call without
// arguments: a command the server has answers that its arguments are wrong, at once, without running it,
// checking the ACL or waiting for a write pause; one it does not have answers that it is unknown.
var scriptCommands = []string{CmdEval, CmdEvalSHA}

// noteMissing notes that the master does not have cmd.
func (r *Reading) noteMissing(cmd string) {
	if !slices.Contains(r.MissingCommands, cmd) {
		r.MissingCommands = append(r.MissingCommands, cmd)
	}
}

// queuePresenceProbes queues on pipe a call without arguments of each script command, for missingOf.
func queuePresenceProbes(ctx context.Context, pipe redis.Pipeliner) []*redis.Cmd {
	probes := make([]*redis.Cmd, len(scriptCommands))
	for i, name := range scriptCommands {
		probes[i] = pipe.Do(ctx, name)
	}
	return probes
}

// missingOf returns the script commands the probes found missing.
func missingOf(probes []*redis.Cmd) []string {
	var missing []string
	for i, probe := range probes {
		if isUnknownCommand(probe.Err(), strings.ToLower(scriptCommands[i])) {
			missing = append(missing, scriptCommands[i])
		}
	}
	return missing
}
