package ghaction

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A bundle's report.json that is a FIFO or a device is refused at once
// (issue 43: a FIFO hung the trusted comment job for 10 minutes, deaf to
// SIGTERM), and one past the 64 MiB cap is refused unread.
func TestReadBundleRefusesSpecialReport(t *testing.T) {
	pr := `{"number": 3, "head_sha": "` + strings.Repeat("a", 40) + `"}`
	tests := []struct {
		name    string
		plant   func(path string) error
		wantErr string
	}{
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "is not a regular file"},
		{"a link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "is not a regular file"},
		{"a sparse 1.5 GB file", func(p string) error {
			f, err := os.Create(p)
			if err == nil {
				err = f.Truncate(1500 << 20)
				f.Close()
			}
			return err
		}, "more than the 64 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, bundlePR), []byte(pr), 0o644)
			if err := tt.plant(filepath.Join(dir, bundleReport)); err != nil {
				t.Skip(err)
			}
			done := make(chan error, 1)
			go func() { _, _, err := ReadBundle(dir); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), bundleReport) {
					t.Errorf("ReadBundle = %v, want an error naming report.json with %q", err, tt.wantErr)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("ReadBundle still blocked after 5s")
			}
		})
	}
}
