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
		rng := rand.New(rand.NewPCG(seed, 11))
		hits := 0
		for range runs {
			x, y := lognormals(rng, n, 10, sigma), lognormals(rng, n, 10*(1+shift/100), sigma)
			conf := 0.95
			if eqLevel {
				conf = equivConf(0.95)
			}
			tt, ok := processTest(x, y, conf, 0)
			p, ci, gx, gy := tt.p, tt.ci, tt.base, tt.cand
			if !ok {
				t.Fatal("processTest refused the sample")
			}
			if Decide(Evidence{DeltaPct: pctChange(gx, gy), EquivCIPct: ci, ThresholdPct: thr, BetterIs: LowerIsBetter, P: p, Alpha: 0.05}) == Unchanged {
				hits++
			}
		}
		return float64(hits) / runs
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
