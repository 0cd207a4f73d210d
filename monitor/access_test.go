package monitor

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// documentedACL returns the rules of the README's "ACL SETUSER <user> ..." line, with the password pw.
func documentedACL(t *testing.T, user string) []string {
	t.Helper()
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "ACL SETUSER "+user+" "); ok {
			rules := strings.Fields(rest)
			for i, r := range rules {
				if r == ">PASSWORD" {
					rules[i] = ">pw"
				}
			}
			return rules
		}
	}
	t.Fatalf("the README has no line ACL SETUSER %s", user)
	return nil
}

// without returns rules less "+cmd".
func without(rules []string, cmd string) []string {
	out := slices.DeleteFunc(slices.Clone(rules), func(r string) bool { return r == "+"+cmd })
	if len(out) == len(rules) {
		panic("no +" + cmd + " in " + strings.Join(rules, " "))
	}
	return out
}

// aclServer is a redis-server with an admin client and a lock of this project's client and a Redisson hash
// lock on it.
type aclServer struct {
	srv   *redlocktest.Server
	admin *redis.Client
}

func newACLServer(t *testing.T) aclServer {
	t.Helper()
	srv := realServers(t, 1)[0]
	a := aclServer{srv: srv, admin: srv.NewClient()}
	t.Cleanup(func() { a.admin.Close() })
	ctx := context.Background()
	// A generous node timeout: the lock is the setting, not what is tested, and the default 50ms is short for a
	// loaded machine under -race (a round timed out in CI's run).
	locker, err := redlock.New([]*redis.Client{a.admin}, redlock.WithRetries(0), redlock.WithNodeTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(locker.Close)
	if _, err := locker.Acquire(ctx, "billing:nightly", 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := a.admin.HSet(ctx, "reports:weekly", uuid4()+":1", 1).Err(); err != nil {
		t.Fatal(err)
	}
	if err := a.admin.PExpire(ctx, "reports:weekly", 10*time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	return a
}

// setUser (re)creates user with rules.
func (a aclServer) setUser(t *testing.T, user string, rules []string) {
	t.Helper()
	args := []any{"ACL", "SETUSER", user, "reset"}
	for _, r := range rules {
		args = append(args, r)
	}
	if err := a.admin.Do(context.Background(), args...).Err(); err != nil {
		t.Fatalf("ACL SETUSER %s %s: %v", user, strings.Join(rules, " "), err)
	}
}

// client connects as user (password pw).
func (a aclServer) client(t *testing.T, user string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: a.srv.Addr(), Username: user, Password: "pw", ContextTimeoutEnabled: true, MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

// watch polls the server as user until a full sweep (or 10 polls), and returns the last snapshot.
func (a aclServer) watch(t *testing.T, user string, cfg Config) Snapshot {
	t.Helper()
	cfg.Timeout = testTimeout
	mon, err := New([]*redis.Client{a.client(t, user)}, []string{a.srv.Addr()}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := mon.Poll(context.Background())
	for range 10 {
		if s.Swept && s.Seq > 1 {
			break
		}
		s = mon.Poll(context.Background())
	}
	return s
}

// deniedWarnings returns the warnings of commands refused.
func deniedWarnings(s Snapshot) []Warning {
	var ws []Warning
	for _, w := range s.Warnings {
		if strings.HasPrefix(w.Kind, WarnDenied+":") || w.Kind == WarnKeysRefused {
			ws = append(ws, w)
		}
	}
	return ws
}

func TestDocumentedACLs(t *testing.T) {
	t.Parallel()
	a := newACLServer(t)
	ctx := context.Background()

	a.setUser(t, "watcher", documentedACL(t, "watcher"))
	s := a.watch(t, "watcher", Config{})
	m := s.Masters[0]
	if !m.Up || len(m.Denied) > 0 || m.AccessCheck != "probes" || len(deniedWarnings(s)) > 0 {
		t.Errorf("watcher: up %v (%s), denied %v by %q, warnings %v; want up, nothing denied, found by probes (no ACL DRYRUN for it)",
			m.Up, m.Err, m.Denied, m.AccessCheck, deniedWarnings(s))
	}
	if m.Role != "master" || !m.ClockKnown || m.Uptime < 0 {
		t.Errorf("watcher: role %q, clock known %v, uptime %v; want all read", m.Role, m.ClockKnown, m.Uptime)
	}
	for _, res := range []string{"billing:nightly", "reports:weekly"} {
		if l := lockOf(t, s, res); l.State != StateHeld {
			t.Errorf("watcher: %s is %s, want held", res, l.State)
		}
	}

	a.setUser(t, "locker", documentedACL(t, "locker"))
	locker, err := redlock.New([]*redis.Client{a.client(t, "locker")}, redlock.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	lock, err := locker.Acquire(ctx, "orders:settle", time.Minute)
	if err != nil {
		t.Fatalf("locker: acquire: %v", err)
	}
	if err := lock.Extend(ctx, time.Minute); err != nil {
		t.Errorf("locker: extend: %v", err)
	}
	s = a.watch(t, "locker", Config{Writes: true})
	if m := s.Masters[0]; len(m.Denied)+len(m.DeniedOnKeys) > 0 || len(deniedWarnings(s)) > 0 {
		t.Errorf("locker: denied %v, on keys %v, warnings %v; want nothing denied", m.Denied, m.DeniedOnKeys, deniedWarnings(s))
	}
	if l := lockOf(t, s, "orders:settle"); l.Holder != lock.Token() {
		t.Errorf("locker: orders:settle held by %q, want the lock just acquired", l.Holder)
	}
	if err := lock.Release(ctx); err != nil {
		t.Errorf("locker: release: %v", err)
	}
	if n, _ := a.admin.Exists(ctx, "orders:settle").Result(); n != 0 {
		t.Errorf("locker: the released key is still there")
	}

	// A user allowed everything, ACL DRYRUN included: the check is made with it.
	a.setUser(t, "admin", []string{"on", ">pw", "~*", "&*", "+@all"})
	s = a.watch(t, "admin", Config{Writes: true})
	if m := s.Masters[0]; m.AccessCheck != "ACL DRYRUN" || len(m.Denied) > 0 {
		t.Errorf("admin: denied %v by %q; want nothing, found by ACL DRYRUN", m.Denied, m.AccessCheck)
	}
}

func TestEachPermissionRemovedGivesItsOwnWarning(t *testing.T) {
	t.Parallel()
	a := newACLServer(t)
	watcher, locker := documentedACL(t, "watcher"), documentedACL(t, "locker")
	for _, tc := range []struct {
		cmd    string
		writes bool
		want   string // the warning's text, or its start
	}{
		{cmd: "TIME", want: "TIME denied: clock offset unknown; the clock checks are off"},
		{cmd: "INFO", want: "INFO denied: role and restarts are not checked, nor whether two masters are one server, nor eviction and flushes (a lock gone early is told released)"},
		{cmd: "DBSIZE", want: "DBSIZE denied: the scan's progress has no total"},
		{cmd: "GETRANGE", want: "GETRANGE denied: values cannot be read; locks are not listed"},
		{cmd: "PTTL", want: "PTTL denied: TTLs cannot be read; locks are not listed"},
		{cmd: "EVAL", want: "EVAL denied: " + scriptsOff},
		{cmd: "MGET", want: "MGET denied: " + scriptsOff},
		{cmd: "STRLEN", want: "STRLEN denied: " + scriptsOff},
		{cmd: "GET", want: "GET denied: " + scriptsOff},
		{cmd: "TYPE", want: "TYPE denied: " + scriptsOff},
		{cmd: "HLEN", want: "HLEN denied: " + scriptsOff},
		{cmd: "HGETALL", want: "HGETALL denied: " + scriptsOff},
		{cmd: "ZRANGE", want: "ZRANGE denied: sorted-set locks (Symfony Lock, redis-semaphore) cannot be read: new ones are not listed, known ones are unknown"},
		{cmd: "SCAN"},
		{cmd: "PING", writes: true, want: "PING denied: locks cannot be acquired, extended or released from here (each connection starts with PING)"},
		{cmd: "ROLE", writes: true, want: "ROLE denied: a replica given as a master is found only when it refuses a write"},
		{cmd: "SET", writes: true, want: "SET denied: locks cannot be acquired from here"},
		{cmd: "EVALSHA", writes: true, want: "EVALSHA denied: locks cannot be released or extended from here"},
		{cmd: "DEL", writes: true, want: "DEL denied: locks cannot be released from here"},
		{cmd: "PEXPIRE", writes: true, want: "PEXPIRE denied: locks cannot be extended from here"},
		{cmd: "GET", writes: true, want: "GET denied: " + scriptsOff + "; locks cannot be released or extended from here (their scripts compare the token with GET)"},
		{cmd: "EVAL", writes: true, want: "EVAL denied: " + scriptsOff + "; locks cannot be released or extended from here (their scripts are loaded with EVAL)"},
	} {
		name := tc.cmd
		if tc.writes {
			name += "/writing"
		}
		t.Run(name, func(t *testing.T) {
			rules := watcher
			if tc.writes {
				rules = locker
			}
			user := "without-" + strings.ToLower(tc.cmd)
			a.setUser(t, user, without(rules, strings.ToLower(tc.cmd)))
			s := a.watch(t, user, Config{Writes: tc.writes})
			m := s.Masters[0]
			if tc.cmd == "SCAN" {
				if m.Up || !strings.Contains(m.Err, "SCAN denied: locks cannot be found on this master: NOPERM") {
					t.Fatalf("master up %v, error %q; want down, saying SCAN is denied", m.Up, m.Err)
				}
				return
			}
			ws := deniedWarnings(s)
			if len(ws) != 1 || ws[0].Kind != WarnDenied+":"+strings.ToLower(tc.cmd) || ws[0].Master != m.Addr || ws[0].Text != tc.want {
				t.Fatalf("warnings about refusals: %v; want only %q on %s", ws, tc.want, m.Addr)
			}
			if !slices.Contains(m.Warnings, tc.want) {
				t.Errorf("the master's own warnings %v lack %q", m.Warnings, tc.want)
			}
			if !m.Up {
				t.Errorf("the master is down (%s): a refusal that leaves it readable must not take it down", m.Err)
			}
		})
	}
}

// TestTheIssuesTooSmallACLIsNotSilent watches as the user of issue 20: allowed GET, PTTL and SCAN, not
// GETRANGE (nor INFO, TIME or scripts). Its lock cannot be listed; the snapshot says why instead of showing
// an empty list as if there were no lock.
func TestTheIssuesTooSmallACLIsNotSilent(t *testing.T) {
	t.Parallel()
	a := newACLServer(t)
	a.setUser(t, "small", []string{"on", ">pw", "~*", "+get", "+pttl", "+scan"})
	s := a.watch(t, "small", Config{})
	for _, want := range []struct{ kind, text string }{
		{"denied:getrange", "GETRANGE denied: values cannot be read; locks are not listed"},
		{"denied:info", "INFO denied: role and restarts are not checked, nor whether two masters are one server, nor eviction and flushes (a lock gone early is told released)"},
		{"denied:time", "TIME denied: clock offset unknown; the clock checks are off"},
	} {
		if !slices.ContainsFunc(s.Warnings, func(w Warning) bool { return w.Kind == want.kind && w.Text == want.text }) {
			t.Errorf("no warning %q in %v", want.text, s.Warnings)
		}
	}
	if i := slices.IndexFunc(s.Warnings, func(w Warning) bool { return w.Kind == "denied:getrange" }); i >= 0 && s.Warnings[i].Severity != SeverityError {
		t.Errorf("the refused GETRANGE is a %s, want an error: no lock can be listed", s.Warnings[i].Severity)
	}
}

// TestARefusedReadIsUnknownNotAbsent takes GETRANGE from a user while it watches a held lock: the lock's cell
// becomes unknown (the key was not read), never absent, and nothing says the lock was released.
func TestARefusedReadIsUnknownNotAbsent(t *testing.T) {
	t.Parallel()
	a := newACLServer(t)
	ctx := context.Background()
	rules := documentedACL(t, "watcher")
	a.setUser(t, "watcher", rules)
	mon, err := New([]*redis.Client{a.client(t, "watcher")}, []string{a.srv.Addr()}, Config{Timeout: testTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if l := lockOf(t, mon.Poll(ctx), "billing:nightly"); l.State != StateHeld {
		t.Fatalf("before: %s, want held", l.State)
	}
	if err := a.admin.Do(ctx, "ACL", "SETUSER", "watcher", "-getrange", "-mget").Err(); err != nil {
		t.Fatal(err)
	}
	var s Snapshot
	unknown := false
	for poll := range 5 {
		s = mon.Poll(ctx)
		l := lockOf(t, s, "billing:nightly")
		if c := l.Masters[0]; c.State == CellAbsent {
			t.Fatalf("poll %d: the lock's cell is absent, but its key was not read", poll)
		}
		if l.Masters[0].State == CellUnknown {
			unknown = true
			break
		}
	}
	if !unknown {
		t.Errorf("the cell of a key whose read is refused never became unknown")
	}
	if l := lockOf(t, s, "billing:nightly"); l.State != StateUnknown || l.Masters[0].Token == "" {
		t.Errorf("lock %s, cell %+v; want unknown, keeping the token last seen", l.State, l.Masters[0])
	}
	for _, e := range s.Events {
		if e.Resource == "billing:nightly" && (e.Kind == EventLockReleased || e.Kind == EventLockExpired) {
			t.Errorf("event %s: %s, for a lock that was only not read", e.Kind, e.Text)
		}
	}
	if !hasWarning(s, "denied:getrange", a.srv.Addr()) {
		t.Errorf("no warning that GETRANGE is denied: %v", s.Warnings)
	}
}

// TestKeyPatternsThatRefuseReadsAreCounted watches as a user whose ACL lets it read only lock:* keys: the
// locks there are listed, the keys it may not read are counted and said, and a pattern within the user's keys
// reads nothing it may not. A writer limited so is told where it cannot write.
func TestKeyPatternsThatRefuseReadsAreCounted(t *testing.T) {
	t.Parallel()
	a := newACLServer(t)
	ctx := context.Background()
	if err := a.admin.Set(ctx, "lock:orders", "tokOrders0123456789", 10*time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	rules := slices.Clone(documentedACL(t, "watcher"))
	rules[slices.Index(rules, "~*")] = "~lock:*"
	a.setUser(t, "narrow", rules)
	s := a.watch(t, "narrow", Config{})
	if l := lockOf(t, s, "lock:orders"); l.State != StateHeld {
		t.Errorf("lock:orders is %s, want held", l.State)
	}
	want := "2 keys refused by the user's ACL key patterns, not read: a lock among them is not listed; " +
		"a --pattern within the user's keys leaves them out"
	if ws := deniedWarnings(s); len(ws) != 1 || ws[0].Kind != WarnKeysRefused || ws[0].Text != want {
		t.Errorf("warnings about refusals %v; want only %q", ws, want)
	}
	if s = a.watch(t, "narrow", Config{Pattern: "lock:*"}); len(deniedWarnings(s)) > 0 || lockOf(t, s, "lock:orders").State != StateHeld {
		t.Errorf("--pattern lock:*: warnings %v; want lock:orders held and no refusal", deniedWarnings(s))
	}

	writer := slices.Clone(documentedACL(t, "locker"))
	writer[slices.Index(writer, "~*")] = "~lock:*"
	a.setUser(t, "narrow-writer", writer)
	s = a.watch(t, "narrow-writer", Config{Writes: true})
	wantSet := "SET denied on keys outside the user's ACL key patterns: on such keys, locks cannot be acquired from here"
	if !slices.ContainsFunc(s.Warnings, func(w Warning) bool { return w.Kind == "denied:set" && w.Text == wantSet }) {
		t.Errorf("no warning %q in %v", wantSet, s.Warnings)
	}
	s = a.watch(t, "narrow-writer", Config{Writes: true, Pattern: "lock:*"})
	if ws := deniedWarnings(s); len(ws) > 0 {
		t.Errorf("--pattern lock:*, writing: warnings %v; want none: every key of the pattern may be written", ws)
	}
}

func TestWarningsSortErrorsFirstThenWarningsThenInformation(t *testing.T) {
	got := []Severity{SeverityInfo, SeverityWarning, SeverityError}
	slices.SortStableFunc(got, func(a, b Severity) int { return b.Rank() - a.Rank() })
	if want := []Severity{SeverityError, SeverityWarning, SeverityInfo}; !slices.Equal(got, want) {
		t.Errorf("sorted by rank: %v, want %v", got, want)
	}
}

// TestReadOnlyKeyPatternsRefuseTheReadScripts watches as the README's watcher with read-only key patterns
// (%R~*): Redis refuses the refresh script, which declares its keys, so reads fall back to plain commands;
// the dashboard says so rather than lose Redisson's hash locks in silence.
func TestReadOnlyKeyPatternsRefuseTheReadScripts(t *testing.T) {
	t.Parallel()
	a := newACLServer(t)
	rules := slices.Clone(documentedACL(t, "watcher"))
	rules[slices.Index(rules, "~*")] = "%R~*"
	a.setUser(t, "watcher", rules)
	s := a.watch(t, "watcher", Config{})
	if !hasWarning(s, "denied:eval", a.srv.Addr()) {
		t.Errorf("no warning that the read scripts are refused: %v", s.Warnings)
	}
	if l := lockOf(t, s, "billing:nightly"); l.State != StateHeld {
		t.Errorf("billing:nightly is %s, want held (read with plain commands)", l.State)
	}
}
