package ab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/internal/cpuset"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// ErrRefused marks a configuration A/B cannot measure: a scenario whose
// target is a URL (not started by perfgate), or an unknown scenario name.
// It is a usage error (exit 2).
var ErrRefused = errors.New("a/b refused")

// Options control Run.
type Options struct {
	// Ref is the base revision (any git revision).
	Ref string
	// Suite carries the environment, logging and the scenario selection;
	// its OutDir receives the head side's results (the base side's go to
	// its sibling folder BaseResultsDir).
	Suite suite.Options
	// OutDir receives the build and target logs under ab/ (empty: none kept).
	OutDir string
	// Settings are the comparison's thresholds and confidence.
	Settings compare.Settings
	// TempDir is where the base checkout's temporary folder is made
	// (empty: the system's).
	TempDir string
	// OnWorktree, if set, is called with the base checkout's folder once
	// it exists (tests use it to check that it is removed afterwards).
	OnWorktree func(dir string)
}

// BaseResultsDir is the folder beside the head's results that receives the
// base side's results.
func BaseResultsDir(headResults string) string {
	return filepath.Join(filepath.Dir(headResults), "base-results")
}

// Outcome is an A/B run's comparison and the two sides' results.
type Outcome struct {
	Comparison *compare.Comparison
	Base, Head []*result.Result
	// RunErr joins the scenarios' failures (the run itself failed: exit 3).
	RunErr error
}

// Run measures cfg's scenarios on REF (checked out in a temporary
// worktree) and on the current checkout, interleaved, and compares them
// pair by pair. Errors before any scenario runs are returned: ErrBadRef and
// ErrRefused (usage), ErrBuild (the run failed); failures of scenarios are
// in Outcome.RunErr. The worktree is removed on every path, an interrupt
// (ctx cancelled) included.
func Run(ctx context.Context, cfg *config.Plan, o Options) (*Outcome, error) {
	selected, err := selectScenarios(cfg, o.Suite.Scenarios)
	if err != nil {
		return nil, err
	}
	repo, err := OpenRepo(ctx, absPath(cfg.Dir))
	if err != nil {
		return nil, err
	}
	sha, err := repo.Resolve(ctx, o.Ref)
	if err != nil {
		return nil, err
	}
	wt, err := repo.AddWorktree(ctx, o.TempDir, sha)
	if err != nil {
		return nil, err
	}
	defer wt.Remove()
	if o.OnWorktree != nil {
		o.OnWorktree(wt.Dir)
	}
	logf := func(format string, a ...any) {
		if o.Suite.Log != nil {
			fmt.Fprintf(o.Suite.Log, format+"\n", a...)
		}
	}
	logf("a/b: base %s (%s) checked out in %s; head is the current checkout %s", o.Ref, short(sha), wt.Dir, repo.Root)
	abRun := &compare.ABRun{Ref: o.Ref, BaseSHA: sha, HeadSHA: repo.HeadSHA, HeadDirty: repo.Dirty,
		Resident: cfg.AB.Resident, Design: cfg.AB.Design, MaxTrials: cfg.AB.MaxTrials, BudgetS: cfg.AB.Budget.D().Seconds(),
		Scenarios: []compare.ABScenario{}}
	dirs, err := targetDirs(cfg, selected, wt)
	if err != nil {
		return nil, err
	}
	if abRun.Builds, err = buildAll(ctx, cfg, dirs, o); err != nil {
		return nil, err
	}
	out := &Outcome{}
	var scs []compare.ScenarioComparison
	var runErrs []error
	for _, s := range selected {
		if ctx.Err() != nil {
			runErrs = append(runErrs, ctx.Err())
			break
		}
		logf("a/b: scenario %s: measuring base and head (%s design)", s.Name, cfg.AB.Design)
		sc, run, base, head, err := runScenario(ctx, cfg, s, dirs[s.Target], o)
		if err != nil {
			runErrs = append(runErrs, fmt.Errorf("scenario %s: %w", s.Name, err))
		}
		if sc != nil {
			scs = append(scs, *sc)
			abRun.Scenarios = append(abRun.Scenarios, run)
		}
		for _, x := range []struct {
			r   *result.Result
			dir string
			to  *[]*result.Result
		}{{base, BaseResultsDir(o.Suite.OutDir), &out.Base}, {head, o.Suite.OutDir, &out.Head}} {
			if x.r == nil {
				continue
			}
			*x.to = append(*x.to, x.r)
			if o.Suite.OutDir != "" {
				if err := os.MkdirAll(x.dir, 0o755); err != nil {
					runErrs = append(runErrs, err)
				} else if err := x.r.WriteFile(filepath.Join(x.dir, suite.FileName(s.Name))); err != nil {
					runErrs = append(runErrs, err)
				}
			}
		}
	}
	return o.conclude(out, scs, abRun, runErrs), nil
}

