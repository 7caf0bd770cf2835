package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// baseline update --config reads the config through the bounded reader
// (issue 43: it was read whole, 1.57 GB of RSS for a 1.5 GB file, and a
// FIFO there blocked it): a FIFO or a device is refused at once, a file
// past perfgate.yaml's 4 MiB cap by its size, unread. Exit 2, naming it.
func TestBaselineUpdateConfigBounded(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "run")
	os.MkdirAll(from, 0o755)
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	huge := filepath.Join(dir, "huge.yaml")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(1500 << 20) // sparse: nothing on disk
	f.Close()
	tests := []struct{ name, cfg, want string }{
		{"a FIFO", fifo, fifo + " is not a regular file"},
		{"a device", "/dev/zero", "/dev/zero is not a regular file"},
		{"a sparse 1.5 GB file", huge, huge + " is 1572864000 bytes, more than the 4 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type out struct {
				code   int
				stderr string
			}
			done := make(chan out, 1)
			go func() {
				code, _, stderr := runCLI(t, "baseline", "update", "--from", from, "--to", filepath.Join(dir, "bl"), "--config", tt.cfg)
				done <- out{code, stderr}
			}()
			select {
			case got := <-done:
				if got.code != exitUsage || !strings.Contains(got.stderr, tt.want) {
					t.Errorf("baseline update --config %s: exit %d, %q; want exit 2 with %q", tt.cfg, got.code, got.stderr, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("baseline update --config %s still running after 10s", tt.cfg)
			}
		})
	}
}

// A signal always ends perfgate (issue 43: a read blocked in a system
// call kept it alive, deaf to SIGTERM, for 10 minutes): once the context
// is cancelled by a signal, run has grace to return, then perfgate exits
// 3; a second signal ends it at once (stop restores the default action).
func TestExitAfterSignal(t *testing.T) {
	tests := []struct {
		name     string
		signal   bool // the context is cancelled by a signal
		finishes bool // run returns within the grace
		wantExit int  // -1: exit is not called
	}{
		{"no signal, run returns", false, true, -1},
		{"signal, run returns in time", true, true, -1},
		{"signal, run stuck", true, false, exitRunFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{})
			exited := make(chan int, 1)
			stopped := make(chan struct{}, 1)
			var stderr strings.Builder
			finished := make(chan struct{})
			go func() {
				exitAfterSignal(ctx, done, func() { stopped <- struct{}{} }, 200*time.Millisecond, &stderr, func(c int) { exited <- c })
				close(finished)
			}()
			if tt.signal {
				cancel()
			}
			if tt.finishes {
				time.Sleep(20 * time.Millisecond)
				close(done)
			}
			select {
			case <-finished:
			case <-time.After(5 * time.Second):
				t.Fatal("exitAfterSignal did not return")
			}
			got := -1
			select {
			case got = <-exited:
			default:
			}
			if got != tt.wantExit {
				t.Errorf("exit called with %d, want %d (-1: not called)", got, tt.wantExit)
			}
			if tt.signal && len(stopped) != 1 {
				t.Error("stop not called after the signal: a second signal would not end perfgate")
			}
			if tt.wantExit >= 0 && !strings.Contains(stderr.String(), "after the signal") {
				t.Errorf("stderr = %q, want it to say why perfgate exits", stderr.String())
			}
		})
	}
}
