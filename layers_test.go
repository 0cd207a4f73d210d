package main

import (
	"os/exec"
	"strings"
	"testing"
)

// module is this module's path, which the layers below are under.
const module = "github.com/redlock-tui/redlock-tui"

// layers are the module's packages from the top down (docs/codebase.md): a package may import its own layer's
// and those below it, never one above. A package is in the layer of its longest listed prefix. The test-only
// packages (deploy, e2e) stand outside: they may drive anything.
var layers = [][]string{
	{"", "/ui/uitest/genkeymap"},                           // the program, and a generator of ui/uitest
	{"/internal/app", "/internal/cli", "/internal/docgen"}, // the wiring
	{"/ui"},                            // the dashboard
	{"/demo"},                          // the demo's workload, faults, scenarios
	{"/record", "/metrics", "/events"}, // what the monitor's snapshots feed
	{"/monitor"},                       // polling and aggregation
	{"/redlock"},                       // the Redlock client
}

// layerOf is the layer of package path (without the module), -1 for one outside them.
func layerOf(path string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		for _, p := range l {
			if (path == p || p != "" && strings.HasPrefix(path, p+"/")) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

// TestNoPackageImportsOneAboveIt reads the import graph with go list and fails on an import that runs up the
// layers, and on an import of an internal/ package from monitor, redlock or ui other than the monitor's own
// reading package: the ground stands on nothing above it.
func TestNoPackageImportsOneAboveIt(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		from := layerOf(pkg)
		if from < 0 {
			if pkg != "/deploy" && pkg != "/e2e" {
				t.Errorf("package %s is in no layer: place it in layers (and docs/codebase.md)", pkg)
			}
			continue
		}
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			checked++
			if to := layerOf(dep); to < from {
				t.Errorf("%s imports %s, which stands above it", pkg, dep)
			}
			ground := from >= layerOf("/ui")
			if ground && strings.Contains(dep, "/internal/") && !strings.HasPrefix(dep, "/monitor/internal/") {
				t.Errorf("%s imports %s: below the wiring nothing imports internal/ but the monitor's own", pkg, dep)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d imports within the module read: go list did not list the packages", checked)
	}
}
