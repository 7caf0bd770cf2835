package compare

import (
	"math"
	"slices"
)

// Verdict is the outcome of a metric, a scenario or a whole comparison.
// Its JSON is the bare word ("regressed"), as docs/formats.md fixes it.
type Verdict string

// Top-level verdicts of a comparison, as docs/formats.md fixes them.
const (
	// Pass: nothing regressed (some scenarios may be inconclusive or lack a
	// baseline; the warnings say so).
	Pass Verdict = "pass"
	// Fail: at least one gated metric regressed.
	Fail Verdict = "fail"
	// NoBaseline: there was nothing to compare with.
	NoBaseline Verdict = "no-baseline"
	// Incomparable: the baseline was measured on other hardware and
	// AllowEnvMismatch was not set.
	Incomparable Verdict = "incomparable"
	// Undecided is the top-level "inconclusive": nothing regressed, but some
	// gated metric's point change is beyond its threshold and could not be
	// tested (too few trials, too much noise, a busy host), or every
	// compared result was invalid. The Reason says what and how many
	// trials would be needed. It is the same word as the metric verdict
	// Inconclusive.
	Undecided = Inconclusive
)

// Verdicts of a metric, and of a scenario (the worst of its gated metrics).
const (
	Improved     Verdict = "improved"
	Regressed    Verdict = "regressed"
	Unchanged    Verdict = "unchanged"
	Inconclusive Verdict = "inconclusive"
)

// Decided reports whether v is a decision about a change: regressed,
// improved or unchanged.
func (v Verdict) Decided() bool { return v == Regressed || v == Improved || v == Unchanged }

// The verdict pipeline. Every verdict of a metric, a scenario and a
// comparison is set in this file, in this order, and nowhere else:
//
//  1. Decide: each metric from its evidence (point change, equivalence
//     interval, threshold, p-value after Holm's correction).
//  2. Metric guards (metricGuards): the noise floor (unchanged within a
//     raised threshold but not within the configured one) and no test
//     (one knee a side).
//  3. Scenario guards (scenarioGuards), each downgrading the metrics it
//     cannot stand behind and recomputing the scenario's verdict (the
//     worst of its gated metrics, leaving out an inconclusive metric that
//     yields: a server compute time beside a median that decided, or a
//     metric no worse beside an improvement: yields): a sparse quantile,
//     a busy host, a runner shift, an invalid run.
//  4. The gate-wide family (gateWideGuard): a regression or improvement
//     not significant after Holm's correction over every gated test of
//     the comparison.
//  5. The top verdict (topLevel).
//
// A guard only ever downgrades (to inconclusive), never upgrades, and
// records why as data: a Downgrade on the scenario, its code on each
// metric it touched (Metric.Guard).

// ReasonCode names a guard: why a verdict was downgraded to inconclusive.
type ReasonCode string

// The guards' reason codes, in the order they run.
const (
	// ReasonNoiseFloor: unchanged within the baseline's noise floor, but the
	// equivalence interval leaves the configured threshold.
	ReasonNoiseFloor ReasonCode = "noise-floor"
	// ReasonNoTest: one knee a side (MethodBracket) has no test, so it is
	// never regressed or improved.
	ReasonNoTest ReasonCode = "no-test"
	// ReasonSparseQuantile: a quantile whose test unit held too few
	// requests (Metric.RequestsNeeded), not backed by the median.
	ReasonSparseQuantile ReasonCode = "sparse-quantile"
	// ReasonHostBusy: a change resting on trials or knee probes measured
	// while the host was busy with other work.
	ReasonHostBusy ReasonCode = "host-busy"
	// ReasonRunnerShift: a change the runner's own speed shift could
	// explain.
	ReasonRunnerShift ReasonCode = "runner-shift"
	// ReasonInvalidRun: either side's run was invalid or interrupted (or
	// an A/B run stopped early): never used to pass or fail.
	ReasonInvalidRun ReasonCode = "invalid-run"
	// ReasonGateWide: significant within its scenario, not after Holm's
	// correction over every gated test of the comparison.
	ReasonGateWide ReasonCode = "gate-wide"
)

