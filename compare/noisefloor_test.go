package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
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

// TestUnseenRunShiftWarned: a regression called against a baseline from
// two runs that agreed within their sampling (no run-to-run term in the
// test) says that the candidate's own run shift is not seen, and how to
// see it; one whose runs disagreed (the floor in the test) or whose suite
// pools the noise does not.
func TestUnseenRunShiftWarned(t *testing.T) {
	const want = "a shift of the candidate's whole run"
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
	tests := []struct {
		name     string
		floorPct float64 // the two baseline runs' disagreement
		scale    float64 // the candidate's P99 over the baseline's
		warned   bool
	}{
		{"runs agreed: no run term, warned", 0.5, 1.4, true},
		// A change far enough to be called through the floor's one
		// degree of freedom: regressed, with the run term in the test.
		{"runs disagreed: the floor is in the test", 25, 20, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 7))
			base := twoRuns(rng, tt.floorPct)
			cand := simRun(rng, tt.scale, 0.02, 5, 5)
			c, err := Compare([]*result.Result{base}, []*result.Result{cand}, DefaultSettings())
			if err != nil {
				t.Fatal(err)
			}
			sc := c.Scenarios[0]
			if sc.RunToRunSource != RunToRunNoiseFloor {
				t.Fatalf("run_to_run_source %q, want %q", sc.RunToRunSource, RunToRunNoiseFloor)
			}
			got := strings.Contains(strings.Join(sc.Warnings, "\n"), want)
			if sc.Verdict != Regressed {
				t.Fatalf("verdict %s, want regressed (a run %.3g× slower); warnings %q", sc.Verdict, tt.scale, sc.Warnings)
			}
			if got != tt.warned {
				t.Errorf("warned %v, want %v (verdict %s); warnings %q", got, tt.warned, sc.Verdict, sc.Warnings)
			}
		})
	}
	// A suite that pools its run-to-run noise measures the shift: no
	// warning even for a regression.
	rng := rand.New(rand.NewPCG(8, 8))
	var base, cand []*result.Result
	for i := range 6 {
		b, c := twoRuns(rng, 0.5), simRun(rng, 1, 0.02, 5, 5)
		if i == 0 {
			c = simRun(rng, 1.4, 0.02, 5, 5)
		}
		name := fmt.Sprintf("s%d", i)
		b.Scenario, c.Scenario = name, name
		base, cand = append(base, b), append(cand, c)
	}
	c, err := Compare(base, cand, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if sc := c.Scenarios[0]; sc.RunToRunSource != RunToRunPooled || strings.Contains(strings.Join(sc.Warnings, "\n"), want) {
		t.Errorf("pooled suite: source %q, verdict %s, warnings %q: want pooled and no run-shift warning", sc.RunToRunSource, sc.Verdict, sc.Warnings)
	}
}
