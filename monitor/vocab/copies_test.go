package vocab

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDurationsAreWrittenOnlyHere walks the module's Go sources: a round trip or a clock offset written in
// milliseconds by a format of its own ("%.3fms") is a copy of Latency's or Offset's rule, and a duration
// rounded to the millisecond for a sentence or a table (outside the Redlock library, below the vocabulary)
// says 9.512s where the dashboard says 9.5s (ShortDuration). Both belong here. A name quoted with
// strconv.Quote in a sentence of the monitor, the dashboard or the demo, which are escaped once where shown,
// is escaped twice (Quote).
func TestDurationsAreWrittenOnlyHere(t *testing.T) {
	msFormat := regexp.MustCompile(`%[+]?\.[0-9]fms`)
	rounded := regexp.MustCompile(`\.Round\(time\.Millisecond\)[,)]`) // an argument: of a call, not a field's value
	field := regexp.MustCompile(`^\s*[A-Z]\w*: `)
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || strings.HasPrefix(rel, "monitor/vocab/") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if msFormat.MatchString(line) {
				t.Errorf("%s:%d writes milliseconds by a format of its own (vocab.Latency, vocab.Offset): %s", rel, i+1, strings.TrimSpace(line))
			}
			shown := strings.HasPrefix(rel, "monitor/") || strings.HasPrefix(rel, "ui/") || strings.HasPrefix(rel, "demo/")
			if shown && strings.Contains(line, "strconv.Quote(") {
				t.Errorf("%s:%d quotes a name with strconv.Quote in a sentence escaped where shown (vocab.Quote): %s", rel, i+1, strings.TrimSpace(line))
			}
			sentences := !strings.HasPrefix(rel, "redlock/") // the library stands below the vocabulary
			if sentences && rounded.MatchString(line) && !field.MatchString(line) {
				t.Errorf("%s:%d rounds a duration to the millisecond to write it (vocab.ShortDuration): %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
