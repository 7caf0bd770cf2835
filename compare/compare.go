package compare

import (
	"fmt"
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
				Verdict: NoBaseline, Metrics: []Metric{},
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
	c.Sensitivity = sensitivity(c.Scenarios, s)
	setTop(c, env, compared, s, false)
	return c, nil
}

// runNoiseOf decides each candidate's run-to-run variance (indexed like
// cand; see poolRunNoise). When some one-run baseline would use it, the
// pairs are first compared with no run-to-run term to see how far each
// scenario moved.
func runNoiseOf(byName map[string]*result.Result, cand []*result.Result, s Settings) []runNoise {
	floors, compared := make([]map[string]float64, len(cand)), make([]bool, len(cand))
	lat, med, qps := make([]moved, len(cand)), make([]moved, len(cand)), make([]moved, len(cand))
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
			o := compareScenario(byName[r.Scenario], r, s0, noRunNoise())
			lat[k] = movedOf(o.sc, MetricP99, MethodProcesses, s.Confidence)
			med[k] = movedOf(o.sc, MetricP50, MethodProcesses, s.Confidence)
			if len(floors[k]) > 0 {
				lat[k].within = runSampling(r, 99)
				med[k].within = runSampling(r, 50)
			}
			qps[k] = movedOf(o.sc, MetricMaxQPS, MethodKneeEstimates, s.Confidence)
		}
	}
	names := make([]string, len(cand))
	for k, r := range cand {
		names[k] = r.Scenario
	}
	return poolRunNoise(names, floors, compared, lat, med, qps, s)
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

// topNotes adds the comparison-wide notes its verdict implies: the
// allowed environment mismatch first, the invalid results last.
func topNotes(c *Comparison, ev Standing, env *EnvCheck) {
	if env.Allowed {
		c.Notes = append([]Note{{Code: NoteEnvMismatchAllowed, Names: env.Differences}}, c.Notes...)
	}
	var invalid []string
	for _, i := range ev.Invalid {
		invalid = append(invalid, c.Scenarios[i].Scenario)
	}
	if len(invalid) > 0 {
		c.Notes = append(c.Notes, Note{Code: NoteInvalidResults, Names: invalid})
	}
}
