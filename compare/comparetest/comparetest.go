// Package comparetest builds synthetic perfgate results with real HDR
// histograms, for tests of comparison, baselines and reports. It is
// deterministic: the same Spec and seed give byte-identical results.
package comparetest

import (
	"math"
	"math/rand/v2"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perfgate/perfgate/result"
)

// Spec describes a synthetic scenario run.
type Spec struct {
	Scenario string
	Layer    string
	// Trials is the number of trials; Requests the requests per trial.
	Trials   int
	Requests int
	// MedianMs and Sigma shape the lognormal latency distribution (Sigma
	// is the standard deviation of log latency; 0.5 gives P99 ≈ 3.2×P50).
	MedianMs float64
	Sigma    float64
	// Scale multiplies every latency (1.15 is a 15% regression).
	Scale float64
	// Noise is the trial-to-trial noise: each trial's latencies are
	// scaled by an extra 1 + Noise·N(0,1) factor (0.03 for 3%).
	Noise float64
	// ErrorRate is the share of requests that fail in each trial.
	ErrorRate float64
	// MaxQPS and Bracket, when MaxQPS > 0, add a found capacity.
	MaxQPS  float64
	Bracket [2]float64
	// Streaming adds per-trial LLM figures (TTFT, TPOT histograms, tokens/s).
	Streaming bool
	// GPU names the environment's single GPU ("" for none).
	GPU string
}

// Result generates the run Spec describes, with rng as its only source of
// randomness.
func Result(sp Spec, rng *rand.Rand) *result.Result {
	if sp.Scale == 0 {
		sp.Scale = 1
	}
	if sp.Sigma == 0 {
		sp.Sigma = 0.5
	}
	r := &result.Result{
		Schema: result.Schema, Scenario: sp.Scenario, Layer: sp.Layer, Protocol: "http",
		StartedAt: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC),
		Environment: result.Environment{OS: "linux", CPU: "Test CPU 9000", Cores: 16,
			Perfgate: "v0.1.0-test"},
		Load:  result.Load{Mode: "rate", Rate: 1000, DurationS: 10, WarmupS: 1, Trials: sp.Trials},
		Valid: true,
	}
	if sp.GPU != "" {
		r.Environment.GPUs = []result.GPU{{Name: sp.GPU, Driver: "550.54", CUDA: "12.4", MIG: "disabled"}}
	}
	all := result.NewHistogram()
	var reqs, errs int64
	for range sp.Trials {
		f := sp.Scale * (1 + sp.Noise*rng.NormFloat64())
		h := lognormal(rng, sp.Requests, sp.MedianMs*f, sp.Sigma)
		e := int64(math.Round(sp.ErrorRate * float64(sp.Requests)))
		enc, err := result.EncodeHistogram(h)
		if err != nil {
			panic(err) // cannot happen for an in-memory histogram
		}
		t := result.Trial{Requests: int64(sp.Requests), Errors: e, AchievedRPS: 1000, DurationS: 10,
			Latency: result.LatencyOf(h), Histogram: enc, Valid: true}
		if sp.Streaming {
			t.LLM = llm(rng, sp.Requests/10, f)
		}
		r.Trials = append(r.Trials, t)
		_ = result.Merge(all, h)
		reqs += int64(sp.Requests)
		errs += e
	}
	r.Summary = result.Summary{Requests: reqs, Errors: errs, ErrorRate: float64(errs) / float64(reqs),
		AchievedRPS: 1000, Latency: result.LatencyOf(all)}
	if sp.MaxQPS > 0 {
		r.Capacity = &result.Capacity{SLOP99Ms: 50, MaxQPS: sp.MaxQPS, Bracket: sp.Bracket, Found: true, Windows: 8}
	}
	if sp.Streaming {
		r.LLM = r.Trials[0].LLM
	}
	return r
}

// lognormal records n lognormal latencies with the given median (ms).
func lognormal(rng *rand.Rand, n int, medianMs, sigma float64) *hdrhistogram.Histogram {
	h := result.NewHistogram()
	mu := math.Log(medianMs * 1000) // µs
	for range n {
		us := int64(math.Exp(mu + sigma*rng.NormFloat64()))
		result.RecordDuration(h, time.Duration(us)*time.Microsecond)
	}
	return h
}

// llm makes a trial's streaming figures from n requests, scaled by f.
func llm(rng *rand.Rand, n int, f float64) *result.LLM {
	ttft := lognormal(rng, n, 40*f, 0.3)
	tpot := lognormal(rng, n, 10*f, 0.2)
	encT, _ := result.EncodeHistogram(ttft)
	encP, _ := result.EncodeHistogram(tpot)
	return &result.LLM{TTFT: result.LatencyOf(ttft), TPOT: ptr(result.LatencyOf(tpot)),
		OutputTokensPerS: 5000 / f, GoodputRPS: 40 / f, TTFTHistogram: encT, TPOTHistogram: encP}
}

func ptr[T any](v T) *T { return &v }
