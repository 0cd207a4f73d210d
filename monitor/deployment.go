package monitor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/redlock-tui/redlock-tui/monitor/internal/reading"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// How the masters are deployed, said out loud: each command a master's ACL refuses (found by package
// reading's probes, access.go) becomes a warning that says what is off; so do keys its ACL refuses to read,
// script commands renamed away, and keys left out of the list as not lock-shaped.

// Warning kinds of deployments.
const (
	// WarnDenied is the kind of a command the master's ACL refuses, as WarnDenied+":"+command in lower case
	// ("denied:getrange"): one warning per command.
	WarnDenied = "denied"
	// WarnKeysRefused: the master's ACL key patterns refused the read of some keys.
	WarnKeysRefused = "keys-refused"
	// WarnNotLockShaped (information): keys with a TTL left out of the list as not lock-shaped.
	WarnNotLockShaped = "not-lock-shaped"
)

// commandLoss is what stops working when a master refuses one of the commands the monitor needs.
type commandLoss struct {
	severity Severity // of its warning
	off      string   // what is off for watching when it is refused; "" nothing
	writeOff string   // what is off for writing (Config.Writes); "" nothing
}

// scriptsOff is what is off when the read scripts cannot run: the poller falls back to plain commands.
const scriptsOff = "the read scripts cannot run: reads fall back to plain commands (more round trips), and Redisson's hash locks and sorted-set locks are not read"

// commandLosses are the losses of the commands the poller checks (poll's neededCommands), by name.
var commandLosses = map[string]commandLoss{
	"TIME": {severity: SeverityWarning, off: "clock offset unknown; the clock checks are off"},
	"INFO": {severity: SeverityWarning,
		off: "role and restarts are not checked, nor whether two masters are one server, nor eviction and flushes (a lock gone early is told released)"},
	"DBSIZE":   {severity: SeverityInfo, off: "the scan's progress has no total"},
	"SCAN":     {severity: SeverityError, off: "locks cannot be found"},
	"GETRANGE": {severity: SeverityError, off: "values cannot be read; locks are not listed"},
	"PTTL":     {severity: SeverityError, off: "TTLs cannot be read; locks are not listed"},
	"EVAL": {severity: SeverityWarning, off: scriptsOff,
		writeOff: "locks cannot be released or extended from here (their scripts are loaded with EVAL)"},
	"MGET":   {severity: SeverityWarning, off: scriptsOff},
	"STRLEN": {severity: SeverityWarning, off: scriptsOff},
	"GET": {severity: SeverityWarning, off: scriptsOff,
		writeOff: "locks cannot be released or extended from here (their scripts compare the token with GET)"},
	"TYPE":    {severity: SeverityWarning, off: scriptsOff},
	"HLEN":    {severity: SeverityWarning, off: scriptsOff},
	"HGETALL": {severity: SeverityWarning, off: scriptsOff},
	"ZRANGE": {severity: SeverityWarning,
		off: "sorted-set locks (Symfony Lock, redis-semaphore) cannot be read: new ones are not listed, known ones are unknown"},
	"PUBSUB": {severity: SeverityInfo, off: "Redisson locks' waiters (the subscribers of their channels) are not counted"},
	"PING": {severity: SeverityWarning,
		writeOff: "locks cannot be acquired, extended or released from here (each connection starts with PING)"},
	"SET":     {severity: SeverityWarning, writeOff: "locks cannot be acquired from here"},
	"EVALSHA": {severity: SeverityWarning, writeOff: "locks cannot be released or extended from here"},
	"DEL":     {severity: SeverityWarning, writeOff: "locks cannot be released from here"},
	"PEXPIRE": {severity: SeverityWarning, writeOff: "locks cannot be extended from here"},
	"ROLE":    {severity: SeverityWarning, writeOff: "a replica given as a master is found only when it refuses a write"},
}

