package docgen

import (
	"fmt"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// module is the module's path, which every package of the map begins with.
const module = "github.com/redlock-tui/redlock-tui"

// pkgInfo is one package of the module as the map shows it.
type pkgInfo struct {
	path     string   // import path, relative to the module ("." for main)
	synopsis string   // the first sentence of its package comment
	imports  []string // the module's packages it imports (its tests left out), relative, sorted
	tested   []string // the module's packages its tests import besides, relative, sorted
}

// modulePackages reads every package of the module from its sources, as go list sees them on this platform:
// its non-test files that the build context keeps, their package comment and their imports.
func modulePackages(root string) ([]pkgInfo, error) {
	var out []pkgInfo
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); dir != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		bp, err := build.Default.ImportDir(dir, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, dir)
		p := pkgInfo{path: filepath.ToSlash(rel)}
		if len(bp.GoFiles) == 0 {
			p.synopsis = "(tests only)"
		}
		fset := token.NewFileSet()
		for _, f := range bp.GoFiles {
			file, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.ParseComments|parser.PackageClauseOnly)
			if err != nil {
				return err
			}
			if file.Doc != nil && p.synopsis == "" {
				p.synopsis = new(doc.Package).Synopsis(file.Doc.Text())
			}
		}
		for _, imp := range bp.Imports {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				p.imports = append(p.imports, rest)
			}
		}
		for _, imp := range slices.Concat(bp.TestImports, bp.XTestImports) {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok && !slices.Contains(p.imports, rest) && rest != p.path {
				p.tested = append(p.tested, rest)
			}
		}
		slices.Sort(p.imports)
		slices.Sort(p.tested)
		p.tested = slices.Compact(p.tested)
		out = append(out, p)
		return nil
	})
	slices.SortFunc(out, func(a, b pkgInfo) int { return strings.Compare(a.path, b.path) })
	return out, err
}

// Packages writes docs/packages.md: every package of the module, what it is (the first sentence of its
// package comment) and which of the module's packages it imports, from the sources, so that the map cannot
// say an import that is not there.
func Packages() ([]byte, error) {
	pkgs, err := modulePackages(Root())
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	header(&b, "Package map", "the packages' sources (their package comments and imports)")
	b.WriteString("Every package of the module, what its package comment says it is, and the packages of the module it\n" +
		"imports (its tests left out). [The codebase guide](codebase.md) says how they fit together.\n\n" +
		"| Package | What it is | Imports |\n|---|---|---|\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", code(p.path), cell(p.synopsis), codes(p.imports))
	}
	return []byte(b.String()), nil
}
