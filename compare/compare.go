package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/result"
)

// Compare compares each candidate result with the baseline of the same
// scenario name and returns the whole comparison. Candidates without a
// baseline are reported as NoBaseline; baselines without a candidate are
// warned about. The only error is invalid settings.
//
// The top-level verdict is Incomparable when some pair's environments
// differ (unless s.AllowEnvMismatch), else NoBaseline when no scenario had
// a baseline, else Fail when some valid scenario regressed, else Undecided
// ("inconclusive") when every compared result was invalid or a gated
// metric's point change is beyond its threshold but could not be decided,
// else Pass.
func Compare(base, cand []*result.Result, s Settings) (*Comparison, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("comparison settings: %w", err)
	}
	c := &Comparison{Schema: Schema, Settings: s, Scenarios: []ScenarioComparison{}}
	byName := map[string]*result.Result{}
	for _, b := range base {
		if _, dup := byName[b.Scenario]; dup {
			c.Notes = append(c.Notes, Note{Code: NoteDuplicateBaseline, Scenario: b.Scenario})
		}
		byName[b.Scenario] = b
	}
	noise := runNoiseOf(byName, cand, s)
	measured := map[string]bool{}
	var outs []scenarioOut
	var at []int // outs[i] is c.Scenarios[at[i]]
	env := &EnvCheck{Match: true}
	var diffs envDiffs
	compared := 0
	for k, r := range cand {
		if measured[r.Scenario] {
			c.Notes = append(c.Notes, Note{Code: NoteDuplicateCandidate, Scenario: r.Scenario})
		}
		measured[r.Scenario] = true
		b := byName[r.Scenario]
		if b == nil {
			c.Scenarios = append(c.Scenarios, ScenarioComparison{Scenario: r.Scenario, Layer: r.Layer,
				Verdict: NoBaseline, Reason: "no baseline for this scenario: nothing to compare with", Metrics: []Metric{},
				CandTrials: len(r.Trials), Simulated: r.Simulated})
			continue
		}
		compared++
		diffs.check(env, b, r)
		o := compareScenario(b, r, s, noise[k])
		outs = append(outs, o)
		at = append(at, len(c.Scenarios))
		c.Scenarios = append(c.Scenarios, o.sc)
	}
	var missing []string
	for name := range byName {
		if !measured[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		c.Notes = append(c.Notes, Note{Code: NoteNotMeasured, Scenario: name})
	}
	diffs.fill(env)
	if compared > 0 {
		c.Environment = env
	}
	gateWide(c.Scenarios, s)
	for i := range outs {
		outs[i].sc = c.Scenarios[at[i]]
	}
	c.Layers = attributeLayers(outs, s)
	c.Sensitivity, c.Detects = sensitivity(c.Scenarios, s)
	setTop(c, env, compared, s, false)
	return c, nil
}

// runNoiseOf decides each candidate's run-to-run variance (indexed like
// cand; see poolRunNoise). When some one-run baseline would use it, the
// pairs are first compared with no run-to-run term to see how far each
// scenario moved.
func runNoiseOf(byName map[string]*result.Result, cand []*result.Result, s Settings) []runNoise {
	floors, compared := make([]map[string]float64, len(cand)), make([]bool, len(cand))
	lat, qps := make([]moved, len(cand)), make([]moved, len(cand))
	n, withFloor := 0, 0
	for k, r := range cand {
		if b := byName[r.Scenario]; b != nil {
			floors[k], compared[k] = b.NoiseFloorPct, true
			n++
			if hasFloor(b) {
				withFloor++
			}
		}
	}
	// Pooling needs MinPooledScenarios others a scenario; with fewer
	// pairs in all, none is measured, and only a noise floor's own
	// sampling is (runFloorVar).
	if s.RunToRun > 0 && (n > MinPooledScenarios || withFloor > 0) {
		s0 := s
		s0.RunToRun = 0
		s0.Resamples = 100 // the pre-pass reads intervals of t-tests only
		for k, r := range cand {
			if !compared[k] || (n <= MinPooledScenarios && len(floors[k]) == 0) {
				continue
			}
			o := compareScenario(byName[r.Scenario], r, s0, runNoise{latDF: math.Inf(1), qpsDF: math.Inf(1), latSrc: RunToRunNone, qpsSrc: RunToRunNone})
			lat[k] = movedOf(o.sc, MetricP99, MethodProcesses, s.Confidence)
			if len(floors[k]) > 0 {
				lat[k].within = runSampling(r)
			}
			qps[k] = movedOf(o.sc, MetricMaxQPS, MethodKneeEstimates, s.Confidence)
		}
	}
	names := make([]string, len(cand))
	for k, r := range cand {
		names[k] = r.Scenario
	}
	return poolRunNoise(names, floors, compared, lat, qps, s)
}

