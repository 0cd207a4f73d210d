package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// clusterSnapshot is a Redis Cluster of three primaries read as one master, each owning one of lock:a, lock:b
// and lock:c (held, tokA on p0:7000, tokB on p1:7001, tokC on p2:7002), aggregated at t0.
func clusterSnapshot() (monitor.Snapshot, map[string]string) {
	owner := map[string]string{"lock:a": "p0:7000", "lock:b": "p1:7001", "lock:c": "p2:7002"}
	r := monitor.Reading{Addr: "cluster p0:7000", Role: "master", Uptime: monitor.UnknownUptime, Replicas: -1,
		Sent: t0.Add(-time.Millisecond), Received: t0, Sweep: monitor.Sweep{Completed: 1, Total: -1}, Cluster: &monitor.ClusterReading{}}
	for _, p := range []struct {
		addr  string
		slots monitor.SlotRange
	}{{"p0:7000", monitor.SlotRange{Start: 0, End: 5460}}, {"p1:7001", monitor.SlotRange{Start: 5461, End: 10922}},
		{"p2:7002", monitor.SlotRange{Start: 10923, End: 16383}}} {
		r.Cluster.Primaries = append(r.Cluster.Primaries, monitor.PrimaryReading{Reading: monitor.Reading{Addr: p.addr,
			Role: "master", Uptime: time.Hour, Sent: t0.Add(-time.Millisecond), Received: t0, ServerTime: t0,
			Sweep: monitor.Sweep{Completed: 1, Total: 10}}, ID: "id-" + p.addr, Slots: []monitor.SlotRange{p.slots}})
	}
	for _, k := range []string{"lock:a", "lock:b", "lock:c"} {
		tok := "tok" + strings.ToUpper(k[len(k)-1:])
		r.Keys = append(r.Keys, monitor.KeyReading{Key: k, Node: owner[k], Value: tok, PTTL: 10 * time.Second, ReadAt: t0})
	}
	return monitor.Aggregate(nil, []monitor.Reading{r}, nil, t0, monitor.Config{}), owner
}

// TestClusterJSONNamesEachKeysPrimary checks the JSON: each cell's node, and the primaries with their slots;
// and the table: the primaries under the cluster, each key's cell at its primary.
func TestClusterJSONNamesEachKeysPrimary(t *testing.T) {
	s, owner := clusterSnapshot()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Masters []struct {
			Cluster *struct {
				Primaries []struct {
					Addr  string `json:"addr"`
					Slots string `json:"slots"`
					Keys  int    `json:"keys"`
					Up    bool   `json:"up"`
				} `json:"primaries"`
			} `json:"cluster"`
		} `json:"masters"`
		Locks []struct {
			Resource string `json:"resource"`
			State    string `json:"state"`
			Masters  []struct {
				Node string `json:"node"`
			} `json:"masters"`
		} `json:"locks"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if c := doc.Masters[0].Cluster; c == nil || len(c.Primaries) != 3 || c.Primaries[1].Slots != "5461-10922" || c.Primaries[1].Keys != 1 {
		t.Fatalf("JSON cluster: %+v", c)
	}
	if len(doc.Locks) != len(owner) {
		t.Fatalf("JSON locks: %+v; want the %d keys", doc.Locks, len(owner))
	}
	for _, l := range doc.Locks {
		if l.State != "held" || l.Masters[0].Node != owner[l.Resource] {
			t.Errorf("JSON lock %s: %s on %q, want held on %s", l.Resource, l.State, l.Masters[0].Node, owner[l.Resource])
		}
	}
	var table bytes.Buffer
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"PRIMARY OF cluster p0:7000", "p1:7001", "5461-10922", "tokB:10s@p1:7001"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table without %q:\n%s", want, table.String())
		}
	}
}
