package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// processMetric builds a gated P99 metric from per-process values the way
// quantileMetrics does, with run-to-run variance extra.
func processMetric(t *testing.T, x, y []float64, extra float64) Metric {
	t.Helper()
	tt, ok := processTest(x, y, 0.95, extra)
	p, ci, gx, gy := tt.p, tt.ci, tt.base, tt.cand
	if !ok {
		t.Fatal("processTest refused the sample")
	}
	return Metric{Metric: MetricP99, Baseline: gx, Candidate: gy, DeltaPct: pctChange(gx, gy), CIPct: ci,
		PValue: ptr(p), ThresholdPct: 5, BetterIs: LowerIsBetter, Gated: true, Method: MethodProcesses,
		NBase: len(x), NCand: len(y), RunToRunVar: extra}
}

func lognormals(rng *rand.Rand, n int, scale, sigma float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * math.Exp(sigma*rng.NormFloat64())
	}
	return v
}

// TestMDECalibrated checks that mde_pct means what it says: a true change
// of the MDE that A/A comparisons of the same design reported is found
// significant in about 80% of comparisons.
func TestMDECalibrated(t *testing.T) {
	for _, tt := range []struct {
		name   string
		n      int
		sigma  float64
		family int
	}{
		{"5 processes, 8% noise, alone", 5, 0.08, 1},
		{"8 processes, 15% noise, one of 21 tests", 8, 0.15, 21},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(tt.n)))
			var mdes []float64
			for range 400 {
				m := processMetric(t, lognormals(rng, tt.n, 10, tt.sigma), lognormals(rng, tt.n, 10, tt.sigma), 0)
				fillMDE(&m, 0.95, tt.family, RunToRunAssumed)
				if m.MDEPct == nil {
					t.Fatal("no MDE on a tested gated metric")
				}
				mdes = append(mdes, *m.MDEPct)
			}
			sort.Float64s(mdes)
			mde := mdes[len(mdes)/2]
			level := 0.05 / float64(tt.family)
			hits := 0
			const runs = 1000
			for range runs {
				x, y := lognormals(rng, tt.n, 10, tt.sigma), lognormals(rng, tt.n, 10*(1+mde/100), tt.sigma)
				if tt, _ := processTest(x, y, 0.95, 0); tt.p < level {
					hits++
				}
			}
			power := float64(hits) / runs
			t.Logf("median MDE %.1f%%; a true change of that size found in %d/%d (%.0f%%)", mde, hits, runs, 100*power)
			if power < 0.7 || power > 0.9 {
				t.Errorf("power at the reported MDE %.1f%% = %.2f, want about 0.8", mde, power)
			}
		})
	}
}

// The lever: with no run-to-run term more processes bring the MDE to the
// threshold, and the count is right; with an assumed run-to-run noise no
// count can, and the metric says why.
func TestMDELever(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x, y := lognormals(rng, 5, 10, 0.1), lognormals(rng, 5, 10, 0.1)
	m := processMetric(t, x, y, 0)
	fillMDE(&m, 0.95, 1, RunToRunAssumed)
	if m.MDEUnitsNeeded <= 5 || m.MDEBound != "" || m.MDEUnit != "target processes" {
		t.Fatalf("MDE %v: units %d %q bound %q, want more than 5 target processes and no bound", *m.MDEPct, m.MDEUnitsNeeded, m.MDEUnit, m.MDEBound)
	}
	// The same spread with the lever's count of processes a side: the MDE
	// is then at the threshold (within the t quantile's change).
	n := m.MDEUnitsNeeded
	lx, _ := logs(x)
	ly, _ := logs(y)
	_, vx := meanVar(lx)
	_, vy := meanVar(ly)
	s2 := (vx + vy) / 2
	se := math.Sqrt(s2 * 2 / float64(n))
	got := 100 * math.Expm1((quantileFor(Metric{Method: MethodProcesses, NBase: n, NCand: n}, 0.05)+0.8416)*se)
	if got > 5.5 {
		t.Errorf("with %d processes a side the MDE would be %.1f%%, want about the 5%% threshold", n, got)
	}
	assumed := DefaultSettings().runVar(false)
	ma := processMetric(t, x, y, assumed)
	fillMDE(&ma, 0.95, 1, RunToRunAssumed)
	if ma.MDEUnitsNeeded != 0 || ma.MDEBound != MDEBoundRunToRun || !slices.Contains(ma.Levers, LeverTwoRunBaseline) {
		t.Errorf("with 15%% run-to-run assumed: units %d bound %q, want no count, the run-to-run bound and a baseline from two runs", ma.MDEUnitsNeeded, ma.MDEBound)
	}
	// A baseline of two runs already: what is left is the candidate's own
	// run shift, which a history or gate --ab measures, not a second run.
	mf := processMetric(t, x, y, assumed/2)
	fillMDE(&mf, 0.95, 1, RunToRunNoiseFloor)
	if slices.Contains(mf.Levers, LeverTwoRunBaseline) || !slices.Contains(mf.Levers, LeverHistory) || !slices.Contains(mf.Levers, LeverSameRunnerAB) {
		t.Errorf("against a two-run baseline: levers %v, want a history or a same-runner A/B, not a baseline from two runs", mf.Levers)
	}
}

