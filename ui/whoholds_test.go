package ui_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/whoholds"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
	"github.com/redlock-tui/redlock-tui/ui"
)

// TestLockViewNamesTheRedsyncHoldersConnection is the drill-down end to end: a redsync client whose go-redis
// connections are named billing-worker-3 holds a lock on three real masters and keeps extending it; in the
// lock's view, the who-holds key samples a master and the view names the holder's connection, by the address
// the master lists for that name.
func TestLockViewNamesTheRedsyncHoldersConnection(t *testing.T) {
	t.Parallel()
	servers := redlocktest.RealServers(t, 3, redlocktest.ServerOptions{})
	const resource, name = "billing:invoice-7", "billing-worker-3"
	var pools []redsyncredis.Pool
	var clients []*redis.Client
	for _, s := range servers {
		named := redis.NewClient(&redis.Options{Addr: s.Addr(), ClientName: name, MaxRetries: -1})
		plain := s.NewClient()
		t.Cleanup(func() { named.Close(); plain.Close() })
		pools, clients = append(pools, goredis.NewPool(named)), append(clients, plain)
	}
	// Tries enough for a loaded machine: redsync gives each master a twentieth of the expiry (100ms), and a
	// first round, dialling three connections, once ran past it ("context deadline exceeded").
	mutex := redsync.New(pools...).NewMutex(resource, redsync.WithExpiry(2*time.Second), redsync.WithTries(20))
	ctx, stop := context.WithCancel(context.Background())
	if err := mutex.LockContext(ctx); err != nil {
		stop()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-time.After(300 * time.Millisecond):
				mutex.ExtendContext(ctx)
			}
		}
	})
	defer func() { stop(); wg.Wait(); mutex.UnlockContext(context.Background()) }()

	addrs := redlocktest.Addrs(servers)
	mon, err := monitor.New(clients, addrs, monitor.Config{NoTracking: true})
	if err != nil {
		t.Fatal(err)
	}
	d := drive(t, newDashboard(ui.Options{Now: time.Now, WhoHolds: whoholds.NewMasters(clients, addrs)}, 140, 44))
	d.waitFor(resource+" held in the snapshot", func(string) bool {
		s := mon.Poll(context.Background())
		d.update(ui.SnapshotMsg{Snapshot: s})
		lv := s.Lock(resource)
		return lv != nil && lv.State == monitor.StateHeld
	})
	d.press("enter")
	d.waitView("Lock " + resource)
	d.waitView("press W to name the holder's connection")
	d.press("W")
	d.waitView("MONITOR on 127.0.0.1:")
	d.waitView("held by 127.0.0.1:")
	view := d.m.View()
	var holderAddrs []string
	for _, c := range clients {
		holderAddrs = append(holderAddrs, addrsNamed(t, c, name)...)
	}
	found := false
	for _, a := range holderAddrs {
		found = found || strings.Contains(view, "held by "+a+" ("+name+", connected ")
	}
	if !found {
		t.Errorf("the lock's view does not name one of %s's connections %v as the holder:\n%s", name, holderAddrs, view)
	}
}

// addrsNamed returns the addresses of c's master's connections named name, as CLIENT LIST gives them.
func addrsNamed(t *testing.T, c *redis.Client, name string) []string {
	t.Helper()
	text, err := c.ClientList(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, " name="+name+" ") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if a, ok := strings.CutPrefix(f, "addr="); ok {
				out = append(out, a)
			}
		}
	}
	return out
}

// fakeSampler answers samples with a report naming holder, after release is closed (nil: at once), and counts
// the samples asked for.
type fakeSampler struct {
	calls   atomic.Int32
	release chan struct{}
	target  chan whoholds.Target
}

// Sample records t and answers once released.
func (f *fakeSampler) Sample(ctx context.Context, t whoholds.Target, d time.Duration, _ int) (whoholds.Report, error) {
	f.calls.Add(1)
	if f.target != nil {
		f.target <- t
	}
	if f.release != nil {
		<-f.release
	}
	return whoholds.Report{Master: t.Master, Key: t.Key, Took: d, Lines: 10, Stopped: whoholds.StopTime,
		Conns: []whoholds.Conn{{Client: whoholds.Client{Addr: "10.0.3.17:51234", Name: "billing-worker-3"},
			Listed: true, Role: whoholds.RoleHolder, Commands: []whoholds.CommandCount{{Name: "EVALSHA", N: 2}}}}}, nil
}