// Downgrade is one guard's downgrade of a scenario's metrics: its code,
// the verdict it took away, the metrics it touched, and the numbers
// behind it (only those of its code are set).
type Downgrade struct {
	Code ReasonCode `json:"code"`
	// From is the verdict taken away (Regressed, Improved; anything for
	// ReasonInvalidRun and ReasonSparseQuantile).
	From Verdict `json:"from,omitempty"`
	// Metrics are the metrics downgraded.
	Metrics []string `json:"metrics,omitempty"`
	// Busy counts, side by side, the busy measurements the change rested
	// on (ReasonHostBusy).
	Busy []BusyCount `json:"busy,omitempty"`
	// ShiftPct is the runner's speed shift, positive slower
	// (ReasonRunnerShift).
	ShiftPct float64 `json:"shift_pct,omitempty"`
	// Tests is the size of the gate-wide family (ReasonGateWide).
	Tests int `json:"tests,omitempty"`
	// Causes are why either side's run cannot be trusted, as notes
	// (ReasonInvalidRun): NoteRunInterrupted, NoteRunInvalid,
	// NoteNoValidTrials, NoteUnreadableTrial.
	Causes []Note `json:"causes,omitempty"`
	// Why is a caller's own cause in words (an A/B run that stopped
	// early); in JSON, the words of Causes come first (report.NoteText).
	Why []string `json:"why,omitempty"`

	at []int // indexes of the metrics downgraded
}

// BusyCount is how many of one side's measurements (trials, or knee
// probes) were taken while the host was busy, and the load monitor's
// first reason.
type BusyCount struct {
	Side  string `json:"side"`
	Of    string `json:"of"`
	Busy  int    `json:"busy"`
	Total int    `json:"total"`
	Why   string `json:"why,omitempty"`
}

// Evidence is what Decide decides a change from, in the metric's units
// (percent, or points when absolute).
type Evidence struct {
	// DeltaPct is the point change.
	DeltaPct float64
	// EquivCIPct is the interval of the equivalence test: the method's
	// (1−2α) interval (Metric.EquivCIPct), or its only interval when it
	// has no test.
	EquivCIPct [2]float64
	// ThresholdPct is the threshold; BetterIs the direction in which the
	// metric is better (LowerIsBetter, HigherIsBetter).
	ThresholdPct float64
	BetterIs     string
	// EquivalencePct is the margin of `unchanged` when it is wider than
	// the threshold (Metric.EquivalencePct); 0: the threshold.
	EquivalencePct float64
	// P is the p-value of no change: NaN when there is no test, as for a
	// max QPS from one knee a side. Alpha is the level it is tested at.
	P, Alpha float64
}

// Decide is perfgate's one verdict rule, used by every mode (stored
// baselines, same-runner A/B, ladder steps, max QPS) and documented once
// in docs/verdicts.md ("One meaning of regressed"). With thr the threshold
// e.ThresholdPct and alpha the level e.Alpha, the change e is:
//
//   - regressed: the point change is beyond thr in the bad direction and
//     the test rejects no change at alpha;
//   - improved: likewise in the good direction;
//   - unchanged: the whole interval lies inside ±thr: Schuirmann's two
//     one-sided tests (TOST), each at alpha, reject a change of thr or
//     more in either direction, so a real change of thr is called
//     unchanged at most at alpha. Their interval is the (1−2α) one (90%
//     at 95% confidence); asking the (1−α) interval to fit would test at
//     alpha/2 and leave most real A/A comparisons undecided. With a
//     wider margin e.EquivalencePct (a tail quantile's), the interval
//     must lie inside ±margin and the point change inside ±thr: a real
//     change of the margin is called unchanged at most at alpha, and no
//     point change the gate would call a regression reads unchanged;
//   - inconclusive: anything else, and any interval with a NaN end.
//
// Requiring the whole interval beyond thr to call a regression would miss
// most real regressions of a few times thr with a handful of processes or
// pairs; the threshold guards practical significance and the test
// statistical significance, so an A/A gate calls a regression at most at
// alpha/2. Without a test (e.P NaN) nothing is regressed or improved.
func Decide(e Evidence) Verdict {
	delta, thr := e.DeltaPct, e.ThresholdPct
	lo, hi := e.EquivCIPct[0], e.EquivCIPct[1]
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsNaN(delta) {
		return Inconclusive
	}
	significant := e.P < e.Alpha // false when P is NaN
	worse, better := delta > thr, delta < -thr
	if e.BetterIs == HigherIsBetter {
		worse, better = delta < -thr, delta > thr
	}
	switch {
	case worse && significant:
		return Regressed
	case better && significant:
		return Improved
	case lo >= -thr && hi <= thr:
		return Unchanged
	case e.EquivalencePct > thr && lo >= -e.EquivalencePct && hi <= e.EquivalencePct && !worse && !better:
		return Unchanged
	}
	return Inconclusive
}

