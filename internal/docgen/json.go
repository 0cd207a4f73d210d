package docgen

import (
	"encoding"
	"fmt"
	"go/ast"
	"reflect"
	"strings"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/render"
)

// JSON writes docs/json.md: the --once --json document, from its schema type render.JSONSnapshot and the
// types it holds (their fields, JSON names and types by reflection; their comments from the renderer's source).
func JSON() ([]byte, error) {
	files, err := pkgFiles("monitor/render")
	if err != nil {
		return nil, err
	}
	docs := structDocs(files)
	names, aliasDocs := exportedAliases(files)
	title := func(t reflect.Type) string {
		if n, ok := names[t.Name()]; ok {
			return n
		}
		return t.Name()
	}
	typeDoc := func(t reflect.Type) string {
		if d := aliasDocs[t.Name()]; d != "" {
			return d
		}
		return docs[t.Name()][""]
	}

	root := reflect.TypeFor[render.JSONSnapshot]()
	order, paths := walkJSON(root)
	var b strings.Builder
	header(&b, "The JSON snapshot", "the schema type render.JSONSnapshot and its fields' comments (monitor/render/output.go)")
	b.WriteString("`--once --json` prints one document, of the types below (`go doc ./monitor/render JSONSnapshot`); " +
		"tests decode it with the same type (`monitor/monitortest`). Times are RFC 3339; durations are in " +
		"milliseconds (`_ms`) or seconds (`_s`). A field of a type marked \"or null\" is `null` when unknown; " +
		"one \"left out when empty\" is absent then.\n\n")
	for _, t := range order {
		fmt.Fprintf(&b, "\n## %s\n\n", title(t))
		if d := typeDoc(t); d != "" {
			fmt.Fprintf(&b, "%s\n\n", d)
		}
		if t != root {
			fmt.Fprintf(&b, "At %s.\n\n", codes(paths[t]))
		}
		b.WriteString("| Field | Type | Meaning |\n|---|---|---|\n")
		for i := range t.NumField() {
			f := t.Field(i)
			doc := docs[t.Name()][f.Name]
			if f.Anonymous {
				fmt.Fprintf(&b, "| every field of [%s](#%s) | | %s |\n", title(f.Type), anchor(title(f.Type)), cell(doc))
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if opts == "omitempty" {
				doc = strings.TrimSuffix(doc, ".") + " (left out when empty)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", code(name), jsonType(f.Type, title), cell(doc))
		}
	}
	return []byte(b.String()), nil
}

// timeType is time.Time, which JSON writes as an RFC 3339 string.
var timeType = reflect.TypeFor[time.Time]()

// textMarshalerType is what a type that writes itself as a JSON string (a word) implements.
var textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()

// walkJSON lists the struct types of the document under root, each once, in the order a reader meets them,
// with the JSON paths where each appears.
func walkJSON(root reflect.Type) ([]reflect.Type, map[reflect.Type][]string) {
	var order []reflect.Type
	paths := map[reflect.Type][]string{}
	var visit func(t reflect.Type, path string)
	visit = func(t reflect.Type, path string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			if t.Kind() == reflect.Slice {
				path += "[]"
			}
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t == timeType {
			return
		}
		_, seen := paths[t]
		paths[t] = append(paths[t], path)
		if seen {
			return
		}
		order = append(order, t)
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case f.Anonymous:
				visit(f.Type, path)
			case f.IsExported() && name != "-":
				visit(f.Type, strings.TrimPrefix(path+"."+name, "."))
			}
		}
	}
	visit(root, "")
	return order, paths
}

// jsonType names the JSON type of a field of Go type t: a string, number, boolean, time, array or object (a
// link to its section), "or null" for a pointer.
func jsonType(t reflect.Type, title func(reflect.Type) string) string {
	if t.Kind() == reflect.Pointer {
		return jsonType(t.Elem(), title) + " or null"
	}
	switch {
	case t == timeType:
		return "time"
	case t.Implements(textMarshalerType):
		return "string" // a word, as MarshalText writes it (monitor.Severity)
	case t.Kind() == reflect.Slice:
		return "array of " + jsonType(t.Elem(), title)
	case t.Kind() == reflect.Struct:
		return fmt.Sprintf("[%s](#%s)", title(t), anchor(title(t)))
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		return "number"
	}
	return t.Kind().String()
}

// exportedAliases finds the exported aliases of unexported types declared in files (type JSONCluster =
// jsonCluster): the exported name of each unexported type, and the alias's comment.
func exportedAliases(src source) (names, docs map[string]string) {
	names, docs = map[string]string{}, map[string]string{}
	src.eachType(func(ts *ast.TypeSpec, doc string) {
		target, ok := ts.Type.(*ast.Ident)
		if !ts.Assign.IsValid() || !ok || !ts.Name.IsExported() || ast.IsExported(target.Name) {
			return
		}
		names[target.Name], docs[target.Name] = ts.Name.Name, doc
	})
	return names, docs
}
