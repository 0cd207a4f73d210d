package render

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// TestJSONGivesContentionOnceWatchedForAWhile: --once --json gains each lock's figures and intervals when the
// monitor has watched ContentionAfter or more, and leaves them out before.
func TestJSONGivesContentionOnceWatchedForAWhile(t *testing.T) {
	type out struct {
		Locks []struct {
			Contention *struct {
				WatchedMS int64 `json:"watched_ms"`
				Window    struct {
					Acquisitions int     `json:"acquisitions"`
					PerMinute    float64 `json:"handovers_per_minute"`
					HoldP50MS    float64 `json:"hold_p50_ms"`
				} `json:"window"`
				Waiters   *int `json:"waiters"`
				Intervals []struct {
					Token   string `json:"token"`
					Ended   string `json:"ended"`
					Masters []int  `json:"masters"`
				} `json:"intervals"`
			} `json:"contention"`
		} `json:"locks"`
	}
	decode := func(s monitor.Snapshot) out {
		var b bytes.Buffer
		if err := WriteJSON(&b, s); err != nil {
			t.Fatal(err)
		}
		var o out
		if err := json.Unmarshal(b.Bytes(), &o); err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		return o
	}
	snaps := handovers(21)
	if c := decode(snaps[5]).Locks[0].Contention; c != nil {
		t.Errorf("contention after 5s of watching: %+v; want none before %v", c, ContentionAfter)
	}
	c := decode(snaps[20]).Locks[0].Contention
	if c == nil {
		t.Fatal("no contention after 20s of watching")
	}
	if c.WatchedMS != 20000 || c.Window.Acquisitions != 20 || c.Window.PerMinute != 60 || c.Window.HoldP50MS != 1000 || c.Waiters != nil {
		t.Errorf("contention %+v; want 20s watched, 20 acquisitions, 60 a minute, holds of 1s, waiters unknown", c)
	}
	if n := len(c.Intervals); n != 21 || c.Intervals[0].Ended != "taken-over" || c.Intervals[20].Ended != "open" ||
		c.Intervals[20].Token != "T020" || len(c.Intervals[20].Masters) != 5 {
		t.Errorf("intervals %+v; want 21, taken over but the last, open, T020 on all five masters", c.Intervals)
	}
}
