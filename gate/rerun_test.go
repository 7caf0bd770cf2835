package gate

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfgate/perfgate/baselines"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

// on_inconclusive: rerun measures an undecided scenario again, adding its
// trials to the earlier ones, until the verdict is decided; the merged
// result replaces the run's file and the manifest is kept in step.
func TestRerunDecidesAnUndecidedScenario(t *testing.T) {
	c := cfg(t, "")
	c.Gate.OnInconclusive = "rerun"
	// The model's noise is per trial, with no run-level shift: nothing
	// assumed between runs (see gate.run_to_run).
	c.Gate.RunToRun = 0
	base := []*result.Result{gen(1, comparetest.Spec{Scenario: "fp32", Layer: "model"})}
	// A 30% slower candidate measured on a noisy runner: the first five
	// trials cannot tell (their spread straddles the threshold).
	noisy := comparetest.Spec{Scenario: "fp32", Layer: "model", Trials: 5, Requests: 2000, MedianMs: 10, Noise: 0.35, Scale: 1.3}
	cand := []*result.Result{gen(7, noisy)}
	rep, err := Evaluate(c, base, cand, cand, false)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Comparison.Verdict != compare.Undecided {
		t.Fatalf("first round: verdict %q (%s), want inconclusive for the test to mean anything", rep.Comparison.Verdict, rep.Comparison.Reason)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "fp32.json")
	if err := cand[0].WriteFile(path); err != nil {
		t.Fatal(err)
	}
	m := result.NewManifest("run", time.Now())
	m.Add("fp32", path)
	m.Complete = true
	m.Write(dir)

	quiet := comparetest.Spec{Scenario: "fp32", Layer: "model", Trials: 5, Requests: 2000, MedianMs: 10, Noise: 0.02, Scale: 1.3}
	rounds := 0
	measure := func(_ context.Context, names []string) ([]*result.Result, error) {
		rounds++
		if len(names) != 1 || names[0] != "fp32" {
			t.Errorf("round %d reruns %v, want [fp32]", rounds, names)
		}
		return []*result.Result{gen(uint64(100+rounds), quiet)}, nil
	}
	o := Request{}
	o.Suite.OutDir = dir
	rep, cand, rr, err := rerunUndecided(context.Background(), c, o, nil, base, cand, rep, measure)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Comparison.Verdict != compare.Fail || rr.Stopped != "decided" || rr.Rounds < 1 {
		t.Fatalf("after reruns: verdict %q, %d rounds, stopped %q; want fail (the 30%% regression) decided by the reruns",
			rep.Comparison.Verdict, rr.Rounds, rr.Stopped)
	}
	if got, want := len(cand[0].Trials), 5*(1+rr.Rounds); got != want {
		t.Errorf("merged result has %d trials, want %d", got, want)
	}
	// The file on disk is the merged result, and the manifest vouches for it.
	disk, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(disk.Trials) != len(cand[0].Trials) {
		t.Errorf("file holds %d trials, want the merged %d", len(disk.Trials), len(cand[0].Trials))
	}
	bl := filepath.Join(t.TempDir(), "bl")
	if _, err := baselines.Update(dir, bl, result.Provenance{}); err != nil {
		t.Errorf("baseline update from the rerun folder: %v (the manifest must match the merged file)", err)
	}
}

// Reruns stop at the trial cap: a scenario that never decides ends
// inconclusive, never pass, after a bounded number of rounds.
func TestRerunStopsAtMaxTrials(t *testing.T) {
	c := cfg(t, "")
	c.Gate.OnInconclusive, c.Gate.RerunMaxTrials = "rerun", 15
	base := []*result.Result{gen(1, comparetest.Spec{Scenario: "fp32", Layer: "model"})}
	noisy := comparetest.Spec{Scenario: "fp32", Layer: "model", Trials: 5, Requests: 2000, MedianMs: 10, Noise: 0.35, Scale: 1.3}
	cand := []*result.Result{gen(7, noisy)}
	rep, _ := Evaluate(c, base, cand, cand, false)
	// Every rerun is as noisy and centred on the threshold: undecidable.
	edge := noisy
	edge.Scale = 1.05
	seed := uint64(200)
	measure := func(context.Context, []string) ([]*result.Result, error) {
		seed++
		return []*result.Result{gen(seed, edge)}, nil
	}
	rep, cand, rr, err := rerunUndecided(context.Background(), c, Request{}, nil, base, cand, rep, measure)
	if err != nil {
		t.Fatal(err)
	}
	if rr.Rounds > 2 || len(cand[0].Trials) > 15 {
		t.Errorf("%d rounds, %d trials: want at most 2 rounds and 15 trials (rerun_max_trials)", rr.Rounds, len(cand[0].Trials))
	}
	if rep.Comparison.Verdict == compare.Pass {
		t.Errorf("an undecided gate after reruns says pass; want inconclusive (or a decided verdict)")
	}
}
