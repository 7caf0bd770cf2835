package result

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// An output folder that is a symbolic link, or lies below one inside the
// working directory, is refused and nothing is written through it; a
// link above the working directory (a user's own layout) is not
// perfgate's business.
func TestMkdirOutRefusesLinks(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(root, "linked"))
	os.MkdirAll(filepath.Join(root, "real"), 0o755)
	os.Symlink(outside, filepath.Join(root, "real", "results"))
	above := filepath.Join(t.TempDir(), "above")
	os.Symlink(root, above)
	tests := []struct {
		name, dir, root string
		wantLink        bool
	}{
		{"the folder is a link", filepath.Join(root, "linked"), root, true},
		{"a folder below a link", filepath.Join(root, "linked", "results"), root, true},
		{"a link inside a real folder", filepath.Join(root, "real", "results"), root, true},
		{"an absolute link elsewhere", filepath.Join(root, "linked"), outside, true},
		{"a new folder", filepath.Join(root, "new", "results"), root, false},
		{"a link above the working directory", filepath.Join(above, "fresh"), above, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := MkdirOut(tt.dir, tt.root)
			if got := errors.Is(err, ErrOutLink); got != tt.wantLink {
				t.Fatalf("MkdirOut(%q, %q) = %v, want a link refused: %v", tt.dir, tt.root, err, tt.wantLink)
			}
			if tt.wantLink {
				if ents, _ := os.ReadDir(outside); len(ents) != 0 {
					t.Errorf("MkdirOut created %v through the link", ents)
				}
				return
			}
			if fi, err := os.Stat(tt.dir); err != nil || !fi.IsDir() {
				t.Errorf("MkdirOut(%q) made no folder: %v", tt.dir, err)
			}
		})
	}
	// A relative path: every component is checked, from the current folder.
	t.Chdir(root)
	if err := MkdirOut(filepath.Join("real", "results", "x"), ""); !errors.Is(err, ErrOutLink) {
		t.Errorf("MkdirOut(real/results/x) = %v, want the link refused", err)
	}
}