// sides are a scenario's two target sides.
type sides struct{ base, head string }

// runScenario measures one scenario on both sides.
func runScenario(ctx context.Context, cfg *config.Plan, s *config.Scenario, d sides, o Options) (*compare.ScenarioComparison, compare.ABScenario, *result.Result, *result.Result, error) {
	return measure(ctx, cfg, s.Name, s.Layer, [2]*config.Scenario{s, s}, d, o)
}

// measure measures two sides, interleaved and paired: scenario sc[0]
// started in d.base against sc[1] started in d.head (one scenario in two
// checkouts for `gate --ab`; two scenarios of a declared pair in one).
// name and layer label the comparison. The scenarios' loads are the same
// (config.Pair's rule), so either one's load drives both sides.
func measure(ctx context.Context, cfg *config.Plan, name, layer string, sc [2]*config.Scenario, d sides, o Options) (*compare.ScenarioComparison, compare.ABScenario, *result.Result, *result.Result, error) {
	logDir := ""
	if o.OutDir != "" {
		logDir = filepath.Join(o.OutDir, "ab")
		os.MkdirAll(logDir, 0o755)
	}
	mk := func(side string, s *config.Scenario, dir string) *targetSide {
		t := &targetSide{cfg: cfg, s: s, o: o.Suite, dir: dir}
		if logDir != "" {
			stem := strings.TrimSuffix(suite.FileName(s.Name), ".json")
			if sc[0] == sc[1] {
				stem += "." + side
			}
			t.logPrefix = filepath.Join(logDir, stem)
		}
		return t
	}
	base, head := mk("base", sc[0], d.base), mk("head", sc[1], d.head)
	s := sc[0]
	duet := cfg.AB.Design == config.DesignConcurrent
	if why := duetFits(s); duet && why != nil {
		o.logf("a/b: %s: %v", name, why)
		duet = false
	}
	// Both sides' processes start at once (startBoth), and in the
	// concurrent design their trials run at once too: their log lines and
	// progress reach one writer in turn.
	var mu sync.Mutex
	for _, t := range []*targetSide{base, head} {
		t.o.Log, t.o.Progress = lockedLog(&mu, t.o.Log), lockedProgress(&mu, t.o.Progress)
	}
	if s.Load.Mode == harness.ModeSweep {
		return sweepAB(ctx, cfg, name, layer, base, head, o)
	}
	maxPairs := cfg.AB.MaxTrials
	p := Plan{Scenario: name, Layer: layer, Settings: o.Settings,
		Design:      compare.Sequential{Alpha: 1 - o.Settings.Confidence, MaxPairs: maxPairs},
		Budget:      cfg.AB.Budget.D(),
		ResidentOne: cfg.AB.Resident == "one"}
	if log := lockedLog(&mu, o.Suite.Log); log != nil {
		p.Log = func(line string) { fmt.Fprintln(log, line) }
	}
	var res *Measured
	var err error
	if duet {
		var gen, host cpuset.Set
		if iso := o.Suite.CPUs; iso != nil {
			gen, host = iso.Generator, iso.Host
		} else {
			host, _ = cpuset.Allowed() // none off Linux: duetCPUs says so
		}
		var whyNot string
		p.CPUHalves, whyNot = duetCPUs([2]string{cpusOf(cfg, sc[0]), cpusOf(cfg, sc[1])}, gen, host)
		if whyNot != "" {
			o.logf("a/b: %s: %s", name, whyNot)
		}
		base.peer, head.peer = head, base
		res, err = Duet(ctx, p, base, head)
	} else {
		res, err = Interleave(ctx, p, base, head)
	}
	if res == nil {
		return nil, compare.ABScenario{}, nil, nil, err
	}
	if err != nil {
		res.Run.Stopped = "failed"
		if ctx.Err() != nil {
			res.Run.Stopped = "interrupted"
		}
		if res.Comparison.Scenario == "" {
			res.Comparison = compare.ComparePaired(name, layer, res.Pairs, o.Settings, 1-o.Settings.Confidence, 1-o.Settings.Confidence)
		}
		compare.Invalidate(&res.Comparison, fmt.Sprintf("the A/B run stopped early (%v)", err))
	}
	return &res.Comparison, res.Run, base.combined(sc[0]), head.combined(sc[1]), err
}

// cpusOf is the cpus list of scenario s's target ("" for none).
func cpusOf(cfg *config.Plan, s *config.Scenario) string {
	if t := cfg.Targets[s.Target]; t != nil {
		return t.CPUs
	}
	return ""
}

