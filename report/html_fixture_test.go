package report

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
)

// trialsOf returns n trials whose latencies are log-normal around medianMs
// (sigma 0.35, so P99 ≈ 2.26 × the median), each with a real histogram, a
// per-second timeline of secs seconds at rate rps with a stall in second
// stallAt of trial stallTrial (−1 for none), and, when llm, streaming
// histograms.
func trialsOf(t testing.TB, seed uint64, n int, medianMs, rps float64, secs, stallTrial, stallAt int, llm bool) []result.Trial {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []result.Trial
	for i := range n {
		h := result.NewHistogram()
		ttft, tpot, itl := result.NewHistogram(), result.NewHistogram(), result.NewHistogram()
		ps := &result.PerSecond{}
		for s := range secs {
			k := int(rps)
			p99 := 0.0
			scale := medianMs
			if i == stallTrial && s == stallAt {
				k, scale = int(rps/5), medianMs*6
			}
			sh := result.NewHistogram()
			for range k {
				v := scale * math.Exp(0.35*rng.NormFloat64()) * (1 + 0.02*float64(i))
				d := time.Duration(v * float64(time.Millisecond))
				result.RecordDuration(h, d)
				result.RecordDuration(sh, d)
				if llm {
					result.RecordDuration(ttft, d/4)
					result.RecordDuration(tpot, d/40)
					result.RecordDuration(itl, time.Duration(float64(d/40)*math.Exp(0.5*rng.NormFloat64())))
				}
			}
			p99 = float64(sh.ValueAtQuantile(99)) / 1000
			ps.Achieved = append(ps.Achieved, int64(k))
			ps.Errors = append(ps.Errors, 0)
			ps.P99Ms = append(ps.P99Ms, p99)
		}
		tr := result.Trial{Requests: h.TotalCount(), AchievedRPS: float64(h.TotalCount()) / float64(secs),
			DurationS: float64(secs), Latency: result.LatencyOf(h), Valid: i != 1 || n < 4, PerSecond: ps}
		var err error
		if tr.Histogram, err = result.EncodeHistogram(h); err != nil {
			t.Fatal(err)
		}
		if llm {
			tpotL, itlL := result.LatencyOf(tpot), result.LatencyOf(itl)
			tr.LLM = &result.LLM{TTFT: result.LatencyOf(ttft), TPOT: &tpotL, ITL: &itlL}
			tr.LLM.TTFTHistogram, _ = result.EncodeHistogram(ttft)
			tr.LLM.TPOTHistogram, _ = result.EncodeHistogram(tpot)
			tr.LLM.ITLHistogram, _ = result.EncodeHistogram(itl)
		}
		out = append(out, tr)
	}
	return out
}

// addRounds appends n confirmation rounds to c as knee.Confirm probes
// them: the bracket's low rate, its high rate, and in the last round a
// step above, each round's latency a little different (a fresh process).
func addRounds(c *result.Capacity, n int) {
	lo, hi := c.Bracket[0], c.Bracket[1]
	slo := c.SLOP99Ms
	c.Estimates = []float64{c.MaxQPS}
	for k := 1; k <= n; k++ {
		f := 1 + 0.06*float64(k-2)
		rates := []float64{lo, hi}
		if k == n {
			f = 0.7 // this process was faster: the knee lies above
			rates = append(rates, hi*1.1)
		}
		for _, rate := range rates {
			p99 := slo * f * math.Pow(rate/lo, 6) * 0.85
			c.Points = append(c.Points, result.Point{OfferedRPS: rate, AchievedRPS: rate, Pass: p99 <= slo,
				Latency: result.Latency{P50: p99 / 3, P99: p99}})
			c.Windows++
			c.ConfirmWindows++
		}
		c.Estimates = append(c.Estimates, lo*(1+0.02*float64(k)))
	}
}

// htmlReport is sampleReport with what the HTML report draws: real
// histograms and per-second timelines on both sides, a streaming scenario
// and a ladder.
func htmlReport(t testing.TB) *Report {
	t.Helper()
	r := sampleReport(t)
	for i, res := range r.Baseline {
		res.Trials = trialsOf(t, uint64(10+i), 5, 4, 60, 6, -1, 0, false)
		res.Summary.OfferedRPS = 60
	}
	for i, res := range r.Candidate {
		res.Trials = trialsOf(t, uint64(20+i), 5, 4.6, 60, 6, 2, 3, false)
		res.Summary.OfferedRPS = 60
	}
	// The PR's first knee confirmed in three rounds (knee.Confirm): the
	// load curve draws each round apart from the search.
	for _, res := range r.Candidate {
		if c := res.Capacity; c != nil && c.Found && c.Bracket[1] > 0 {
			addRounds(c, 3)
			break
		}
	}
	llm := func(seed uint64, med float64) *result.Result {
		return &result.Result{Schema: result.Schema, Scenario: "service/llm-stream", Layer: "service", Protocol: "openai", Valid: true,
			Load: result.Load{Mode: "rate", Rate: 20, Trials: 3}, Summary: result.Summary{OfferedRPS: 20},
			Trials: trialsOf(t, seed, 3, med, 20, 5, -1, 0, true)}
	}
	r.Baseline = append(r.Baseline, llm(31, 80))
	r.Candidate = append(r.Candidate, llm(32, 76))
	r.Comparison.Scenarios = append(r.Comparison.Scenarios, compare.ScenarioComparison{
		Scenario: "service/llm-stream", Layer: "service", Verdict: compare.Inconclusive, BaseTrials: 3, CandTrials: 3,
		Metrics: []compare.Metric{{Metric: compare.MetricP99, Baseline: 180, Candidate: 171, DeltaPct: -5, CIPct: [2]float64{-12, 3},
			Verdict: compare.Inconclusive, ThresholdPct: 5, Gated: true}}})
	r.Comparison.Ladder = &compare.LadderAttribution{
		Rungs: []string{"fp32", "int8", "int8+batching"},
		Steps: []compare.LadderStep{
			{From: "fp32", To: "int8", Layer: "model", P99: compare.Change{DeltaPct: -30, CIPct: [2]float64{-34, -26}, Verdict: compare.Improved, Ratio: 0.7, LogRatio: math.Log(0.7)}},
			{From: "int8", To: "int8+batching", Layer: "service", P99: compare.Change{DeltaPct: 12, CIPct: [2]float64{6, 18}, Verdict: compare.Regressed, Ratio: 1.12, LogRatio: math.Log(1.12)}},
		},
		Whole: compare.LadderStep{From: "fp32", To: "int8+batching", P99: compare.Change{DeltaPct: -21.6, CIPct: [2]float64{-26, -17}, Verdict: compare.Improved, Ratio: 0.784, LogRatio: math.Log(0.784)}},
	}
	return r
}