// tauSquared recovers a known between-scenario variance, and the pooled
// estimate leaves the tested scenario out: a scenario that really moved
// does not widen its own test.
func TestPooledRunNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const k, tau, within = 400, 0.12, 0.04
	d, v := make([]float64, k), make([]float64, k)
	for i := range d {
		d[i] = tau*rng.NormFloat64() + within*rng.NormFloat64()
		v[i] = within * within
	}
	if got := math.Sqrt(tauSquared(d, v)); math.Abs(got-tau) > 0.015 {
		t.Errorf("tau = %.3f, want about %.3f", got, tau)
	}
	ms := []moved{{d: math.Log(2), v: 0.0004, ok: true}} // the changed one
	for range 8 {
		ms = append(ms, moved{d: 0.03 * rng.NormFloat64(), v: 0.0004, ok: true})
	}
	s := DefaultSettings()
	got := poolRunNoise(names(len(ms)), floorsOf(len(ms), 0), all(len(ms)), ms, ms, ms, s)
	if got[0].latSrc != RunToRunPooled || got[0].latDF != 7 {
		t.Fatalf("scenario 0: source %q df %v, want pooled over 8 others (7 df)", got[0].latSrc, got[0].latDF)
	}
	if pct := 100 * math.Sqrt(got[0].lat/2); pct > 6 {
		t.Errorf("the doubled scenario's own noise is %.1f%% a run: its change leaked into its own test", pct)
	}
	if pct := 100 * math.Sqrt(got[1].lat/2); pct < 10 {
		t.Errorf("another scenario's noise is %.1f%% a run: the doubling among its others should widen it (conservative)", pct)
	}
	few := poolRunNoise(names(4), floorsOf(4, 0), all(4), ms[:4], ms[:4], ms[:4], s)
	if few[0].latSrc != RunToRunAssumed || few[0].lat != s.runVar(false) {
		t.Errorf("with 3 others: source %q var %v, want the assumed %v", few[0].latSrc, few[0].lat, s.runVar(false))
	}
	// Two runs that agreed leave the candidate's own run shift in the
	// test: gate.run_to_run for its one run.
	if fl := poolRunNoise(names(4), floorsOf(4, 1, 0), all(4), ms[:4], ms[:4], ms[:4], s); fl[0].latSrc != RunToRunNoiseFloor || fl[0].lat != s.runVar(false)/2 || !math.IsInf(fl[0].latDF, 1) {
		t.Errorf("a baseline whose two runs agree within their sampling, 3 others: source %q var %v df %v, want noise floor and the candidate's run shift %v", fl[0].latSrc, fl[0].lat, fl[0].latDF, s.runVar(false)/2)
	}
	if fl := poolRunNoise(names(4), floorsOf(4, 25, 0), all(4), ms[:4], ms[:4], ms[:4], s); fl[0].latSrc != RunToRunNoiseFloor || fl[0].lat <= s.runVar(false)/2 || fl[0].latDF != priorRuns+1 {
		t.Errorf("a baseline whose two runs disagree by 25%%, 3 others: source %q var %v df %v, want noise floor, its excess pooled with the assumed shift on %d df", fl[0].latSrc, fl[0].lat, fl[0].latDF, priorRuns+1)
	}
	if fl := poolRunNoise(names(6), floorsOf(6, 1, 0, 1, 2, 3, 4, 5), all(6), ms[:6], ms[:6], ms[:6], s); fl[0].latSrc != RunToRunPooled || fl[0].lat == 0 {
		t.Errorf("baselines with noise floors, 5 others: source %q var %v, want pooled: the candidate's own run moved too", fl[0].latSrc, fl[0].lat)
	}
}

// floorsOf is n baselines' noise floors: a P99 and max-QPS floor of pct
// percent at the indexes given (none when pct is 0), none elsewhere.
func floorsOf(n int, pct float64, at ...int) []map[string]float64 {
	out := make([]map[string]float64, n)
	for _, i := range at {
		if pct <= 0 {
			break
		}
		out[i] = map[string]float64{MetricP99: pct, MetricP50: pct, MetricMaxQPS: pct}
	}
	return out
}