// lockedLog is w with each write under mu (nil for nil).
func lockedLog(mu *sync.Mutex, w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	return writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return w.Write(b)
	})
}

// lockedProgress is f called under mu (nil for nil).
func lockedProgress(mu *sync.Mutex, f func(string, harness.Progress)) func(string, harness.Progress) {
	if f == nil {
		return nil
	}
	return func(s string, p harness.Progress) {
		mu.Lock()
		defer mu.Unlock()
		f(s, p)
	}
}

// writerFunc adapts a function to io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// selectScenarios picks the scenarios named (all when none) and refuses
// those whose target is a URL.
func selectScenarios(cfg *config.Plan, names []string) ([]*config.Scenario, error) {
	for _, n := range names {
		if !slices.ContainsFunc(cfg.Scenarios, func(s *config.Scenario) bool { return s.Name == n }) {
			return nil, fmt.Errorf("%w: %s: no scenario is named %q", ErrRefused, cfg.Path, n)
		}
	}
	var out []*config.Scenario
	var urls []string
	for _, s := range cfg.Scenarios {
		if len(names) > 0 && !slices.Contains(names, s.Name) {
			continue
		}
		if s.URL != "" {
			urls = append(urls, fmt.Sprintf("%s (url %s)", s.Name, s.URL))
			continue
		}
		out = append(out, s)
	}
	if len(urls) > 0 {
		return nil, fmt.Errorf("%w: %s: scenarios %s test a service perfgate does not start, so both sides of the A/B run would hit that one service: give them a target (command and ready) that perfgate starts, or leave them out with --scenario",
			ErrRefused, cfg.Path, strings.Join(urls, ", "))
	}
	return out, nil
}

// targetDirs returns, per target used, the folder its command runs in on
// each side: the target's dir resolved against the config's folder (the
// config's folder itself when dir is not set) in the current checkout, and
// the same path in the base worktree.
func targetDirs(cfg *config.Plan, selected []*config.Scenario, wt *Worktree) (map[string]sides, error) {
	out := map[string]sides{}
	for _, s := range selected {
		if _, done := out[s.Target]; done {
			continue
		}
		t := cfg.Targets[s.Target]
		head := absPath(cfg.Dir)
		if t.Dir != "" {
			head = absPath(t.Dir) // absolute in the plan; symlinks resolved here
		}
		base, err := wt.InWorktree(head)
		if err != nil {
			return nil, fmt.Errorf("%w: target %s: %v", ErrRefused, s.Target, err)
		}
		if st, err := os.Stat(base); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%w: target %s: its folder %s does not exist at the base revision %s",
				ErrRefused, s.Target, base, wt.Dir)
		}
		out[s.Target] = sides{base: base, head: head}
	}
	return out, nil
}

// buildAll runs each used target's build argv in both checkouts, base
// first, its output kept under OutDir/ab/build.
func buildAll(ctx context.Context, cfg *config.Plan, dirs map[string]sides, o Options) ([]compare.ABBuild, error) {
	names := make([]string, 0, len(dirs))
	for n := range dirs {
		names = append(names, n)
	}
	slices.Sort(names)
	var builds []compare.ABBuild
	for _, n := range names {
		t := cfg.Targets[n]
		if len(t.Build) == 0 {
			continue
		}
		// The build's output is kept beside the results (an artifact on
		// CI): secrets are withheld as from the target itself.
		env := suite.BuildEnv(o.Suite.Environ, t)
		for _, side := range []struct{ name, dir string }{{"base", dirs[n].base}, {"head", dirs[n].head}} {
			log := ""
			if o.OutDir != "" {
				log = filepath.Join(o.OutDir, "ab", "build", n+"."+side.name+".log")
			}
			if o.Suite.Log != nil {
				fmt.Fprintf(o.Suite.Log, "a/b: building target %s (%s side): %s\n", n, side.name, strings.Join(t.Build, " "))
			}
			b, err := build(ctx, n, side.name, t.Build, side.dir, env, log)
			builds = append(builds, b)
			if err != nil {
				return builds, err
			}
		}
	}
	return builds, nil
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if d, err := filepath.EvalSymlinks(a); err == nil {
		return d
	}
	return a
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// conclude completes out: the paired comparison of scs under o's
// settings, the A/B run with its tally of decided verdicts, and the
// failures met while measuring.
func (o Options) conclude(out *Outcome, scs []compare.ScenarioComparison, abRun *compare.ABRun, runErrs []error) *Outcome {
	out.Comparison = compare.PairedComparison(scs, o.Settings)
	abRun.Tally(scs)
	out.Comparison.AB = abRun
	out.RunErr = errors.Join(runErrs...)
	return out
}
