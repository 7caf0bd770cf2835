package gate

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// Rerun is what gate.on_inconclusive: rerun did: the rounds measured, the
// scenarios each measured again, and why it stopped.
type Rerun struct {
	Rounds int `json:"rounds"`
	// Scenarios lists, per round, the undecided scenarios measured again.
	Scenarios [][]string `json:"scenarios"`
	// Spent is the time the reruns took.
	Spent time.Duration `json:"spent_ns"`
	// Stopped says why reruns ended: "decided", "budget", "max trials",
	// "nothing to rerun" (only knee searches or invalid results were
	// undecided) or "interrupted".
	Stopped string `json:"stopped"`
}

// undecided returns the scenarios of c whose verdict is inconclusive and
// that a rerun can decide: fixed-load results (a knee search is confirmed
// by its own estimates) with room for more trials.
func undecided(c *compare.Comparison, cand []*result.Result, maxTrials func(string) int) []string {
	var names []string
	for _, sc := range c.Scenarios {
		if sc.Verdict != compare.Inconclusive {
			continue
		}
		i := slices.IndexFunc(cand, func(r *result.Result) bool { return r.Scenario == sc.Scenario })
		if i < 0 || cand[i].Capacity != nil || !cand[i].Valid {
			continue
		}
		if len(cand[i].Trials) >= maxTrials(sc.Scenario) {
			continue
		}
		names = append(names, sc.Scenario)
	}
	return names
}

// rerunUndecided measures the undecided scenarios again, round by round,
// each round adding one run of the scenario's trials (with its restarts)
// to the earlier ones, and re-evaluates, until every gated scenario is
// decided, the budget is spent, or no scenario has room for more trials.
// The merged results replace the candidate's files in the run's folder,
// and the run manifest is updated to match.
//
// measure runs the named scenarios once more (suite.Run in a gate; a test
// gives its own).
func rerunUndecided(ctx context.Context, cfg *config.Config, o Request, learned map[string]compare.LearnedNoise, base, cand []*result.Result, rep *report.Report,
	measure func(ctx context.Context, names []string) ([]*result.Result, error)) (*report.Report, []*result.Result, *Rerun, error) {
	budget := cfg.Gate.RerunBudget.D()
	if budget <= 0 {
		budget = config.DefaultRerunBudget
	}
	byName := map[string]*config.Scenario{}
	for _, s := range cfg.Scenarios {
		byName[s.Name] = s
	}
	maxTrials := func(name string) int {
		if n := cfg.Gate.RerunMaxTrials; n > 0 {
			return n
		}
		if s := byName[name]; s != nil {
			return min(4*s.Load.Trials, config.MaxTrials)
		}
		return config.MaxTrials
	}
	start := time.Now()
	rr := &Rerun{}
	for {
		if rep.Comparison.Verdict != compare.Undecided {
			rr.Stopped = "decided"
			break
		}
		if ctx.Err() != nil {
			rr.Stopped = "interrupted"
			break
		}
		names := undecided(rep.Comparison, cand, maxTrials)
		if len(names) == 0 {
			rr.Stopped = "nothing to rerun"
			if rr.Rounds > 0 {
				rr.Stopped = "max trials"
			}
			break
		}
		if time.Since(start) >= budget {
			rr.Stopped = "budget"
			break
		}
		more, err := measure(ctx, names)
		if err != nil {
			return rep, cand, rr, err
		}
		rr.Rounds++
		rr.Scenarios = append(rr.Scenarios, names)
		for _, m := range more {
			i := slices.IndexFunc(cand, func(r *result.Result) bool { return r.Scenario == m.Scenario })
			if i < 0 {
				continue
			}
			cand[i] = suite.AppendRuns(cand[i], m)
			if err := writeRerun(o.Suite.OutDir, cand[i]); err != nil {
				return rep, cand, rr, err
			}
		}
		if rep, err = EvaluateLearned(cfg, base, cand, cand, o.AllowEnvMismatch, learned); err != nil {
			return rep, cand, rr, err
		}
	}
	rr.Spent = time.Since(start)
	rep.Warnings = append(rep.Warnings, rr.summary(budget))
	return rep, cand, rr, nil
}

// suiteMeasure is rerunUndecided's measure in a gate: the scenarios run
// by the suite as the gate ran them, results kept in memory (the merged
// ones are written by rerunUndecided).
func suiteMeasure(cfg *config.Plan, o suite.Options) func(context.Context, []string) ([]*result.Result, error) {
	return func(ctx context.Context, names []string) ([]*result.Result, error) {
		so := o
		so.Scenarios, so.OutDir = names, ""
		so.NoBuild = true // the gate's run built the targets
		outs, err := suite.Run(ctx, cfg, so)
		if err != nil {
			return nil, err
		}
		var rs []*result.Result
		for _, out := range outs {
			if out.Result != nil && out.Err == nil {
				rs = append(rs, out.Result)
			}
		}
		return rs, nil
	}
}

// writeRerun replaces a scenario's result file in dir with its merged
// result and records the new digest in the run manifest.
func writeRerun(dir string, r *result.Result) error {
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, suite.FileName(r.Scenario))
	if err := r.WriteFile(path); err != nil {
		return err
	}
	m, err := result.ReadManifest(dir)
	if err != nil {
		return nil // no manifest to keep in step
	}
	if err := m.Add(r.Scenario, path); err != nil {
		return err
	}
	return m.Write(dir)
}

// summary is the line the report shows.
func (rr *Rerun) summary(budget time.Duration) string {
	if rr.Rounds == 0 {
		return fmt.Sprintf("on_inconclusive: rerun: nothing rerun (%s)", rr.Stopped)
	}
	return fmt.Sprintf("on_inconclusive: rerun: %d round(s) of more trials (%v) in %s of a %s budget; stopped: %s",
		rr.Rounds, rr.Scenarios, rr.Spent.Round(time.Second), budget, rr.Stopped)
}
