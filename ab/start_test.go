package ab

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/suite"
)

// startDelay is how long the slow-starting test service takes to become
// ready.
const startDelay = 300 * time.Millisecond

// slowSides are base and head sides of the test service, each taking
// startDelay to become ready, started in dirs (base, head).
func slowSides(t *testing.T, dirs [2]string) [2]*targetSide {
	t.Helper()
	r := newRepo(t, strings.Replace(serviceConfig, "%s", "", 1), 1)
	cfg := r.loadConfig()
	var out [2]*targetSide
	for i := range out {
		out[i] = &targetSide{cfg: cfg, s: cfg.Scenarios[0], o: suite.Options{Environ: os.Environ()}, dir: dirs[i]}
	}
	return out
}

// serviceDir is a folder holding the test service's latency_ms and
// start_delay_ms.
func serviceDir(t *testing.T, delay time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "latency_ms"), []byte("1"), 0o644)
	os.WriteFile(filepath.Join(dir, "start_delay_ms"), []byte(strings.TrimSuffix(delay.String(), "ms")), 0o644)
	return dir
}

// TestStartBothOverlaps starts two real processes that each take 300 ms
// to become ready: started at once (startBoth) they are both ready in
// about 300 ms, not the 600 ms of one after the other, which the test
// also times, on the same host, for the comparison.
func TestStartBothOverlaps(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	dir := serviceDir(t, startDelay)
	sides := slowSides(t, [2]string{dir, dir})
	defer sides[0].Stop()
	defer sides[1].Stop()
	ctx := context.Background()

	t0 := time.Now()
	for i := range sides {
		if err := sides[i].Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	serial := time.Since(t0)

	t0 = time.Now()
	ok, err := startBoth(1, func(i int) error { return sides[i].Start(ctx) })
	both := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("both sides ready in %v started at once, %v one after the other (each takes %v)", both, serial, startDelay)
	if ok != [2]bool{true, true} || sides[0].cur == nil || sides[1].cur == nil {
		t.Fatalf("started %v; processes %v %v: want both", ok, sides[0].cur, sides[1].cur)
	}
	if both < startDelay {
		t.Errorf("both ready in %v: shorter than one side's %v start, so a start was not awaited", both, startDelay)
	}
	// One after the other costs two delays; at once, one: the saving is
	// a whole delay less what the host's load adds (half of it allowed).
	if serial-both < startDelay/2 {
		t.Errorf("started at once in %v against %v one after the other: want at least %v saved (one start of %v)", both, serial, startDelay/2, startDelay)
	}
}

// TestStartBothFails checks a failed start of one side while the other
// starts: Interleave returns the error naming the side, the side that
// started is stopped, and the processes counted are the ones that ran.
func TestStartBothFails(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	good := serviceDir(t, startDelay)
	bad := t.TempDir() // no latency_ms: the service exits at once
	sides := slowSides(t, [2]string{good, bad})
	p := Plan{Scenario: "api", Layer: "service", Settings: compare.DefaultSettings(),
		Design: compare.Sequential{Alpha: 0.05, MaxPairs: 4}}
	out, err := Interleave(context.Background(), p, sides[0], sides[1])
	if err == nil || !strings.Contains(err.Error(), "head side: ") {
		t.Fatalf("Interleave: %v, want the head side's start failure", err)
	}
	if sides[0].cur != nil || sides[1].cur != nil {
		t.Errorf("after the failure processes still run: base %v, head %v", sides[0].cur, sides[1].cur)
	}
	if out == nil || out.Run.Processes != [2]int{1, 0} {
		t.Errorf("processes counted %v, want [1 0] (the base started, the head did not)", out.Run.Processes)
	}
}
