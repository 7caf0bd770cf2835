package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/result"
)

// procs spreads a result's trials over one process each, as restarts do:
// the gate then tests P99 over processes, with the run-to-run variance.
func procs(r *result.Result) *result.Result {
	for i := range r.Trials {
		r.Trials[i].Process = i + 1
	}
	r.Restarts = len(r.Trials)
	return r
}

// TestHistoryNoise: a runner whose runs of fp32 agree within about 1% (a
// history of 12) gets a test at its own noise: a 12% slower candidate is a
// regression, where the assumed 15% run-to-run noise leaves it
// inconclusive. int8, with no history, keeps the assumed noise.
func TestHistoryNoise(t *testing.T) {
	dir := history.Dir(t.TempDir())
	var recs []history.Record
	for i := range 12 {
		r := procs(gen(uint64(200+i), comparetest.Spec{Scenario: "fp32", Layer: "model", Trials: 6, Requests: 3000, MedianMs: 10, Noise: 0.005}))
		rec, err := history.FromResult(r, history.Meta{Commit: "c", Date: time.Date(2026, 11, 1, i, 0, 0, 0, time.UTC), Baseline: true})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if err := dir.Append(recs); err != nil {
		t.Fatal(err)
	}
	spec := func(name string, scale float64) comparetest.Spec {
		return comparetest.Spec{Scenario: name, Layer: "model", Trials: 6, Requests: 3000, MedianMs: 10, Noise: 0.005, Scale: scale}
	}
	base := []*result.Result{procs(gen(300, spec("fp32", 1))), procs(gen(301, spec("int8", 1)))}
	cand := []*result.Result{procs(gen(302, spec("fp32", 1.12))), procs(gen(303, spec("int8", 1.12)))}
	learned, notes, err := LearnNoise(context.Background(), dir, base)
	if err != nil {
		t.Fatal(err)
	}
	n, ok := learned["fp32"]
	if !ok || n.Runs != 12 || n.Fraction <= 0 || n.Fraction > 0.03 {
		t.Fatalf("learned %+v, want fp32 learned from 12 runs at about 1%%", learned)
	}
	if _, ok := learned["int8"]; ok {
		t.Errorf("int8 learned without a history: %+v", learned["int8"])
	}
	if !strings.Contains(strings.Join(notes, "\n"), "int8: run-to-run noise assumed") {
		t.Errorf("notes %q do not say int8's noise is assumed", notes)
	}
	c := cfg(t, "")
	assumed, err := EvaluateLearned(c, base, cand, cand, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	fromHistory, err := EvaluateLearned(c, base, cand, cand, false, learned)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := func(r *compare.Comparison) map[string]string {
		m := map[string]string{}
		for _, s := range r.Scenarios {
			m[s.Scenario] = string(s.Verdict) + " / " + s.RunToRunSource
		}
		return m
	}
	a, h := verdicts(assumed.Comparison), verdicts(fromHistory.Comparison)
	t.Logf("12%% slower, 6 processes a side: assumed noise %v; learned %.2f%% from %d runs: %v", a, 100*n.Fraction, n.Runs, h)
	if h["fp32"] != string(compare.Regressed)+" / history (12 runs)" {
		t.Errorf("fp32 with the learned noise: %q, want regressed / history (12 runs)", h["fp32"])
	}
	if a["fp32"] == string(compare.Regressed)+" / assumed" {
		t.Errorf("fp32 with the assumed 15%%: regressed; want the assumption to leave 12%% undecided (else this test shows nothing)")
	}
	if !strings.HasSuffix(h["int8"], " / assumed") {
		t.Errorf("int8 with no history: %q, want the assumed noise", h["int8"])
	}
}

// TestFromResultsHistory: gating results measured elsewhere (gate
// --results) with a history learns the noise as a measured gate does: the same
// verdict, source and notes as EvaluateLearned with LearnNoise, and the
// trend; without one the noise is assumed.
func TestFromResultsHistory(t *testing.T) {
	root := t.TempDir()
	hist := history.Dir(filepath.Join(root, "history"))
	var recs []history.Record
	for i := range 12 {
		r := procs(gen(uint64(200+i), comparetest.Spec{Scenario: "fp32", Layer: "model", Trials: 6, Requests: 3000, MedianMs: 10, Noise: 0.005}))
		rec, err := history.FromResult(r, history.Meta{Commit: "c", Date: time.Date(2026, 11, 1, i, 0, 0, 0, time.UTC), Baseline: true})
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if err := hist.Append(recs); err != nil {
		t.Fatal(err)
	}
	spec := comparetest.Spec{Scenario: "fp32", Layer: "model", Trials: 6, Requests: 3000, MedianMs: 10, Noise: 0.005}
	base := procs(gen(300, spec))
	spec.Scale = 1.12
	cand := procs(gen(302, spec))
	baseDir, resDir := filepath.Join(root, "baselines"), filepath.Join(root, "results")
	for dir, r := range map[string]*result.Result{baseDir: base, resDir: cand} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteFile(filepath.Join(dir, result.FileName(r.Scenario))); err != nil {
			t.Fatal(err)
		}
	}
	c := cfg(t, "")
	learned, notes, err := LearnNoise(context.Background(), hist, []*result.Result{base})
	if err != nil {
		t.Fatal(err)
	}
	want, err := EvaluateLearned(c, []*result.Result{base}, []*result.Result{cand}, nil, false, learned)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		history    history.Source
		wantSource string
	}{
		{"with the history", hist, "history (12 runs)"},
		{"without", nil, "assumed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := Gate(context.Background(), c, Request{Candidate: Results{Dir: resDir}, Base: Stored{Dir: baseDir, History: tt.history}, Scenarios: []string{"fp32"}})
			if err != nil {
				t.Fatal(err)
			}
			sc := out.Report.Comparison.Scenarios
			if len(sc) != 1 || sc[0].RunToRunSource != tt.wantSource {
				t.Fatalf("scenarios %+v, want fp32 with run_to_run_source %q", sc, tt.wantSource)
			}
			t.Logf("12%% slower, 6 processes a side, %s: %s", tt.name, sc[0].Verdict)
			if tt.history == nil {
				if sc[0].Verdict == compare.Regressed || out.Report.Trend != nil {
					t.Errorf("without a history: verdict %s, trend %v; want the assumed 15%% to leave it undecided, no trend", sc[0].Verdict, out.Report.Trend)
				}
				return
			}
			if got, w := sc[0].Verdict, want.Comparison.Scenarios[0].Verdict; got != w || got != compare.Regressed {
				t.Errorf("verdict %s, want %s as Run's learned noise gives (regressed)", got, w)
			}
			if !strings.Contains(strings.Join(out.Report.Warnings, "\n"), notes[0]) {
				t.Errorf("warnings %q lack the history's note %q", out.Report.Warnings, notes[0])
			}
			if out.Report.Trend == nil || len(out.Report.Trend.Series) == 0 {
				t.Errorf("no trend from the history")
			}
		})
	}
}
