// Command walk measures how far the configuration travels below package
// gate (issue 30). It type-checks package gate and every package of this
// module it imports (directly or not), and ghaction, and follows the
// configuration value from gate:
//
//   - a hand-over (move) is a call, in one of those packages, to a
//     function of another package of this module with an argument of type
//     *config.Config or *config.Plan: the value enters that package (a
//     room);
//   - the walk is the hand-overs reachable from package gate: gate's own,
//     then those made by each room the value entered;
//   - a climb is a call, from a room of the walk, back into package
//     config: a function of package config, or a method of one of its
//     types, other than the plain conversion Duration.D.
//
// Packages outside the walk that read a configuration themselves (bisect
// reads each commit's; ghaction reads the Action's) are listed after it
// with their own calls into config.
//
// Run it from the module root: go run ./scripts/walk (or scripts/walk.sh).
// -v lists every hand-over and climb.
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
	var scanned []listed
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return err
		}
		exports[p.ImportPath] = p.Export
		if strings.HasPrefix(p.ImportPath, module+"/") && p.ImportPath != module+"/config" {
			scanned = append(scanned, p)
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
	// moves[from] are the hand-overs made in package from; climbs[from]
	// its calls into package config.
	type move struct{ at, to, callee string }
	moves := map[string][]move{}
	climbs := map[string][]string{}
	for _, p := range scanned {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, 0)
			if err != nil {
				return err
			}
			files = append(files, f)
		}
		info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
		conf := types.Config{Importer: imp.(types.ImporterFrom)}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			return fmt.Errorf("%s: %w", p.ImportPath, err)
		}
		from := short(p.ImportPath)
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
				if !ok || fn.Pkg() == nil || !strings.HasPrefix(fn.Pkg().Path(), module+"/") {
					return true
				}
				at := rel(fset.Position(call.Pos()).String())
				to := short(fn.Pkg().Path())
				switch {
				case to == "config":
					if fn.Name() != "D" {
						climbs[from] = append(climbs[from], at+": "+fn.FullName())
					}
				case to != from:
					for _, a := range call.Args {
						if isConfigValue(info.Types[a].Type) {
							moves[from] = append(moves[from], move{at, to, fn.Name()})
							break
						}
					}
				}
				return true
			})
		}
	}
	// The walk: the rooms reached from gate by hand-overs.
	rooms := []string{}
	seen := map[string]bool{"gate": true}
	queue := []string{"gate"}
	var walkMoves []move
	for len(queue) > 0 {
		from := queue[0]
		queue = queue[1:]
		for _, m := range moves[from] {
			walkMoves = append(walkMoves, m)
			if !seen[m.to] {
				seen[m.to] = true
				rooms = append(rooms, m.to)
				queue = append(queue, m.to)
			}
		}
	}
	var walkClimbs []string
	for _, r := range rooms {
		walkClimbs = append(walkClimbs, climbs[r]...)
	}
	sort.Strings(walkClimbs)
	fmt.Fprintf(w, "walk from gate: rooms %d (%s), hand-overs %d, climbs %d\n", len(rooms), strings.Join(rooms, " "), len(walkMoves), len(walkClimbs))
	if verbose {
		for _, m := range walkMoves {
			fmt.Fprintf(w, "  move  %s: %s.%s\n", m.at, m.to, m.callee)
		}
		for _, c := range walkClimbs {
			fmt.Fprintln(w, "  climb", c)
		}
	}
	fmt.Fprintf(w, "gate itself: calls into config %d\n", len(climbs["gate"]))
	if verbose {
		for _, c := range climbs["gate"] {
			fmt.Fprintln(w, "  call ", c)
		}
	}
	var others []string
	for from := range climbs {
		if !seen[from] {
			others = append(others, from)
		}
	}
	sort.Strings(others)
	for _, from := range others {
		fmt.Fprintf(w, "outside the walk: %s: calls into config %d\n", from, len(climbs[from]))
		if verbose {
			for _, c := range climbs[from] {
				fmt.Fprintln(w, "  call ", c)
			}
		}
	}
	return nil
}

// short is a package's path inside the module.
func short(path string) string { return strings.TrimPrefix(path, module+"/") }

// isConfigValue reports whether t is *config.Config or *config.Plan.
func isConfigValue(t types.Type) bool {
	if t == nil {
		return false
	}
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
