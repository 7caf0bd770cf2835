package compare

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// cliName matches a perfgate subcommand or a command-line flag: advice
// that names the CLI belongs in package report (report.LeverAdvice), so
// that renaming a command or flag never edits the statistics.
var cliName = regexp.MustCompile(`perfgate (gate|baseline|compare|run|history|demo|size|sweep|bisect|init|report|comment|doctor|serve|version)\b|(^|[\s(])--[a-z]`)

// TestNoCLINamesInStatistics fails when a string literal in compare's
// non-test code names a CLI command or flag.
func TestNoCLINamesInStatistics(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				s = lit.Value
			}
			if m := cliName.FindString(s); m != "" {
				t.Errorf("%s: a string names the CLI (%q): state the fact and a compare.Lever; report says the command", fset.Position(lit.Pos()), m)
			}
			return true
		})
	}
}

// TestVerdictsSetInOneFile fails when a verdict is assigned outside
// verdict.go: every verdict comes from Decide and the guards there.
func TestVerdictsSetInOneFile(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	assign := regexp.MustCompile(`Verdict\s*(,[^=]*)?=[^=]`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "verdict.go" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if strings.Contains(code, ".Verdict") && assign.MatchString(code[strings.Index(code, ".Verdict"):]) {
				t.Errorf("%s:%d: a verdict assigned outside verdict.go: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