// decidePaired applies Holm's correction across the gated metrics of a
// paired scenario (but the untestable ones) and decides each at level.
func decidePaired(sc *ScenarioComparison, untestable map[int]bool, level float64) {
	var fam []int
	var ps []float64
	for i, m := range sc.Metrics {
		if m.Gated && !untestable[i] {
			fam = append(fam, i)
			ps = append(ps, *m.PValue)
		}
	}
	for j, p := range holm(ps) {
		sc.Metrics[fam[j]].PHolm = ptr(p)
	}
	for i := range sc.Metrics {
		m := &sc.Metrics[i]
		p := *m.PValue
		if m.PHolm != nil {
			p = *m.PHolm
		}
		decideMetric(m, p, level)
	}
	sc.Verdict = scenarioVerdict(sc.Metrics)
	noteYields(sc)
}

// nothingCompared marks a comparison with no scenario compared (report
// says why, from its scenarios and AB).
func nothingCompared(c *Comparison) {
	c.Verdict = NoBaseline
}

// undecidable marks a scenario that has no evidence to decide from
// (too few units, no gated metric), with why as a note that report says
// as its reason.
func undecidable(sc *ScenarioComparison, why Note) {
	sc.Verdict, sc.Undecidable = Inconclusive, &why
}

// decideMetric is step 1 and 2 for one metric: Decide on its evidence at
// alpha with p (NaN without a test), then the metric guards in order.
func decideMetric(m *Metric, p, alpha float64) {
	m.Verdict = Decide(m.evidence(p, alpha))
	for _, g := range metricGuards {
		if g.holds(*m) {
			m.Verdict, m.Guard = Inconclusive, g.code
		}
	}
}

// metricGuard downgrades one metric's verdict when holds says so.
type metricGuard struct {
	code  ReasonCode
	holds func(m Metric) bool
}

// metricGuards run in this order after Decide on each metric.
var metricGuards = []metricGuard{
	{ReasonNoiseFloor, noiseFloorHolds},
	{ReasonNoTest, noTestHolds},
}

// scenarioVerdict is the worst verdict of the gated metrics (Regressed
// before Inconclusive before Improved before Unchanged), leaving out an
// inconclusive metric that yields (yields); Inconclusive when none is
// gated.
func scenarioVerdict(ms []Metric) Verdict {
	v, any := Unchanged, false
	for _, m := range ms {
		if !m.Gated || yields(ms, m) != nil {
			continue
		}
		any = true
		v = Worse(v, m.Verdict)
	}
	if !any {
		return Inconclusive
	}
	return v
}

// computeYields is the gated median that m, the server's compute time
// left inconclusive, yields to: one of the same scenario decided improved
// or regressed ("" when m does not yield). The compute time is gated to
// decide the location changes that the median's noise hides; once the
// median, which holds the compute time, has decided one, the compute
// time's own undecided interval does not hold the scenario's verdict. A
// compute time decided regressed still fails the scenario.
func computeYields(ms []Metric, m Metric) string {
	if m.Metric != MetricServerCompute || !m.Gated || m.Verdict != Inconclusive {
		return ""
	}
	for _, o := range ms {
		if o.Gated && isMedian(o.Metric) && (o.Verdict == Improved || o.Verdict == Regressed) {
			return o.Metric
		}
	}
	return ""
}

