package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor"
	"github.com/redlock-tui/redlock-tui/monitor/vocab"
)

// jsonFixture is a snapshot of three masters, one down, with a held lock, an undecided one and our lost one.
func jsonFixture() monitor.Snapshot {
	addrs := []string{"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"}
	rs := fixture(t0, addrs, map[string][]cell{
		"orders": {{"tokA", 9 * time.Second, 0}, {"tokA", 8 * time.Second, 0}, {}},
		"stock":  {{"tokB", 5 * time.Second, 0}, {}, {}},
		"mine":   {{}, {}, {}},
	})
	for i := range rs[:2] {
		rs[i].Role, rs[i].Version, rs[i].RunID, rs[i].Uptime, rs[i].Replicas = "master", "7.0.15", "run"+addrs[i], time.Hour, 0
	}
	rs[2] = monitor.Reading{Addr: addrs[2], Err: errors.New("dial tcp 10.0.0.3:6379: connection refused"), Refused: true}
	return monitor.Aggregate(nil, rs, map[string]monitor.OwnLock{"mine": {Token: "tokM"}}, t0, monitor.Config{})
}

func TestWriteJSONFields(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, jsonFixture()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Quorum  *int `json:"quorum"`
		Masters []struct {
			Addr     *string  `json:"addr"`
			Up       *bool    `json:"up"`
			Error    string   `json:"error"`
			Role     string   `json:"role"`
			UptimeS  *int64   `json:"uptime_s"`
			Replicas *int     `json:"replicas"`
			Keys     int      `json:"keys"`
			DriftPPM *float64 `json:"drift_ppm"`
		} `json:"masters"`
		Locks []struct {
			Resource   *string `json:"resource"`
			State      *string `json:"state"`
			Holder     *string `json:"holder"`
			ValidityMS int64   `json:"validity_ms"`
			Mine       bool    `json:"mine"`
			Masters    []struct {
				State  string  `json:"state"`
				Token  *string `json:"token"`
				PTTLMS *int64  `json:"pttl_ms"`
			} `json:"masters"`
		} `json:"locks"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	if doc.Quorum == nil || *doc.Quorum != 2 {
		t.Errorf("quorum = %v, want 2", doc.Quorum)
	}
	wantMasters := []struct {
		addr string
		up   bool
		keys int
	}{{"10.0.0.1:6379", true, 2}, {"10.0.0.2:6379", true, 1}, {"10.0.0.3:6379", false, 0}}
	if len(doc.Masters) != len(wantMasters) {
		t.Fatalf("%d masters, want %d", len(doc.Masters), len(wantMasters))
	}
	for i, w := range wantMasters {
		m := doc.Masters[i]
		if m.Addr == nil || *m.Addr != w.addr || m.Up == nil || *m.Up != w.up || m.Keys != w.keys {
			t.Errorf("masters[%d] = addr %v up %v keys %d, want %s %v %d", i, m.Addr, m.Up, m.Keys, w.addr, w.up, w.keys)
		}
	}
	if m := doc.Masters[0]; m.Role != "master" || m.UptimeS == nil || *m.UptimeS != 3600 || m.Replicas == nil || *m.Replicas != 0 || m.DriftPPM != nil {
		t.Errorf("masters[0] role %q uptime %v replicas %v drift %v; want master 3600 0 null", m.Role, m.UptimeS, m.Replicas, m.DriftPPM)
	}
	if m := doc.Masters[2]; !strings.Contains(m.Error, "connection refused") || m.UptimeS != nil || m.Replicas != nil {
		t.Errorf("masters[2] (down) error %q uptime %v replicas %v; want the error and nulls", m.Error, m.UptimeS, m.Replicas)
	}

	type wantCell struct {
		state string
		token string
		pttl  int64 // -1: null
	}
	wantLocks := []struct {
		resource, state, holder string
		mine                    bool
		validity                int64
		cells                   []wantCell
	}{
		{"mine", "lost", "", true, 0, []wantCell{{"absent", "", -1}, {"absent", "", -1}, {"unknown", "", -1}}},
		{"orders", "held", "tokA", false, 8000 - 82, []wantCell{{"seen", "tokA", 9000}, {"seen", "tokA", 8000}, {"unknown", "", -1}}},
		// One of three seen, one not read: the down master could make it held, so it is unknown, not partial.
		{"stock", "unknown", "", false, 0, []wantCell{{"seen", "tokB", 5000}, {"absent", "", -1}, {"unknown", "", -1}}},
	}
	if len(doc.Locks) != len(wantLocks) {
		t.Fatalf("%d locks, want %d:\n%s", len(doc.Locks), len(wantLocks), buf.String())
	}
	for i, w := range wantLocks {
		l := doc.Locks[i]
		if l.Resource == nil || *l.Resource != w.resource || l.State == nil || *l.State != w.state || l.Holder == nil || *l.Holder != w.holder ||
			l.Mine != w.mine || l.ValidityMS != w.validity {
			t.Errorf("locks[%d] = %v %v %v mine %v validity %d, want %s %s %q %v %d",
				i, l.Resource, l.State, l.Holder, l.Mine, l.ValidityMS, w.resource, w.state, w.holder, w.mine, w.validity)
		}
		if len(l.Masters) != 3 {
			t.Errorf("locks[%d] has %d masters, want 3 aligned with the top level", i, len(l.Masters))
			continue
		}
		for j, c := range w.cells {
			g := l.Masters[j]
			pttlOK := c.pttl < 0 && g.PTTLMS == nil || g.PTTLMS != nil && *g.PTTLMS == c.pttl
			if g.State != c.state || g.Token == nil || *g.Token != c.token || !pttlOK {
				t.Errorf("locks[%d].masters[%d] = %s token %v pttl %v, want %s %q %d", i, j, g.State, g.Token, g.PTTLMS, c.state, c.token, c.pttl)
			}
		}
	}
	wantWarnings := []string{"lock-lost", "master-down"}
	for _, kind := range wantWarnings {
		found := false
		for _, w := range jsonFixture().Warnings {
			if w.Kind == kind && slices.Contains(doc.Warnings, w.String()) {
				found = true
			}
		}
		if !found {
			t.Errorf("warnings %q lack the %s warning", doc.Warnings, kind)
		}
	}
}

func TestWriteJSONEmptyArraysNotNull(t *testing.T) {
	var buf bytes.Buffer
	swept := monitor.Sweep{Completed: 1}
	s := monitor.Aggregate(nil, []monitor.Reading{{Addr: "a", Uptime: monitor.UnknownUptime, Replicas: -1, Sweep: swept}, {Addr: "b", Sweep: swept}, {Addr: "c", Sweep: swept}}, nil, t0, monitor.Config{})
	if err := WriteJSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"locks": []`, `"warnings": []`, `"events": []`} {
		if !strings.Contains(buf.String(), field) {
			t.Errorf("output lacks %s:\n%s", field, buf.String())
		}
	}
}