// accessWarnings are the warnings of the commands m's ACL refuses, one per command, saying what is off.
func accessWarnings(m *MasterStatus, writes bool) []Warning {
	var ws []Warning
	if writes {
		for _, name := range m.DeniedOnKeys {
			if c, ok := commandLosses[name]; ok && c.writeOff != "" {
				ws = append(ws, Warning{Severity: c.severity, Kind: WarnDenied + ":" + strings.ToLower(name), Master: m.Addr,
					Text: name + " denied on keys outside the user's ACL key patterns: on such keys, " + c.writeOff})
			}
		}
	}
	for _, name := range m.Denied {
		c, ok := commandLosses[name]
		if !ok {
			continue
		}
		var off []string
		if c.off != "" {
			off = append(off, c.off)
		}
		if writes && c.writeOff != "" {
			off = append(off, c.writeOff)
		}
		if len(off) == 0 {
			continue
		}
		ws = append(ws, Warning{Severity: c.severity, Kind: WarnDenied + ":" + strings.ToLower(name), Master: m.Addr,
			Text: name + " denied: " + strings.Join(off, "; ")})
	}
	return ws
}

// deploymentWarnings returns the warnings of how the masters are deployed: the commands and keys their ACL
// refuses, the script commands they do not have, and the keys left out of the list as not lock-shaped
// (information). It only reads s.
func deploymentWarnings(s *Snapshot, cfg Config) []Warning {
	var ws []Warning
	for i := range s.Masters {
		m := &s.Masters[i]
		if !m.Up {
			continue
		}
		own := accessWarnings(m, cfg.Writes)
		if w, ok := noScriptsWarning(m); ok {
			own = append(own, w)
		}
		if m.Sweep.Refused > 0 {
			own = append(own, Warning{Severity: SeverityWarning, Kind: WarnKeysRefused, Master: m.Addr,
				Text: fmt.Sprintf("%s refused by the user's ACL key patterns, not read: a lock among them is not listed; "+
					"a --pattern within the user's keys leaves them out", vocab.Count(m.Sweep.Refused, "key"))})
		}
		ws = append(ws, own...)
	}
	if text := notLockShapedText(s.NotLockShaped()); text != "" && cfg.Pattern == DefaultPattern {
		ws = append(ws, Warning{Severity: SeverityInfo, Kind: WarnNotLockShaped, Text: text})
	}
	return ws
}

// WarnNoScripts is the kind of the warning about a master that cannot run Lua scripts: EVAL or EVALSHA is
// not a command there (MasterStatus.MissingCommands).
const WarnNoScripts = "no-scripts"

// noScriptsWarning returns the warning about m's missing script commands, and false when it has them all (as
// far as is known).
func noScriptsWarning(m *MasterStatus) (Warning, bool) {
	w := Warning{Severity: SeverityError, Kind: WarnNoScripts, Master: m.Addr}
	switch {
	case slices.Contains(m.MissingCommands, reading.CmdEval):
		w.Text = "cannot run Lua scripts (EVAL is renamed away in its configuration): locks taken there can never be " +
			"released or extended by Redlock clients"
	case slices.Contains(m.MissingCommands, reading.CmdEvalSHA):
		w.Text = "cannot run Lua scripts by their SHA1 (EVALSHA is renamed away in its configuration): locks taken " +
			"there can never be released or extended by Redlock clients that run their scripts with EVALSHA, as most do"
	default:
		return Warning{}, false
	}
	return w, true
}

// NotLockShaped is how many keys with a TTL the masters hold that are not lock-shaped, so not listed (default
// pattern only): the sum over distinct servers of their last full sweep's count (or, before one finished,
// the count so far).
func (s Snapshot) NotLockShaped() int64 {
	var n int64
	for _, m := range s.Masters {
		if m.DuplicateOf == "" {
			n += m.Sweep.NotLockShaped
		}
	}
	return n
}

// notLockShapedText is the line that tells how many keys were left out as not lock-shaped, "" for none.
func notLockShapedText(n int64) string {
	switch {
	case n <= 0:
		return ""
	case n == 1:
		return "1 key with a TTL is not lock-shaped: --pattern shows it"
	}
	return fmt.Sprintf("%s keys with a TTL are not lock-shaped: --pattern shows them", vocab.Thousands(int(n)))
}
