package capread

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO is refused at once, not waited on (issue 43: opening one for
// reading blocked until a writer came, for as long as the job ran, and no
// signal ended the wait), and a sparse file past the cap is refused by
// its size without being read.
func TestOpenNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "report.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	sparse := filepath.Join(dir, "ca.pem")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(1500 << 20) // 1.5 GB on paper, nothing on disk
	f.Close()
	tests := []struct{ name, path, wantErr string }{
		{"a FIFO", fifo, "is not a regular file"},
		{"a sparse 1.5 GB file", sparse, "is 1572864000 bytes, more than the 4 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := ReadFile(tt.path, 4<<20); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.path) {
					t.Errorf("ReadFile(%s) = %v, want an error naming it with %q", tt.path, err, tt.wantErr)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("ReadFile(%s) still blocked after 5s", tt.path)
			}
			rdone := make(chan error, 1)
			go func() {
				f, err := OpenRegular(tt.path)
				if err == nil {
					f.Close()
				}
				rdone <- err
			}()
			select {
			case err := <-rdone:
				if tt.path == fifo && err == nil {
					t.Errorf("OpenRegular(a FIFO) = nil, want it refused")
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("OpenRegular(%s) still blocked after 5s", tt.path)
			}
		})
	}
}
