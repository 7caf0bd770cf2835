package targetproc

import (
	"os"
	"path/filepath"
	"testing"
)

// A link planted where the target's log goes is replaced, never followed:
// the file it points to keeps its contents (issue 28).
func TestCreateLogDoesNotFollowLinks(t *testing.T) {
	for _, kind := range []string{"symlink", "hard link"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim")
			if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(dir, "s.target.log")
			link := os.Symlink
			if kind == "hard link" {
				link = os.Link
			}
			if err := link(victim, log); err != nil {
				t.Skipf("cannot make a %s here: %v", kind, err)
			}
			f, err := createLog(log)
			if err != nil {
				t.Fatalf("createLog(%s) = %v", log, err)
			}
			f.WriteString("target output\n")
			f.Close()
			if b, _ := os.ReadFile(victim); string(b) != "precious" {
				t.Errorf("the %s's target now holds %q, want it untouched", kind, b)
			}
			if st, err := os.Lstat(log); err != nil || !st.Mode().IsRegular() {
				t.Errorf("the log is %v, %v; want a regular file", st, err)
			}
		})
	}
}
