package whoholds

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/vocab"
	"github.com/redlock-tui/redlock-tui/monitor/vocab/untrusted"
)

// Role is what a connection did to the lock's key during a sample; the lower, the stronger the evidence that
// it holds the lock.
type Role int

// The roles, strongest first.
const (
	// RoleHolder sent the holder's token with a command on the key: set it, or ran a script given it (the
	// extend and release scripts of every Redlock client, Redisson's renewal).
	RoleHolder Role = iota
	// RoleExpiry changed the key's expiry without naming a token (PEXPIRE): the holder, if nobody sent the
	// token, since a client extends a lock only while it holds it.
	RoleExpiry
	// RoleContender tried to set the key to another value: a client waiting for the lock.
	RoleContender
	// RoleWriter changed the key otherwise (DEL, another value without NX's contest).
	RoleWriter
	// RoleScript ran a script on the key without the holder's token: a monitor's read script (this program's
	// own polls among them), a contender's acquire script.
	RoleScript
	// RoleReader only read the key: a monitor (this program's own polls among them) or a client checking.
	RoleReader
)

// String is the role as the JSON output and the text name it.
func (r Role) String() string {
	switch r {
	case RoleHolder:
		return "holder"
	case RoleExpiry:
		return "extends"
	case RoleContender:
		return "contender"
	case RoleWriter:
		return "writer"
	case RoleScript:
		return "script"
	}
	return "reader"
}

