package bisect

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare"
)

// levels is a fake runner for the search: commit "c<i>" serves at
// levels[i]; a step sees a change beyond 10% (an interval of ±3%), and
// the commits in undecided measure as inconclusive.
func levels(levels []float64, undecided map[int]bool) (MeasureFunc, []string) {
	var commits []string
	for i := range levels {
		commits = append(commits, fmt.Sprintf("c%d", i))
	}
	idx := func(c string) int {
		var i int
		fmt.Sscanf(c, "c%d", &i)
		return i
	}
	return func(_ context.Context, base, head string) (*compare.Comparison, error) {
		b, h := idx(base), idx(head)
		d := 100 * (levels[h]/levels[b] - 1)
		v := compare.Unchanged
		switch {
		case undecided[h]:
			v, d = compare.Inconclusive, 100*(math.Sqrt(levels[len(levels)-1]/levels[b])-1)
		case d > 10:
			v = compare.Regressed
		case d < -10:
			v = compare.Improved
		}
		return &compare.Comparison{Scenarios: []compare.ScenarioComparison{{Scenario: "api", Verdict: v,
			Metrics: []compare.Metric{{Metric: compare.MetricP99, DeltaPct: d, CIPct: [2]float64{d - 3, d + 3}, Verdict: v}}}},
			AB: &compare.ABRun{Scenarios: []compare.ABScenario{{Scenario: "api", Pairs: 6, RunnerS: 10}}}}, nil
	}, commits
}

// step returns a series of n+1 commits whose level multiplies by f at
// each index of at.
func step(n int, f float64, at ...int) []float64 {
	l := make([]float64, n+1)
	v := 1.0
	for i := range l {
		for _, a := range at {
			if i == a {
				v *= f
			}
		}
		l[i] = v
	}
	return l
}

func TestRun(t *testing.T) {
	tests := []struct {
		name        string
		levels      []float64
		undecided   map[int]bool
		wantStatus  string
		wantCulprit string
		wantNote    string
		maxSteps    int
	}{
		{"one commit 25% slower", step(16, 1.25, 11), nil, Found, "c11", "", 6},
		{"culprit is the first", step(16, 1.25, 1), nil, Found, "c1", "", 6},
		{"culprit is the last", step(16, 1.25, 16), nil, Found, "c16", "", 6},
		{"improvement", step(16, 0.7, 6), nil, Found, "c6", "", 6},
		// Two commits each add 15%: the first is found, and the note says
		// it explains only part of the change.
		{"two commits 15% each", step(16, 1.15, 5, 12), nil, Found, "c5", "bisect again with --good c5", 6},
		{"no change", step(16, 1.02, 3), nil, NoChange, "", "nothing to bisect", 1},
		// A step that cannot decide (and whose interval, ±3% here, holds
		// half the change) is measured once more, then stops the search
		// with its window.
		{"undecided middle", step(16, 1.25, 11), map[int]bool{12: true}, Inconclusive, "", "was inconclusive twice", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, commits := levels(tt.levels, tt.undecided)
			out, err := Run(context.Background(), commits, m, nil)
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != tt.wantStatus || out.Culprit != tt.wantCulprit {
				t.Fatalf("Run = %s culprit %q (window %v, note %q), want %s culprit %q", out.Status, out.Culprit, out.Window, out.Note, tt.wantStatus, tt.wantCulprit)
			}
			if !strings.Contains(out.Note, tt.wantNote) {
				t.Errorf("note %q, want it to say %q", out.Note, tt.wantNote)
			}
			if len(out.Steps) > tt.maxSteps {
				t.Errorf("%d steps, want at most %d (log2 of 16 + 2)", len(out.Steps), tt.maxSteps)
			}
			if out.Status == Found {
				if out.Change == nil || math.Abs(out.Change.DeltaPct) < 10 {
					t.Errorf("culprit's change %+v, want its own step", out.Change)
				}
				if out.RunnerS != 10*float64(len(out.Steps)) {
					t.Errorf("runner time %v, want %v (every step's)", out.RunnerS, 10*len(out.Steps))
				}
			}
			if tt.name == "undecided middle" && (out.Window[0] != "c8" || out.Window[1] != "c16") {
				t.Errorf("window %v, want (c8, c16]", out.Window)
			}
		})
	}
}

func TestSide(t *testing.T) {
	total := Step{Verdict: compare.Regressed, Metric: compare.MetricP99, DeltaPct: 25}
	improved := Step{Verdict: compare.Improved, Metric: compare.MetricP99, DeltaPct: -30}
	st := func(v compare.Verdict, lo, hi float64) Step {
		return Step{Verdict: v, Metric: compare.MetricP99, DeltaPct: (lo + hi) / 2, CIPct: [2]float64{lo, hi}}
	}
	tests := []struct {
		name  string
		s     Step
		total Step
		want  int
	}{
		{"regressed like bad", st(compare.Regressed, 20, 30), total, bad},
		{"unchanged", st(compare.Unchanged, -2, 2), total, good},
		// The gate's verdict is inconclusive (its 5% threshold lies in
		// the interval) but the interval is all short of half the change.
		{"inconclusive, short of half", st(compare.Inconclusive, -0.6, 11.9), total, good},
		{"inconclusive, beyond half", st(compare.Inconclusive, 13, 40), total, bad},
		{"inconclusive, straddles half", st(compare.Inconclusive, 5, 20), total, undecided},
		{"opposite direction", st(compare.Improved, -20, -10), total, good},
		// Two commits adding 15% each against a 10% threshold (A→B
		// +31.9%): the first measured alone is short of half the change
		// but may exceed the threshold, so it is not like A.
		{"short of half, straddles the threshold", withThreshold(st(compare.Inconclusive, 6.3, 13.6), 10), st(compare.Regressed, 25, 39), undecided},
		{"short of half, beyond the threshold", withThreshold(st(compare.Inconclusive, 10.5, 15.5), 10), st(compare.Regressed, 25, 39), bad},
		{"short of half and of the threshold", withThreshold(st(compare.Inconclusive, -0.6, 9.5), 10), st(compare.Regressed, 25, 39), good},
		{"improvement bisected", st(compare.Inconclusive, -40, -16), improved, bad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := side(tt.s, tt.total, tt.total.Verdict); got != tt.want {
				t.Errorf("side(%+v) = %d, want %d", tt.s, got, tt.want)
			}
		})
	}
}

