// Package monitortest holds what tests of several packages share about the monitor's output: its JSON,
// and snapshots made by hand.
package monitortest

import (
	"encoding/json"
	"testing"
)

// JSON is the part of the documented --once --json output (monitor.WriteJSON) that tests check.
type JSON struct {
	Quorum  int `json:"quorum"`
	Masters []struct {
		Addr    string `json:"addr"`
		Up      bool   `json:"up"`
		Error   string `json:"error"`
		Primary string `json:"primary"`
		// Refresh is "tracking" or "polling", RefreshWhy why polled or why every key was read.
		Refresh    string `json:"refresh"`
		RefreshWhy string `json:"refresh_why"`
		Cluster    *struct {
			Primaries []struct {
				Addr  string `json:"addr"`
				Slots string `json:"slots"`
				Up    bool   `json:"up"`
				Keys  int    `json:"keys"`
			} `json:"primaries"`
		} `json:"cluster"` // a Redis Cluster watched as one master
	} `json:"masters"`
	Locks []struct {
		Resource string `json:"resource"`
		State    string `json:"state"`
		Holder   string `json:"holder"`
		Count    int    `json:"count"`
		Masters  []struct {
			State  string `json:"state"`
			Token  string `json:"token"`
			PTTLMS *int64 `json:"pttl_ms"`
			Node   string `json:"node"` // a Redis Cluster's key: the primary that answered for it
		} `json:"masters"`
	} `json:"locks"`
	Warnings []string `json:"warnings"`
}

// DecodeJSON parses --once --json output, failing the test when it is not the documented format.
func DecodeJSON(t testing.TB, stdout string) JSON {
	t.Helper()
	var s JSON
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("--once --json output is not JSON: %v\n%s", err, stdout)
	}
	if s.Warnings == nil {
		t.Errorf("JSON has no warnings array:\n%s", stdout)
	}
	return s
}
