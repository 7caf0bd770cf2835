package bisect

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/perfgate/perfgate/ab"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/suite"
)

// AB is the Measurer of `perfgate bisect`: a same-runner A/B of package ab
// with the head commit checked out in a temporary worktree (its own config
// read from there, so each commit is measured as it was configured) and
// the base commit as ab's base revision. Both worktrees are removed on
// every path.
type AB struct {
	// Repo is a folder inside the repository.
	Repo string
	// Config is the config file's path relative to the repository's top.
	Config string
	// Suite carries the environment, the log and the scenarios; its OutDir
	// is replaced per step.
	Suite suite.Options
	// OutDir receives each step's results and logs under step-N-SHA
	// (empty: none kept).
	OutDir string
	// TempDir is where the worktrees are made (empty: the system's).
	TempDir string
	// Settings are the comparison settings of a commit's config (the
	// gate's: gate.Settings); nil: compare.DefaultSettings.
	Settings func(*config.Config) compare.Settings

	steps int
}

var _ Measurer = (*AB)(nil)

// Measure measures head against base.
func (a *AB) Measure(ctx context.Context, base, head string) (*compare.Comparison, error) {
	repo, err := ab.OpenRepo(ctx, a.Repo)
	if err != nil {
		return nil, err
	}
	wt, err := repo.AddWorktree(ctx, a.TempDir, head)
	if err != nil {
		return nil, err
	}
	defer wt.Remove()
	cfg, err := config.ReadFile(filepath.Join(wt.Dir, a.Config))
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", short(head), err)
	}
	a.steps++
	set := compare.DefaultSettings()
	if a.Settings != nil {
		set = a.Settings(cfg)
	}
	o := ab.Options{Ref: base, Suite: a.Suite, Settings: set, TempDir: a.TempDir}
	o.Suite.OutDir = ""
	if a.OutDir != "" {
		d := filepath.Join(a.OutDir, fmt.Sprintf("step-%d-%s", a.steps, short(head)))
		o.OutDir, o.Suite.OutDir = d, filepath.Join(d, "results")
	}
	plan, err := config.Compile(cfg)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", short(head), err)
	}
	res, err := ab.Run(ctx, plan, o)
	if err != nil {
		return nil, err
	}
	if res.RunErr != nil {
		return nil, res.RunErr
	}
	return res.Comparison, nil
}
