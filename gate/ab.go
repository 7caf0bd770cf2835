package gate

import (
	"context"
	"path/filepath"

	"github.com/perfgate/perfgate/ab"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/report"
)

// ABOptions control RunAB.
type ABOptions struct {
	// Ref is the base revision measured against the current checkout.
	Ref string
	// Options are the gate's (Baselines is not read: an A/B run measures
	// its base now); Suite.OutDir receives the head's results.
	Options
	// OutDir receives the A/B logs (builds, each process's target log).
	OutDir string
}

// RunAB is the gate's same-runner A/B mode (`gate --ab REF`): it measures
// REF and the current checkout interleaved (package ab) and evaluates the
// paired comparison as Run does a stored one: the report, the capacity
// plans of both sides. Stored baselines are not read.
func RunAB(ctx context.Context, cfg *config.Config, o ABOptions) (*Outcome, error) {
	res, err := ab.Run(ctx, cfg, ab.Options{Ref: o.Ref, Suite: o.Suite, OutDir: o.OutDir,
		Settings: Settings(cfg, o.AllowEnvMismatch)})
	if err != nil {
		return nil, err
	}
	r := &report.Report{Title: filepath.Base(cfg.Path), Comparison: res.Comparison, Baseline: res.Base, Candidate: res.Head}
	var warns []string
	r.Plans, warns = Plans(cfg, res.Base, res.Head, res.Comparison)
	r.Warnings = append(r.Warnings, warns...)
	return &Outcome{Report: r, RunErr: res.RunErr}, nil
}
