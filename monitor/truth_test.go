package monitor

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// serverCluster is a monitor on n real redis-server masters, which can be paused.
func serverCluster(t *testing.T, n int, cfg Config) (*cluster, []*redlocktest.Server) {
	t.Helper()
	servers := realServers(t, n)
	masters := make([]redlocktest.Master, n)
	for i, s := range servers {
		masters[i] = s
	}
	return watch(t, masters, cfg), servers
}

// newEvents returns the events of s that are not in prev.
func newEvents(prev, s Snapshot) []Event {
	return s.Events[min(len(prev.Events), len(s.Events)):]
}

func TestPollAMasterThatMissesAPollKeepsItsLocksUnknownNotReleased(t *testing.T) {
	t.Parallel()
	c, servers := serverCluster(t, 5, Config{})
	ctx := context.Background()
	c.set(t, "billing:nightly", "tokHeld0123456789", time.Minute, 1, 2, 3)
	before := c.mon.Poll(ctx)
	if l := lockOf(t, before, "billing:nightly"); l.State != StateHeld || l.Count != 3 {
		t.Fatalf("baseline: %s on %d, want held on 3", l.State, l.Count)
	}
	firstSeen := lockOf(t, before, "billing:nightly").FirstSeen

	// One holder misses a poll: its cell is unknown with the token last seen, the lock is undecided (2 seen,
	// 1 unknown could make 3), and nothing is said to have been released.
	if err := servers[1].Pause(); err != nil {
		t.Fatal(err)
	}
	during := c.mon.Poll(ctx)
	if err := servers[1].Resume(); err != nil {
		t.Fatal(err)
	}
	l := lockOf(t, during, "billing:nightly")
	if cell := l.Masters[1]; cell.State != CellUnknown || cell.Token != "tokHeld0123456789" || cell.ReadAt.IsZero() {
		t.Errorf("paused master's cell = %+v, want unknown with the token last seen and when", cell)
	}
	if l.State != StateHeld && l.State != StateUnknown || l.State == StateHeld && l.Count < 3 {
		t.Errorf("one holder paused: %s on %d (unknown %d), want held or unknown, never partial", l.State, l.Count, l.Unknown)
	}
	if m := during.Masters[1]; m.Up || m.Down || m.Missed != 1 {
		t.Errorf("paused master: up %v down %v missed %d, want not answering (not yet down)", m.Up, m.Down, m.Missed)
	}
	for _, e := range newEvents(before, during) {
		if e.Resource != "" {
			t.Errorf("lock event while a master missed a poll: %v", e)
		}
	}
	if !slices.Contains(eventKinds(newEvents(before, during)), EventMasterNotAnswering) {
		t.Errorf("no master-not-answering event: %v", newEvents(before, during))
	}

	// Three of five paused, all of them holders: only masters that do not hold it answer, so it is unknown.
	// First the resumed master answers again: the read it did not answer is still out, and a poll takes its
	// answer when it comes (here it could come in the moment between the resume and the next pause).
	answered := pollUntilAllAnswer(t, c, during)
	for _, i := range []int{1, 2, 3} {
		if err := servers[i].Pause(); err != nil {
			t.Fatal(err)
		}
	}
	mid := c.mon.Poll(ctx)
	for _, i := range []int{1, 2, 3} {
		if err := servers[i].Resume(); err != nil {
			t.Fatal(err)
		}
	}
	if l := lockOf(t, mid, "billing:nightly"); l.State != StateUnknown || l.Unknown != 3 {
		t.Errorf("3 of 5 holders paused: %s with %d unknown, want unknown with 3", l.State, l.Unknown)
	}
	for _, e := range newEvents(answered, mid) {
		if e.Resource != "" {
			t.Errorf("lock event while its holders did not answer: %v", e)
		}
	}

	// A resumed master may take a poll or two to answer again (its abandoned read has to end first); until
	// then the lock stays undecided, and no lock event is raised at any point.
	after := pollUntilAllAnswer(t, c, mid)
	l = lockOf(t, after, "billing:nightly")
	if l.State != StateHeld || l.Count != 3 || !l.FirstSeen.Equal(firstSeen) {
		t.Errorf("after resuming: %s on %d first seen %v, want held on 3, first seen still %v", l.State, l.Count, l.FirstSeen, firstSeen)
	}
}

