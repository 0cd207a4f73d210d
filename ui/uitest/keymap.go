// Package uitest holds what the UI's tests share: the dashboard's real key bindings.
package uitest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"sync"

	"github.com/charmbracelet/bubbles/key"

	"github.com/redlock-tui/redlock-tui/ui"
)

var (
	loadOnce sync.Once
	keyMap   ui.KeyMap
	loadErr  error
)

// KeyMap returns the key bindings that keymap.go, the one place where keys are chosen, gives the dashboard.
// The UI's tests cannot import package main, and must press the keys users press and show them in their
// golden screens, so KeyMap reads them from keymap.go's source: the literal newKeyMap returns. It panics when
// that source is not the literal it knows how to read (TestKeyMapIsKeymapGos, in the root package, compares
// the two).
func KeyMap() ui.KeyMap {
	loadOnce.Do(func() { keyMap, loadErr = readKeyMap() })
	if loadErr != nil {
		panic("uitest: reading keymap.go: " + loadErr.Error())
	}
	return keyMap
}

// readKeyMap parses keymap.go, two directories above this file, and evaluates newKeyMap's literal.
func readKeyMap() (ui.KeyMap, error) {
	_, here, _, _ := runtime.Caller(0)
	file := filepath.Join(filepath.Dir(here), "..", "..", "keymap.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		return ui.KeyMap{}, err
	}
	var km ui.KeyMap
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "newKeyMap" || fd.Body == nil || len(fd.Body.List) != 1 {
			continue
		}
		ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			return km, fmt.Errorf("newKeyMap is not a single return")
		}
		return km, fill(reflect.ValueOf(&km).Elem(), ret.Results[0])
	}
	return km, fmt.Errorf("no newKeyMap in %s", file)
}

// fill sets the fields of the struct v from the composite literal e, whose values are key.NewBinding calls
// or, for a nested key map, literals of their own.
func fill(v reflect.Value, e ast.Expr) error {
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return fmt.Errorf("%T is not a literal", e)
	}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		name, isIdent := kv.Key.(*ast.Ident)
		if !ok || !isIdent {
			return fmt.Errorf("an element of %T is not Field: value", e)
		}
		field := v.FieldByName(name.Name)
		if !field.IsValid() {
			return fmt.Errorf("no field %s", name.Name)
		}
		if _, nested := kv.Value.(*ast.CompositeLit); nested {
			if err := fill(field, kv.Value); err != nil {
				return fmt.Errorf("%s: %w", name.Name, err)
			}
			continue
		}
		b, err := binding(kv.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", name.Name, err)
		}
		field.Set(reflect.ValueOf(b))
	}
	return nil
}

// binding evaluates key.NewBinding(key.WithKeys(...), key.WithHelp(...)) with string literal arguments.
func binding(e ast.Expr) (key.Binding, error) {
	call, ok := e.(*ast.CallExpr)
	if !ok || callee(call) != "NewBinding" {
		return key.Binding{}, fmt.Errorf("not key.NewBinding")
	}
	var opts []key.BindingOpt
	for _, arg := range call.Args {
		opt, ok := arg.(*ast.CallExpr)
		if !ok {
			return key.Binding{}, fmt.Errorf("an option is not a call")
		}
		strs, err := literals(opt.Args)
		if err != nil {
			return key.Binding{}, err
		}
		switch callee(opt) {
		case "WithKeys":
			opts = append(opts, key.WithKeys(strs...))
		case "WithHelp":
			if len(strs) != 2 {
				return key.Binding{}, fmt.Errorf("WithHelp with %d arguments", len(strs))
			}
			opts = append(opts, key.WithHelp(strs[0], strs[1]))
		default:
			return key.Binding{}, fmt.Errorf("option %s", callee(opt))
		}
	}
	return key.NewBinding(opts...), nil
}

// callee is the name of the function call calls, without its package.
func callee(call *ast.CallExpr) string {
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		return sel.Sel.Name
	}
	return ""
}

// literals evaluates string literals.
func literals(args []ast.Expr) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		lit, ok := a.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return nil, fmt.Errorf("argument %d is not a string literal", i)
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}
