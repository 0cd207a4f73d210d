// Package monitortest holds what tests of several packages share about the monitor's output: its JSON,
// and snapshots made by hand.
package monitortest

import (
	"encoding/json"
	"testing"

	"github.com/redlock-tui/redlock-tui/monitor/render"
)

// JSON is the --once --json document, as render.WriteJSON writes it: the monitor's own schema type, so that
// tests read the format the program prints and the docs describe, not a copy of it.
type JSON = render.JSONSnapshot

// DecodeJSON parses --once --json output, failing the test when it is not the documented format: not JSON,
// a field of another type, or no warnings array.
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
