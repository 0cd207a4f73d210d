package docgen

import (
	"fmt"
	"go/ast"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/redlock-tui/redlock-tui/record"
)

// recordingPackages are the packages whose types a recording's lines are made of, by the name their importers
// call them, with their directories from the repository's root. The events package is left out: its record
// has a page of its own (events.md).
var recordingPackages = map[string]string{
	"record":    "record",
	"monitor":   "monitor",
	"reading":   "monitor/internal/reading",
	"lockshape": "monitor/lockshape",
}

// recordedAs are the types that write themselves (a MarshalJSON method in monitor/internal/reading/codec.go),
// each with the type it writes: the recording holds that one's fields. recordingTypes fails on a type with a
// MarshalJSON method not listed here.
var recordedAs = map[string]string{
	"reading.Reading":        "reading.recordedReading",
	"reading.KeyReading":     "reading.recordedKey",
	"reading.PrimaryReading": "reading.recordedPrimary",
	"monitor.RecordedConfig": "monitor.recordedConfigJSON",
	"monitor.OwnLock":        "monitor.ownLockJSON",
	"record.keyRun":          "record.keyRunJSON",
}

// legacyDoc starts the comment of a key that only versions 1 and 2 wrote: it is read, not written, and the
// page leaves it out (its introduction says how those versions wrote durations).
const legacyDoc = "versions 1 and 2:"

// goType is a type declared in one of recordingPackages: its package's name and its spec.
type goType struct {
	pkg  string
	spec *ast.TypeSpec
	doc  string
}

// recordingSource is the parsed recordingPackages: every type by "pkg.Name", each struct's field comments,
// and the types with a MarshalJSON method.
type recordingSource struct {
	types     map[string]goType
	fieldDocs map[string]fieldDoc // by "pkg.Name"
	marshals  map[string]bool
}

// loadRecordingSource parses recordingPackages.
func loadRecordingSource() (recordingSource, error) {
	rs := recordingSource{types: map[string]goType{}, fieldDocs: map[string]fieldDoc{}, marshals: map[string]bool{}}
	for pkg, dir := range recordingPackages {
		src, err := pkgFiles(dir)
		if err != nil {
			return rs, err
		}
		src.eachType(func(ts *ast.TypeSpec, doc string) {
			rs.types[pkg+"."+ts.Name.Name] = goType{pkg, ts, doc}
		})
		for name, docs := range structDocs(src) {
			rs.fieldDocs[pkg+"."+name] = docs
		}
		for _, f := range src.files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil || fd.Name.Name != "MarshalJSON" {
					continue
				}
				rs.marshals[pkg+"."+embeddedName(fd.Recv.List[0].Type)] = true
			}
		}
	}
	for name := range rs.marshals {
		if _, ok := recordedAs[name]; !ok {
			return rs, fmt.Errorf("%s writes itself (MarshalJSON), and recordedAs does not say as what", name)
		}
	}
	return rs, nil
}

// resolve is the declared type that expr names in package pkg, following aliases ("type Reading =
// reading.Reading"), and whether it is one of recordingPackages'; a type that writes itself is the type it
// writes when recorded is true.
func (rs recordingSource) resolve(pkg string, expr ast.Expr, recorded bool) (string, goType, bool) {
	var name string
	switch t := expr.(type) {
	case *ast.Ident:
		name = pkg + "." + t.Name
	case *ast.SelectorExpr:
		x, ok := t.X.(*ast.Ident)
		if !ok {
			return "", goType{}, false
		}
		name = x.Name + "." + t.Sel.Name
	default:
		return "", goType{}, false
	}
	for range 8 {
		gt, ok := rs.types[name]
		if !ok {
			return name, goType{}, false
		}
		if gt.spec.Assign.IsValid() { // an alias
			next, _, ok := rs.resolve(gt.pkg, gt.spec.Type, false)
			if !ok && next == "" {
				return name, goType{}, false
			}
			name = next
			continue
		}
		if to, ok := recordedAs[name]; ok && recorded {
			name = to
			continue
		}
		return name, gt, true
	}
	return name, goType{}, false
}

// recordField is one key of a recorded object: its JSON name, its type in words, whether it is left out when
// empty, and its field's comment.
type recordField struct {
	Name, Type, Doc string
	OmitEmpty       bool
}

// recordType is one object type of a recording's lines, with its keys.
type recordType struct {
	Name   string // "pkg.Name"
	Doc    string
	Fields []recordField
}

