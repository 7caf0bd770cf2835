package compare

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestEquivalenceCalibrated checks the `unchanged` rule (Decide on the
// (1−2α) interval, Schuirmann's two one-sided tests) keeps its promise: a
// true change exactly at the threshold, in either direction, is called
// unchanged in at most α of comparisons (plus Monte Carlo slack), and a
// true change of zero is called unchanged more often than the (1−α)
// interval would allow, which is what the rule is for.
func TestEquivalenceCalibrated(t *testing.T) {
	const runs, n, sigma, thr = 4000, 8, 0.03, 5.0
	rate := func(seed uint64, shift float64, eqLevel bool) float64 {
		conf := 0.95
		if eqLevel {
			conf = equivConf(0.95)
		}
		return unchangedRate(t, rand.New(rand.NewPCG(seed, 11)), runs, n, sigma, shift, conf, thr, 0)
	}
	// α plus three binomial standard errors at α.
	bound := 0.05 + 3*math.Sqrt(0.05*0.95/runs)
	for _, shift := range []float64{thr, -thr} {
		if r := rate(1, shift, true); r > bound {
			t.Errorf("true change %+.2f%% (at the threshold) called unchanged in %.1f%% of comparisons, want at most α = 5%% (bound %.1f%%)", shift, 100*r, 100*bound)
		} else {
			t.Logf("true change %+.2f%% (at the threshold): unchanged in %.1f%%", shift, 100*r)
		}
	}
	tost, wide := rate(2, 0, true), rate(2, 0, false)
	t.Logf("true change 0: unchanged in %.1f%% with the 90%% interval, %.1f%% with the 95%% one", 100*tost, 100*wide)
	if tost <= wide {
		t.Errorf("A/A: the equivalence interval decided unchanged in %.1f%%, no more than the 95%% interval's %.1f%%", 100*tost, 100*wide)
	}
}

// TestTailMarginCalibrated: with a margin of unchanged wider than the
// threshold (Settings.P99Equivalence), a true change exactly at the
// margin, in either direction, is called unchanged in at most α of
// comparisons (the two one-sided tests at the margin), and a true change
// of zero is called unchanged more often than at the threshold alone,
// which is what the margin is for.
func TestTailMarginCalibrated(t *testing.T) {
	const runs, n, sigma, thr, margin = 4000, 8, 0.10, 5.0, 10.0
	rate := func(seed uint64, shift, margin float64) float64 {
		return unchangedRate(t, rand.New(rand.NewPCG(seed, 13)), runs, n, sigma, shift, equivConf(0.95), thr, margin)
	}
	bound := 0.05 + 3*math.Sqrt(0.05*0.95/runs)
	for _, shift := range []float64{margin, -margin} {
		if r := rate(3, shift, margin); r > bound {
			t.Errorf("true change %+.0f%% (at the margin) called unchanged in %.1f%% of comparisons, want at most α = 5%% (bound %.1f%%)", shift, 100*r, 100*bound)
		} else {
			t.Logf("true change %+.0f%% (at the margin): unchanged in %.1f%%", shift, 100*r)
		}
	}
	withMargin, atThreshold := rate(4, 0, margin), rate(4, 0, 0)
	t.Logf("true change 0: unchanged in %.1f%% with a ±%.0f%% margin, %.1f%% at the ±%.0f%% threshold", 100*withMargin, margin, 100*atThreshold, thr)
	if withMargin <= atThreshold+0.2 {
		t.Errorf("A/A: unchanged in %.1f%% with the margin against %.1f%% without: want the margin to decide far more", 100*withMargin, 100*atThreshold)
	}
}

// unchangedRate is the share of runs comparisons that Decide calls
// unchanged: n lognormal values a side around 10 (log spread sigma), the
// candidate's moved by shift percent, tested over processes at confidence
// conf, with threshold thr and margin of unchanged margin (0: thr).
func unchangedRate(t *testing.T, rng *rand.Rand, runs, n int, sigma, shift, conf, thr, margin float64) float64 {
	t.Helper()
	hits := 0
	for range runs {
		x, y := lognormals(rng, n, 10, sigma), lognormals(rng, n, 10*(1+shift/100), sigma)
		tt, ok := processTest(x, y, conf, 0)
		if !ok {
			t.Fatal("processTest refused the sample")
		}
		if Decide(Evidence{DeltaPct: pctChange(tt.base, tt.cand), EquivCIPct: tt.ci, ThresholdPct: thr, EquivalencePct: margin,
			BetterIs: LowerIsBetter, P: tt.p, Alpha: 0.05}) == Unchanged {
			hits++
		}
	}
	return float64(hits) / float64(runs)
}

// TestNoWorseCalibrated: beside an improved median, a tail whose true
// change is a regression of exactly its margin (the threshold, or a wider
// P99 margin) lets the scenario read improved (noWorse) in at most α of
// comparisons: the bad half of the two one-sided tests, at the level of
// unchanged. A tail that did not move yields far more often, which is what
// the rule is for.
func TestNoWorseCalibrated(t *testing.T) {
	const runs, n, sigma, thr = 4000, 8, 0.05, 5.0
	improvedRate := func(seed uint64, shift, margin float64) float64 {
		rng := rand.New(rand.NewPCG(seed, 17))
		p50 := Metric{Metric: MetricP50, Verdict: Improved, Gated: true, ThresholdPct: thr, BetterIs: LowerIsBetter}
		hits := 0
		for range runs {
			x, y := lognormals(rng, n, 10, sigma), lognormals(rng, n, 10*(1+shift/100), sigma)
			tt, ok := processTest(x, y, equivConf(0.95), 0)
			if !ok {
				t.Fatal("processTest refused the sample")
			}
			m := Metric{Metric: MetricP99, Gated: true, DeltaPct: pctChange(tt.base, tt.cand), EquivCIPct: &tt.ci,
				ThresholdPct: thr, EquivalencePct: margin, BetterIs: LowerIsBetter}
			m.Verdict = Decide(m.evidence(tt.p, 0.05))
			if scenarioVerdict([]Metric{p50, m}) == Improved {
				hits++
			}
		}
		return float64(hits) / float64(runs)
	}
	bound := 0.05 + 3*math.Sqrt(0.05*0.95/runs)
	for _, margin := range []float64{0, 10} {
		edge := max(thr, margin)
		r, a := improvedRate(5, edge, margin), improvedRate(6, 0, margin)
		if r > bound {
			t.Errorf("margin %.0f%%: a tail %+.0f%% worse read improved beside the median in %.1f%% of comparisons, want at most α = 5%% (bound %.1f%%)", edge, edge, 100*r, 100*bound)
		}
		if a < 0.5 {
			t.Errorf("margin %.0f%%: a tail that did not move yielded in %.1f%% of comparisons, want most", edge, 100*a)
		}
		t.Logf("margin %.0f%%: improved beside a tail %+.0f%% worse in %.1f%%, beside one unmoved in %.1f%%", edge, edge, 100*r, 100*a)
	}
}