// yields names the gated metrics that m, left inconclusive, yields to, so
// that it does not hold the scenario's verdict (nil when it holds it): the
// median its compute time yields to (computeYields), or, where m is no
// worse (noWorse) and no gated metric regressed, the scenario's improved
// metrics.
func yields(ms []Metric, m Metric) []string {
	if med := computeYields(ms, m); med != "" {
		return []string{med}
	}
	if !noWorse(m) {
		return nil
	}
	var to []string
	for _, o := range ms {
		switch {
		case !o.Gated:
		case o.Verdict == Regressed:
			return nil // the regression decides; no improvement stands
		case o.Verdict == Improved:
			to = append(to, o.Metric)
		}
	}
	return to
}

// noWorse reports whether m, gated and left inconclusive by its own
// evidence (no guard's), has ruled out a regression: the bad end of its
// equivalence interval inside its margin of unchanged and its point change
// inside the threshold. That is the bad side of Decide's two one-sided
// tests at the same level, so a real regression of the margin passes it
// at most as often as it would be called unchanged. Beside an improvement
// it makes the scenario improved (better in one metric, worse in none)
// where a tail that reaches neither the look's level for improved nor
// ±margin would hold it to the last look. A censored knee's interval is a
// bound, not an estimate: it never yields.
func noWorse(m Metric) bool {
	if !m.Gated || m.Verdict != Inconclusive || m.Guard != "" || m.Censored != "" {
		return false
	}
	eq := m.equivalenceCI()
	if math.IsNaN(eq[0]) || math.IsNaN(eq[1]) || math.IsNaN(m.DeltaPct) {
		return false
	}
	margin := max(m.ThresholdPct, m.EquivalencePct)
	if m.BetterIs == HigherIsBetter {
		return eq[0] >= -margin && m.DeltaPct >= -m.ThresholdPct
	}
	return eq[1] <= margin && m.DeltaPct <= m.ThresholdPct
}

// noteYields states, as the scenario's notes, what each metric that
// yields yielded to (yields): the median its compute time yielded to
// (NoteComputeYields), or the improvement beside which it is no worse
// (NoteNoWorse), replacing earlier ones: a guard may since have taken a
// decision away.
func noteYields(sc *ScenarioComparison) {
	sc.Notes = slices.DeleteFunc(sc.Notes, func(n Note) bool { return n.Code == NoteComputeYields || n.Code == NoteNoWorse })
	for _, m := range sc.Metrics {
		if med := computeYields(sc.Metrics, m); med != "" {
			sc.Notes = append(sc.Notes, Note{Code: NoteComputeYields, Metric: m.Metric, Names: []string{med}, Verdict: metricVerdict(sc.Metrics, med)})
		} else if to := yields(sc.Metrics, m); to != nil {
			eq := m.equivalenceCI()
			sc.Notes = append(sc.Notes, Note{Code: NoteNoWorse, Metric: m.Metric, Names: to, Pct: max(m.ThresholdPct, m.EquivalencePct), CIPct: &eq})
		}
	}
}

// metricVerdict is the verdict of the metric named name in ms.
func metricVerdict(ms []Metric, name string) Verdict {
	for _, m := range ms {
		if m.Metric == name {
			return m.Verdict
		}
	}
	return ""
}

// Worse is the worse of two metric or scenario verdicts: Regressed before
// Inconclusive before Improved before Unchanged; any other value (no
// baseline, empty) counts as Inconclusive, not a decision.
func Worse(a, b Verdict) Verdict {
	rank := func(v Verdict) int {
		switch v {
		case Unchanged:
			return 0
		case Improved:
			return 1
		case Regressed:
			return 3
		}
		return 2
	}
	if rank(b) > rank(a) {
		if rank(b) == 2 {
			return Inconclusive
		}
		return b
	}
	if rank(a) == 2 {
		return Inconclusive
	}
	return a
}