func TestWriteTableEscapesUntrustedText(t *testing.T) {
	evil := "res\x1b]0;owned\x07\x1b[2J"
	rs := fixture(t0, []string{"a", "b", "c"}, map[string][]cell{evil: {{"tok\x1b[31m\xff", time.Second, 0}, {"tok\x1b[31m\xff", time.Second, 0}, {}}})
	rs[2] = monitor.Reading{Addr: "c", Err: errors.New("bad \x1b[1mthing\u202e")}
	var buf bytes.Buffer
	if err := WriteTable(&buf, monitor.Aggregate(nil, rs, nil, t0, monitor.Config{})); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"\x1b", "\x07", "\xff", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("table output carries %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{`res\x1b]0;owned\a\x1b[2J`, `tok\x1b[31m\xff`, `bad \x1b[1mthing\u202e`, "held", "MASTER", "RESOURCE"} {
		if !strings.Contains(out, want) {
			t.Errorf("table output lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteJSONCarriesTheFamilyAndHashFields(t *testing.T) {
	hash := monitor.KeyReading{Key: "jobs:nightly", Fields: []string{"mode", "read", "6f1c2a40-93e4-4b0f-87c9-389b853be697:1", "2"},
		PTTL: 30 * time.Second, ReadAt: t0}
	rs := fixture(t0, []string{"a", "b", "c"}, map[string][]cell{"orders": cells("5OuJywSqVO3XzfKB0r++Dg==", 3)[:3]})
	for i := range rs {
		rs[i].Keys = append(rs[i].Keys, hash)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, monitor.Aggregate(nil, rs, nil, t0, monitor.Config{})); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Locks []struct {
			Resource string `json:"resource"`
			Family   string `json:"family"`
			Masters  []struct {
				Token      string `json:"token"`
				Hash       bool   `json:"hash"`
				Reentrancy int    `json:"reentrancy"`
				Mode       string `json:"mode"`
			} `json:"masters"`
		} `json:"locks"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || len(doc.Locks) != 2 {
		t.Fatalf("%d locks (err %v):\n%s", len(doc.Locks), err, buf.String())
	}
	if l := doc.Locks[0]; l.Resource != "jobs:nightly" || l.Family != "Redisson (read-write lock)" ||
		l.Masters[0] != (struct {
			Token      string `json:"token"`
			Hash       bool   `json:"hash"`
			Reentrancy int    `json:"reentrancy"`
			Mode       string `json:"mode"`
		}{"6f1c2a40-93e4-4b0f-87c9-389b853be697:1", true, 2, "read"}) {
		t.Errorf("hash lock = %+v, want the Redisson family, its holder, hold count 2 and mode read", l)
	}
	if l := doc.Locks[1]; l.Family != "redsync" {
		t.Errorf("string lock family %q, want redsync", l.Family)
	}
}

func TestDriftTextIsNoMorePreciseThanKnown(t *testing.T) {
	tests := []struct {
		ppm, uncertainty float64
		want             string
	}{
		{12.4, 0.5, "+12ppm"},
		{-12.4, 3, "-12ppm"},
		{768, 300, "+800ppm"},
		{-389, 300, "-400ppm"},
		{-250, 300, "±300ppm"},
		{15, 320, "±400ppm"},
		{1234, 45, "+1230ppm"},
		{278000, 50, "+27.8%"},
	}
	for _, tt := range tests {
		if got := vocab.DriftText(tt.ppm, tt.uncertainty); got != tt.want {
			t.Errorf("vocab.DriftText(%v, %v) = %q, want %q", tt.ppm, tt.uncertainty, got, tt.want)
		}
	}
}

// TestOutputsCountPerMasterTTLsFromTheirRead: a snapshot whose cells were read 5s before it (a tracked master
// reads an unchanged key once) shows each key's TTL as it is at the snapshot's time, in the JSON and the table.
func TestOutputsCountPerMasterTTLsFromTheirRead(t *testing.T) {
	s := jsonFixture()
	read := s.Time.Add(-5 * time.Second)
	for _, l := range s.Locks {
		for j := range l.Masters {
			l.Masters[j].ReadAt = read
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, s); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Locks []struct {
			Resource string `json:"resource"`
			Masters  []struct {
				PTTLMS *int64 `json:"pttl_ms"`
			} `json:"masters"`
		} `json:"locks"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, l := range doc.Locks {
		if l.Resource == "orders" {
			if p := l.Masters[0].PTTLMS; p == nil || *p != 4000 {
				t.Errorf("orders on M1, read 5s ago with 9s left: pttl_ms %v, want 4000", p)
			}
		}
	}
	var table bytes.Buffer
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "tokA:4.0s") || strings.Contains(table.String(), "tokA:9.0s") {
		t.Errorf("the table does not count orders' TTL on M1 from its read (want tokA:4.0s):\n%s", table.String())
	}
}

// TestHostileKeyNameIsEscapedOnceInWarnings: a key name with an escape sequence in it is quoted in a warning's
// sentence as it is, and escaped once, with the rest of the sentence, where the table writes it: the warning
// and the locks' table show the same res\x1b[2J, never "res\\x1b[2J".
func TestHostileKeyNameIsEscapedOnceInWarnings(t *testing.T) {
	const hostile = "res\x1b[2J"
	rs := fixture(t0, []string{"a", "b", "c"}, map[string][]cell{hostile: cells("tok", 3)[:3]})
	for i := range rs {
		rs[i].Keys[0].PTTL = monitor.NoTTL
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, monitor.Aggregate(nil, rs, nil, t0, monitor.Config{})); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	const want = `error: lock "res\x1b[2J" has no TTL on a, b, c: it is never released by expiry`
	if !strings.Contains(out, want) {
		t.Errorf("the table's warning about the hostile key: want %q in\n%s", want, out)
	}
	if strings.Contains(out, `\\x1b`) || strings.Contains(out, "\x1b") {
		t.Errorf("the hostile key is escaped twice, or not at all:\n%s", out)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, monitor.Aggregate(nil, rs, nil, t0, monitor.Config{})); err != nil {
		t.Fatal(err)
	}
	var doc JSONSnapshot
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.WarningDetails) == 0 || !strings.Contains(doc.WarningDetails[0].Text, `lock "`+hostile+`" has no TTL`) {
		t.Errorf("the JSON's warning carries the name escaped, want it as it is, JSON-escaped once: %+v", doc.WarningDetails)
	}
}

// TestWriteTableRoundsSpreadsAsItRoundsTheirNeighbours: a TTL spread is written to a tenth of a millisecond,
// so that it reads beside another (issue 34 saw SPREAD 8.181515ms above 0.498ms).
func TestWriteTableRoundsSpreadsAsItRoundsTheirNeighbours(t *testing.T) {
	rs := fixture(t0, []string{"a", "b", "c"}, map[string][]cell{
		"wide":   {{"tokA", 9 * time.Second, 0}, {"tokA", 9*time.Second + 8181515*time.Nanosecond, 0}, {"tokA", 9 * time.Second, 0}},
		"narrow": {{"tokB", 9 * time.Second, 0}, {"tokB", 9*time.Second + 498*time.Microsecond, 0}, {"tokB", 9 * time.Second, 0}}})
	var buf bytes.Buffer
	if err := WriteTable(&buf, monitor.Aggregate(nil, rs, nil, t0, monitor.Config{})); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{" 8.2ms ", " 500µs "} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks the spread %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "8.181515ms") {
		t.Errorf("the table writes a spread to the nanosecond:\n%s", out)
	}
}

