package ab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// MeasurePairs measures declared pairs (config.Pair: two scenarios of the
// current checkout, the base variant and the candidate variant of a
// layer, or two rungs of a ladder) by the design `gate --ab` measures two
// revisions with: ABBA order, fresh processes for both sides every block
// (which side starts first alternating), units merged until each side
// holds the requests its P99 needs, looks spent over the design until
// every gated metric is regressed, improved or unchanged; a sweep pair's
// knees searched with probes measured back to back and confirmed in
// interleaved rounds, max QPS tested over the rounds, paired.
//
// Why: two variants measured one after the other, unpaired, read any
// move of the runner between them as the variants' difference; measured
// moments apart, pair by pair, the runner's moves hit both sides.
//
// pairs are the plan's (config.Compile names each). Each side's result is
// written to o.Suite.OutDir under its scenario's
// name (a scenario in two pairs: the later one's), listed in the run's
// manifest (result.Manifest), as a suite run writes them. Errors before any pair
// runs are returned; failures of pairs are in Outcome.RunErr, their
// comparisons inconclusive.
func MeasurePairs(ctx context.Context, cfg *config.Plan, pairs []config.Pair, o Options) (*Outcome, error) {
	abRun := &compare.ABRun{Declared: true, Resident: cfg.AB.Resident, Design: cfg.AB.Design, MaxTrials: cfg.AB.MaxTrials,
		BudgetS: cfg.AB.Budget.D().Seconds(), Scenarios: []compare.ABScenario{}}
	named := func(name string) *config.Scenario {
		for _, s := range cfg.Scenarios {
			if s != nil && s.Name == name {
				return s
			}
		}
		return nil
	}
	var todo [][2]*config.Scenario
	for _, p := range pairs {
		var sc [2]*config.Scenario
		for k, n := range []string{p.Base, p.Head} {
			if sc[k] = named(n); sc[k] == nil || sc[k].URL != "" {
				return nil, fmt.Errorf("%w: %s: pair %q: scenario %q is not a scenario perfgate starts", ErrRefused, cfg.Path, p.Name, n)
			}
		}
		todo = append(todo, sc)
	}
	out := &Outcome{}
	var scs []compare.ScenarioComparison
	var runErrs []error
	// The run's manifest, as a suite run writes one: baseline update
	// stores only the files it lists, complete once every pair ran.
	var manifest *result.Manifest
	if o.Suite.OutDir != "" {
		if err := os.MkdirAll(o.Suite.OutDir, 0o755); err != nil {
			return nil, err
		}
		manifest = result.NewManifest(runID(), time.Now())
		if err := manifest.Write(o.Suite.OutDir); err != nil {
			return nil, fmt.Errorf("writing the run manifest: %w", err)
		}
	}
	for i, p := range pairs {
		if ctx.Err() != nil {
			runErrs = append(runErrs, ctx.Err())
			break
		}
		sc := todo[i]
		o.logf("a/b: pair %s: measuring %s and %s (%s design)", p.Name, p.Base, p.Head, cfg.AB.Design)
		d := sides{base: targetDir(cfg, sc[0]), head: targetDir(cfg, sc[1])}
		c, run, base, head, err := measure(ctx, cfg, p.Name, sc[1].Layer, sc, d, o)
		if err != nil {
			runErrs = append(runErrs, fmt.Errorf("pair %s: %w", p.Name, err))
		}
		if c != nil {
			scs = append(scs, *c)
			abRun.Scenarios = append(abRun.Scenarios, run)
		}
		for _, r := range []*result.Result{base, head} {
			if r == nil {
				continue
			}
			if r == base {
				out.Base = append(out.Base, r)
			} else {
				out.Head = append(out.Head, r)
			}
			if manifest != nil {
				path := filepath.Join(o.Suite.OutDir, suite.FileName(r.Scenario))
				err := r.WriteFile(path)
				if err == nil {
					if err = manifest.Add(r.Scenario, path); err == nil {
						err = manifest.Write(o.Suite.OutDir)
					}
				}
				if err != nil {
					runErrs = append(runErrs, err)
				}
			}
		}
	}
	if manifest != nil && ctx.Err() == nil && len(runErrs) == 0 {
		manifest.Complete = true
		if err := manifest.Write(o.Suite.OutDir); err != nil {
			runErrs = append(runErrs, err)
		}
	}
	return o.conclude(out, scs, abRun, runErrs), nil
}

// targetDir is the folder scenario s's target runs in, as a suite run
// starts it: its dir (absolute in the plan), else "" (perfgate's own
// working folder; an embedded config, the demo's, has no folder).
func targetDir(cfg *config.Plan, s *config.Scenario) string {
	if t := cfg.Targets[s.Target]; t != nil && t.Dir != "" {
		return absPath(t.Dir)
	}
	return ""
}

// runID is a random identifier of one run, for its manifest.
func runID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// logf writes one line of progress to the suite's log, if any.
func (o Options) logf(format string, a ...any) {
	if o.Suite.Log != nil {
		fmt.Fprintf(o.Suite.Log, format+"\n", a...)
	}
}