// scenarioEvidence is what the scenario guards read beside the metrics:
// facts about the two runs, gathered by compareScenario.
type scenarioEvidence struct {
	// invalid lists why either side's run cannot be trusted; why adds a
	// caller's own words (Invalidate).
	invalid []Note
	why     []string
	// busy: the host-busy measurements of each side (busyOf).
	busy [2]busySide
	// shift is the runner's speed shift in percent (positive slower) and
	// moved whether it counts (runnerShift).
	shift float64
	moved bool
	// ignoreHost is Settings.IgnoreHostLoad: no host-busy or runner guard.
	ignoreHost bool
}

// scenarioGuard looks at a scenario's decided metrics and the evidence of
// its runs and says which metrics it cannot stand behind (nil: none).
type scenarioGuard struct {
	code  ReasonCode
	check func(sc *ScenarioComparison, ev *scenarioEvidence) *Downgrade
}

// scenarioGuards run in this order once every metric of a scenario is
// decided.
var scenarioGuards = []scenarioGuard{
	{ReasonSparseQuantile, sparseGuard},
	{ReasonHostBusy, hostBusyGuard},
	{ReasonRunnerShift, runnerShiftGuard},
	{ReasonInvalidRun, invalidGuard},
}

// guardScenario runs the scenario guards in order, applying each
// downgrade, and sets the scenario's verdict.
func guardScenario(sc *ScenarioComparison, ev *scenarioEvidence) {
	sc.Verdict = scenarioVerdict(sc.Metrics)
	for _, g := range scenarioGuards {
		d := g.check(sc, ev)
		if d == nil {
			continue
		}
		d.Code = g.code
		applyDowngrade(sc, *d)
	}
	noteYields(sc)
	for _, m := range sc.Metrics {
		if m.Gated && m.Guard == ReasonNoiseFloor {
			sc.Levers = addLevers(sc.Levers, LeverAgreeingBaseline, LeverSameRunnerAB)
		}
	}
}

// applyDowngrade makes d's metrics inconclusive, records d and the
// reason, and recomputes the scenario's verdict (an invalid run's is
// inconclusive whatever its metrics).
func applyDowngrade(sc *ScenarioComparison, d Downgrade) {
	for _, i := range d.at {
		m := &sc.Metrics[i]
		m.Verdict, m.Guard = Inconclusive, d.Code
		d.Metrics = append(d.Metrics, m.Metric)
	}
	before := sc.Verdict
	sc.Verdict = scenarioVerdict(sc.Metrics)
	noteYields(sc)
	switch d.Code {
	case ReasonInvalidRun:
		sc.Verdict, sc.Invalid = Inconclusive, true
	case ReasonHostBusy:
		sc.HostBusy = true
		sc.Levers = addLevers(sc.Levers, LeverQuietRunner, LeverSameRunnerAB)
	case ReasonRunnerShift:
		// The scenario is runner-shifted only when its verdict moved off a
		// decision the shift explains; a regression that stands elsewhere
		// keeps the scenario regressed.
		if sc.Verdict == Regressed || before == sc.Verdict {
			sc.Downgrades = append(sc.Downgrades, d)
			return
		}
		sc.RunnerShifted = true
		sc.Levers = addLevers(sc.Levers, LeverQuietRunner, LeverSameRunnerAB)
	case ReasonSparseQuantile:
		// Stated in the scenario's warnings (sparseWarnings), not its
		// reason.
		sc.Downgrades = append(sc.Downgrades, d)
		return
	case ReasonGateWide:
		if before == sc.Verdict || sc.Verdict != Inconclusive {
			sc.Downgrades = append(sc.Downgrades, d)
			return
		}
	}
	sc.Downgrades = append(sc.Downgrades, d)
	sc.Guard, sc.Reason = d.Code, "" // report says it from d
}

// Invalidate applies the invalid-run guard to a scenario from outside a
// comparison (an A/B run that stopped early): every metric and the
// scenario inconclusive, never used to pass or fail, for the reason why.
func Invalidate(sc *ScenarioComparison, why string) {
	applyDowngrade(sc, *invalidGuard(sc, &scenarioEvidence{why: []string{why}}))
}