// recordingTypes walks the types of a recording's lines from record.Header and record.line, as encoding/json
// writes them: exported fields and embedded structs' fields (those of the outer struct winning), each under
// its tag's name or its own; a type that writes itself as the type it writes. It returns them in the order
// first met.
func recordingTypes(rs recordingSource) ([]recordType, error) {
	var order []recordType
	seen := map[string]bool{}
	var visit func(name string) error
	visit = func(name string) error {
		if seen[name] {
			return nil
		}
		seen[name] = true
		gt := rs.types[name]
		rt := recordType{Name: name, Doc: gt.doc}
		fields, err := rs.structFields(name, map[string]bool{})
		if err != nil {
			return err
		}
		i := len(order)
		order = append(order, rt)
		var next []string
		for _, f := range fields {
			typ, refs := rs.describe(gt.pkg, f.expr)
			rt.Fields = append(rt.Fields, recordField{Name: f.name, Type: typ, Doc: f.doc, OmitEmpty: f.omitEmpty})
			next = append(next, refs...)
		}
		order[i] = rt
		for _, n := range next {
			if err := visit(n); err != nil {
				return err
			}
		}
		return nil
	}
	for _, root := range []string{"record.Header", "record.line"} {
		if err := visit(root); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// structField is a field as encoding/json writes it, before its type is described.
type structField struct {
	name, doc string
	expr      ast.Expr
	omitEmpty bool
}

// structFields lists the keys the struct type name is written with; inside guards against a type embedding
// itself.
func (rs recordingSource) structFields(name string, inside map[string]bool) ([]structField, error) {
	gt, ok := rs.types[name]
	if !ok || inside[name] {
		return nil, fmt.Errorf("%s: not a struct of the recording's packages", name)
	}
	inside[name] = true
	underlying := gt.spec.Type
	docsOf := name
	if id, ok := underlying.(*ast.Ident); ok { // "type readingFields Reading": Reading's fields, not its methods
		target, _, found := rs.resolve(gt.pkg, id, false)
		if !found {
			return nil, fmt.Errorf("%s: %s is not a struct of the recording's packages", name, id.Name)
		}
		delete(inside, name)
		return rs.structFields(target, inside)
	}
	st, ok := underlying.(*ast.StructType)
	if !ok {
		return nil, fmt.Errorf("%s is not a struct", name)
	}
	var out, embedded []structField
	names := map[string]bool{}
	var goNamesOf []string // of out's fields, in order
	for _, field := range st.Fields.List {
		tag := ""
		if field.Tag != nil {
			unquoted, err := strconv.Unquote(field.Tag.Value)
			if err != nil {
				return nil, err
			}
			tag = reflect.StructTag(unquoted).Get("json")
		}
		key, opts, _ := strings.Cut(tag, ",")
		if key == "-" && opts == "" {
			continue
		}
		omit := strings.Contains(","+opts+",", ",omitempty,")
		if len(field.Names) == 0 && key == "" { // embedded, untagged: its fields are promoted
			target, _, found := rs.resolve(gt.pkg, field.Type, false)
			if !found {
				return nil, fmt.Errorf("%s embeds %s, not a struct of the recording's packages", name, embeddedName(field.Type))
			}
			inner, err := rs.structFields(target, inside)
			if err != nil {
				return nil, err
			}
			embedded = append(embedded, inner...)
			continue
		}
		goNames := field.Names
		if len(goNames) == 0 {
			goNames = []*ast.Ident{ast.NewIdent(embeddedName(field.Type))}
		}
		for _, n := range goNames {
			if !ast.IsExported(n.Name) {
				continue
			}
			k := key
			if k == "" {
				k = n.Name
			}
			names[k] = true
			if strings.HasPrefix(rs.fieldDocs[docsOf][n.Name], legacyDoc) {
				continue
			}
			out = append(out, structField{name: k, doc: rs.fieldDocs[docsOf][n.Name], expr: field.Type, omitEmpty: omit})
			goNamesOf = append(goNamesOf, n.Name)
		}
	}
	for i := range out {
		if out[i].doc == "" {
			out[i].doc = sharedDoc(goNamesOf[i], goNamesOf, out, rs.fieldDocs[docsOf][""])
		}
	}
	for _, f := range embedded {
		if !names[f.name] {
			out = append(out, f)
		}
	}
	delete(inside, name)
	return out, nil
}

// sharedDoc points a field without a comment of its own to the comment that tells of it with others ("Denied
// are ...; DeniedOnKeys the ..."): another field's, by its key, or the type's; "" when none names it.
func sharedDoc(goName string, goNames []string, fields []structField, typeDoc string) string {
	word := regexp.MustCompile(`\b` + regexp.QuoteMeta(goName) + `\b`)
	for i, f := range fields {
		if goNames[i] != goName && f.doc != "" && word.MatchString(f.doc) {
			return "see " + code(f.name)
		}
	}
	if word.MatchString(typeDoc) {
		return "see the type's description, above"
	}
	return ""
}

// describe says in words what JSON a field of type expr (declared in package pkg) holds, and names the
// recorded object types it refers to.
func (rs recordingSource) describe(pkg string, expr ast.Expr) (string, []string) {
	switch t := expr.(type) {
	case *ast.StarExpr:
		s, refs := rs.describe(pkg, t.X)
		return s + " or null", refs
	case *ast.ArrayType:
		if id, ok := t.Elt.(*ast.Ident); ok && id.Name == "byte" {
			return "string (base64)", nil
		}
		s, refs := rs.describe(pkg, t.Elt)
		return "array of " + s, refs
	case *ast.MapType:
		k, _ := rs.describe(pkg, t.Key)
		v, refs := rs.describe(pkg, t.Value)
		return "object of " + v + " by " + k, refs
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok {
			switch x.Name + "." + t.Sel.Name {
			case "time.Duration":
				return "integer: nanoseconds", nil
			case "millis.Duration":
				return "number: milliseconds", nil
			case "time.Time":
				return "time: RFC 3339, nanoseconds, the recorder's offset", nil
			case "events.Record":
				return "[event record](events.md#the-record)", nil
			}
		}
	case *ast.Ident:
		switch t.Name {
		case "string", "error":
			return "string", nil
		case "bool":
			return "boolean", nil
		case "float32", "float64":
			return "number", nil
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
			return "integer", nil
		}
	}
	name, gt, ok := rs.resolve(pkg, expr, true)
	if !ok {
		return "?", nil
	}
	if _, isStruct := gt.spec.Type.(*ast.StructType); isStruct {
		return "[" + name + "](#" + anchor(name) + ")", []string{name}
	}
	if id, ok := gt.spec.Type.(*ast.Ident); ok {
		if _, _, isNamed := rs.resolve(gt.pkg, id, false); isNamed { // "type readingFields Reading"
			return "[" + name + "](#" + anchor(name) + ")", []string{name}
		}
		s, _ := rs.describe(gt.pkg, id)
		return s + " (" + name + ")", nil
	}
	return "?", nil
}

// Recording writes docs/recording.md: every line of a recording and every object in it, from the types the
// recorder writes (their JSON keys as encoding/json writes them, read from the source of packages record,
// monitor, monitor/internal/reading and monitor/lockshape, with their fields' comments).
func Recording() ([]byte, error) {
	rs, err := loadRecordingSource()
	if err != nil {
		return nil, err
	}
	types, err := recordingTypes(rs)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	header(&b, "The recording's records", "the types the recorder writes (packages record, monitor, monitor/internal/reading and monitor/lockshape)")
	fmt.Fprintf(&b, "A recording (`--record`, see [Record and replay](replay.md)) is a gzip stream of JSON lines. "+
		"The first is a [record.Header](#%s); each other is a [record.line](#%s): a poll (with `polled` when "+
		"some of its readings are written as deltas) or an event. This build writes format version %d and reads "+
		"versions 1 to %d; version 1 wrote every reading whole, with no `polled`. The keys are the Go fields' "+
		"names where no JSON name is given; durations are milliseconds under keys ending in `_ms`, a whole "+
		"number or a decimal fraction to the nanosecond (versions 1 and 2 wrote integer nanoseconds under the "+
		"Go fields' names: `PTTL`, `ReadWithin`, `Uptime`, `TTL`, `interval`, `timeout`, `history` and "+
		"`within`; they are still read); every key marked \"left out when empty\" is absent when empty. The types are internal to the recorder: this page "+
		"says what each key holds for a tool that reads a recording, not a stable interface.\n",
		anchor("record.Header"), anchor("record.line"), record.Version, record.Version)
	for _, t := range types {
		fmt.Fprintf(&b, "\n## %s\n\n", t.Name)
		if t.Doc != "" {
			fmt.Fprintf(&b, "%s\n\n", sentence(t.Doc))
		}
		b.WriteString("| Key | Type | Meaning |\n|---|---|---|\n")
		for _, f := range t.Fields {
			if f.Doc == "" {
				return nil, fmt.Errorf("%s: the key %s has no comment to say what it holds", t.Name, f.Name)
			}
			doc := f.Doc
			if f.OmitEmpty {
				doc = strings.TrimSuffix(doc, ".") + " (left out when empty)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", code(f.Name), f.Type, cell(doc))
		}
	}
	return []byte(b.String()), nil
}

// sentence is s with its first letter in upper case.
func sentence(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}