func all(n int) []bool {
	b := make([]bool, n)
	for i := range b {
		b[i] = true
	}
	return b
}

func names(n int) []string {
	v := make([]string, n)
	for i := range v {
		v[i] = fmt.Sprintf("s%d", i)
	}
	return v
}

// movedOf reads how far a scenario moved between the runs only from a
// test it can trust: a P99 resting on too few requests a unit (its
// slowest request) is left out of the pooled run-to-run estimate, which
// it would otherwise widen for every other scenario.
func TestMovedOfSparse(t *testing.T) {
	m := Metric{Metric: MetricP99, Method: MethodProcesses, DeltaPct: 80, CIPct: [2]float64{10, 190}}
	sc := ScenarioComparison{Scenario: "llm", Metrics: []Metric{m}}
	tests := []struct {
		name   string
		need   int
		wantOK bool
	}{
		{"enough requests a unit", 0, true},
		{"5 requests a unit", 100, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc.Metrics[0].RequestsNeeded = tt.need
			got := movedOf(sc, MetricP99, MethodProcesses, 0.95)
			if got.ok != tt.wantOK {
				t.Fatalf("movedOf ok = %v, want %v", got.ok, tt.wantOK)
			}
			if got.ok && math.Abs(got.d-math.Log(1.8)) > 1e-9 {
				t.Errorf("d = %v, want log 1.8", got.d)
			}
		})
	}
}

// A whole run that moved every scenario alike is run-to-run noise the
// scatter between scenarios (τ²) cannot see: the others' common shift is
// added (beyond what the others' sampling noise explains), so an A/A whose second run was
// 30% faster throughout is not read as 30% improvements; with no common
// shift the pooled estimate is τ² alone, on the others less one.
func TestPooledRunNoiseCommonShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const within = 0.02
	tests := []struct {
		name           string
		shift          float64
		minPct, maxPct float64 // per-run noise, percent
		minDF, maxDF   float64
	}{
		{"no common shift", 0, 0, 6, 7, 7},
		{"every scenario 30% faster", math.Log(0.7), 20, 35, 7, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ms []moved
			for range 9 {
				ms = append(ms, moved{d: tt.shift + 0.02*rng.NormFloat64(), v: within * within, ok: true})
			}
			got := poolRunNoise(names(len(ms)), floorsOf(len(ms), 0), all(len(ms)), ms, ms, ms, DefaultSettings())
			pct := 100 * math.Expm1(math.Sqrt(got[0].lat/2))
			if got[0].latSrc != RunToRunPooled || pct < tt.minPct || pct > tt.maxPct {
				t.Errorf("per-run noise %.1f%% (%s), want %s in [%g%%, %g%%]", pct, got[0].latSrc, RunToRunPooled, tt.minPct, tt.maxPct)
			}
			if df := got[0].latDF; df < tt.minDF || df > tt.maxDF {
				t.Errorf("degrees of freedom %.2f, want in [%g, %g]", df, tt.minDF, tt.maxDF)
			}
		})
	}
}

// A metric that more units could not bring to its threshold names the
// lever that is left: gate --ab against a stored baseline, only a quieter
// runner in a gate --ab run (the A/B beside a CPU hog said "a quieter
// runner or gate --ab" of its own knee).
func TestMDELimitLever(t *testing.T) {
	tests := []struct {
		method string
		wantAB bool
	}{{MethodProcesses, true}, {MethodKneeEstimates, true}, {MethodPaired, false}, {MethodPairedKnees, false}}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			// An interval of ±300% from 4 units a side: thousands needed.
			m := Metric{Metric: MetricMaxQPS, Gated: true, PValue: ptr(0.5), Method: tt.method, NBase: 4, NCand: 4,
				CIPct: [2]float64{-75, 300}, ThresholdPct: 5, BetterIs: HigherIsBetter}
			fillMDE(&m, 0.95, 1, RunToRunAssumed)
			if m.MDEBound != MDEBoundUnits {
				t.Fatalf("bound %q, want more units than any count (%q)", m.MDEBound, MDEBoundUnits)
			}
			if got := slices.Contains(m.Levers, LeverSameRunnerAB); got != tt.wantAB || !slices.Contains(m.Levers, LeverQuietRunner) {
				t.Errorf("levers %v: a same-runner A/B %v, want %v, and a quiet runner", m.Levers, got, tt.wantAB)
			}
		})
	}
}