// HoldBusy applies the demo's stricter host-busy rule to a scenario: a
// layer effect measured while the host was busy is never shown as a
// result, whatever its direction, so every decided metric becomes
// inconclusive. The gate's own rule (hostBusyGuard) only takes away the
// regressions and improvements that would change its exit code.
func HoldBusy(sc *ScenarioComparison) {
	d := Downgrade{Code: ReasonHostBusy}
	for i, m := range sc.Metrics {
		if m.Verdict.Decided() {
			d.at = append(d.at, i)
		}
	}
	applyDowngrade(sc, d)
	sc.Verdict = Inconclusive
}

// HoldUndecided makes a comparison's verdict inconclusive unless it
// fails: the demo's comparison when a layer was held back (HoldBusy). A
// failing comparison stays failing.
func HoldUndecided(c *Comparison) bool {
	if c.Verdict == Fail {
		return false
	}
	c.Verdict = Undecided
	return true
}

// JoinStored is the verdict of an A/B comparison joined with the gate
// against the stored baselines (compare-with: both): it fails when
// either fails, else it is the A/B one's.
func JoinStored(ab, stored Verdict) Verdict {
	if stored == Fail {
		return Fail
	}
	return ab
}

// gateWideGuard applies Holm's correction across every gated metric of
// every compared scenario that is tested over target processes or knee
// estimates (see gateWide for why those), and downgrades a regression or
// improvement whose gate-wide adjusted p-value (PGate) is not below α.
// Nothing is ever upgraded (the family is a superset of each scenario's,
// so PGate ≥ PHolm).
func gateWideGuard(scs []ScenarioComparison, s Settings) {
	type ref struct{ sc, m int }
	var refs []ref
	var ps []float64
	for i := range scs {
		if scs[i].Verdict == NoBaseline || scs[i].Invalid {
			continue
		}
		for k, m := range scs[i].Metrics {
			if m.Gated && m.PHolm != nil && m.PValue != nil && inGateFamily(m.Method) {
				refs = append(refs, ref{i, k})
				ps = append(ps, *m.PValue)
			}
		}
	}
	alpha := s.alpha()
	downs := map[int]*Downgrade{}
	var order []int
	for j, p := range holm(ps) {
		r := refs[j]
		m := &scs[r.sc].Metrics[r.m]
		m.PGate = ptr(p)
		if (m.Verdict == Regressed || m.Verdict == Improved) && p >= alpha {
			d := downs[r.sc]
			if d == nil {
				d = &Downgrade{Code: ReasonGateWide, From: m.Verdict, Tests: len(ps)}
				downs[r.sc] = d
				order = append(order, r.sc)
			}
			d.at = append(d.at, r.m)
			if m.TrialsNeeded == 0 && beyond(*m) {
				m.TrialsNeeded = needed(*m, alpha/float64(len(ps)))
			}
		}
	}
	for _, i := range order {
		sc := &scs[i]
		decided := sc.Verdict == Regressed || sc.Verdict == Improved
		applyDowngrade(sc, *downs[i])
		if decided {
			for _, m := range sc.Metrics {
				sc.TrialsNeeded = max(sc.TrialsNeeded, m.TrialsNeeded)
			}
		}
	}
}

// inGateFamily reports whether a method's tests join the gate-wide Holm
// family (gateWide).
func inGateFamily(method string) bool {
	return method == MethodProcesses || method == MethodKneeEstimates || method == MethodCensoredKnee
}

// decideChange decides a ladder step's change as a scenario's metric is,
// with margin the margin of `unchanged` when wider than thr (0: thr).
func decideChange(c *Change, thr, margin float64, betterIs string, p, alpha float64) {
	eq := c.CIPct
	if c.EquivCIPct != nil {
		eq = *c.EquivCIPct
	}
	c.Verdict = Decide(Evidence{DeltaPct: c.DeltaPct, EquivCIPct: eq, ThresholdPct: thr, EquivalencePct: margin, BetterIs: betterIs, P: p, Alpha: alpha})
}