func withThreshold(s Step, pct float64) Step {
	s.ThresholdPct = pct
	return s
}

// A second CI failure of TestBisectLoopback, replayed: commits 5 and 12
// each add 15% against a 10% threshold and every commit from 5 to 11
// first measures +9.9% [+6.3, +13.6] against A (inconclusive). By half of
// A→B's +31.9% alone those commits were like A and the culprit named was
// 6; now each straddles the threshold, is measured once more, and the
// culprit is 5. When the second measurement straddles it too, the search
// stops with a window that holds 5.
func TestRunStraddlingTheThreshold(t *testing.T) {
	for _, again := range []bool{true, false} {
		m, commits := levels(step(16, 1.15, 5, 12), nil)
		seen := map[string]int{}
		noisy := func(ctx context.Context, base, head string) (*compare.Comparison, error) {
			var i int
			fmt.Sscanf(head, "c%d", &i)
			seen[head]++
			if base == "c0" && i >= 5 && i <= 11 && (seen[head] == 1 || !again) {
				return inconclusive(9.9, 6.3, 13.6, 10), nil
			}
			return m(ctx, base, head)
		}
		out, trace := runTraced(t, commits, noisy)
		if again {
			if out.Status != Found || out.Culprit != "c5" {
				t.Errorf("Run = %s culprit %q (window %v, note %q; steps %v), want found c5", out.Status, out.Culprit, out.Window, out.Note, trace)
			}
			continue
		}
		lo, hi := 0, 0
		fmt.Sscanf(out.Window[0], "c%d", &lo)
		fmt.Sscanf(out.Window[1], "c%d", &hi)
		if out.Status != Inconclusive || lo >= 5 || hi < 5 || !strings.Contains(out.Note, "twice") {
			t.Errorf("Run = %s window (c%d, c%d] (note %q; steps %v), want inconclusive, a window holding c5, saying it measured twice", out.Status, lo, hi, out.Note, trace)
		}
	}
}

// The CI failure of TestBisectLoopback, replayed: commits 5 and 12 each
// add 15%, and commit 5's first step against A came out +3.2% [-6.1,
// +13.5] (inconclusive, short of half the change: A's side by the
// midpoint rule) while commit 6, the same code, regressed. The culprit's
// own change (6 against 5) measures unchanged, contradicting the search:
// commit 5 is measured against A once more, and the culprit is 5.
func TestRunRechecksAContradiction(t *testing.T) {
	m, commits := levels(step(16, 1.15, 5, 12), nil)
	first := true
	noisy := func(ctx context.Context, base, head string) (*compare.Comparison, error) {
		if base == "c0" && head == "c5" && first {
			first = false
			return inconclusive(3.2, -6.1, 13.5, 0), nil
		}
		return m(ctx, base, head)
	}
	out, trace := runTraced(t, commits, noisy)
	if out.Status != Found || out.Culprit != "c5" {
		t.Fatalf("Run = %s culprit %q (window %v, note %q; steps %v), want found c5", out.Status, out.Culprit, out.Window, out.Note, trace)
	}
	if out.Change == nil || out.Change.Verdict != compare.Regressed {
		t.Errorf("culprit's own change %+v, want regressed", out.Change)
	}
	if len(out.Steps) > 9 {
		t.Errorf("%d steps (%v), want at most 9", len(out.Steps), trace)
	}
}

// inconclusive is a step's comparison that could not decide: P99 moved
// delta% with the interval [lo, hi] against threshold% (0: not given),
// over 12 pairs.
func inconclusive(delta, lo, hi, threshold float64) *compare.Comparison {
	return &compare.Comparison{Scenarios: []compare.ScenarioComparison{{Scenario: "api", Verdict: compare.Inconclusive,
		Metrics: []compare.Metric{{Metric: compare.MetricP99, DeltaPct: delta, CIPct: [2]float64{lo, hi}, ThresholdPct: threshold, Verdict: compare.Inconclusive}}}},
		AB: &compare.ABRun{Scenarios: []compare.ABScenario{{Scenario: "api", Pairs: 12, RunnerS: 10}}}}
}

// runTraced bisects commits with m and returns the outcome and its steps
// as "base→head:verdict", for messages.
func runTraced(t *testing.T, commits []string, m MeasureFunc) (*Outcome, []string) {
	t.Helper()
	out, err := Run(context.Background(), commits, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	var trace []string
	for _, s := range out.Steps {
		trace = append(trace, s.Base+"→"+s.Head+":"+string(s.Verdict))
	}
	return out, trace
}
