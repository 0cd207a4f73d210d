package reading

import (
	"path"
	"strings"
	"testing"
)

func TestProbeKeyStaysInsideThePatternOrOutOfIt(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		inside  bool
	}{
		{"*", true}, {"lock:*", true}, {"lock:*:x", true}, {"l?ck:*", true}, {"[lm]ock:*", true}, {`lock\*:*`, true},
		{"billing:nightly", false}, {"x[^a]*", false},
	} {
		key := probeKey(tc.pattern)
		if !strings.Contains(key, "redlock-tui-access-check-") {
			t.Errorf("pattern %q: probe key %q is not named as one", tc.pattern, key)
		}
		// The probe key must never be a key the pattern names on its own: DEL and PEXPIRE run on it.
		if key == tc.pattern {
			t.Errorf("pattern %q: the probe key is the pattern's one key", tc.pattern)
		}
		if got := globMatch(tc.pattern, key); got != tc.inside {
			t.Errorf("pattern %q: probe key %q inside %v, want %v", tc.pattern, key, got, tc.inside)
		}
	}
}

// globMatch matches key against a glob pattern as Redis does for the patterns of
// TestProbeKeyStaysInsideThePatternOrOutOfIt (none has a '/', where path.Match differs).
func globMatch(pattern, key string) bool {
	ok, err := path.Match(pattern, key)
	return err == nil && ok
}
