package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/perfgate/perfgate/compare"
)

// Values of the compare-with input.
const (
	compareBaselines = "baselines"
	compareBase      = "base"
	compareBoth      = "both"
)

// readCompareWith checks and sets the compare-with input.
func (in *actionInputs) readCompareWith(v string) error {
	switch v {
	case "":
		in.compareWith = compareBaselines
	case compareBaselines, compareBase, compareBoth:
		in.compareWith = v
	default:
		return fmt.Errorf("input compare-with is %q, want baselines, base or both", v)
	}
	return nil
}

// baseSHA is the pull request's base commit, or "".
func (ev *ghEvent) baseSHA() string {
	if ev == nil || ev.PullRequest == nil {
		return ""
	}
	return ev.PullRequest.Base.SHA
}

// gateWith runs the gate the compare-with input asks for: the stored
// baselines, a same-runner A/B against the pull request's base commit, or
// both (the A/B outcome reported, failing when either fails, the
// baselines' verdict added to its warnings).
func (a *action) gateWith(ctx context.Context, p pipelines) (*gateOutcome, error) {
	if a.in.compareWith == compareBaselines {
		return p.gate(ctx, a.e, a.in.config, a.in.baselines, a.in.allowEnvMismatch)
	}
	base := a.gh.event.baseSHA()
	if base == "" {
		return nil, usageErr("action: compare-with %s measures the pull request's base commit, but the %q event has none: run it on pull_request events, or use compare-with baselines", a.in.compareWith, a.gh.eventName)
	}
	if !isSHA(base) {
		return nil, usageErr("action: the event's pull_request.base.sha %q is not a commit id", base)
	}
	out := filepath.Join(a.e.workdir, defaultOutDir)
	if a.in.compareWith == compareBase {
		return p.ab(ctx, a.e, a.in.config, base, out, a.in.allowEnvMismatch)
	}
	stored, err := p.gate(ctx, a.e, a.in.config, a.in.baselines, a.in.allowEnvMismatch)
	if err != nil {
		return nil, err
	}
	ab, err := p.ab(ctx, a.e, a.in.config, base, filepath.Join(out, "ab"), a.in.allowEnvMismatch)
	if err != nil {
		return nil, err
	}
	c := ab.Report.Comparison
	c.Warnings = append(c.Warnings, fmt.Sprintf("compare-with both: against the stored baselines the verdict is %s (%s); the table above is the A/B run's",
		stored.Verdict, stored.Report.Comparison.Reason))
	if stored.Verdict == compare.Fail && ab.Verdict != compare.Fail {
		ab.Verdict = compare.Fail
		c.Verdict = compare.Fail
		ab.Regressions = append(ab.Regressions, stored.Regressions...)
	}
	return ab, nil
}

// runABPipeline is the Action's A/B gate: `gate --ab ref`, its outputs in out.
func runABPipeline(ctx context.Context, e *env, cfgPath, ref, out string, allowEnvMismatch bool) (*gateOutcome, error) {
	g, err := gateABPipeline(ctx, e, cfgPath, ref, out, nil, allowEnvMismatch)
	if err != nil {
		return nil, err
	}
	if g.runErr != nil {
		return nil, withCode(exitRunFailed, g.runErr)
	}
	return outcomeOf(g), nil
}