// pollUntilAllAnswer polls c until every master answers (at most 20 polls), failing the test on a lock event
// on the way, and returns the last snapshot; from is the snapshot before.
func pollUntilAllAnswer(t *testing.T, c *cluster, from Snapshot) Snapshot {
	t.Helper()
	s := from
	for range 20 {
		prev := s
		s = c.mon.Poll(context.Background())
		for _, e := range newEvents(prev, s) {
			if e.Resource != "" {
				t.Errorf("lock event when its masters answered again: %v", e)
			}
		}
		if s.UpCount == len(s.Masters) {
			return s
		}
	}
	t.Fatalf("masters still not answering after 20 polls: %d of %d up", s.UpCount, len(s.Masters))
	return s
}

func TestPollConnectionSetupErrorIsADownMaster(t *testing.T) {
	t.Parallel()
	servers := realServers(t, 1)
	ctx := context.Background()
	admin := servers[0].NewClient()
	defer admin.Close()
	if err := admin.Do(ctx, "ACL", "SETUSER", "db0only", "on", ">pw", "~*", "+@all", "-select").Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Set(ctx, "orders:settle", "tok", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts redis.Options
		want string
	}{
		{"no such database", redis.Options{DB: 16}, "DB index is out of range"},
		{"SELECT denied by ACL", redis.Options{DB: 1, Username: "db0only", Password: "pw"}, "NOPERM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Addr, opts.ContextTimeoutEnabled = servers[0].Addr(), true
			client := redis.NewClient(&opts)
			defer client.Close()
			mon, err := New([]*redis.Client{client}, []string{servers[0].Addr()}, Config{Timeout: testTimeout})
			if err != nil {
				t.Fatal(err)
			}
			s := mon.Poll(ctx)
			m := s.Masters[0]
			if m.Up || !m.Down || !strings.Contains(m.Err, tt.want) || !strings.Contains(m.Err, "connection setup") || s.UpCount != 0 {
				t.Errorf("master up %v down %v err %q, up count %d; want down at once, naming the setup error %q",
					m.Up, m.Down, m.Err, s.UpCount, tt.want)
			}
			if !hasWarning(s, WarnQuorumDown, "") {
				t.Errorf("no quorum warning: %v", s.Warnings)
			}
		})
	}
}

func TestPollStuckLockWithoutTTLIsShownAndOrdinaryDataIsNot(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 5, Config{})
	ctx := context.Background()
	c.set(t, "stuck:deploy", "Zq3vX9kLm2Pa7TbW", 0, 0, 1, 2)          // a token without a TTL on 3 of 5
	c.set(t, "session:cache", "kP8sN2xQ7wL4rT9v", 0, 4)               // token-shaped, but on one master only
	c.set(t, "config:colour", "blue", 0, 0, 1, 2, 3, 4)               // ordinary data everywhere
	c.set(t, "user:42:name", "a value with spaces", 0, 0, 1, 2, 3, 4) // not token-shaped
	s := c.mon.Poll(ctx)
	l := lockOf(t, s, "stuck:deploy")
	if l.State != StateStuck || l.Count != 3 || l.Holder != "Zq3vX9kLm2Pa7TbW" || l.Masters[0].PTTL != NoTTL {
		t.Errorf("stuck lock: %s count %d holder %q pttl %v; want stuck on 3, held for ever by its token", l.State, l.Count, l.Holder, l.Masters[0].PTTL)
	}
	if !hasWarning(s, WarnStuck, "") {
		t.Errorf("no stuck-lock warning: %v", s.Warnings)
	}
	for _, name := range []string{"session:cache", "config:colour", "user:42:name"} {
		if slices.ContainsFunc(s.Locks, func(l *LockView) bool { return l.Resource == name }) {
			t.Errorf("%q listed as a lock", name)
		}
	}

	// With a pattern of their own, users say which keys are locks: one without a TTL is then shown anywhere.
	c2, _ := serverCluster(t, 3, Config{Pattern: "session:*"})
	c2.set(t, "session:cache", "kP8sN2xQ7wL4rT9v", 0, 2)
	if l := lockOf(t, c2.mon.Poll(ctx), "session:cache"); l.State != StateStuck {
		t.Errorf("key without a TTL matched by the user's pattern: %s, want stuck", l.State)
	}
}

