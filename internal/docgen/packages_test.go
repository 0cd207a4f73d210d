package docgen

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestPackageMapIsGoLists: the map's packages and imports (docs/packages.md) are what go list says of the
// module, so that a file the build leaves out or an import the parser missed cannot make the map untrue.
func TestPackageMapIsGoLists(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = Root()
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	listed := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		path := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		if path == "" {
			path = "."
		}
		var imports []string
		for _, imp := range fields[1:] {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				imports = append(imports, rest)
			}
		}
		listed[path] = imports
	}
	pkgs, err := modulePackages(Root())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		imports, ok := listed[p.path]
		if !ok {
			t.Errorf("the map has %s, which go list does not", p.path)
			continue
		}
		if !slices.Equal(p.imports, imports) {
			t.Errorf("%s imports %v on the map, %v by go list", p.path, p.imports, imports)
		}
		delete(listed, p.path)
	}
	for path := range listed {
		t.Errorf("go list has %s, which the map does not", path)
	}
}

// layers are the module's packages from the top down, as docs/codebase.md gives them: a package may import
// those of its own layer and the layers below, never one above (a package is of the layer of its longest
// prefix here).
var layers = [][]string{
	{"."},
	{"internal/cli", "internal/app", "internal/docgen"},
	{"ui"},
	{"demo"},
	{"record", "metrics", "events"},
	{"monitor"},
	{"redlock"},
}

// layerOf is the layer of package path: that of the longest prefix of it in layers.
func layerOf(path string) int {
	best, at := -1, -1
	for i, layer := range layers {
		for _, p := range layer {
			if (path == p || strings.HasPrefix(path, p+"/")) && len(p) > best {
				best, at = len(p), i
			}
		}
	}
	return at
}

// TestNoPackageImportsOneAboveIt checks the layering docs/codebase.md states on the module's imports, its
// tests' too: no package imports one of a layer above its own, only the monitor's packages import its reading
// package, and below the wiring nothing imports a package under internal/ but that one. The test-only
// packages (e2e, deploy) may drive anything.
func TestNoPackageImportsOneAboveIt(t *testing.T) {
	pkgs, err := modulePackages(Root())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		if p.synopsis == "(tests only)" {
			continue
		}
		from := layerOf(p.path)
		if from < 0 {
			t.Errorf("%s is in no layer of the map", p.path)
			continue
		}
		for _, imp := range slices.Concat(p.imports, p.tested) {
			if from >= layerOf("ui") && strings.Contains("/"+imp, "/internal/") && imp != "monitor/internal/reading" {
				t.Errorf("%s imports %s: below the wiring nothing imports internal/ but the monitor's reading", p.path, imp)
			}
			if to := layerOf(imp); to < from {
				t.Errorf("%s imports %s, a layer above it", p.path, imp)
			}
			if imp == "monitor/internal/reading" && !strings.HasPrefix(p.path, "monitor") {
				t.Errorf("%s imports the monitor's reading package", p.path)
			}
		}
	}
}