// envDiffs collects the fingerprint mismatches of every compared pair,
// each difference once with the scenarios showing it.
type envDiffs struct {
	order []string
	by    map[string][]string
}

// check folds one pair's fingerprint check into env and d.
func (d *envDiffs) check(env *EnvCheck, b, r *result.Result) {
	fb, fc := result.FingerprintOf(b.Environment), result.FingerprintOf(r.Environment)
	if env.Baseline == "" {
		env.Baseline, env.Candidate = fb.String(), fc.String()
	}
	mism, _ := fb.Diff(fc)
	for _, m := range mism {
		env.Match = false
		if d.by == nil {
			d.by = map[string][]string{}
		}
		if _, seen := d.by[m]; !seen {
			d.order = append(d.order, m)
		}
		d.by[m] = append(d.by[m], r.Scenario)
	}
}

// fill writes the collected differences into env.
func (d *envDiffs) fill(env *EnvCheck) {
	for _, m := range d.order {
		env.Differences = append(env.Differences, m+" ("+strings.Join(d.by[m], ", ")+")")
	}
}

// topReason says in words why the comparison's verdict v (topLevel) is
// what it is, from the scenarios ev indexes, and adds the comparison-wide
// warnings the verdict implies; paired says the sides were measured
// interleaved on one runner (gate --ab).
func topReason(c *Comparison, v Verdict, ev topEvidence, env *EnvCheck, paired bool) string {
	if env.Allowed {
		c.Notes = append([]Note{{Code: NoteEnvMismatchAllowed, Names: env.Differences}}, c.Notes...)
	}
	switch v {
	case Incomparable:
		return "the baseline was measured on a different environment (" +
			strings.Join(env.Differences, "; ") + "); rerun the baseline on this hardware or allow the mismatch"
	case NoBaseline:
		return "no scenario has a baseline: nothing was compared"
	}
	var regressed, invalid, inconclusive, undecided []string
	for _, i := range ev.invalid {
		invalid = append(invalid, c.Scenarios[i].Scenario)
	}
	for _, i := range ev.regressed {
		sc := c.Scenarios[i]
		var ms []string
		for _, m := range sc.Metrics {
			if m.Gated && m.Verdict == Regressed {
				ms = append(ms, fmt.Sprintf("%s %+.1f%%", m.Metric, m.DeltaPct))
			}
		}
		regressed = append(regressed, sc.Scenario+" ("+strings.Join(ms, ", ")+")")
	}
	for _, i := range ev.inconclusive {
		sc := c.Scenarios[i]
		if u := undecidedText(sc, paired); u != "" {
			undecided = append(undecided, u)
		} else {
			inconclusive = append(inconclusive, intervalsText(sc))
		}
	}
	if len(invalid) > 0 {
		c.Notes = append(c.Notes, Note{Code: NoteInvalidResults, Names: invalid})
	}
	if v == Fail {
		return "regressed: " + strings.Join(regressed, "; ")
	}
	if len(ev.inconclusive) == 0 && len(invalid) > 0 && v == Undecided {
		return "every compared result is invalid (" + strings.Join(invalid, ", ") + "), so nothing could be decided: fix the runs (see the warnings) and gate again"
	}
	if v == Undecided {
		var parts []string
		if len(undecided) > 0 {
			parts = append(parts, "could not decide "+strings.Join(undecided, "; "))
		}
		if len(inconclusive) > 0 {
			parts = append(parts, "not shown unchanged: "+strings.Join(inconclusive, "; "))
		}
		why := strings.Join(parts, "; ")
		if c.Detects != "" {
			why += "; " + c.Detects
		}
		return why
	}
	why := "every gated metric unchanged or improved within its threshold"
	if c.Detects != "" {
		why += "; " + c.Detects
	}
	return why
}

