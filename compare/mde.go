package compare

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Power is the power at which MDEPct is stated: the smallest true change
// the test calls significant in 80% of runs.
const Power = 0.8

// MaxMDEUnits caps MDEUnitsNeeded: beyond it the lever is not more units
// (MDEBoundUnits).
const MaxMDEUnits = 1000

// MDEBound says why more units cannot bring a metric's MDE to its
// threshold (Metric.MDEBound); report says it in words.
type MDEBound string

const (
	// MDEBoundRunToRun: the run-to-run variance in the test
	// (Metric.RunToRunVar), which more units do not shrink, keeps the MDE
	// above the threshold.
	MDEBoundRunToRun MDEBound = "run-to-run"
	// MDEBoundUnits: more than MaxMDEUnits a side would be needed.
	MDEBoundUnits MDEBound = "units"
)

// Sensitivity is what a comparison could detect for one gated metric,
// over the scenarios that test it.
type Sensitivity struct {
	Metric string `json:"metric"`
	// Scenarios is how many scenarios' tests of Metric had an MDE.
	Scenarios int `json:"scenarios"`
	// MedianMDEPct and MaxMDEPct summarise their MDEPct; WorstScenario
	// is the scenario with the largest.
	MedianMDEPct  float64 `json:"median_mde_pct"`
	MaxMDEPct     float64 `json:"max_mde_pct"`
	WorstScenario string  `json:"worst_scenario"`
	ThresholdPct  float64 `json:"threshold_pct"`
	Absolute      bool    `json:"absolute,omitempty"`
	// UnitsNeeded, Unit, Bound and RunToRunVar are the worst scenario's
	// MDEUnitsNeeded, MDEUnit, MDEBound and RunToRunVar when its MDE is
	// above the threshold: so many units a side would bring it there, or
	// why units cannot.
	UnitsNeeded int      `json:"units_needed,omitempty"`
	Unit        string   `json:"unit,omitempty"`
	Bound       MDEBound `json:"bound,omitempty"`
	RunToRunVar float64  `json:"run_to_run_var,omitempty"`
	// Lever says the same in words. compare leaves it empty: report
	// writes it (report.SensitivityLever), and into the JSON.
	Lever string `json:"lever,omitempty"`
}

// quantileFor is the two-sided critical value of m's test at level a
// (Student's t for the tests over processes, knee estimates and A/B
// units, the normal for rank tests with bootstrap intervals).
func quantileFor(m Metric, a float64) float64 {
	df := 0.0
	switch m.Method {
	case MethodProcesses, MethodKneeEstimates:
		df = float64(m.NBase + m.NCand - 2)
	case MethodPaired, MethodPairedKnees:
		df = float64(m.NBase - 1)
	}
	if df >= 1 {
		return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - a/2)
	}
	return distuv.UnitNormal.Quantile(1 - a/2)
}

// unitOf names the units of m's test, a label that reads as it is in a
// sentence.
func unitOf(m Metric) string {
	switch m.Method {
	case MethodProcesses:
		return "target processes"
	case MethodKneeEstimates, MethodBracket:
		return "knee estimates"
	case MethodPaired:
		return "pairs"
	case MethodPairedKnees:
		return MDEUnitKneeRounds
	}
	return "trials"
}

// MDEUnitKneeRounds is an A/B sweep's mde_unit, a value docs/formats.md
// fixes (a label, not a sentence: TestNoProseInStatistics lets it be).
const MDEUnitKneeRounds = "rounds of knee estimates"