func TestPollHeldLockThatLosesItsQuorumIsAnError(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 5, Config{})
	ctx := context.Background()
	c.set(t, "billing:nightly", "tokHeld0123456789", time.Minute, 0, 1, 2)
	before := c.mon.Poll(ctx)
	if l := lockOf(t, before, "billing:nightly"); l.State != StateHeld {
		t.Fatalf("baseline: %s, want held", l.State)
	}
	if err := c.admin[1].Del(ctx, "billing:nightly").Err(); err != nil {
		t.Fatal(err)
	}
	// The first poll after the DEL cannot tell it from a release in flight: unconfirmed, no event, no error.
	first := c.mon.Poll(ctx)
	if l := lockOf(t, first, "billing:nightly"); l.State != StateUnconfirmed || l.QuorumLost {
		t.Errorf("first poll after DEL on one of 3 holders: %s quorum-lost %v, want unconfirmed, not yet lost", l.State, l.QuorumLost)
	}
	if evs := newEvents(before, first); len(evs) != 0 {
		t.Errorf("first poll after the DEL raised %v, want nothing until confirmed", evs)
	}
	s := c.mon.Poll(ctx)
	l := lockOf(t, s, "billing:nightly")
	if l.State != StatePartial || !l.QuorumLost || l.Count != 2 {
		t.Errorf("after DEL on one of 3 holders, confirmed: %s quorum-lost %v count %d, want partial, quorum lost, on 2", l.State, l.QuorumLost, l.Count)
	}
	if !slices.Contains(eventKinds(newEvents(first, s)), EventQuorumLost) {
		t.Errorf("no quorum-lost event: %v", newEvents(first, s))
	}
	var found bool
	for _, w := range s.Warnings {
		found = found || w.Kind == WarnQuorumLost && w.Severity == SeverityError && strings.Contains(w.Text, "billing:nightly")
	}
	if !found {
		t.Errorf("no quorum-lost error naming the lock: %v", s.Warnings)
	}
	// It stays flagged while the holder's keys live, and the event is not repeated.
	next := c.mon.Poll(ctx)
	if l := lockOf(t, next, "billing:nightly"); !l.QuorumLost || slices.Contains(eventKinds(newEvents(s, next)), EventQuorumLost) {
		t.Errorf("next poll: quorum-lost %v, events %v; want still flagged, no second event", l.QuorumLost, newEvents(s, next))
	}
}

