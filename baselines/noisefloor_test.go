package baselines

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

// Two runs combine into a folder of their own: every trial, numbered by
// process across the runs, and the floor; the runs' folders stay as they
// were measured (a baseline update once rewrote the first run's results).
func TestCombineRuns(t *testing.T) {
	mk := func(dir string, p99 float64) {
		r := good("s", 1)
		r.Summary.Latency.P99 = p99
		path := filepath.Join(dir, result.FileName(r.Scenario))
		if err := r.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		m := result.NewManifest("run-"+filepath.Base(dir), time.Now())
		m.Add(r.Scenario, path)
		m.Complete = true
		if err := m.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	a, b := t.TempDir(), t.TempDir()
	// P99s inside good's histogram range (a result must agree with itself).
	mk(a, 5)
	mk(b, 6)
	before, err := os.ReadFile(filepath.Join(a, result.FileName("s")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CombineRuns([]string{a, b}, a); err == nil {
		t.Error("CombineRuns into the first run's own folder: no error")
	}
	into := filepath.Join(t.TempDir(), "combined")
	done, err := CombineRuns([]string{a, b}, into)
	if err != nil || len(done) != 1 {
		t.Fatalf("CombineRuns = %v, %v; want one scenario", done, err)
	}
	rs, err := result.ReadResults(into)
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	// The combined file is vouched for by the combined folder's manifest.
	if _, _, err := readRun(into, false); err != nil {
		t.Errorf("the combined folder: %v", err)
	}
	one := good("s", 1)
	if len(r.Trials) != 2*len(one.Trials) || r.Trials[len(r.Trials)-1].Process != 2 || r.NoiseFloorPct["p99_ms"] != 20 {
		t.Errorf("combined: %d trials (last in process %d), floor %v; want %d trials, process 2, p99_ms 20", len(r.Trials), r.Trials[len(r.Trials)-1].Process, r.NoiseFloorPct, 2*len(one.Trials))
	}
	after, err := os.ReadFile(filepath.Join(a, result.FileName("s")))
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the first run's result changed by combining (err %v)", err)
	}
	if _, _, err := readRun(a, false); err != nil {
		t.Errorf("the first run's folder after combining: %v", err)
	}
}
