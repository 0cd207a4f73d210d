package whoholds

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		want command
	}{
		{"a SET from a client", `1795746834.527252 [0 127.0.0.1:33004] "set" "k\"ey\\x" "tok" "NX" "PX" "10000"`,
			command{At: time.Unix(1795746834, 527252000), Addr: "127.0.0.1:33004",
				Args: []string{"set", `k"ey\x`, "tok", "NX", "PX", "10000"}}},
		{"a script's own command", `1795746834.544089 [3 lua] "pexpire" "orders:42" "5000"`,
			command{At: time.Unix(1795746834, 544089000), DB: 3, Addr: "lua", Args: []string{"pexpire", "orders:42", "5000"}}},
		{"escaped bytes", `1.000001 [0 [::1]:6000] "set" "bin" "a\x01b\nc\r\t\a\b"`,
			command{At: time.Unix(1, 1000), Addr: "[::1]:6000", Args: []string{"set", "bin", "a\x01b\nc\r\t\a\b"}}},
		{"a unix socket", `2.5 [0 unix:/tmp/redis.sock] "get" "k"`,
			command{At: time.Unix(2, 5000), Addr: "unix:/tmp/redis.sock", Args: []string{"get", "k"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseLine([]byte(tt.line))
			if err != nil {
				t.Fatalf("parseLine(%q): %v", tt.line, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseLine(%q)\n got %+v\nwant %+v", tt.line, got, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "OK", `1.2 [0 a] "unterminated`, `1.2 [0 a] bare`, `x.y [0 a] "get"`, `1.2 [0 a "get"`,
		`1.2 [0 a] "\x4"`} {
		if c, err := parseLine([]byte(bad)); err == nil {
			t.Errorf("parseLine(%q) = %+v, want an error", bad, c)
		}
	}
}

// TestQuotedIsHowMonitorQuotes checks that a key is searched for as MONITOR writes it, and reads back whole.
func TestQuotedIsHowMonitorQuotes(t *testing.T) {
	for _, key := range []string{"orders:42", `k"ey\x`, "a\x01b\nc\xff", "{tag}:lock", "é"} {
		q := quoted(key)
		got, n, err := unquote(q)
		if err != nil || got != key || n != len(q) {
			t.Errorf("quoted(%q) = %s, which reads back as %q (%d of %d bytes, %v)", key, q, got, n, len(q), err)
		}
	}
	if got := string(quoted(`k"ey\x`)); got != `"k\"ey\\x"` {
		t.Errorf(`quoted(k"ey\x) = %s, want MONITOR's "k\"ey\\x"`, got)
	}
}

func TestTouches(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"SET", "lock", "t"}, true},
		{[]string{"SET", "other", "lock"}, false}, // the key's name as a value is not the key
		{[]string{"EVALSHA", "abc", "1", "lock", "t", "30000"}, true},
		{[]string{"EVALSHA", "abc", "1", "other", "lock"}, false},
		{[]string{"EVAL", "script", "2", "a", "lock", "t"}, true},
		{[]string{"EVAL", "script", "0", "lock"}, false},
		{[]string{"DEL", "a", "lock"}, true},
		{[]string{"MSET", "a", "lock", "lock", "v"}, true},
		{[]string{"MSET", "a", "lock"}, false},
		{[]string{"PING"}, false},
	}
	for _, tt := range tests {
		if got := touches(command{Args: tt.args}, "lock"); got != tt.want {
			t.Errorf("touches(%q, lock) = %v, want %v", tt.args, got, tt.want)
		}
	}
}

func TestParseClientList(t *testing.T) {
	text := "id=3 addr=127.0.0.1:32982 laddr=127.0.0.1:7999 fd=8 name= age=0 idle=0 flags=O db=0 cmd=monitor user=default\n" +
		"id=9 addr=10.0.3.17:51234 laddr=10.0.0.1:6379 fd=9 name=billing-worker-3 age=10800 idle=2 flags=N db=0 " +
		"cmd=evalsha user=billing lib-name=go-redis lib-ver=9.7.0\r\n" +
		"id=10 addr=10.0.3.18:4000 name=evil\\x1b[31m age=x idle=1\n\n"
	got := parseClientList(text)
	want := []Client{
		{ID: 3, Addr: "127.0.0.1:32982", User: "default"},
		{ID: 9, Addr: "10.0.3.17:51234", Name: "billing-worker-3", LibName: "go-redis", LibVer: "9.7.0",
			Age: 3 * time.Hour, Idle: 2 * time.Second, User: "billing"},
		{ID: 10, Addr: "10.0.3.18:4000", Name: `evil\\x1b[31m`, Idle: time.Second},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseClientList:\n got %+v\nwant %+v", got, want)
	}
	if c, _ := parseClient("id=1 addr=1.2.3.4:5 name=\x1b[2Jx"); c.Name != `\x1b[2Jx` {
		t.Errorf("a client name with an escape sequence reads %q; want it escaped once, at ingest", c.Name)
	}
}

// at is a time on the master's clock for the tests' commands.
func at(ms int) time.Time { return time.Unix(1700000000, 0).Add(time.Duration(ms) * time.Millisecond) }

// cmd is a command from addr at ms.
func cmd(ms int, addr string, args ...string) command {
	return command{At: at(ms), Addr: addr, Args: args}
}

func TestAttribute(t *testing.T) {
	const tok = "Qm9yaXMgd2FzIGhlcmUhIQ=="
	cmds := []command{
		cmd(1, "10.0.0.9:700", "EVALSHA", "r3ad", "1", "orders:42"), // a monitor's read script
		cmd(2, "10.0.3.17:51234", "SET", "orders:42", tok, "NX", "PX", "8000"),
		cmd(3, "10.0.3.20:1000", "set", "orders:42", "other-token", "NX", "PX", "8000"),
		cmd(4, "lua", "GET", "orders:42"),
		cmd(5, "10.0.3.17:51234", "EVALSHA", "3xt3nd", "1", "orders:42", tok, "8000"),
		cmd(6, "10.0.3.17:51234", "EVALSHA", "3xt3nd", "1", "orders:42", tok, "8000"),
		cmd(7, "10.0.3.21:1", "PTTL", "orders:42"),
		{At: at(8), DB: 1, Addr: "10.0.3.22:1", Args: []string{"DEL", "orders:42"}}, // another database's key
		cmd(9, "10.0.3.23:9", "PEXPIRE", "orders:42", "100"),
	}
	before := []Client{{ID: 5, Addr: "10.0.3.20:1000", Name: "billing-worker-9", Age: time.Minute}}
	after := []Client{
		{ID: 4, Addr: "10.0.3.17:51234", Name: "billing-worker-3", LibName: "go-redis", LibVer: "9.7", Age: 3 * time.Hour},
		{ID: 7, Addr: "10.0.0.9:700"},
		{ID: 8, Addr: "10.0.3.21:1", Name: "checker"},
		{ID: 9, Addr: "10.0.3.23:9"},
	}
	r := attribute(Report{Master: "M1", Key: "orders:42"}, cmds, 0, []string{tok}, before, after)
	type row struct {
		addr, name string
		role       Role
		listed     bool
		commands   string
	}
	var got []row
	for _, c := range r.Conns {
		got = append(got, row{c.Addr, c.Name, c.Role, c.Listed, commandsText(c)})
	}
	want := []row{
		{"10.0.3.17:51234", "billing-worker-3", RoleHolder, true, "EVALSHA ×2, SET"},
		{"10.0.3.23:9", "", RoleExpiry, true, "PEXPIRE"},
		{"10.0.3.20:1000", "billing-worker-9", RoleContender, true, "SET"}, // closed meanwhile: named from before
		{"10.0.0.9:700", "", RoleScript, true, "EVALSHA"},
		{"10.0.3.21:1", "checker", RoleReader, true, "PTTL"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("connections, strongest role first:\n got %+v\nwant %+v", got, want)
	}
	if r.ScriptCommands != 1 {
		t.Errorf("ScriptCommands = %d, want the one command the script ran", r.ScriptCommands)
	}
	if h := r.Holders(); len(h) != 1 || !h[0].First.Equal(at(2)) || !h[0].Last.Equal(at(6)) {
		t.Errorf("holders %+v: want the one connection that sent the token, first at 2ms, last at 6ms", h)
	}
	if got := attribute(Report{}, cmds[:1], 0, nil, nil, nil).Conns; len(got) != 1 || got[0].Listed {
		t.Errorf("a connection missing from both CLIENT LISTs: %+v, want it reported unlisted", got)
	}
}

// TestAttributeHashHolder checks a Redisson lock: the renewal script is given the holder field, not a token
// as the value.
func TestAttributeHashHolder(t *testing.T) {
	field := "1b6d2a8e-6c3a-4a3e-9f1e-3d1d1c8b7a60:57"
	cmds := []command{
		cmd(1, "10.1.1.1:5000", "EVAL", "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) ...", "1", "inventory", "30000", field),
		cmd(2, "lua", "hexists", "inventory", field),
		cmd(3, "lua", "pexpire", "inventory", "30000"),
	}
	r := attribute(Report{}, cmds, 0, []string{field, "other:1"}, nil, []Client{{Addr: "10.1.1.1:5000", Name: "redisson"}})
	if h := r.Holders(); len(h) != 1 || h[0].Name != "redisson" {
		t.Errorf("holders %+v: want the connection that sent the renewal script with the holder field", h)
	}
}

func TestTokenMatchOfCutTokens(t *testing.T) {
	long := strings.Repeat("x", 300) + "-tail"
	// sha1(long) starts with these 16 hex digits.
	m := newTokenMatch([]string{long[:256] + "…[305 bytes, sha1 " + sha1Prefix(long) + "]", "short", ""})
	switch {
	case !m.matches(long):
		t.Error("a long token the monitor cut does not match its whole value")
	case m.matches(long[:300] + "-tall"):
		t.Error("a long value of the same prefix and length but another digest matches")
	case !m.matches("short") || m.matches(""):
		t.Error("whole tokens: short must match, the empty token must not")
	}
}

// sha1Prefix is the first 16 hex digits of s's SHA-1, as the monitor marks a long token.
func sha1Prefix(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:8])
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		c    Conn
		want string
	}{
		{Conn{Client: Client{Addr: "10.0.3.17:51234", Name: "billing-worker-3", LibName: "go-redis", LibVer: "9.7.0",
			Age: 3 * time.Hour, Idle: time.Second}, Listed: true},
			"10.0.3.17:51234 (billing-worker-3, go-redis 9.7.0, connected 3h00m, idle 1.0s)"},
		{Conn{Client: Client{Addr: "10.0.3.17:1", LibName: "jedis"}, Listed: true},
			"10.0.3.17:1 (no client name, jedis, connected 0ms, idle 0ms)"},
		{Conn{Client: Client{Addr: "10.0.3.17:2"}}, "10.0.3.17:2 (closed before the sample ended)"},
		{Conn{Client: Client{Addr: "unix:/run/redis.sock"}},
			"unix:/run/redis.sock (a unix socket's connection: MONITOR does not tell them apart)"},
	}
	for _, tt := range tests {
		if got := Describe(tt.c); got != tt.want {
			t.Errorf("Describe(%+v) = %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestSummary(t *testing.T) {
	holder := Conn{Client: Client{Addr: "10.0.3.17:51234", Name: "billing-worker-3", LibName: "go-redis", LibVer: "9.7",
		Age: 3 * time.Hour, Idle: 1200 * time.Millisecond}, Listed: true, Role: RoleHolder,
		Commands: []CommandCount{{"EVALSHA", 3}}}
	reader := Conn{Client: Client{Addr: "10.0.0.9:700"}, Listed: true, Role: RoleReader, Commands: []CommandCount{{"GET", 1}}}
	gone := Conn{Client: Client{Addr: "10.0.3.20:1"}, Role: RoleContender, Commands: []CommandCount{{"SET", 2}}}
	base := Report{Master: "M1 127.0.0.1:7001", Key: "orders:42", Took: 3 * time.Second, Lines: 12345, Stopped: StopTime}
	tests := []struct {
		name  string
		conns []Conn
		stop  Stop
		want  []string
	}{
		{"the holder named", []Conn{holder, reader}, StopTime, []string{
			"held by 10.0.3.17:51234 (billing-worker-3, go-redis 9.7, connected 3h00m, idle 1.2s): sent the holder's token (EVALSHA ×3)",
			"also read it: 10.0.0.9:700 (no client name, connected 0ms, idle 0ms) (GET)",
			"sampled in 3.0s on M1 127.0.0.1:7001 (12,345 commands read, 4 on the key)",
		}},
		{"nothing touched the key", nil, StopTime, []string{
			"nothing touched orders:42 in 3.0s on M1 127.0.0.1:7001 (12,345 commands read): a holder that extends " +
				"less often than that does not show; sample longer",
		}},
		{"others touched it, not the holder", []Conn{gone}, StopLines, []string{
			"no connection sent the holder's token in 3.0s on M1 127.0.0.1:7001: a holder that extends less often " +
				"than that does not show; sample longer",
			"stopped after 12,345 MONITOR lines in 3.0s: a busy master; a larger line budget samples longer",
			"also tried to take it: 10.0.3.20:1 (closed before the sample ended) (SET ×2)",
			"sampled in 3.0s on M1 127.0.0.1:7001 (12,345 commands read, 2 on the key)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base
			r.Conns, r.Stopped = tt.conns, tt.stop
			if got := r.Summary("sample longer"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Summary:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestHints(t *testing.T) {
	tests := []struct {
		name string
		v    monitor.LockView
		want []string
	}{
		{"a Redisson lock", monitor.LockView{Masters: []monitor.MasterLock{
			monitor.MasterLock{State: monitor.CellSeen, Token: "1b6d2a8e-6c3a-4a3e-9f1e-3d1d1c8b7a60:57"}.WithHash(1, ""),
			monitor.MasterLock{State: monitor.CellSeen, Token: "1b6d2a8e-6c3a-4a3e-9f1e-3d1d1c8b7a60:57"}.WithHash(1, ""),
			monitor.MasterLock{State: monitor.CellSeen, Token: "99999999-6c3a-4a3e-9f1e-3d1d1c8b7a60:57,a\x1bb:3"}.WithHash(1, ""),
		}}, []string{
			"Redisson instance 1b6d2a8e-6c3a-4a3e-9f1e-3d1d1c8b7a60, thread 57 (from its hash field)",
			"Redisson instance 99999999-6c3a-4a3e-9f1e-3d1d1c8b7a60, thread 57 (from its hash field)",
			`Redisson instance a\x1bb, thread 3 (from its hash field)`,
		}},
		{"redis-semaphore with a suffix", monitor.LockView{Holder: "3fa85f64-5717-4562-b3fc-2c963f66afa6-billing-3",
			Families: []string{"redis-semaphore"}},
			[]string{"redis-semaphore client with identifier suffix billing-3 (from its token)"}},
		{"a random token says nothing", monitor.LockView{Holder: "Qm9yaXMgd2FzIGhlcmUhIQ==", Families: []string{"redsync"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Hints(&tt.v); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Hints:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestTargetOf(t *testing.T) {
	up := []monitor.MasterStatus{{Addr: "a", Up: true}, {Addr: "b", Up: true}, {Addr: "c", Up: true}}
	tests := []struct {
		name    string
		masters []monitor.MasterStatus
		cells   []monitor.MasterLock
		holder  string
		want    Target
		wantErr bool
	}{
		{"the first master with the holder's token", up, []monitor.MasterLock{
			{State: monitor.CellSeen, Token: "other"}, {State: monitor.CellSeen, Token: "tok"}, {State: monitor.CellSeen, Token: "tok"},
		}, "tok", Target{Master: "b", Key: "k", Tokens: []string{"tok"}}, false},
		{"a master down is skipped", []monitor.MasterStatus{{Addr: "a"}, {Addr: "b", Up: true}, {Addr: "c", Up: true}},
			[]monitor.MasterLock{{State: monitor.CellSeen, Token: "tok"}, {State: monitor.CellAbsent}, {State: monitor.CellSeen, Token: "tok"}},
			"tok", Target{Master: "c", Key: "k", Tokens: []string{"tok"}}, false},
		{"a hash lock's holder fields, and a cluster's owner", up[:1], []monitor.MasterLock{
			monitor.MasterLock{State: monitor.CellSeen, Token: "u:1,u:2"}.WithHash(1, "").WithNode("10.0.0.1:7000")},
			"u:1,u:2", Target{Master: "10.0.0.1:7000", Key: "k", Tokens: []string{"u:1", "u:2"}}, false},
		{"no key on any master", up[:2], []monitor.MasterLock{{State: monitor.CellAbsent}, {State: monitor.CellUnknown, Token: "x"}},
			"", Target{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &monitor.LockView{Resource: "k", Holder: tt.holder, Masters: tt.cells}
			got, err := TargetOf(&monitor.Snapshot{Masters: tt.masters}, v)
			if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("TargetOf = %+v, %v; want %+v (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestRequestCheck(t *testing.T) {
	for _, r := range []Request{{}, {Key: "k", For: MaxFor + 1}, {Key: "k", For: -1}, {Key: "k", MaxLines: MaxMaxLines + 1}} {
		if r.Check() == nil {
			t.Errorf("Request%+v passes its check; want it refused", r)
		}
	}
	if err := (Request{Key: "k"}).Check(); err != nil {
		t.Errorf("a request with the default bounds: %v", err)
	}
}

func TestRoleTextRoundTrips(t *testing.T) {
	for r := RoleHolder; r <= RoleReader; r++ {
		text, _ := r.MarshalText()
		var back Role
		if err := back.UnmarshalText(text); err != nil || back != r {
			t.Errorf("role %d writes %q, which reads back as %d (%v)", r, text, back, err)
		}
	}
	var r Role
	if r.UnmarshalText([]byte("owner")) == nil {
		t.Error(`the unknown role "owner" reads without an error`)
	}
}

func TestErrorsAreSafeAndStillUnwrap(t *testing.T) {
	err := safe(fmt.Errorf("ERR unknown command '\x1b[2Jmonitor': %w", context.DeadlineExceeded))
	if got := err.Error(); strings.ContainsRune(got, '\x1b') || !strings.Contains(got, `\x1b[2Jmonitor`) {
		t.Errorf("a master's reply with an escape sequence reads %q; want it escaped", got)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("the escaped error no longer unwraps to the deadline it wraps")
	}
	d := &DeniedError{Command: "MONITOR", Reply: "NOPERM"}
	if safe(d) != error(d) || safe(nil) != nil {
		t.Error("a DeniedError (escaped already) or nil was wrapped again")
	}
}