// intervalsText quotes a scenario's gated metrics left inconclusive whose
// interval leaves the threshold though the point change does not: what
// kept the gate from saying unchanged.
func intervalsText(sc ScenarioComparison) string {
	var ms []string
	for _, m := range sc.Metrics {
		if !m.Gated || m.Verdict != Inconclusive {
			continue
		}
		unit := "%"
		if m.Absolute {
			unit = " points"
		}
		t := fmt.Sprintf("%s %+.1f%s [%+.1f%s, %+.1f%s] leaves ±%.3g%s", m.Metric, m.DeltaPct, unit, m.CIPct[0], unit, m.CIPct[1], unit, m.ThresholdPct, unit)
		if m.CIOpenHigh {
			t = fmt.Sprintf("%s %+.1f%s [%+.1f%s, ∞) leaves ±%.3g%s", m.Metric, m.DeltaPct, unit, m.CIPct[0], unit, m.ThresholdPct, unit)
		}
		if c := m.ConfiguredThresholdPct; c > 0 && !beyond(m) {
			// Not a regression (inside the baseline's noise floor), and
			// not unchanged either: the configured threshold is the one
			// the interval left.
			t = fmt.Sprintf("%s %+.1f%s [%+.1f%s, %+.1f%s] leaves ±%.3g%s (inside the baseline's noise floor of %.3g%s: no regression is called there)",
				m.Metric, m.DeltaPct, unit, m.CIPct[0], unit, m.CIPct[1], unit, c, unit, m.ThresholdPct, unit)
			ms = append(ms, t)
			continue
		}
		switch {
		case m.MDELimit != "" && m.RunToRunVar > 0:
			t += fmt.Sprintf(" (run-to-run noise %.0f%% a run)", 100*math.Sqrt(m.RunToRunVar/2))
		case m.MDEUnitsNeeded > 0:
			t += fmt.Sprintf(": about %d %s a side would decide it", m.MDEUnitsNeeded, m.MDEUnit)
		}
		ms = append(ms, t)
	}
	if len(ms) == 0 {
		if sc.Reason != "" {
			return sc.Scenario + " (" + sc.Reason + ")"
		}
		return sc.Scenario
	}
	return sc.Scenario + " (" + strings.Join(ms, "; ") + ")"
}

// undecidedText says what a scenario could not decide: its gated metrics
// left inconclusive with a point change beyond their threshold, and how
// many trials per side would likely decide them; or that a regression
// rested on a busy host. Empty when nothing gated is beyond its threshold.
// paired (gate --ab, which already measured both sides under the same
// load) leaves gate --ab out of the advice.
func undecidedText(sc ScenarioComparison, paired bool) string {
	if sc.HostBusy && paired {
		return sc.Scenario + " (host busy: other work used the cores while the probes that decide it ran)"
	}
	if sc.HostBusy {
		return sc.Scenario + " (host busy: other work used the cores while it was measured)"
	}
	if sc.RunnerShifted && sc.RunnerShiftPct != nil {
		return fmt.Sprintf("%s (runner %+.0f%% on its speed probe)", sc.Scenario, *sc.RunnerShiftPct)
	}
	var ms []string
	for _, m := range sc.Metrics {
		if !m.Gated || m.Verdict != Inconclusive || !beyond(m) {
			continue
		}
		unit := "%"
		if m.Absolute {
			unit = " points"
		}
		what := "trials"
		switch m.Method {
		case MethodProcesses:
			what = "target processes"
		case MethodKneeEstimates, MethodBracket, MethodCensoredKnee:
			what = "knee estimates"
		case MethodPairedKnees:
			what = "rounds of knee estimates"
		}
		t := fmt.Sprintf("%s %+.1f%s beyond the %.3g%s threshold, not decided with %d vs %d %s",
			m.Metric, m.DeltaPct, unit, m.ThresholdPct, unit, m.NBase, m.NCand, what)
		if m.RequestsNeeded > 0 {
			ms = append(ms, t+fmt.Sprintf(": a %s needs at least %d requests in each of those %s and one had %d (lengthen the window or raise the rate)",
				strings.TrimSuffix(m.Metric, "_ms"), m.RequestsNeeded, what, m.MinRequests))
			continue
		}
		switch {
		case m.TrialsNeeded >= 100:
			t += fmt.Sprintf(": 100 or more %s per side needed, or a quieter runner", what)
		case m.TrialsNeeded > 0:
			t += fmt.Sprintf(": about %d %s per side needed", m.TrialsNeeded, what)
		}
		ms = append(ms, t)
	}
	if len(ms) == 0 {
		return ""
	}
	if sc.BusyTrials > 0 {
		ms = append(ms, fmt.Sprintf("the host was busy with other work during %d of %d trials", sc.BusyTrials, sc.BaseTrials+sc.CandTrials))
	}
	return sc.Scenario + " (" + strings.Join(ms, "; ") + ")"
}
