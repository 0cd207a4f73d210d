package docgen

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readDoc reads a file of the repository, failing the test when it cannot.
func readDoc(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Root(), path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestHeadlessMetricsTableAgreesWithTheExporter: the hand-written table of metrics in docs/headless.md, which
// says what each metric is for, names the metrics the exporter serves, no more and no fewer, each with the
// type and labels a scrape gives it.
func TestHeadlessMetricsTableAgreesWithTheExporter(t *testing.T) {
	ms, err := ExporterMetrics()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]Metric{}
	for _, m := range ms {
		served[m.Name] = m
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(readDoc(t, "docs/headless.md"), "\n") {
		if !strings.HasPrefix(line, "| `redlock_") {
			continue
		}
		cols := strings.Split(strings.ReplaceAll(line, `\|`, "/"), "|")[1:] // the cells, each with its spaces
		if len(cols) < 4 {
			t.Fatalf("docs/headless.md: a row of fewer than 4 cells: %s", line)
		}
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		name := strings.Trim(cols[0], "`")
		listed[name] = true
		m, ok := served[name]
		if !ok {
			t.Errorf("docs/headless.md lists %s, which the exporter does not serve", name)
			continue
		}
		var labels []string
		for _, l := range strings.Split(cols[2], ",") {
			if l = strings.Trim(l, " `"); l != "" {
				labels = append(labels, l)
			}
		}
		slices.Sort(labels)
		if cols[1] != m.Type || !slices.Equal(labels, m.Labels) {
			t.Errorf("docs/headless.md says %s is a %s labelled %v; the exporter serves a %s labelled %v",
				name, cols[1], labels, m.Type, m.Labels)
		}
	}
	for _, m := range ms {
		if !listed[m.Name] {
			t.Errorf("docs/headless.md's table of metrics lacks %s", m.Name)
		}
	}
}

// TestREADMEsACLLinesAreTheACLPages: the monitor's tests run the ACL rules of the README's "ACL SETUSER" lines
// against real servers; the ACL page has the same lines, so what it documents is what is tested.
func TestREADMEsACLLinesAreTheACLPages(t *testing.T) {
	page := readDoc(t, "docs/acl.md")
	n := 0
	for _, line := range strings.Split(readDoc(t, "README.md"), "\n") {
		if !strings.HasPrefix(line, "ACL SETUSER ") {
			continue
		}
		n++
		if !strings.Contains(page, "\n"+line+"\n") {
			t.Errorf("docs/acl.md lacks the README's line\n%s", line)
		}
	}
	if n < 4 {
		t.Errorf("the README has %d ACL SETUSER lines; the monitor's tests read 4 (watcher, its additions for "+
			"tracking and notifications, locker)", n)
	}
}
