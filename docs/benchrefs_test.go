package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// benchRef is a comment's pointer to the measurement behind a rule.
var benchRef = regexp.MustCompile(`bench/(RESULTS-[A-Za-z0-9-]+\.md)(#[a-z0-9-]+)?`)

// Comments state rules and point to the measurement behind them in a
// bench results file (issue 45): every such pointer names a file that
// exists and, with an anchor, a heading in it.
func TestCommentsPointToMeasurements(t *testing.T) {
	heads := map[string]map[string]bool{}
	n := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range benchRef.FindAllStringSubmatch(string(src), -1) {
			n++
			file, anchor := m[1], strings.TrimPrefix(m[2], "#")
			hs, ok := heads[file]
			if !ok {
				page, err := os.ReadFile(filepath.Join("..", "bench", file))
				if err != nil {
					t.Errorf("%s cites bench/%s: %v", path, file, err)
					heads[file] = nil
					continue
				}
				hs = anchors(string(page))
				heads[file] = hs
			}
			if anchor != "" && hs != nil && !hs[anchor] {
				t.Errorf("%s cites bench/%s#%s: no such heading", path, file, anchor)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no comment cites a bench results file: the walk found no Go files?")
	}
}
