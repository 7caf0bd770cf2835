// Command walk measures how far the configuration travels below package
// gate (issue 30): it type-checks every package of this module that gate
// imports (directly or not), and ghaction, and prints
//
//   - rooms: the packages that receive the configuration, as a parameter
//     of type *config.Config or *config.Plan of one of their functions;
//   - moves: those functions (each one a hand-over of the value);
//   - climbs: the calls those packages make back into package config: a
//     function of package config, or a method of one of its types, other
//     than the plain conversion Duration.D.
//
// Run it from the module root: go run ./scripts/walk (or scripts/walk.sh).
// -v lists every move and climb.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

const module = "github.com/perfgate/perfgate"

// listed is the part of `go list -json` read here.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Standard   bool
}

func main() {
	verbose := flag.Bool("v", false, "list every move and climb")
	flag.Parse()
	if err := run(os.Stdout, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "walk:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, verbose bool) error {
	out, err := exec.Command("go", "list", "-export", "-deps", "-json", "./gate", "./ghaction").Output()
	if err != nil {
		return fmt.Errorf("go list: %w", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	exports := map[string]string{}
	var below []listed
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return err
		}
		exports[p.ImportPath] = p.Export
		if strings.HasPrefix(p.ImportPath, module+"/") && p.ImportPath != module+"/config" && p.ImportPath != module+"/gate" {
			below = append(below, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	rooms := map[string]bool{}
	var moves, climbs []string
	for _, p := range below {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				return err
			}
			files = append(files, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp.(types.ImporterFrom)}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			return fmt.Errorf("%s: %w", p.ImportPath, err)
		}
		short := strings.TrimPrefix(p.ImportPath, module+"/")
		for id, obj := range info.Defs {
			fn, ok := obj.(*types.Func)
			if !ok {
				continue
			}
			params := fn.Type().(*types.Signature).Params()
			for i := range params.Len() {
				if isConfigValue(params.At(i).Type()) {
					rooms[short] = true
					moves = append(moves, fmt.Sprintf("%s: %s.%s", fset.Position(id.Pos()), short, fn.Name()))
					break
				}
			}
		}
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var id *ast.Ident
				switch fun := call.Fun.(type) {
				case *ast.SelectorExpr:
					id = fun.Sel
				case *ast.Ident:
					id = fun
				}
				if id == nil {
					return true
				}
				fn, ok := info.Uses[id].(*types.Func)
				if !ok || fn.Pkg() == nil || fn.Pkg().Path() != module+"/config" || fn.Name() == "D" {
					return true
				}
				rooms[short] = true
				climbs = append(climbs, fmt.Sprintf("%s: %s", fset.Position(call.Pos()), fn.FullName()))
				return true
			})
		}
	}
	sort.Strings(moves)
	sort.Strings(climbs)
	var names []string
	for r := range rooms {
		names = append(names, r)
	}
	sort.Strings(names)
	fmt.Fprintf(w, "rooms %d (%s), moves %d, climbs %d\n", len(names), strings.Join(names, " "), len(moves), len(climbs))
	if verbose {
		for _, m := range moves {
			fmt.Fprintln(w, "move ", rel(m))
		}
		for _, c := range climbs {
			fmt.Fprintln(w, "climb", rel(c))
		}
	}
	return nil
}

// isConfigValue reports whether t is *config.Config or *config.Plan.
func isConfigValue(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != module+"/config" {
		return false
	}
	return n.Obj().Name() == "Config" || n.Obj().Name() == "Plan"
}

// rel shortens an absolute file position to one relative to the module.
func rel(s string) string {
	wd, err := os.Getwd()
	if err != nil {
		return s
	}
	return strings.TrimPrefix(s, wd+string(filepath.Separator))
}
