package render

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/redlock/redlocktest"
)

// freeStory is a lock on five masters that two holders take in turn, then nobody: o1:hot held by A from 1s to
// 3s and by B from 5s to 6s, polled once a second, then every 5s with no key, over a window of one minute
// (monitor's free_test.go tells the same story). It returns every snapshot, by the second it was made at.
func freeStory() map[int]monitor.Snapshot {
	cfg := monitor.Config{History: time.Minute}
	holder := func(sec int) string {
		switch {
		case sec >= 1 && sec <= 3:
			return "tokA0123456789abcdef"
		case sec >= 5 && sec <= 6:
			return "tokB0123456789abcdef"
		}
		return ""
	}
	out := map[int]monitor.Snapshot{}
	var prev *monitor.Snapshot
	for sec := 0; sec <= 80; {
		at := t0.Add(time.Duration(sec) * time.Second)
		locks := map[string][]cell{"other": cells("X0123456789abcdef", 5)}
		if tok := holder(sec); tok != "" {
			locks["o1:hot"] = cells(tok, 5)
		} else if prev != nil && prev.Lock("o1:hot") != nil {
			locks["o1:hot"] = make([]cell, 5) // a known key is read, absent
		}
		s := monitor.Aggregate(prev, fixture(at, addrs5, locks), nil, at, cfg)
		out[sec] = s
		prev = &s
		if sec < 10 {
			sec++
		} else {
			sec += 5
		}
	}
	return out
}

// TestAFreeLockIsInTheJSONAndTheReport: --once --json lists a free lock with its state and its contention,
// and the Markdown report lists it with its handovers.
func TestAFreeLockIsInTheJSONAndTheReport(t *testing.T) {
	s := freeStory()[30]
	var js bytes.Buffer
	if err := WriteJSON(&js, s); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Locks []freeJSONLock `json:"locks"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(doc.Locks, func(l freeJSONLock) bool { return l.Resource == "o1:hot" })
	if i < 0 {
		t.Fatalf("no record of o1:hot in the JSON:\n%s", js.String())
	}
	l := doc.Locks[i]
	if l.State != "free" || l.Holder != "" || l.Contention == nil || l.Contention.Window.Holds != 2 || len(l.Contention.Intervals) != 2 {
		t.Errorf("o1:hot in the JSON: %+v; want free, no holder, its 2 holds and intervals", l)
	}
	if ivs := s.Lock("o1:hot").History.Intervals(s.Time.Add(-s.Window())); l.Contention != nil && len(l.Contention.Intervals) != len(ivs) {
		t.Errorf("o1:hot in the JSON: %d intervals, want every one of its window's %d", len(l.Contention.Intervals), len(ivs))
	}
	var table bytes.Buffer
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "2 locks (1 free)") || !strings.Contains(table.String(), "o1:hot    free   -") {
		t.Errorf("the table does not count o1:hot free nor list it so:\n%s", table.String())
	}
	var md bytes.Buffer
	if err := WriteReport(&md, s, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	row := ""
	for _, line := range strings.Split(md.String(), "\n") {
		if strings.HasPrefix(line, "| o1:hot |") {
			row = line
		}
	}
	if !strings.HasPrefix(row, "| o1:hot | free | - | 0 of 5, quorum 3 |") || !strings.Contains(row, "| 2, ") || strings.Contains(md.String(), "| none |") {
		t.Errorf("the report's row of o1:hot: %q; want it free, held by nobody, with its 2 holders:\n%s", row, md.String())
	}
}

// freeJSONLock is what TestAFreeLockIsInTheJSONAndTheReport reads of a lock in the JSON.
type freeJSONLock struct {
	Resource   string `json:"resource"`
	State      string `json:"state"`
	Holder     string `json:"holder"`
	Contention *struct {
		Window struct {
			Holds int `json:"holds"`
		} `json:"window"`
		Intervals []struct {
			Token string `json:"token"`
			Ended string `json:"ended"`
		} `json:"intervals"`
	} `json:"contention"`
}

// TestWriteJSONOnFixtureCluster writes the JSON of a poll of three masters (real redis-server ones where it is
// installed): a lock held on all three, one on the third only.
func TestWriteJSONOnFixtureCluster(t *testing.T) {
	t.Parallel()
	masters := redlocktest.Masters(t, 3)
	admin := redlocktest.Clients(t, masters)
	ctx := context.Background()
	for _, set := range []struct {
		key, token string
		ttl        time.Duration
		on         []int
	}{{"held", "H", time.Minute, []int{0, 1, 2}}, {"part", "P", 30 * time.Second, []int{2}}} {
		for _, i := range set.on {
			if err := admin[i].Set(ctx, set.key, set.token, set.ttl).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	mon, err := monitor.New(redlocktest.Clients(t, masters), redlocktest.Addrs(masters), monitor.Config{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mon.Close() })
	var buf bytes.Buffer
	if err := WriteJSON(&buf, mon.Poll(ctx)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Quorum  int `json:"quorum"`
		Masters []struct {
			Addr string `json:"addr"`
			Up   bool   `json:"up"`
		} `json:"masters"`
		Locks []struct {
			Resource string `json:"resource"`
			State    string `json:"state"`
			Holder   string `json:"holder"`
			Masters  []struct {
				Token  string `json:"token"`
				PTTLMS int64  `json:"pttl_ms"`
			} `json:"masters"`
		} `json:"locks"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, buf.String())
	}
	if doc.Quorum != 2 || len(doc.Masters) != 3 || len(doc.Locks) != 2 || doc.Warnings == nil {
		t.Fatalf("quorum %d, %d masters, %d locks, warnings %v; want 2, 3, 2, []:\n%s", doc.Quorum, len(doc.Masters), len(doc.Locks), doc.Warnings, buf.String())
	}
	for i, m := range doc.Masters {
		if m.Addr != masters[i].Addr() || !m.Up {
			t.Errorf("masters[%d] = %+v, want %s up", i, m, masters[i].Addr())
		}
	}
	h, p := doc.Locks[0], doc.Locks[1]
	if h.Resource != "held" || h.State != "held" || h.Holder != "H" || len(h.Masters) != 3 {
		t.Errorf("locks[0] = %+v, want held by H on 3", h)
	}
	for i, m := range h.Masters {
		if m.Token != "H" || m.PTTLMS <= 55000 || m.PTTLMS > 60000 {
			t.Errorf("locks[0].masters[%d] = %+v, want H with pttl_ms just under 60000", i, m)
		}
	}
	if p.Resource != "part" || p.State != "partial" || p.Holder != "" || len(p.Masters) != 3 ||
		p.Masters[0].Token != "" || p.Masters[0].PTTLMS != 0 || p.Masters[2].Token != "P" || p.Masters[2].PTTLMS <= 25000 {
		t.Errorf("locks[1] = %+v, want partial P on master 2 only", p)
	}
}
