package gate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
	"github.com/perfgate/perfgate/suite"
)

// Settings returns the comparison settings cfg's gate section asks for.
func Settings(cfg *config.Config, allowEnvMismatch bool) compare.Settings {
	s := compare.DefaultSettings()
	s.P99Regression = float64(cfg.Gate.P99Regression)
	s.P99Equivalence = float64(cfg.Gate.P99Equivalence)
	s.P50Regression = float64(cfg.Gate.P50Regression)
	s.ServerComputeRegression = float64(cfg.Gate.ServerComputeRegression)
	s.MaxQPSRegression = float64(cfg.Gate.MaxQPSRegression)
	s.Confidence = cfg.Gate.Confidence
	s.RunToRun = float64(cfg.Gate.RunToRun)
	s.RunToRunMedian = float64(cfg.Gate.RunToRunMedian)
	s.AllowEnvMismatch = allowEnvMismatch
	s.IgnoreHostLoad = cfg.Gate.IgnoreHostLoad
	return s
}

// Evaluate compares cand with base under cfg's gate, attributes the change
// along cfg's ladder (rungs taken from ladder, usually cand itself), and
// sizes every scenario that has a knee for cfg's peak traffic.
func Evaluate(cfg *config.Config, base, cand, ladder []*result.Result, allowEnvMismatch bool) (*report.Report, error) {
	return EvaluateLearned(cfg, base, cand, ladder, allowEnvMismatch, nil)
}

// EvaluateLearned is Evaluate with the run-to-run noise learned from the
// history for the scenarios of learned (see LearnNoise).
func EvaluateLearned(cfg *config.Config, base, cand, ladder []*result.Result, allowEnvMismatch bool, learned map[string]compare.LearnedNoise) (*report.Report, error) {
	s := Settings(cfg, allowEnvMismatch)
	s.Learned = learned
	c, err := compare.Compare(base, cand, s)
	if err != nil {
		return nil, err
	}
	if len(cfg.Ladder) > 1 {
		rungs, missing := pick(ladder, cfg.Ladder)
		if len(missing) > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("ladder not attributed: rungs %v were not measured in this run", missing))
		} else if la, err := compare.Ladder(rungs, s); err != nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("ladder not attributed: %v", err))
		} else {
			c.Ladder = la
		}
	}
	r := &report.Report{Title: filepath.Base(cfg.Path), Comparison: c, Baseline: base, Candidate: cand}
	var warns []string
	r.Plans, warns = Plans(cfg, base, cand, c)
	r.Warnings = append(r.Warnings, warns...)
	return r, nil
}

// Plans sizes each candidate scenario with a knee (and its baseline, when
// it has one) for cfg's peak traffic. Nothing is planned without a peak. A
// knee that cannot be sized (no probe met the SLO) is a warning that says
// so, never a zero.
//
// The change of plan is made from the same max QPS the comparison tested
// (the knee estimates' geometric mean) and carries its interval and
// verdict; it is withheld, with the reason, when that max QPS is
// inconclusive with an interval wider than MaxSizedIntervalPct or was
// not tested (c nil is no comparison: nothing is withheld).
func Plans(cfg *config.Config, base, cand []*result.Result, c *compare.Comparison) (plans []report.Plan, warnings []string) {
	in, ok, err := planInput(cfg)
	if err != nil {
		return nil, []string{fmt.Sprintf("capacity not planned: %v", err)}
	}
	if !ok {
		return nil, nil
	}
	byName := map[string]*result.Result{}
	for _, b := range base {
		byName[b.Scenario] = b
	}
	for _, r := range cand {
		if r.Capacity == nil {
			continue
		}
		p := report.Plan{Scenario: r.Scenario}
		in := in
		if w, err := wholeFor(cfg, r, cand); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: partition not compared: %v", r.Scenario, err))
		} else {
			in.Whole = w
		}
		if p.Candidate, err = sizing.Plan(r, in); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: candidate not sized: %v", r.Scenario, err))
		}
		if b := byName[r.Scenario]; b != nil && b.Capacity != nil {
			bin := in
			bin.Whole = byName[wholeName(in.Whole)]
			if bin.Whole == nil {
				bin.Whole = in.Whole
			}
			if b.Partition == nil {
				bin.Whole = nil
			}
			if p.Baseline, err = sizing.Plan(b, bin); err != nil {
				warnings = append(warnings, fmt.Sprintf("%s: baseline not sized: %v", r.Scenario, err))
			}
		}
		if p.Baseline != nil && p.Candidate != nil {
			d := sizing.Compare(p.Baseline, p.Candidate)
			if why := withhold(c, r.Scenario, &d); why != "" {
				p.Withheld = why
			} else {
				p.Diff = &d
			}
		}
		plans = append(plans, p)
	}
	return plans, warnings
}

// pick returns the results named, in order, and the names not found.
func pick(rs []*result.Result, names []string) (picked []*result.Result, missing []string) {
	for _, n := range names {
		found := false
		for _, r := range rs {
			if r.Scenario == n {
				picked = append(picked, r)
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, n)
		}
	}
	return picked, missing
}

// onInconclusive is the gate's on_inconclusive setting: the request's
// (flag or input), else the config's, else pass.
func onInconclusive(cfg *config.Config, requested string) string {
	if requested != "" {
		return requested
	}
	if cfg.Gate.OnInconclusive != "" {
		return cfg.Gate.OnInconclusive
	}
	return config.OnInconclusivePass
}