// MarshalText writes the role's name.
func (r Role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a role's name, as MarshalText writes it.
func (r *Role) UnmarshalText(text []byte) error {
	for role := RoleHolder; role <= RoleReader; role++ {
		if role.String() == string(text) {
			*r = role
			return nil
		}
	}
	return fmt.Errorf("unknown role %q", text)
}

// Conn is one connection seen touching the lock's key during a sample, with what CLIENT LIST says of it.
type Conn struct {
	Client
	Listed   bool           // found in CLIENT LIST; false: it closed before the sample ended, only Addr is known
	Role     Role           // its strongest role
	Commands []CommandCount // the commands it sent on the key, the most sent first
	First    time.Time      // the master's time of its first and last commands on the key
	Last     time.Time
}

// CommandCount is how many times a connection sent one command on the key.
type CommandCount struct {
	Name string // upper case, safe for a terminal
	N    int
}

// Stop says why a sample ended.
type Stop string

// The reasons a sample ends.
const (
	StopTime      Stop = "time"      // it ran for the time asked
	StopLines     Stop = "lines"     // it read the most lines asked: a busy master
	StopCancelled Stop = "cancelled" // the caller cancelled it, or the connection failed (Report.Err)
)

// Report is what one sample of one master found about one lock's key.
type Report struct {
	Master   string        // the master sampled, as the program names it
	Key      string        // the lock's key, safe for a terminal
	Started  time.Time     // when MONITOR began
	Took     time.Duration // how long MONITOR ran
	Asked    time.Duration // the time asked for
	Lines    int           // MONITOR lines read, on every key
	MaxLines int           // the most lines it would read
	Stopped  Stop
	// Conns are the connections seen sending commands on the key, the holders first (see Role), then by their
	// last command, newest first.
	Conns []Conn
	// ScriptCommands counts the commands scripts ran on the key (MONITOR shows them as from "lua"); the
	// connection that sent each script is in Conns.
	ScriptCommands int
	// Err is why the sample ended before its time, when the connection failed midway, safe for a terminal;
	// "" otherwise. What was read until then is reported.
	Err string
}

// Holders are the connections that sent the holder's token.
func (r Report) Holders() []Conn { return r.withRole(RoleHolder) }

// withRole are the connections of role.
func (r Report) withRole(role Role) []Conn {
	var out []Conn
	for _, c := range r.Conns {
		if c.Role == role {
			out = append(out, c)
		}
	}
	return out
}

// tokenMatch tells whether an argument is one of the holder's tokens. A token the monitor cut (a value longer
// than it reads: "<prefix>…[<n> bytes, sha1 <16 hex>]") matches an argument with that prefix, length and
// digest.
type tokenMatch struct {
	whole map[string]bool
	cut   []cutToken
}

// cutToken is a long token the monitor read only the start of.
type cutToken struct {
	prefix string
	length int
	digest string // 16 hex digits; "" not known
}

// cutMark reads the mark the monitor puts after a long token's prefix.
var cutMark = regexp.MustCompile(`…\[([0-9]+) bytes(?:, sha1 ([0-9a-f]{16}))?\]$`)

// newTokenMatch returns the matcher of tokens; empty tokens are left out.
func newTokenMatch(tokens []string) tokenMatch {
	m := tokenMatch{whole: map[string]bool{}}
	for _, t := range tokens {
		if t == "" {
			continue
		}
		if loc := cutMark.FindStringSubmatchIndex(t); loc != nil {
			n, _ := strconv.Atoi(t[loc[2]:loc[3]])
			ct := cutToken{prefix: t[:loc[0]], length: n}
			if loc[4] >= 0 {
				ct.digest = t[loc[4]:loc[5]]
			}
			m.cut = append(m.cut, ct)
			continue
		}
		m.whole[t] = true
	}
	return m
}

// empty reports whether there is no token to match.
func (m tokenMatch) empty() bool { return len(m.whole) == 0 && len(m.cut) == 0 }

// matches reports whether arg is one of the tokens.
func (m tokenMatch) matches(arg string) bool {
	if m.whole[arg] {
		return true
	}
	for _, c := range m.cut {
		if len(arg) == c.length && strings.HasPrefix(arg, c.prefix) {
			sum := sha1.Sum([]byte(arg))
			if c.digest == "" || hex.EncodeToString(sum[:8]) == c.digest {
				return true
			}
		}
	}
	return false
}

// roleOf is what command c, on the lock's key, says of the connection that sent it.
func roleOf(c command, tokens tokenMatch) Role {
	keys := keysOf(c)
	for i, a := range c.Args[1:] {
		if !slices.Contains(keys, i+1) && tokens.matches(a) {
			return RoleHolder
		}
	}
	switch {
	case changesExpiry(c):
		return RoleExpiry
	case reads(c):
		return RoleReader
	case isSet(c.name()) && !tokens.empty():
		return RoleContender
	case isScript(c):
		return RoleScript
	}
	return RoleWriter
}

// isSet reports whether a command of that name sets a value: another value than the holder's token is a
// contender's try (SET NX) or an overwrite.
func isSet(name string) bool {
	switch name {
	case "SET", "SETNX", "SETEX", "PSETEX", "GETSET", "MSET", "MSETNX", "HSET", "HSETNX", "HINCRBY", "ZADD":
		return true
	}
	return false
}

// attribute builds the report of a sample: cmds are the commands read on the lock's key (those of database
// db are kept), before and after the master's CLIENT LIST at the sample's start and end (after wins: a
// connection's idle time is then current; before names those that closed meanwhile).
func attribute(r Report, cmds []command, db int, tokens []string, before, after []Client) Report {
	match := newTokenMatch(tokens)
	byAddr := map[string]*Conn{}
	var order []string
	for _, c := range cmds {
		if c.DB != db {
			continue
		}
		if c.fromScript() {
			r.ScriptCommands++
			continue
		}
		addr := untrusted.Escape(c.Addr)
		conn, ok := byAddr[addr]
		if !ok {
			conn = &Conn{Client: Client{Addr: addr}, Role: RoleReader, First: c.At}
			byAddr[addr] = conn
			order = append(order, addr)
		}
		conn.Role = min(conn.Role, roleOf(c, match))
		conn.Last = c.At
		conn.count(untrusted.Escape(c.name()))
	}
	listed := map[string]Client{}
	for _, l := range [][]Client{before, after} {
		for _, cl := range l {
			listed[cl.Addr] = cl
		}
	}
	for _, addr := range order {
		conn := byAddr[addr]
		if cl, ok := listed[addr]; ok {
			conn.Client, conn.Listed = cl, true
		}
		slices.SortStableFunc(conn.Commands, func(a, b CommandCount) int { return b.N - a.N })
		r.Conns = append(r.Conns, *conn)
	}
	slices.SortStableFunc(r.Conns, func(a, b Conn) int {
		if a.Role != b.Role {
			return int(a.Role - b.Role)
		}
		return b.Last.Compare(a.Last)
	})
	return r
}

// count adds one command of that name.
func (c *Conn) count(name string) {
	for i := range c.Commands {
		if c.Commands[i].Name == name {
			c.Commands[i].N++
			return
		}
	}
	c.Commands = append(c.Commands, CommandCount{Name: name, N: 1})
}

// Describe names a connection as a person reads it: "10.0.3.17:51234 (billing-worker-3, go-redis 9.7,
// connected 3h00m, idle 1.2s)".
func Describe(c Conn) string {
	var parts []string
	if c.Name != "" {
		parts = append(parts, c.Name)
	} else if c.Listed {
		parts = append(parts, "no client name")
	}
	if lib := strings.TrimSpace(c.LibName + " " + c.LibVer); lib != "" {
		parts = append(parts, lib)
	}
	switch {
	case c.Listed:
		parts = append(parts, "connected "+vocab.ShortDuration(c.Age), "idle "+vocab.ShortDuration(c.Idle))
	case strings.HasPrefix(c.Addr, "unix:"):
		parts = append(parts, "a unix socket's connection: MONITOR does not tell them apart")
	default:
		parts = append(parts, "closed before the sample ended")
	}
	return c.Addr + " (" + strings.Join(parts, ", ") + ")"
}

// commandsText lists a connection's commands on the key: "EVALSHA ×3, SET".
func commandsText(c Conn) string {
	var parts []string
	for _, cc := range c.Commands {
		if cc.N == 1 {
			parts = append(parts, cc.Name)
		} else {
			parts = append(parts, fmt.Sprintf("%s ×%d", cc.Name, cc.N))
		}
	}
	return strings.Join(parts, ", ")
}

// maxListed bounds the connections Summary lists beyond the holders.
const maxListed = 12

// Summary says what the sample found, in lines for a person: who holds the lock first (or that nothing showed,
// and what to do), then every other connection seen touching the key. Every line is safe for a terminal.
// longer is how to ask for a longer sample, in the words of the caller ("--who-for 10s", "press W again").
func (r Report) Summary(longer string) []string {
	var out []string
	span := fmt.Sprintf("in %s on %s", vocab.ShortDuration(r.Took), r.Master)
	holders, expiry := r.Holders(), r.withRole(RoleExpiry)
	switch {
	case len(holders) > 0:
		for _, c := range holders {
			out = append(out, "held by "+Describe(c)+": sent the holder's token ("+commandsText(c)+")")
		}
	case len(expiry) > 0:
		for _, c := range expiry {
			out = append(out, "probably held by "+Describe(c)+": it changed the key's expiry ("+commandsText(c)+
				") without naming a token")
		}
	case len(r.Conns) == 0:
		out = append(out, fmt.Sprintf("nothing touched %s %s (%s commands read): a holder that extends less often "+
			"than that does not show; %s", r.Key, span, vocab.Thousands(r.Lines), longer))
	default:
		out = append(out, fmt.Sprintf("no connection sent the holder's token %s: a holder that extends less often "+
			"than that does not show; %s", span, longer))
	}
	if r.Stopped == StopLines {
		out = append(out, fmt.Sprintf("stopped after %s MONITOR lines in %s: a busy master; a larger line budget "+
			"samples longer", vocab.Thousands(r.Lines), vocab.ShortDuration(r.Took)))
	}
	if r.Err != "" {
		out = append(out, "the sample ended early: "+r.Err)
	}
	others := 0
	for _, c := range r.Conns {
		if c.Role == RoleHolder || c.Role == RoleExpiry && len(holders) == 0 {
			continue
		}
		if others++; others > maxListed {
			continue
		}
		out = append(out, "also "+touchVerb(c.Role)+": "+Describe(c)+" ("+commandsText(c)+")")
	}
	if others > maxListed {
		out = append(out, fmt.Sprintf("and %d more connections touched the key", others-maxListed))
	}
	if len(holders) > 0 || len(expiry) > 0 || len(r.Conns) > 0 {
		out = append(out, fmt.Sprintf("sampled %s (%s commands read, %d on the key)", span, vocab.Thousands(r.Lines),
			r.onKey()))
	}
	return out
}

// onKey counts the commands read on the key, scripts' own included.
func (r Report) onKey() int {
	n := r.ScriptCommands
	for _, c := range r.Conns {
		for _, cc := range c.Commands {
			n += cc.N
		}
	}
	return n
}

// touchVerb says what a connection of role did, after "also".
func touchVerb(r Role) string {
	switch r {
	case RoleExpiry:
		return "changed its expiry"
	case RoleContender:
		return "tried to take it"
	case RoleWriter:
		return "wrote it"
	case RoleScript:
		return "ran a script on it without the token"
	}
	return "read it"
}
