package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfgate/perfgate/result"
)

func TestNoiseFloor(t *testing.T) {
	run := func(p99 float64, est ...float64) *result.Result {
		r := &result.Result{Scenario: "s", Load: result.Load{Mode: "rate"}}
		r.Summary.Latency.P99 = p99
		if len(est) > 0 {
			r.Capacity = &result.Capacity{Found: true, MaxQPS: est[0], Estimates: est}
		}
		return r
	}
	tests := []struct {
		name string
		runs []*result.Result
		want map[string]float64
	}{
		{"one run has no floor", []*result.Result{run(10)}, map[string]float64{}},
		// 11 vs 10: the larger disagreement, |11/10 − 1| = 10%.
		{"two runs", []*result.Result{run(10), run(11)}, map[string]float64{"p99_ms": 10}},
		{"max qps from estimates", []*result.Result{run(10, 100, 100), run(10, 90, 90)},
			map[string]float64{"p99_ms": 0, "max_qps": 11.1}},
	}
	for _, tt := range tests {
		got := NoiseFloor(tt.runs)
		if len(got) != len(tt.want) {
			t.Errorf("%s: NoiseFloor = %v, want %v", tt.name, got, tt.want)
			continue
		}
		for k, v := range tt.want {
			if math.Abs(got[k]-v) > 0.05 {
				t.Errorf("%s: NoiseFloor[%s] = %v, want %v", tt.name, k, got[k], v)
			}
		}
	}
}

func TestGeoMeanAndKneeQPS(t *testing.T) {
	tests := []struct {
		name string
		c    result.Capacity
		want float64
	}{
		{"estimates' geometric mean", result.Capacity{MaxQPS: 50, Estimates: []float64{100, 400}}, 200},
		// Results from before knee estimates: the knee itself.
		{"no estimates", result.Capacity{MaxQPS: 50}, 50},
		{"a zero estimate", result.Capacity{MaxQPS: 50, Estimates: []float64{100, 0}}, 0},
	}
	for _, tt := range tests {
		if got := KneeQPS(&tt.c); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: KneeQPS(%+v) = %v, want %v", tt.name, tt.c, got, tt.want)
		}
	}
	if got := GeoMean(nil); !math.IsNaN(got) {
		t.Errorf("GeoMean(nil) = %v, want NaN", got)
	}
}

// TestCandidateRunShiftInTest: against a baseline from two runs that
// agreed within their sampling, the candidate's own run shift, which
// those runs cannot show, is in the test (gate.run_to_run for its one
// run), so a change the size of a plausible run shift is not called while
// a doubling still is; a baseline whose runs disagreed by more carries
// that instead, on its one degree of freedom; a suite that pools its
// noise measures the shift.
func TestCandidateRunShiftInTest(t *testing.T) {
	twoRuns := func(rng *rand.Rand, floorPct float64) *result.Result {
		a := simRun(rng, 1, 0.02, 5, 5)
		b := simRun(rng, 1, 0.02, 5, 5)
		for i := range b.Trials {
			b.Trials[i].Process += 5
		}
		a.Trials = append(a.Trials, b.Trials...)
		a.NoiseFloorPct = map[string]float64{MetricP99: floorPct}
		return a
	}
	l := math.Log1p(DefaultRunToRun)
	cand := l * l
	tests := []struct {
		name     string
		floorPct float64 // the two baseline runs' disagreement
		scale    float64 // the candidate's P99 over the baseline's
		verdict  Verdict
		runVar   float64 // the run-to-run variance in the P99 test (0: more than cand)
	}{
		// Before the candidate's shift was in the test, 2% process noise
		// made this +20% a regression at p < 0.001.
		{"runs agreed, +20%: a run shift could be it", 0.5, 1.2, Inconclusive, cand},
		{"runs agreed, a doubling: called", 0.5, 2, Regressed, cand},
		// A change far enough to be called through the floor's one
		// degree of freedom: regressed, with the floor in the test.
		{"runs disagreed: the floor is in the test", 25, 20, Regressed, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 7))
			base := twoRuns(rng, tt.floorPct)
			// P99's own test: the medians, gated by default, would share
			// its Holm family.
			s := DefaultSettings()
			s.P50Regression = 0
			c, err := Compare([]*result.Result{base}, []*result.Result{simRun(rng, tt.scale, 0.02, 5, 5)}, s)
			if err != nil {
				t.Fatal(err)
			}
			if sc := c.Scenarios[0]; sc.RunToRunSource != RunToRunNoiseFloor {
				t.Fatalf("run_to_run_source %q, want %q", sc.RunToRunSource, RunToRunNoiseFloor)
			}
			m := metric(t, c, MetricP99)
			if m.Verdict != tt.verdict {
				t.Errorf("p99 %s (%+.1f%%, run-to-run variance %.4g), want %s", m.Verdict, m.DeltaPct, m.RunToRunVar, tt.verdict)
			}
			switch {
			case tt.runVar > 0 && math.Abs(m.RunToRunVar-tt.runVar) > 1e-12:
				t.Errorf("run-to-run variance %v, want the candidate's run shift %v", m.RunToRunVar, tt.runVar)
			case tt.runVar == 0 && !(m.RunToRunVar > cand):
				t.Errorf("run-to-run variance %v, want the floor's, beyond %v", m.RunToRunVar, cand)
			}
		})
	}
	// A suite that pools its run-to-run noise measures the shift.
	rng := rand.New(rand.NewPCG(8, 8))
	var base, cands []*result.Result
	for i := range 6 {
		b, c := twoRuns(rng, 0.5), simRun(rng, 1, 0.02, 5, 5)
		if i == 0 {
			c = simRun(rng, 1.4, 0.02, 5, 5)
		}
		name := fmt.Sprintf("s%d", i)
		b.Scenario, c.Scenario = name, name
		base, cands = append(base, b), append(cands, c)
	}
	c, err := Compare(base, cands, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if sc := c.Scenarios[0]; sc.RunToRunSource != RunToRunPooled {
		t.Errorf("pooled suite: source %q, verdict %s: want pooled", sc.RunToRunSource, sc.Verdict)
	}
}
