package whoholds

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"
)

// command is one line of MONITOR's feed: a command a client sent, as the master ran it.
type command struct {
	At   time.Time // the master's clock when it ran the command
	DB   int
	Addr string   // the client's address as the master sees it; "lua" for a command a script ran
	Args []string // the command's name first, then its arguments, unescaped (raw)
}

// fromScript reports whether a script ran the command (MONITOR shows it as from "lua"): the client that sent
// the script has a line of its own.
func (c command) fromScript() bool { return c.Addr == "lua" }

// name is the command's name in upper case.
func (c command) name() string {
	if len(c.Args) == 0 {
		return ""
	}
	return strings.ToUpper(c.Args[0])
}

// errBadLine is a MONITOR line that is not "<seconds>.<micros> [<db> <addr>] "arg" ...".
var errBadLine = errors.New("not a MONITOR line")

// parseLine reads one line of MONITOR's feed, without its leading '+' and trailing CRLF:
//
//	1700000000.123456 [0 10.0.3.17:51234] "EVALSHA" "8a3f..." "1" "orders:42" "tok" "30000"
//
// Arguments are quoted as Redis quotes them (sdscatrepr): \" \\ \n \r \t \a \b and \xHH escapes.
func parseLine(line []byte) (command, error) {
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return command{}, errBadLine
	}
	at, err := parseStamp(line[:sp])
	if err != nil {
		return command{}, err
	}
	rest := line[sp+1:]
	if len(rest) == 0 || rest[0] != '[' {
		return command{}, errBadLine
	}
	// The address may hold brackets ("[::1]:6000"), never a quote: the last ']' before the first argument
	// closes it.
	argsAt := bytes.IndexByte(rest, '"')
	if argsAt < 0 {
		argsAt = len(rest)
	}
	end := bytes.LastIndexByte(rest[:argsAt], ']')
	if end < 0 {
		return command{}, errBadLine
	}
	who := rest[1:end]
	dbEnd := bytes.IndexByte(who, ' ')
	if dbEnd < 0 {
		return command{}, errBadLine
	}
	db, err := strconv.Atoi(string(who[:dbEnd]))
	if err != nil {
		return command{}, errBadLine
	}
	args, err := splitQuoted(rest[end+1:])
	if err != nil {
		return command{}, err
	}
	return command{At: at, DB: db, Addr: string(who[dbEnd+1:]), Args: args}, nil
}

// parseStamp reads MONITOR's "<seconds>.<micros>" time stamp.
func parseStamp(b []byte) (time.Time, error) {
	secs, micros, ok := bytes.Cut(b, []byte{'.'})
	s, err1 := strconv.ParseInt(string(secs), 10, 64)
	us, err2 := strconv.ParseInt(string(micros), 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return time.Time{}, errBadLine
	}
	return time.Unix(s, us*1000), nil
}

// splitQuoted reads MONITOR's quoted arguments, each "..." with Redis's escapes, separated by spaces.
func splitQuoted(b []byte) ([]string, error) {
	var args []string
	for {
		for len(b) > 0 && b[0] == ' ' {
			b = b[1:]
		}
		if len(b) == 0 {
			return args, nil
		}
		if b[0] != '"' {
			return nil, errBadLine
		}
		arg, n, err := unquote(b)
		if err != nil {
			return nil, err
		}
		args = append(args, arg)
		b = b[n:]
	}
}

// unquote reads one quoted argument at the start of b and returns it with the bytes it took.
func unquote(b []byte) (string, int, error) {
	var out []byte
	for i := 1; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			return string(out), i + 1, nil
		case c != '\\':
			out = append(out, c)
		case i+1 >= len(b):
			return "", 0, errBadLine
		default:
			i++
			switch b[i] {
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'a':
				out = append(out, '\a')
			case 'b':
				out = append(out, '\b')
			case 'x':
				if i+2 >= len(b) {
					return "", 0, errBadLine
				}
				v, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8)
				if err != nil {
					return "", 0, errBadLine
				}
				out = append(out, byte(v))
				i += 2
			default: // \\ and \"
				out = append(out, b[i])
			}
		}
	}
	return "", 0, errBadLine
}

// quoted writes s as MONITOR quotes an argument (Redis's sdscatrepr), so that a line can be searched for a key
// before it is parsed: most lines of a busy master's feed are about other keys.
func quoted(s string) []byte {
	out := []byte{'"'}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			out = append(out, '\\', c)
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		case '\a':
			out = append(out, '\\', 'a')
		case '\b':
			out = append(out, '\\', 'b')
		default:
			if c < 0x20 || c > 0x7e { // isprint in the C locale
				out = append(out, '\\', 'x', hexDigit[c>>4], hexDigit[c&0xf])
			} else {
				out = append(out, c)
			}
		}
	}
	return append(out, '"')
}

const hexDigit = "0123456789abcdef"

// keysOf returns the positions in c.Args of the command's keys, as far as the command's name tells: a script's
// or a function's KEYS, every argument of the commands that take only keys, the keys of MSET's pairs, and the
// first argument otherwise.
func keysOf(c command) []int {
	n := len(c.Args)
	if n < 2 {
		return nil
	}
	switch c.name() {
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO":
		if n < 3 {
			return nil
		}
		k, err := strconv.Atoi(c.Args[2])
		if err != nil || k < 0 {
			return nil
		}
		return span(3, min(3+k, n))
	case "DEL", "UNLINK", "EXISTS", "TOUCH", "MGET", "WATCH":
		return span(1, n)
	case "MSET", "MSETNX":
		var out []int
		for i := 1; i < n; i += 2 {
			out = append(out, i)
		}
		return out
	}
	return []int{1}
}

// span returns the integers from lo up to hi, hi excluded.
func span(lo, hi int) []int {
	out := make([]int, 0, max(hi-lo, 0))
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// touches reports whether c is a command on key.
func touches(c command, key string) bool {
	for _, i := range keysOf(c) {
		if c.Args[i] == key {
			return true
		}
	}
	return false
}

// isScript reports whether c runs a script or a function, whose arguments name what it acts for.
func isScript(c command) bool {
	switch c.name() {
	case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO":
		return true
	}
	return false
}

// changesExpiry reports whether c sets a key's expiry without naming a value: how some clients extend.
func changesExpiry(c command) bool {
	switch c.name() {
	case "PEXPIRE", "EXPIRE", "PEXPIREAT", "EXPIREAT", "PERSIST":
		return true
	}
	return false
}

// reads reports whether c only reads.
func reads(c command) bool {
	switch c.name() {
	case "GET", "GETRANGE", "STRLEN", "PTTL", "TTL", "PEXPIRETIME", "EXPIRETIME", "EXISTS", "TYPE", "MGET",
		"HGETALL", "HGET", "HEXISTS", "HLEN", "HKEYS", "HVALS", "ZRANGE", "ZRANGEBYSCORE", "ZSCORE", "ZCARD",
		"OBJECT", "DUMP", "WATCH", "TOUCH", "EVAL_RO", "EVALSHA_RO", "FCALL_RO", "MEMORY":
		return true
	}
	return false
}
