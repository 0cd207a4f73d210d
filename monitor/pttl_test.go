package monitor

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

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
	if !strings.Contains(table.String(), "tokA:4s") || strings.Contains(table.String(), "tokA:9s") {
		t.Errorf("the table does not count orders' TTL on M1 from its read (want tokA:4s):\n%s", table.String())
	}
}

func TestPTTLAt(t *testing.T) {
	at := time.Unix(1000, 0)
	for _, tc := range []struct {
		name string
		c    MasterLock
		now  time.Time
		want time.Duration
	}{
		{"as read", MasterLock{PTTL: 9 * time.Second, ReadAt: at}, at, 9 * time.Second},
		{"later", MasterLock{PTTL: 9 * time.Second, ReadAt: at}, at.Add(5 * time.Second), 4 * time.Second},
		{"run out", MasterLock{PTTL: 9 * time.Second, ReadAt: at}, at.Add(time.Minute), 0},
		{"no TTL", MasterLock{PTTL: NoTTL, ReadAt: at}, at.Add(time.Minute), NoTTL},
		{"never read", MasterLock{PTTL: 9 * time.Second}, at, 9 * time.Second},
	} {
		if got := tc.c.PTTLAt(tc.now); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