// ErrBadBaselines wraps a baseline folder that exists but cannot be read:
// a configuration error, not a missing baseline.
var ErrBadBaselines = errors.New("bad baselines")

// ErrUnderpowered wraps a configuration whose scenarios have too few
// trials (or knee estimates) for any regression to reach the configured
// confidence: a gate that cannot fail is refused before anything runs.
var ErrUnderpowered = errors.New("gate cannot fail")

// CheckPower refuses the selected scenarios (all when names is empty)
// whose trial count can never reach cfg's confidence, naming each one's
// field and the minimum.
func CheckPower(cfg *config.Config, names []string) error {
	var errs []error
	for i, s := range cfg.Scenarios {
		if len(names) > 0 && !slices.Contains(names, s.Name) {
			continue
		}
		tests := 1
		if s.Protocol == "openai" {
			tests = 3 // P99, TTFT P99 and TPOT P99 share α (Holm)
		}
		if err := compare.Underpowered(s.Load.Mode == "sweep", s.Load.Trials, s.Load.Estimates, cfg.Gate.Confidence, tests); err != nil {
			errs = append(errs, fmt.Errorf("%s: scenarios[%d] (%s): %w", cfg.Path, i, s.Name, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrUnderpowered, errors.Join(errs...))
	}
	return nil
}

// measureStored is Gate's Measure against Stored: it loads the
// baselines, runs the scenarios, and evaluates them. A missing or empty
// baseline folder is not an error (the verdict is then no-baseline); a
// damaged baseline is, before anything runs.
func measureStored(ctx context.Context, cfg *config.Config, o Request, st Stored) (*Outcome, error) {
	if err := CheckPower(cfg, o.Suite.Scenarios); err != nil {
		return nil, err
	}
	// Compiled once, handed down: nothing below resolves the config.
	plan, err := config.Compile(cfg)
	if err != nil {
		return nil, err
	}
	dir := st.Dir
	if dir == "" {
		dir = plan.Baselines
	}
	base, err := loadStored(st, dir)
	if err != nil {
		return nil, err
	}
	learned, notes, trend, err := withHistory(ctx, st.History, base)
	if err != nil {
		return nil, err
	}
	outs, err := suite.Run(ctx, plan, o.Suite)
	if err != nil {
		return nil, SuiteErr(err, outs)
	}
	var cand []*result.Result
	var runErrs []error
	for _, out := range outs {
		if out.Err != nil {
			runErrs = append(runErrs, out.Err)
		}
		if out.Result != nil {
			cand = append(cand, out.Result)
		}
	}
	rep, err := EvaluateLearned(cfg, base, cand, cand, o.AllowEnvMismatch, learned)
	if err != nil {
		return nil, err
	}
	rep.Warnings = append(rep.Warnings, notes...)
	rep.Trend = trend
	var rr *Rerun
	if onInconclusive(cfg, o.OnInconclusive) == config.OnInconclusiveRerun && len(runErrs) == 0 && rep.Comparison.Verdict == compare.Undecided {
		if rep, _, rr, err = rerunUndecided(ctx, cfg, o, learned, base, cand, rep, suiteMeasure(plan, o.Suite)); err != nil {
			return nil, err
		}
		rep.Trend = trend
		rep.Warnings = append(rep.Warnings, notes...)
	}
	return &Outcome{Report: rep, Outcomes: outs, RunErr: errors.Join(runErrs...), Rerun: rr, BaselinesDir: dir, ResultsDir: o.Suite.OutDir}, nil
}

// MaxSizedIntervalPct is the widest interval (in percentage points, top
// minus bottom) of an inconclusive max QPS change for which the gate
// still shows the change of instances and cost: beyond it the change of
// plan is noise and is withheld, with the reason.
const MaxSizedIntervalPct = 25.0

// withhold reads the comparison's max QPS test of scenario into d and
// says why the change of plan must not be shown ("" to show it).
func withhold(c *compare.Comparison, scenario string, d *sizing.Diff) string {
	if c == nil {
		return ""
	}
	for i := range c.Scenarios {
		sc := &c.Scenarios[i]
		if sc.Scenario != scenario {
			continue
		}
		if sc.Invalid {
			return "a side's run is invalid (" + report.ScenarioReason(sc) + "): the change of plan is not shown"
		}
		for _, m := range sc.Metrics {
			if m.Metric != compare.MetricMaxQPS {
				continue
			}
			ci := m.CIPct
			d.MaxQPSCIPct, d.MaxQPSVerdict = &ci, string(m.Verdict)
			d.MaxQPSDeltaPct = math.Round(10*m.DeltaPct) / 10
			switch {
			case m.Verdict == compare.Inconclusive && (m.CIOpenHigh || ci[1]-ci[0] > MaxSizedIntervalPct):
				return fmt.Sprintf("max QPS is inconclusive (%+.1f%% [%+.1f%%, %+.1f%%], wider than %.0f points): the change of plan is not shown; add knee estimates or use gate --ab",
					m.DeltaPct, ci[0], ci[1], MaxSizedIntervalPct)
			}
			return ""
		}
		return "max QPS was not compared: the change of plan is not shown"
	}
	return ""
}
