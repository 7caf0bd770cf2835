package gate

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
)

// fromResults is Gate's Results against Stored: it gates results
// measured elsewhere (the parts of a matrix, gathered with perfgate
// merge): it reads every result in dir and evaluates cfg's scenarios
// against the baselines exactly as measureStored does after measuring
// them. A selected scenario without a result in dir (its
// part failed, or was never run) is a run failure in Outcome.RunErr, and
// the comparison then lacks it; results of scenarios cfg does not have are
// left out with a warning. With st.History the run-to-run noise is learned
// from it, as measureStored does.
func fromResults(ctx context.Context, cfg *config.Config, dir string, o Request, st Stored) (*Outcome, error) {
	for _, n := range o.Scenarios {
		if !slices.ContainsFunc(cfg.Scenarios, func(s *config.Scenario) bool { return s.Name == n }) {
			return nil, fmt.Errorf("%s: no scenario is named %q", cfg.Path, n)
		}
	}
	if err := CheckPower(cfg, o.Scenarios); err != nil {
		return nil, err
	}
	bdir := st.Dir
	if bdir == "" {
		plan, err := config.Compile(cfg)
		if err != nil {
			return nil, err
		}
		bdir = plan.Baselines
	}
	base, err := loadStored(st, bdir)
	if err != nil {
		return nil, err
	}
	learned, notes, trend, err := withHistory(ctx, st.History, base)
	if err != nil {
		return nil, err
	}
	all, err := result.ReadResults(dir)
	if err != nil {
		return nil, err
	}
	byName := map[string]*result.Result{}
	for _, r := range all {
		if prev := byName[r.Scenario]; prev != nil {
			return nil, fmt.Errorf("results %q: scenario %s appears twice: gather each scenario once with perfgate merge", dir, r.Scenario)
		}
		byName[r.Scenario] = r
	}
	var cand []*result.Result
	var runErrs []error
	var warns []string
	for _, s := range cfg.Scenarios {
		if len(o.Scenarios) > 0 && !slices.Contains(o.Scenarios, s.Name) {
			continue
		}
		r := byName[s.Name]
		if r == nil {
			runErrs = append(runErrs, fmt.Errorf("scenario %s has no result in %s: did its part fail? rerun it, or gate the others with --scenario", s.Name, dir))
			continue
		}
		cand = append(cand, r)
		delete(byName, s.Name)
	}
	for _, r := range all {
		if _, extra := byName[r.Scenario]; extra && !slices.ContainsFunc(cfg.Scenarios, func(s *config.Scenario) bool { return s.Name == r.Scenario }) {
			warns = append(warns, fmt.Sprintf("%s: scenario %s is not in %s: not gated", dir, r.Scenario, cfg.Path))
		}
	}
	rep, err := EvaluateLearned(cfg, base, cand, cand, o.AllowEnvMismatch, learned)
	if err != nil {
		return nil, err
	}
	rep.Warnings = append(append(rep.Warnings, warns...), notes...)
	rep.Trend = trend
	return &Outcome{Report: rep, RunErr: errors.Join(runErrs...), BaselinesDir: bdir, ResultsDir: dir}, nil
}
