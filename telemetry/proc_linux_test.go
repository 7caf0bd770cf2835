package telemetry

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startGroup starts script under sh in a new process group, killed with
// its whole group when the test ends (or after 60 s at the latest).
func startGroup(t *testing.T, script string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting %q: %v", script, err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() {
		syscall.Kill(-pgid, syscall.SIGKILL)
		cancel()
		cmd.Wait()
	})
	return pgid
}

// waitProcs waits until the group has n processes (the shell's children
// take a moment to start).
func waitProcs(t *testing.T, pgid, n int) groupSnapshot {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := readGroup("/proc", pgid)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.procs) >= n || time.Now().After(deadline) {
			if len(s.procs) != n {
				t.Fatalf("process group %d has %d processes, want %d", pgid, len(s.procs), n)
			}
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestReadGroupRealProcesses(t *testing.T) {
	tests := []struct {
		name     string
		script   string
		procs    int
		min, max float64 // cores; loose, the machine is shared
	}{
		// One busy loop plus a sleeping child: up to one core in all, far
		// less when the machine is loaded (a load of 10 on 2 cores leaves
		// it about 0.2), but never nothing and never more than one core.
		{"busy loop", "sleep 60 & while :; do :; done", 2, 0.02, 1.3},
		{"sleeping", "sleep 60 & sleep 60 & wait", 3, 0, 0.02},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pgid := startGroup(t, tt.script)
			before := waitProcs(t, pgid, tt.procs)
			time.Sleep(time.Second)
			after := waitProcs(t, pgid, tt.procs)
			cores := coresBetween(before, after)
			if cores < tt.min || cores > tt.max {
				t.Errorf("coresBetween = %.3f, want %.2f..%.2f", cores, tt.min, tt.max)
			}
			if after.rss <= 0 {
				t.Errorf("RSS = %d bytes, want > 0", after.rss)
			}
		})
	}
}

func TestReadGroupMissing(t *testing.T) {
	// PID 1's group is never a test's; a group nobody is in reads empty.
	s, err := readGroup("/proc", 1<<22+17)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.procs) != 0 || s.rss != 0 {
		t.Errorf("readGroup(unused group) = %d procs, %d bytes; want none", len(s.procs), s.rss)
	}
	if _, err := readGroup(t.TempDir()+"/absent", 1); err == nil {
		t.Error("readGroup(absent root) = nil error, want one")
	}
}

func TestCollectorProcessGroup(t *testing.T) {
	pgid := startGroup(t, "sleep 60 & while :; do :; done")
	waitProcs(t, pgid, 2)
	c, err := New(context.Background(), Options{PGID: pgid})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.BeginTrial(0)
	time.Sleep(500 * time.Millisecond)
	tel := c.EndTrial(0)
	if tel.TargetProcs != 2 || tel.TargetCPUCores <= 0 || tel.TargetCPUCores > 1.3 || tel.TargetRSSMiB <= 0 {
		t.Errorf("telemetry = %+v, want 2 processes, 0..1.3 cores, some RSS", tel)
	}
	if len(tel.Warnings) != 0 {
		t.Errorf("warnings %q, want none", tel.Warnings)
	}
}

// BenchmarkReadGroup measures one scan of /proc for a process group: the
// cost BeginTrial and EndTrial each pay once.
func BenchmarkReadGroup(b *testing.B) {
	for b.Loop() {
		if _, err := readGroup("/proc", 1); err != nil {
			b.Fatal(err)
		}
	}
}
