package compare

import "github.com/perfgate/perfgate/result"

// serverComputeOf is trial t's server-side mean compute time per request
// in milliseconds (Telemetry.ServerMs.Compute, from the server's
// Prometheus counters), 0 when the trial has none.
func serverComputeOf(t *result.Trial) float64 {
	if t.Telemetry == nil || t.Telemetry.ServerMs == nil {
		return 0
	}
	return t.Telemetry.ServerMs.Compute
}

// serverComputeThreshold is whether s gates server_compute_ms, and its
// threshold: ServerComputeRegression, or P99Regression when it is only
// reported.
func serverComputeThreshold(s Settings) (bool, float64) {
	if s.ServerComputeRegression > 0 {
		return true, s.ServerComputeRegression
	}
	return false, s.P99Regression
}

// serverCompute compares the server's own mean compute time per request
// (server_compute_ms), when every valid trial of both sides has it (a
// server without such counters: not compared, and nothing said). Like
// the latency quantiles it is tested over target processes when the
// trials came from three or more in all (each process's value the mean
// of its trials', Student's t on their logarithms with the run-to-run
// variance runVar on runDF degrees of freedom added: a whole run's shift
// moves the server's compute as it moves the median), else over trials
// as the stream rates are (meanMetric: Mann-Whitney U and a bootstrap of
// the mean). gated is false after a sweep, whose trials ran at each
// side's own knee rate.
func serverCompute(bs, cs *side, s Settings, gated bool, runVar, runDF float64, rs *resampler) (Metric, bool) {
	if bs.compute == nil || cs.compute == nil {
		return Metric{}, false
	}
	on, thr := serverComputeThreshold(s)
	gb, gc := groupsOf(bs.computeProc, 0), groupsOf(cs.computeProc, 0)
	var m Metric
	if len(gb)+len(gc) >= 3 {
		xb, xc := unitMeans(bs.compute, gb), unitMeans(cs.compute, gc)
		if t, ok := processTestDF(xb, xc, s.Confidence, runVar, runDF); ok {
			eq, _ := processTestDF(xb, xc, equivConf(s.Confidence), runVar, runDF)
			m = latencyMetric(Estimate{Method: MethodProcesses, Base: t.base, Cand: t.cand,
				DeltaPct: pctChange(t.base, t.cand), CIPct: t.ci, EquivCIPct: &eq.ci, P: t.p,
				NBase: len(gb), NCand: len(gc), NBaseTrials: len(bs.compute), NCandTrials: len(cs.compute),
				RunToRunVar: runVar}, MetricServerCompute)
		}
	}
	if m.Metric == "" {
		var ok bool
		if m, ok = meanMetric(MetricServerCompute, bs.compute, cs.compute, thr, s, rs); !ok {
			return Metric{}, false
		}
	}
	m.ThresholdPct, m.BetterIs, m.Gated = 100*thr, LowerIsBetter, on && gated
	return m, true
}

// unitMeans is the mean of v over each unit (indexes into v).
func unitMeans(v []float64, units [][]int) []float64 {
	out := make([]float64, len(units))
	for u, idx := range units {
		for _, i := range idx {
			out[u] += v[i]
		}
		out[u] /= float64(len(idx))
	}
	return out
}
