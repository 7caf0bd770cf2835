package demo

import (
	"context"
	"errors"
	"path/filepath"
	"slices"

	"github.com/perfgate/perfgate/ab"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/internal/exitcode"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// Measured is a demo run: the declared pairs measured by the A/B engine,
// and the scenarios in no pair measured by the suite.
type Measured struct {
	// Pairs are the pairs measured (those selected), in the config's order.
	Pairs []config.Pair
	// Paired is the A/B engine's outcome (nil when no pair was selected).
	Paired *ab.Outcome
	// Alone are the outcomes of the scenarios in no pair.
	Alone []suite.Outcome
	// Run is every result by scenario name.
	Run Run
}

// Measure measures cfg's declared pairs with ab.MeasurePairs (each pair
// interleaved and paired, on the same runner at the same time) and the
// scenarios in no pair with suite.Run, writing every result to
// so.OutDir. only selects scenarios (a pair is measured when either of
// its scenarios is named); empty: all. The error is the suite's (bad
// input) or the pairs' refusal; failures while measuring are in the
// outcomes (Failed).
func Measure(ctx context.Context, cfg *config.Config, so suite.Options, logDir string, only []string) (*Measured, error) {
	plan, err := config.Compile(cfg)
	if err != nil {
		return nil, err
	}
	m := &Measured{Run: Run{ByName: map[string]*result.Result{}}}
	inPair := map[string]bool{}
	for _, p := range plan.Pairs {
		inPair[p.Base], inPair[p.Head] = true, true
		if len(only) == 0 || slices.Contains(only, p.Base) || slices.Contains(only, p.Head) {
			m.Pairs = append(m.Pairs, p)
		}
	}
	var alone []string
	for _, s := range cfg.Scenarios {
		if !inPair[s.Name] && (len(only) == 0 || slices.Contains(only, s.Name)) {
			alone = append(alone, s.Name)
		}
	}
	if len(m.Pairs) > 0 {
		o := ab.Options{Suite: so, OutDir: logDir, Settings: inRunSettings(cfg)}
		if m.Paired, err = ab.MeasurePairs(ctx, plan, m.Pairs, o); err != nil {
			return nil, err
		}
		for _, r := range append(append([]*result.Result{}, m.Paired.Base...), m.Paired.Head...) {
			m.Run.add(r)
		}
	}
	if len(alone) > 0 && ctx.Err() == nil {
		so.Scenarios = alone
		outs, err := suite.Run(ctx, plan, so)
		if err != nil {
			return nil, err
		}
		m.Alone = outs
		for _, o := range outs {
			m.Run.add(o.Result)
		}
		if m.Paired != nil && so.OutDir != "" {
			if err := relist(so.OutDir, m.Paired); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// relist adds the pairs' results to the manifest the suite run wrote in
// dir (it replaced the pairs' own), so that one manifest lists the whole
// run; it stays complete only when the pairs' run was.
func relist(dir string, paired *ab.Outcome) error {
	man, err := result.ReadManifest(dir)
	if err != nil {
		return err
	}
	for _, r := range append(append([]*result.Result{}, paired.Base...), paired.Head...) {
		if err := man.Add(r.Scenario, filepath.Join(dir, suite.FileName(r.Scenario))); err != nil {
			return err
		}
	}
	man.Complete = man.Complete && paired.RunErr == nil
	return man.Write(dir)
}

// add records r (nil: nothing) under its scenario's name; a scenario in
// two pairs keeps the later pair's result, as the results folder does.
func (r *Run) add(x *result.Result) {
	if x == nil {
		return
	}
	if _, seen := r.ByName[x.Scenario]; seen {
		r.All = slices.DeleteFunc(r.All, func(y *result.Result) bool { return y.Scenario == x.Scenario })
	}
	r.ByName[x.Scenario] = x
	r.All = append(r.All, x)
}

// Failed joins the run's failures: the pairs' and the suite's.
func (m *Measured) Failed(ctx context.Context) error {
	var errs []error
	if m.Paired != nil && m.Paired.RunErr != nil {
		errs = append(errs, m.Paired.RunErr)
	}
	if err := gate.RunFailure(ctx, m.Alone); err != nil {
		return errors.Join(append(errs, err)...) // the suite's exit code
	}
	if len(errs) == 0 {
		return nil
	}
	return exitcode.With(exitcode.RunFailed, errors.Join(errs...))
}

// inRunSettings are the comparison settings of two variants measured in
// this run: the config's, without a run-to-run term (both sides ran on
// the runner as it was then).
func inRunSettings(cfg *config.Config) compare.Settings {
	c := *cfg
	c.Gate.RunToRun = 0
	return gate.Settings(&c, false)
}

// PairedReport is the demo's report of its pairs: the paired comparison
// (each pair's verdict from paired evidence, named by its label) and the
// capacity plans of both sides of each pair with a knee, sized from the
// estimates the comparison tested.
func PairedReport(cfg *config.Config, m *Measured, title string) *report.Report {
	if m.Paired == nil || len(m.Paired.Comparison.Scenarios) == 0 {
		return nil
	}
	base, head := labelled(m.Pairs, m.Paired)
	r := &report.Report{Title: title, Comparison: m.Paired.Comparison, Baseline: base, Candidate: head,
		Mode: "declared pairs measured in one run by the A/B engine, interleaved and paired"}
	var warns []string
	r.Plans, warns = gate.Plans(cfg, base, head, m.Paired.Comparison)
	r.Warnings = append(r.Warnings, warns...)
	return r
}

// labelled are the pairs' sides renamed to their pairs' labels (copies),
// so that the reports and the capacity plans match them with the
// comparison's scenarios.
func labelled(pairs []config.Pair, o *ab.Outcome) (base, head []*result.Result) {
	find := func(rs []*result.Result, name string) *result.Result {
		for _, r := range rs {
			if r.Scenario == name {
				return r
			}
		}
		return nil
	}
	for _, p := range pairs {
		b, h := find(o.Base, p.Base), find(o.Head, p.Head)
		if b == nil || h == nil {
			continue
		}
		bb, hh := *b, *h
		bb.Scenario, hh.Scenario = p.Label(), p.Label()
		base, head = append(base, &bb), append(head, &hh)
	}
	return base, head
}