// TestTableAndReportListResourcesWithNumbersByValue: --once's table and the report list orders:lock:492
// before orders:lock:4902, as the dashboard does, while the JSON keeps the snapshot's byte order.
func TestTableAndReportListResourcesWithNumbersByValue(t *testing.T) {
	cells := map[string][]cell{}
	for _, r := range []string{"orders:lock:4902", "orders:lock:492", "orders:lock:10", "orders:lock:9"} {
		cells[r] = []cell{{"tok" + r, 9 * time.Second, 0}, {"tok" + r, 9 * time.Second, 0}, {}}
	}
	s := monitor.Aggregate(nil, fixture(t0, []string{"a", "b", "c"}, cells), nil, t0, monitor.Config{})
	natural := []string{"orders:lock:9 ", "orders:lock:10 ", "orders:lock:492 ", "orders:lock:4902 "}
	var table, report bytes.Buffer
	if err := WriteTable(&table, s); err != nil {
		t.Fatal(err)
	}
	if err := WriteReport(&report, s, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"table": table.String(), "report": report.String()} {
		last := -1
		for _, r := range natural {
			i := strings.Index(out, r)
			if i <= last {
				t.Errorf("the %s does not list %q after %q:\n%s", name, r, natural, out)
			}
			last = i
		}
	}
	if s.Locks[0].Resource != "orders:lock:10" {
		t.Errorf("the snapshot's order changed: %q first", s.Locks[0].Resource)
	}
}
