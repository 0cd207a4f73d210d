package reading

import (
	"os"
	"path"
	"slices"
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

// TestDocumentedACLsGrantTheNeededCommands ties the one list of the commands the program needs (neededCommands,
// which the access check checks) to the ACL lines the README and docs/acl.md give: the watcher's line grants
// exactly the commands a watching program needs, the locker's exactly those a writing one does.
func TestDocumentedACLsGrantTheNeededCommands(t *testing.T) {
	var watching, writing []string
	for _, c := range neededCommands {
		if !c.write {
			watching = append(watching, c.name)
		}
		writing = append(writing, c.name)
	}
	slices.Sort(watching)
	slices.Sort(writing)
	for _, page := range []string{"../../../README.md", "../../../docs/acl.md"} {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for user, want := range map[string][]string{"watcher": watching, "locker": writing} {
			var granted []string
			found := false
			for _, line := range strings.Split(string(data), "\n") {
				rest, ok := strings.CutPrefix(line, "ACL SETUSER "+user+" on ")
				if !ok {
					continue
				}
				found = true
				for _, rule := range strings.Fields(rest) {
					if cmd, ok := strings.CutPrefix(rule, "+"); ok && !strings.ContainsAny(cmd, "@|") {
						granted = append(granted, strings.ToUpper(cmd))
					}
				}
			}
			slices.Sort(granted)
			if !found || !slices.Equal(granted, want) {
				t.Errorf("%s: the %s's ACL line grants %v; want the commands the program needs (neededCommands): %v", page, user, granted, want)
			}
		}
	}
}
