package capread

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	os.WriteFile(small, []byte("{}"), 0o644)
	big := filepath.Join(dir, "big.json")
	os.WriteFile(big, make([]byte, 2<<20), 0o644)
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, wantErr string
	}{
		{"small file", small, ""},
		{"over the cap", big, "is 2097152 bytes, more than the 1 MiB"},
		// A link to a device would otherwise be read without end.
		{"link to /dev/zero", zero, "is not a regular file"},
		{"a folder", dir, "is not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ReadFile(tt.path, 1<<20)
			switch {
			case tt.wantErr == "" && (err != nil || string(b) != "{}"):
				t.Errorf("ReadFile(%s) = %q, %v; want {}", tt.path, b, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.path)):
				t.Errorf("ReadFile(%s) = %v, want an error naming it with %q", tt.path, err, tt.wantErr)
			}
		})
	}
}
