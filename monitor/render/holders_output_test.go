package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// setFixture is three masters with a redis-semaphore semaphore of two holders, one of them expired but still
// in the set, and a malkusch/lock string lock, aggregated from readings at t0.
func setFixture() monitor.Snapshot {
	addrs := []string{"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"}
	rs := fixture(t0, addrs, map[string][]cell{"lock_billing": {
		{"0123456789abcdef0123456789abcdef", 9 * time.Second, 0}, {"0123456789abcdef0123456789abcdef", 9 * time.Second, 0}, {}}})
	ms := func(d time.Duration) float64 { return float64(t0.Add(d).UnixMilli()) }
	for i := range rs {
		// Acquired 1s and 20s ago with a lockTimeout of 10s: the key expires 9s from now, the older holder 10s ago.
		rs[i].Keys = append(rs[i].Keys, monitor.KeyReading{Key: "semaphore:pool", PTTL: 9 * time.Second, ReadAt: t0,
			Set: []monitor.SetMember{{Member: "0f8fad5b-d9cb-469f-a165-70867728950e", Score: ms(-time.Second)},
				{Member: "7c9e6679-7425-40de-944b-e07fc1f90ae7", Score: ms(-20 * time.Second)}}})
	}
	return monitor.Aggregate(nil, rs, nil, t0, monitor.Config{Permits: map[string]int{"pool": 3}})
}

func TestWriteJSONCarriesEachHolder(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, setFixture()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Locks []struct {
			Resource   string   `json:"resource"`
			Families   []string `json:"families"`
			Logical    string   `json:"logical_resource"`
			Convention string   `json:"convention"`
			Summary    string   `json:"holders_summary"`
			Limit      int      `json:"limit"`
			Holders    []struct {
				Token   string `json:"token"`
				Mode    string `json:"mode"`
				State   string `json:"state"`
				Count   int    `json:"count"`
				Masters []struct {
					State       string `json:"state"`
					ExpiresInMS *int64 `json:"expires_in_ms"`
				} `json:"masters"`
			} `json:"holders"`
		} `json:"locks"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, l := range doc.Locks {
		byName[l.Resource] = i
	}
	pool := doc.Locks[byName["semaphore:pool"]]
	if pool.Summary != "1 of 3 permits" || pool.Limit != 3 || pool.Logical != "pool" || pool.Convention != "redis-semaphore" ||
		len(pool.Families) != 1 || pool.Families[0] != "redis-semaphore" || len(pool.Holders) != 2 {
		t.Fatalf("semaphore:pool: %+v; want 1 of 3 permits, named pool, two holders", pool)
	}
	live, lapsed := pool.Holders[0], pool.Holders[1]
	if live.State != "held" || live.Mode != "permit" || live.Count != 3 || live.Masters[0].State != "live" ||
		*live.Masters[0].ExpiresInMS != 9000 {
		t.Errorf("the live holder: %+v, want held on 3, live for 9s on the first master", live)
	}
	if lapsed.State != "expired" || lapsed.Masters[2].State != "expired" || *lapsed.Masters[2].ExpiresInMS != -10000 {
		t.Errorf("the lapsed holder: %+v, want expired 10s ago", lapsed)
	}
	billing := doc.Locks[byName["lock_billing"]]
	if len(billing.Holders) != 1 || billing.Holders[0].Mode != "exclusive" || billing.Holders[0].State != "held" ||
		billing.Holders[0].Masters[2].State != "absent" || billing.Logical != "billing" || len(billing.Families) != 3 {
		t.Errorf("lock_billing: %+v; want one exclusive holder on 2, named billing, three families", billing)
	}
}

func TestWriteTableListsEachHolder(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, setFixture()); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"pool (redis-semaphore: semaphore:pool)", "1 of 3 permits", "billing (malkusch/lock: lock_billing)",
		"9.0s 9.0s 9.0s", "expired"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table does not say %q:\n%s", want, out)
		}
	}
}
