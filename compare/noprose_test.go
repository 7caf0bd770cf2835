package compare

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// prose matches a string of three words or more: a sentence, or a piece of
// one. A statistic states facts (a code, names, numbers: Note, Downgrade,
// Lever); package report writes the sentences (report.NoteText), so that
// every output says a thing the same way and rewording never touches the
// statistics. Labels (a method, a source: "noise floor") are shorter.
var prose = regexp.MustCompile(`[A-Za-z]{2,}[^A-Za-z\s]*\s+[^A-Za-z\s]*[A-Za-z]{2,}[^A-Za-z\s]*\s+[^A-Za-z\s]*[A-Za-z]{2,}`)

// jsonLabels are values of JSON fields that docs/formats.md fixes: labels
// of three words, not sentences.
var jsonLabels = map[string]bool{MDEUnitKneeRounds: true}

// TestNoProseInStatistics fails when compare's non-test code writes a
// user sentence: a string literal of three words or more outside an error
// for bad input (fmt.Errorf, errors.New).
func TestNoProseInStatistics(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.Field: // a struct tag
				return false
			case *ast.CallExpr:
				if isErrorCall(x) {
					return false
				}
			case *ast.BasicLit:
				if x.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(x.Value)
				if err != nil {
					s = x.Value
				}
				if prose.MatchString(s) && !jsonLabels[s] {
					t.Errorf("%s: a sentence in the statistics (%.60q): state it as a Note (notes.go) and write it in report.NoteText", fset.Position(x.Pos()), s)
				}
			}
			return true
		})
	}
}

// isErrorCall reports whether call builds an error (fmt.Errorf,
// errors.New): an error for bad input names the file, field and value,
// and stays with the code that found it.
func isErrorCall(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && (pkg.Name == "fmt" && sel.Sel.Name == "Errorf" || pkg.Name == "errors" && sel.Sel.Name == "New")
}
