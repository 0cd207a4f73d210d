package docgen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// source is a package's non-test Go files, parsed with their comments.
type source struct {
	fset  *token.FileSet
	files []*ast.File
}

// pkgFiles parses the non-test Go files of the package in dir (from the repository's root), with comments.
func pkgFiles(dir string) (source, error) {
	paths, err := filepath.Glob(filepath.Join(Root(), dir, "*.go"))
	if err != nil {
		return source{}, err
	}
	sort.Strings(paths)
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return source{}, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return source{}, fmt.Errorf("no Go files in %s", dir)
	}
	return source{fset, files}, nil
}

// typeFile is the file of src that declares the type name, "" when none does.
func (src source) typeFile(name string) string {
	for _, f := range src.files {
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, spec := range gd.Specs {
					if spec.(*ast.TypeSpec).Name.Name == name {
						return filepath.Base(src.fset.Position(f.Package).Filename)
					}
				}
			}
		}
	}
	return ""
}

// withoutName is a declaration's comment without the name it begins with: "EventX: slots moved ..." and
// "EventX is the event of ..." read "slots moved ..." and "the event of ..." in a table whose row names it.
func withoutName(doc, name string) string {
	rest, ok := strings.CutPrefix(doc, name)
	if !ok {
		return doc
	}
	if r, ok := strings.CutPrefix(rest, " is "); ok {
		return r
	}
	if r, ok := strings.CutPrefix(rest, ": "); ok {
		return r
	}
	if strings.HasPrefix(rest, " (") {
		if i := strings.Index(rest, "): "); i >= 0 {
			return rest[1:i+1] + " " + rest[i+3:]
		}
	}
	return doc
}

// constant is a string constant as declared: its name, value and comment (without the name it may begin
// with), and the file that declares it.
type constant struct {
	Name, Value, Doc, File string
}

// stringConsts returns the string constants declared in files that keep says to keep, given each one's name
// and declared type ("" when untyped), in the order of the files and their declarations. Its comment is the
// one beside it, else the one above it, else the one above its declaration when it is the only constant
// there.
func stringConsts(src source, keep func(name, typ string) bool) ([]constant, error) {
	var out []constant
	for _, f := range src.files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				typ := ""
				if id, ok := vs.Type.(*ast.Ident); ok {
					typ = id.Name
				}
				for i, name := range vs.Names {
					if !keep(name.Name, typ) {
						continue
					}
					if i >= len(vs.Values) {
						return nil, fmt.Errorf("%s has no value of its own", name.Name)
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return nil, fmt.Errorf("%s is not a string literal", name.Name)
					}
					value, err := strconv.Unquote(lit.Value)
					if err != nil {
						return nil, err
					}
					doc := commentText(vs.Comment)
					if doc == "" {
						doc = commentText(vs.Doc)
					}
					if doc == "" && len(gd.Specs) == 1 {
						doc = commentText(gd.Doc)
					}
					out = append(out, constant{Name: name.Name, Value: value, Doc: withoutName(doc, name.Name),
						File: filepath.Base(src.fset.Position(f.Package).Filename)})
				}
			}
		}
	}
	return out, nil
}

// fieldDoc is a struct field's documentation: its comment, the one above it or else the one beside it.
type fieldDoc map[string]string

// structDocs returns, for each struct type declared in files, the comment of each of its fields by field
// name (an embedded field by its type's name), and the type's own comment under "".
func structDocs(src source) map[string]fieldDoc {
	out := map[string]fieldDoc{}
	src.eachType(func(ts *ast.TypeSpec, doc string) {
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return
		}
		docs := fieldDoc{"": doc}
		for _, field := range st.Fields.List {
			doc := commentText(field.Doc)
			if doc == "" {
				doc = commentText(field.Comment)
			}
			for _, n := range field.Names {
				docs[n.Name] = doc
			}
			if len(field.Names) == 0 {
				docs[embeddedName(field.Type)] = doc
			}
		}
		out[ts.Name.Name] = docs
	})
	return out
}

// eachType calls f with every type declared in src's files and its comment: the spec's own, or the
// declaration's when it declares that type alone.
func (src source) eachType(f func(ts *ast.TypeSpec, doc string)) {
	for _, file := range src.files {
		for _, d := range file.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := commentText(ts.Doc)
				if doc == "" && len(gd.Specs) == 1 {
					doc = commentText(gd.Doc)
				}
				f(ts, doc)
			}
		}
	}
}

// embeddedName is the name of an embedded field's type.
func embeddedName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	}
	return ""
}

// commentText is a comment group's text on one line, "" for none.
func commentText(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.Join(strings.Fields(g.Text()), " ")
}
