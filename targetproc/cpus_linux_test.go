//go:build linux

package targetproc

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/cpuset"
)

// A target started with CPUs runs on that set only, every thread of it
// and every process it starts, and perfgate's own threads keep theirs.
func TestStartTargetOnCPUs(t *testing.T) {
	allowed, err := cpuset.Allowed()
	if err != nil {
		t.Fatal(err)
	}
	if len(allowed) < 2 {
		t.Skipf("this process may run on CPUs %s only: pinning a target to a subset needs two", allowed)
	}
	one := cpuset.Set{allowed[len(allowed)-1]} // "1" on a two-core machine
	before := threadCPUs(t, "self")

	// The shell starts the test server as a child and waits: the child
	// must inherit the set too.
	s := shellSpec(t, `"$T" --port $PORT & wait`)
	s.Env["PORT"] = "{port}"
	s.CPUs = one
	tg := startTarget(t, context.Background(), s)

	procs := groupProcs(t, tg.PGID())
	if len(procs) < 2 {
		t.Fatalf("target group holds %v, want the shell and the server", procs)
	}
	for pid := range procs {
		for tid, cpus := range threadCPUs(t, strconv.Itoa(pid)) {
			if cpus != one.String() {
				t.Errorf("process %d (%s) thread %s: Cpus_allowed_list = %q, want %q", pid, procs[pid], tid, cpus, one)
			}
		}
	}
	got, err := cpuset.OfProcess(tg.PGID())
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != one.String() {
		t.Errorf("cpuset.OfProcess(target) = %s, want %s", got, one)
	}
	// No thread of this process is left pinned to the target's set.
	after := threadCPUs(t, "self")
	for tid, cpus := range after {
		if cpus != allowed.String() {
			t.Errorf("perfgate thread %s: Cpus_allowed_list = %q after the start, want %q (before: %v)", tid, cpus, allowed, before[tid])
		}
	}
	if err := tg.Stop(time.Second); err != nil {
		t.Fatal(err)
	}
}

// threadCPUs reads Cpus_allowed_list of every thread of /proc/<pid>.
func threadCPUs(t *testing.T, pid string) map[string]string {
	t.Helper()
	tasks, err := filepath.Glob(filepath.Join("/proc", pid, "task", "*", "status"))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no threads under /proc/%s/task: %v", pid, err)
	}
	out := map[string]string{}
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended meanwhile
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				out[filepath.Base(filepath.Dir(f))] = strings.TrimSpace(v)
			}
		}
	}
	return out
}
