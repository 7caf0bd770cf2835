package compare

import (
	"math"

	"github.com/perfgate/perfgate/internal/stat"
	"github.com/perfgate/perfgate/result"
)

// GeoMean is the geometric mean of positive values (stat.GeoMean): exp of
// the mean of their logarithms, the centre of figures whose changes are
// ratios (latencies, rates, knee estimates). A value ≤ 0 gives 0; no
// values give NaN.
func GeoMean(v []float64) float64 { return stat.GeoMean(v) }

// KneeQPS is a capacity's max QPS as one figure: the geometric mean of
// its independent knee estimates (Capacity.Estimates, one per target
// process), or the knee (MaxQPS) when it has none. It is the value whose
// spread across runs the baselines' noise floor measures.
func KneeQPS(c *result.Capacity) float64 {
	if len(c.Estimates) == 0 {
		return c.MaxQPS
	}
	return GeoMean(c.Estimates)
}

// NoiseFloor is the run-to-run disagreement of one scenario measured in
// independent runs of the same code, per metric, in percent: for each
// metric the largest |a/b − 1| over pairs of runs, where a and b are the
// runs' P50 and P99 (of their merged trials), their max QPS (the
// geometric mean of their knee estimates, else the knee), and for
// streaming their TTFT and TPOT P50 and P99. It is what the same code
// shows between two runs, so the gate calls a regression only beyond it
// (see applyNoiseFloor). Metrics a run
// lacks are left out. baselines.CombineRuns records it on a baseline
// combined from runs (result.NoiseFloorPct).
func NoiseFloor(runs []*result.Result) map[string]float64 {
	out := map[string]float64{}
	vals := map[string][]float64{}
	for _, r := range runs {
		if r.Load.Mode != "sweep" && r.Summary.Latency.P99 > 0 {
			vals[MetricP99] = append(vals[MetricP99], r.Summary.Latency.P99)
		}
		if r.Load.Mode != "sweep" && r.Summary.Latency.P50 > 0 {
			vals[MetricP50] = append(vals[MetricP50], r.Summary.Latency.P50)
		}
		if c := r.Capacity; c != nil && c.Found {
			vals[MetricMaxQPS] = append(vals[MetricMaxQPS], KneeQPS(c))
		}
		if l := r.LLM; l != nil && r.Load.Mode != "sweep" {
			if l.TTFT.P99 > 0 {
				vals[MetricTTFTP99] = append(vals[MetricTTFTP99], l.TTFT.P99)
			}
			if l.TTFT.P50 > 0 {
				vals[MetricTTFTP50] = append(vals[MetricTTFTP50], l.TTFT.P50)
			}
			if l.TPOT != nil && l.TPOT.P50 > 0 {
				vals[MetricTPOTP50] = append(vals[MetricTPOTP50], l.TPOT.P50)
			}
			if l.TPOT != nil && l.TPOT.P99 > 0 {
				vals[MetricTPOTP99] = append(vals[MetricTPOTP99], l.TPOT.P99)
			}
		}
	}
	for m, v := range vals {
		if len(v) < 2 {
			continue
		}
		worst := 0.0
		for i := range v {
			for j := range v {
				if i != j && v[j] > 0 {
					worst = math.Max(worst, 100*math.Abs(v[i]/v[j]-1))
				}
			}
		}
		out[m] = math.Round(worst*10) / 10
	}
	return out
}