func TestPollReleasedAndExpiredAreToldApart(t *testing.T) {
	t.Parallel()
	c, _ := serverCluster(t, 3, Config{})
	ctx := context.Background()
	c.set(t, "short", "tokShort0123456789", 2*time.Second, 0, 1, 2)
	c.set(t, "long", "tokLong01234567890", time.Minute, 0, 1, 2)
	// Both seen held first, however slow a poll is on a loaded machine; then the long one deleted and the
	// short one's keys gone by their TTL, as the masters say, before the poll that tells them apart.
	before := pollUntil(t, c.mon, 20*time.Second, "both locks held", func(s Snapshot) bool {
		a, b := s.Lock("short"), s.Lock("long")
		return a != nil && a.State == StateHeld && b != nil && b.State == StateHeld
	})
	for _, a := range c.admin {
		if err := a.Del(ctx, "long").Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range c.admin {
		for a.Exists(ctx, "short").Val() != 0 { // the master expires it at its TTL
			time.Sleep(20 * time.Millisecond)
		}
	}
	s := c.mon.Poll(ctx)
	kinds := map[string]EventKind{}
	for _, e := range newEvents(before, s) {
		kinds[e.Resource] = e.Kind
	}
	if kinds["short"] != EventLockExpired || kinds["long"] != EventLockReleased {
		t.Errorf("events %v; want short expired and long released", newEvents(before, s))
	}
}

// Observation 3 on real servers: a lock on exactly masters 0-2; master 0 is killed and restarted without
// persistence. The monitor reports the master's fall and return, and the lost quorum within two polls of its
// return (the first shows it unconfirmed).
func TestPollAHolderRestartedEmptyIsALostQuorum(t *testing.T) {
	t.Parallel()
	c, servers := serverCluster(t, 5, Config{})
	ctx := context.Background()
	c.set(t, "billing:nightly", "tokHeld0123456789", time.Minute, 0, 1, 2)
	if l := lockOf(t, c.mon.Poll(ctx), "billing:nightly"); l.State != StateHeld {
		t.Fatalf("baseline: %s, want held", l.State)
	}
	if err := servers[0].Stop(); err != nil {
		t.Fatal(err)
	}
	down := c.mon.Poll(ctx)
	if l := lockOf(t, down, "billing:nightly"); l.State != StateUnknown {
		t.Errorf("a holder down: %s, want unknown", l.State)
	}
	if err := servers[0].Start(); err != nil {
		t.Fatal(err)
	}
	var all []Event
	prev := down
	for range 2 {
		s := c.mon.Poll(ctx)
		all = append(all, newEvents(prev, s)...)
		prev = s
	}
	kinds := eventKinds(all)
	for _, want := range []EventKind{EventMasterUp, EventMasterRestarted, EventQuorumLost} {
		if !slices.Contains(kinds, want) {
			t.Errorf("two polls after the holder came back empty: events %v, want %s among them", kinds, want)
		}
	}
	if l := lockOf(t, prev, "billing:nightly"); !l.QuorumLost {
		t.Errorf("after the restart: %s, quorum lost %v; want the lost quorum shown", l.State, l.QuorumLost)
	}
}

// Observation 6: a master that does not answer must not hold the others' refresh. With one master stopped
// (SIGSTOP) and a read deadline far longer than the interval, a poll returns with the others' fresh reads long
// before that deadline, and the stopped master's cells are unknown, not absent.
func TestPollAStoppedMasterDoesNotDelayTheOthers(t *testing.T) {
	t.Parallel()
	const timeout = 20 * time.Second
	c, servers := serverCluster(t, 5, Config{})
	// The monitor's own clients wait for an answer as long as its deadline allows, whatever their defaults.
	clients, addrs := make([]*redis.Client, len(servers)), make([]string, len(servers))
	for i, sv := range servers {
		clients[i] = redis.NewClient(&redis.Options{Addr: sv.Addr(), ContextTimeoutEnabled: true, ReadTimeout: timeout, MaxRetries: -1})
		addrs[i] = sv.Addr()
		t.Cleanup(func() { _ = clients[i].Close() })
	}
	mon, err := New(clients, addrs, Config{Interval: 200 * time.Millisecond, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	c.mon = mon
	ctx := context.Background()
	c.set(t, "billing:nightly", "tokHeld0123456789", time.Minute, 0, 1, 2, 3, 4)
	c.mon.Poll(ctx)
	if err := servers[4].Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = servers[4].Resume() })
	start := time.Now()
	s := c.mon.Poll(ctx)
	// The old poll waited for the stopped master until its deadline; half of it is far beyond any load.
	if took := time.Since(start); took >= timeout/2 {
		t.Fatalf("a poll with one master stopped took %v: it waited for that master's %v deadline", took, timeout)
	}
	if m := s.Masters[4]; m.Up {
		t.Errorf("the stopped master is up in the poll that did not wait for it")
	}
	for i := range 4 {
		if m := s.Masters[i]; !m.Up || !m.LastAnswer.Equal(s.Time) {
			t.Errorf("master %d: up %v, last answer %v; want refreshed by this poll at %v", i, m.Up, m.LastAnswer, s.Time)
		}
	}
	if l := lockOf(t, s, "billing:nightly"); l.State != StateHeld || l.Masters[4].State != CellUnknown {
		t.Errorf("lock: %s, stopped master's cell %v; want held, its cell unknown", l.State, l.Masters[4].State)
	}
}