// heldLock is a snapshot of one lock held on three masters.
func heldLock() monitor.Snapshot {
	return snapshotOf(mastersUp(3), nil, lockOf("orders:42", 2, 8*time.Second, on(tokA, 9*time.Second),
		on(tokA, 9*time.Second), on(tokA, 9*time.Second)))
}

// TestWhoHoldsAsksFirstOnAReadOnlyDashboard: read-only or production, the first press says what MONITOR costs
// and samples nothing; the second samples, on the first master holding the token, with the holder's token.
func TestWhoHoldsAsksFirstOnAReadOnlyDashboard(t *testing.T) {
	for _, o := range []ui.Options{{ReadOnly: true}, {Production: true, Profile: "prod"}} {
		f := &fakeSampler{target: make(chan whoholds.Target, 1)}
		o.WhoHolds = f
		d := drive(t, newDashboard(o, 140, 44))
		d.update(ui.SnapshotMsg{Snapshot: heldLock()})
		d.press("enter", "W")
		d.waitView("press W again to sample")
		if n := f.calls.Load(); n != 0 {
			t.Fatalf("read-only %v, production %v: the first press sampled (%d samples); want a confirmation first",
				o.ReadOnly, o.Production, n)
		}
		d.press("W")
		d.waitView("held by 10.0.3.17:51234 (billing-worker-3")
		if got := <-f.target; got.Master != "10.0.0.1:6379" || got.Key != "orders:42" || len(got.Tokens) != 1 || got.Tokens[0] != tokA {
			t.Errorf("sampled %+v; want the first master, the lock's key and the holder's token", got)
		}
	}
}

// TestWhoHoldsDropsAResultForAViewClosedSince: a sample's result that comes after its view was closed and the
// lock opened again is not shown as the new view's; a new press samples again.
func TestWhoHoldsDropsAResultForAViewClosedSince(t *testing.T) {
	f := &fakeSampler{}
	d := drive(t, newDashboard(ui.Options{WhoHolds: f}, 140, 44))
	d.update(ui.SnapshotMsg{Snapshot: heldLock()})
	d.press("enter")
	_, cmd := d.m.Update(keyMsg("W")) // the first view's sample: its result is held back
	d.waitView("MONITOR on 10.0.0.1:6379")
	late := runNow(cmd)
	d.press("esc", "enter")
	d.waitView("press W to name the holder's connection")
	for _, msg := range late {
		d.update(msg)
	}
	if v := d.m.View(); strings.Contains(v, "held by") || !strings.Contains(v, "press W to name the holder's connection") {
		t.Fatalf("the closed view's result shows in the new view:\n%s", v)
	}
	d.press("W")
	d.waitView("held by 10.0.3.17:51234")
	if n := f.calls.Load(); n != 2 {
		t.Errorf("%d samples; want 2, one per press in a view", n)
	}
}

// runNow runs cmd and the commands of its batches at once, and returns their messages.
func runNow(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, runNow(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// TestWhoHoldsWithoutASampler: a dashboard that cannot sample (demo masters) offers no key in a lock's view and
// says why a press does nothing; a Redisson lock's hint is shown all the same.
func TestWhoHoldsWithoutASampler(t *testing.T) {
	s := heldLock()
	field := "1b6d2a8e-6c3a-4a3e-9f1e-3d1d1c8b7a60:57"
	for j := range s.Locks[0].Masters {
		s.Locks[0].Masters[j].Token = field
		s.Locks[0].Masters[j] = s.Locks[0].Masters[j].WithHash(1, "")
	}
	s.Locks[0].Holder = field
	d := drive(t, newDashboard(ui.Options{}, 140, 44))
	d.update(ui.SnapshotMsg{Snapshot: s})
	d.press("enter")
	d.waitView("Redisson instance 1b6d2a8e-6c3a-4a3e-9f1e-3d1d1c8b7a60, thread 57 (from its hash field)")
	if strings.Contains(d.m.View(), "W who") || strings.Contains(d.m.View(), "press W") {
		t.Errorf("a dashboard that cannot sample offers the key:\n%s", d.m.View())
	}
	d.press("W")
	d.waitView("this dashboard cannot sample its masters")
}
