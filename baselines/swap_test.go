package baselines

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The baseline set is replaced whole or not at all: a full disk while
// writing the second file leaves the first file's old baseline in place
// (issue 28: the first was replaced and the second kept, a mixed set), and
// the error names the file not written.
func TestReplaceAllIsAllOrNothing(t *testing.T) {
	files := func(to string) []stagedFile {
		return []stagedFile{{filepath.Join(to, "a.json"), []byte("new a")}, {filepath.Join(to, "b.json"), []byte("new b")}}
	}
	read := func(to string) map[string]string {
		got := map[string]string{}
		ents, _ := os.ReadDir(filepath.Dir(to))
		for _, e := range ents {
			if e.Name() != filepath.Base(to) {
				got["sibling "+e.Name()] = ""
			}
		}
		ents, _ = os.ReadDir(to)
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(to, e.Name()))
			got[e.Name()] = string(b)
		}
		return got
	}
	old := map[string]string{"a.json": "old a", "b.json": "old b", "c.json": "old c"}
	tests := []struct {
		name    string
		failOn  string // the file whose write fails with ENOSPC
		want    map[string]string
		wantErr string
	}{
		{"disk full on the second file", "b.json", old, "writing " + "%TO%/b.json: no space left on device"},
		{"disk full on the first file", "a.json", old, "writing " + "%TO%/a.json"},
		{"every file written", "", map[string]string{"a.json": "new a", "b.json": "new b", "c.json": "old c"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			to := filepath.Join(t.TempDir(), "baselines")
			os.Mkdir(to, 0o755)
			for n, c := range old {
				os.WriteFile(filepath.Join(to, n), []byte(c), 0o644)
			}
			write := func(path string, data []byte) error {
				if filepath.Base(path) == tt.failOn {
					os.WriteFile(path, data[:2], 0o644) // part of it, as a full disk leaves it
					return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
				}
				return writeSynced(path, data)
			}
			err := replaceAll(to, files(to), write)
			wantErr := strings.ReplaceAll(tt.wantErr, "%TO%", to)
			switch {
			case wantErr == "" && err != nil:
				t.Fatalf("replaceAll = %v", err)
			case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr) || !errors.Is(err, syscall.ENOSPC)):
				t.Fatalf("replaceAll = %v, want an error with %q", err, wantErr)
			}
			got := read(to)
			if len(got) != len(tt.want) {
				t.Errorf("folder holds %v, want %v (and nothing beside it)", got, tt.want)
			}
			for n, c := range tt.want {
				if got[n] != c {
					t.Errorf("%s = %q, want %q", n, got[n], c)
				}
			}
		})
	}
}

// A folder that does not exist yet is created with the files.
func TestReplaceAllNewFolder(t *testing.T) {
	to := filepath.Join(t.TempDir(), "x", "baselines")
	if err := replaceAll(to, []stagedFile{{filepath.Join(to, "a.json"), []byte("a")}}, writeSynced); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(to, "a.json")); err != nil || string(b) != "a" {
		t.Errorf("a.json = %q, %v", b, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(to)); len(ents) != 1 {
		t.Errorf("%d entries beside the folder, want it alone", len(ents))
	}
}

// The baselines folder keeps its mode across an update (issue 43: a
// 0755 folder became 0700, the staging folder's mode from os.MkdirTemp),
// and a new one gets 0755 less the umask.
func TestReplaceAllKeepsMode(t *testing.T) {
	old := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(old) })
	tests := []struct {
		name string
		mode os.FileMode // 0: the folder does not exist yet
		want os.FileMode
	}{
		{"existing 0755", 0o755, 0o755},
		{"existing 0750", 0o750, 0o750},
		// Wider than the umask allows: kept, since the user chose it.
		{"existing 0775", 0o775, 0o775},
		{"new folder", 0, 0o755},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			to := filepath.Join(t.TempDir(), "baselines")
			if tt.mode != 0 {
				os.Mkdir(to, tt.mode)
				os.Chmod(to, tt.mode)
				os.WriteFile(filepath.Join(to, "old.json"), []byte("old"), 0o644)
			}
			if err := replaceAll(to, []stagedFile{{filepath.Join(to, "a.json"), []byte("a")}}, writeSynced); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(to)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != tt.want {
				t.Errorf("mode after replaceAll = %v, want %v", got, tt.want)
			}
		})
	}
}
