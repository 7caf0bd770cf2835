package compare

import (
	"math"
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