// fillMDE sets MDEPct, MDEUnitsNeeded, MDEUnit and MDEBound on m from its
// interval, which was computed at Settings.Confidence: the interval's
// half-width is q·se (on the log scale for relative metrics), so
// MDE = (q_level + z_power)·se, where level is the test's real level
// (α shared by family tests, Holm's first step). A metric with no test
// (a bracket), an open or missing interval, or no positive width has none.
// src, the scenario's RunToRunSource, names the lever when run-to-run
// noise is the limit (runNoiseLever).
func fillMDE(m *Metric, conf float64, family int, src string) {
	m.MDEPct, m.MDEUnitsNeeded, m.MDEUnit, m.MDEBound, m.Levers = nil, 0, "", "", nil
	if !m.Gated || m.PValue == nil || m.CIOpenHigh || m.Method == MethodBracket {
		return
	}
	lo, hi := m.CIPct[0], m.CIPct[1]
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || hi <= lo {
		return
	}
	toScale, fromScale := func(x float64) float64 { return math.Log1p(x / 100) }, func(x float64) float64 { return 100 * math.Expm1(x) }
	if m.Absolute {
		toScale, fromScale = func(x float64) float64 { return x }, func(x float64) float64 { return x }
	} else if lo <= -100 {
		return
	}
	half := (toScale(hi) - toScale(lo)) / 2
	se := half / quantileFor(*m, 1-conf)
	alpha := (1 - conf) / float64(max(family, 1))
	k := quantileFor(*m, alpha) + distuv.UnitNormal.Quantile(Power)
	mde := fromScale(k * se)
	m.MDEPct = ptr(mde)
	m.MDEUnit = unitOf(*m)
	thr := toScale(m.ThresholdPct)
	if mde <= m.ThresholdPct || thr <= 0 {
		return
	}
	// se² = v + extra: v shrinks with the units, extra (a run-to-run
	// variance) does not.
	target := (thr / k) * (thr / k)
	extra := m.RunToRunVar
	v := se*se - extra
	if v <= 0 || extra >= target {
		m.MDEBound = MDEBoundRunToRun
		m.Levers = runNoiseLevers(src)
		return
	}
	var n float64
	switch m.Method {
	case MethodPaired:
		n = v * float64(m.NBase) / (target - extra)
	default:
		// v = σ²(1/nb + 1/nc); n a side gives σ²·2/n.
		nb, nc := float64(max(m.NBase, 1)), float64(max(m.NCand, 1))
		sigma2 := v / (1/nb + 1/nc)
		n = 2 * sigma2 / (target - extra)
	}
	if n > MaxMDEUnits {
		m.Levers = []Lever{LeverQuietRunner, LeverSameRunnerAB}
		if m.Method == MethodPaired || m.Method == MethodPairedKnees {
			m.Levers = []Lever{LeverQuietRunner} // already a same-runner A/B
		}
		m.MDEBound = MDEBoundUnits
		return
	}
	m.MDEUnitsNeeded = int(math.Ceil(n))
}

// sensitivity fills every gated metric's MDE and summarises them per
// metric across the compared scenarios. family is the number of tests a
// lone change competes with: those of the gate-wide correction for tests
// over processes and knee estimates, the scenario's own for the rest.
func sensitivity(scs []ScenarioComparison, s Settings) []Sensitivity {
	gateTests := 0
	for _, sc := range scs {
		if sc.Verdict == NoBaseline || sc.Invalid {
			continue
		}
		for _, m := range sc.Metrics {
			if m.Gated && m.PValue != nil && (m.Method == MethodProcesses || m.Method == MethodKneeEstimates) {
				gateTests++
			}
		}
	}
	type entry struct {
		scenario string
		m        Metric
	}
	by := map[string][]entry{}
	var order []string
	for i := range scs {
		sc := &scs[i]
		if sc.Verdict == NoBaseline || sc.Invalid {
			continue
		}
		own := 0
		for _, m := range sc.Metrics {
			if m.Gated && m.PValue != nil {
				own++
			}
		}
		for k := range sc.Metrics {
			m := &sc.Metrics[k]
			fam := own
			if m.Method == MethodProcesses || m.Method == MethodKneeEstimates {
				fam = max(gateTests, own)
			}
			fillMDE(m, s.Confidence, fam, sc.RunToRunSource)
			if m.MDEPct == nil {
				continue
			}
			if _, seen := by[m.Metric]; !seen {
				order = append(order, m.Metric)
			}
			by[m.Metric] = append(by[m.Metric], entry{sc.Scenario, *m})
		}
	}
	var out []Sensitivity
	for _, name := range order {
		es := by[name]
		sort.SliceStable(es, func(i, j int) bool { return *es[i].m.MDEPct < *es[j].m.MDEPct })
		worst := es[len(es)-1]
		vals := make([]float64, len(es))
		for i, e := range es {
			vals[i] = *e.m.MDEPct
		}
		st := Sensitivity{Metric: name, Scenarios: len(es), MedianMDEPct: median(vals), MaxMDEPct: *worst.m.MDEPct,
			WorstScenario: worst.scenario, ThresholdPct: worst.m.ThresholdPct, Absolute: worst.m.Absolute}
		if worst.m.MDEUnitsNeeded > 0 || worst.m.MDEBound != "" {
			st.UnitsNeeded, st.Unit, st.Bound, st.RunToRunVar = worst.m.MDEUnitsNeeded, worst.m.MDEUnit, worst.m.MDEBound, worst.m.RunToRunVar
		}
		out = append(out, st)
	}
	return out
}

// median is the middle of v (the mean of the two middle values for an
// even count); v is sorted in place.
func median(v []float64) float64 {
	sort.Float64s(v)
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}