// holdChange is the host-busy guard on a ladder step's change: a
// regressed or improved change resting on busy measurements becomes
// inconclusive. It returns the verdict taken away ("" when none).
func holdChange(c *Change, busy int) Verdict {
	if c == nil || busy == 0 || (c.Verdict != Regressed && c.Verdict != Improved) {
		return ""
	}
	from := c.Verdict
	c.Verdict = Inconclusive
	return from
}

// describeChange marks a layer's change as a summary with no test of its
// own (several scenarios), or takes the verdict of its one scenario's
// metric.
func describeChange(c *Change, one *Metric) {
	if one == nil {
		c.Verdict, c.Descriptive = "", true
		return
	}
	c.Verdict, c.Descriptive = one.Verdict, false
}

// topLevel decides the comparison's verdict from its scenarios: see
// Compare. It returns the verdict and the scenarios behind it.
func topLevel(c *Comparison, env *EnvCheck, compared int, s Settings) (Verdict, Standing) {
	if compared > 0 && !env.Match {
		if !s.AllowEnvMismatch {
			return Incomparable, Standing{}
		}
		env.Allowed = true
	}
	if compared == 0 {
		return NoBaseline, Standing{}
	}
	ev := StandingOf(c.Scenarios)
	switch {
	case len(ev.Regressed) > 0:
		return Fail, ev
	case compared == len(ev.Invalid):
		return Undecided, ev
	case len(ev.Inconclusive) > 0:
		return Undecided, ev
	}
	return Pass, ev
}

// Standing indexes the compared scenarios behind a comparison's verdict,
// as topLevel sorts them: an invalid scenario never passes or fails; a
// valid one counts as regressed or inconclusive by its verdict.
type Standing struct {
	Regressed, Invalid, Inconclusive []int
}

// StandingOf sorts scs by topLevel's rule (report names them in the
// comparison's reason).
func StandingOf(scs []ScenarioComparison) Standing {
	var ev Standing
	for i, sc := range scs {
		switch {
		case sc.Verdict == NoBaseline:
		case sc.Invalid:
			ev.Invalid = append(ev.Invalid, i)
		case sc.Verdict == Regressed:
			ev.Regressed = append(ev.Regressed, i)
		case sc.Verdict == Inconclusive:
			ev.Inconclusive = append(ev.Inconclusive, i)
		}
	}
	return ev
}

// HeadlineVerdict is the verdict scs make by topLevel's rule, the
// environment aside (a mismatch makes it Incomparable before this rule is
// asked): NoBaseline when none was compared; Fail when a valid scenario
// regressed; Undecided when every compared scenario is invalid, or a valid
// one is inconclusive; else Pass. An invalid scenario never passes or
// fails the gate. The Action's trusted half recomputes a fork's headline
// with it.
func HeadlineVerdict(scs []ScenarioComparison) Verdict {
	compared := 0
	for _, sc := range scs {
		if sc.Verdict != NoBaseline {
			compared++
		}
	}
	v, _ := topLevel(&Comparison{Scenarios: scs}, &EnvCheck{Match: true}, compared, Settings{})
	return v
}

// decidedBy names the gated metrics whose verdict is the scenario's
// regressed or improved one: the metrics that decided it.
func decidedBy(sc ScenarioComparison) []string {
	if sc.Verdict != Regressed && sc.Verdict != Improved {
		return nil
	}
	var out []string
	for _, m := range sc.Metrics {
		if m.Gated && m.Verdict == sc.Verdict {
			out = append(out, m.Metric)
		}
	}
	return out
}

// setTop sets the comparison's verdict (topLevel), the notes it implies
// and its levers; report says why in words from them (report.Reason).
func setTop(c *Comparison, env *EnvCheck, compared int, s Settings, paired bool) {
	for i := range c.Scenarios {
		c.Scenarios[i].DecidedBy = decidedBy(c.Scenarios[i])
	}
	v, ev := topLevel(c, env, compared, s)
	c.Verdict = v
	topNotes(c, ev, env)
	for i := range c.Scenarios {
		if serverComputeLever(&c.Scenarios[i]) {
			c.Scenarios[i].Levers = addLevers(c.Scenarios[i].Levers, LeverServerCompute)
		}
	}
	c.Levers = comparisonLevers(c, paired)
}
