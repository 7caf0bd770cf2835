package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pkgAPI is what a package declares at top level, by name: its package
// doc, every exported func, type, const and var, each exported method as
// Type.Method and each exported struct field as Type.Field, and the values
// of its exported string constants.
type pkgAPI struct {
	doc    string
	names  map[string]bool
	consts map[string]string // exported string constants: name → value
}

// readAPI parses the non-test Go files of the perfgate package dir (a
// path relative to the module root).
func readAPI(t *testing.T, dir string) pkgAPI {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("package %s: no Go files (%v)", dir, err)
	}
	api := pkgAPI{names: map[string]bool{}, consts: map[string]string{}}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if af.Doc != nil {
			api.doc += af.Doc.Text()
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) == 1 {
					typ := d.Recv.List[0].Type
					if s, ok := typ.(*ast.StarExpr); ok {
						typ = s.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						name = id.Name + "." + name
					}
				}
				api.names[name] = true
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						api.names[sp.Name.Name] = true
						if st, ok := sp.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								for _, n := range fl.Names {
									api.names[sp.Name.Name+"."+n.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for i, n := range sp.Names {
							api.names[n.Name] = true
							if d.Tok == token.CONST && i < len(sp.Values) {
								if bl, ok := sp.Values[i].(*ast.BasicLit); ok && bl.Kind == token.STRING {
									if v, err := strconv.Unquote(bl.Value); err == nil {
										api.consts[n.Name] = v
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return api
}

// goName matches what reads as a Go identifier in prose: a CamelCase word
// with a capital after its first letter (GeoMean, KneeQPS), optionally
// qualified by a package (baselines.CombineRuns) or a type
// (Settings.Seed).
var goName = regexp.MustCompile(`\b(?:([a-z]+)\.)?([A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z][A-Za-z0-9]*)(?:\.([A-Z][A-Za-z0-9]*))?\b`)

// notCode are CamelCase words of prose, not identifiers.
var notCode = map[string]bool{"DerSimonian": true}

// The package doc of compare is what a reader meets first (go doc
// ./compare): every identifier it cites exists, and it names every method
// a metric can be compared by, so it cannot describe a test the code no
// longer runs, nor miss one it does (issue 45: it said Mann-Whitney over
// trials while the gate tested over target processes).
func TestComparePackageDocMatchesCode(t *testing.T) {
	api := readAPI(t, "compare")
	if api.doc == "" {
		t.Fatal("package compare has no package doc")
	}
	others := map[string]pkgAPI{}
	for _, m := range goName.FindAllStringSubmatch(api.doc, -1) {
		pkg, name, sel := m[1], m[2], m[3]
		camel := regexp.MustCompile(`^[A-Z][a-z0-9]+[A-Z]`).MatchString(name)
		if notCode[name] || (pkg == "" && sel == "" && !camel) {
			continue // a capitalised word of prose
		}
		full := name
		if sel != "" {
			full = name + "." + sel
		}
		switch {
		case pkg == "" || pkg == "compare":
			if !api.names[full] {
				t.Errorf("compare's package doc cites %s, which package compare does not declare", m[0])
			}
		default:
			o, ok := others[pkg]
			if !ok {
				if _, err := os.Stat(filepath.Join("..", pkg)); err != nil {
					continue // not a perfgate package (e.g. a word before a full stop)
				}
				o = readAPI(t, pkg)
				others[pkg] = o
			}
			if !o.names[full] {
				t.Errorf("compare's package doc cites %s, which package %s does not declare", m[0], pkg)
			}
		}
	}
	var methods []string
	for name := range api.consts {
		if strings.HasPrefix(name, "Method") {
			methods = append(methods, name)
		}
	}
	slices.Sort(methods)
	if len(methods) < 2 {
		t.Fatalf("package compare declares methods %v: want its Method constants", methods)
	}
	for _, name := range methods {
		if !strings.Contains(api.doc, name) {
			t.Errorf("compare's package doc does not name %s (%q), a method a metric is compared by", name, api.consts[name])
		}
	}
}
