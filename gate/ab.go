package gate

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/perfgate/perfgate/ab"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// measureAB is Gate's Measure against AB, the same-runner A/B mode
// (`gate --ab REF`): it measures REF and the current checkout interleaved
// (package ab) and evaluates the paired comparison as measureStored does
// a stored one: the report, the capacity plans of both sides. Stored
// baselines are not read. The config is compiled once and handed down.
func measureAB(ctx context.Context, cfg *config.Config, o Request, b AB) (*Outcome, error) {
	plan, err := config.Compile(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ab.ErrRefused, err)
	}
	res, err := ab.Run(ctx, plan, ab.Options{Ref: b.Ref, Suite: o.Suite, OutDir: b.OutDir,
		Settings: Settings(cfg, o.AllowEnvMismatch)})
	if err != nil {
		return nil, err
	}
	var warns []string
	r := &report.Report{Title: filepath.Base(cfg.Path), Comparison: res.Comparison, Baseline: res.Base, Candidate: res.Head}
	base, head, unsized := sizable(res.Base, res.Head)
	r.Plans, warns = Plans(cfg, base, head, res.Comparison)
	r.Warnings = append(r.Warnings, unsized...)
	r.Warnings = append(r.Warnings, warns...)
	return &Outcome{Report: r, RunErr: res.RunErr}, nil
}

// sizable keeps the scenarios whose capacity may be sized on both sides:
// a side whose result is invalid (a knee search that ended without a
// bracket, a run that failed) has no capacity to size, and sizing the
// other side alone would invite a comparison with nothing. The others are
// named in warnings.
func sizable(base, head []*result.Result) (b, h []*result.Result, warnings []string) {
	valid := map[string]bool{}
	for _, r := range base {
		valid[r.Scenario] = r.Valid
	}
	for _, r := range head {
		if r.Capacity != nil && (!r.Valid || !valid[r.Scenario]) {
			warnings = append(warnings, fmt.Sprintf("%s: capacity not sized: a side's result is invalid (see its warnings: a knee search without a bracket has no knee)", r.Scenario))
			continue
		}
		h = append(h, r)
	}
	for _, r := range base {
		if r.Capacity == nil || (r.Valid && slices.ContainsFunc(h, func(x *result.Result) bool { return x.Scenario == r.Scenario })) {
			b = append(b, r)
		}
	}
	return b, h, warnings
}
