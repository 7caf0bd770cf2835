package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/baselines"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/internal/exitcode"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// cmdCompare implements perfgate compare: it compares candidate results
// with baselines and prints the verdict. Exit 1 on fail (or incomparable
// environments), 0 on pass or no baseline, 2 on bad input. Its usage is
// synopses()' "compare".
func cmdCompare(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	s := compare.DefaultSettings()
	var (
		cfgPath  = fs.String("config", "", "perfgate.yaml whose gate (thresholds, confidence) and baselines folder to use; flags override")
		basePath = fs.String("baseline", "", "baseline `FILE` or folder of baselines (one file per scenario; default with --config: its baselines)")
		candPath = fs.String("candidate", "", "candidate result `FILE` or folder of results (default with --config: perfgate-out)")
		format   = formatFlag(fs, "the comparison on stdout")
		p99      = fs.String("p99-threshold", thresholdString(s.P99Regression), "latency regression threshold (practical significance)")
		p99Eq    = fs.String("p99-equivalence", "", "the margin inside which P99 (and TTFT and TPOT P99) is called unchanged, at least --p99-threshold (default: --p99-threshold's; a regression is still called beyond --p99-threshold)")
		qps      = fs.String("max-qps-threshold", thresholdString(s.MaxQPSRegression), "max QPS regression threshold")
	)
	fs.Float64Var(&s.Confidence, "confidence", s.Confidence, "confidence of the intervals; tests run at 1 − confidence")
	fs.IntVar(&s.Resamples, "resamples", s.Resamples, "bootstrap resamples per interval")
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "seed of the bootstrap (verdicts are reproducible)")
	fs.BoolVar(&s.AllowEnvMismatch, "allow-env-mismatch", false, "compare with a baseline from other hardware anyway, with a loud warning")
	fs.BoolVar(&s.IgnoreHostLoad, "ignore-host-load", false, "keep a regression measured while the host was busy with other work, or while the runner ran slower, a regression (default: inconclusive (host busy) or (runner slower))")
	histSpec := fs.String("history", "", "learn each scenario's run-to-run noise from the history in `DIR|REF` (docs/history.md) instead of assuming gate.run_to_run")
	verbose := fs.Bool("verbose", false, "print every metric of every scenario, the method, the environment and the warnings instead of the headline, the table and what would decide")
	firstRun := fs.Bool("first-run", false, "this is the first run, before any baseline is stored: a --baseline folder that does not exist is read as none (no-baseline, exit 0) instead of an error (exit 2)")
	failUndecided := fs.Bool("fail-on-inconclusive", false, "exit 1 when the verdict is inconclusive (a gated change beyond its threshold that could not be decided)")
	setUsage(fs, "compare")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageErr("compare: %v", err)
	}
	switch {
	case fs.NArg() == 2 && *basePath == "" && *candPath == "":
		// perfgate compare BASELINE CANDIDATE, as benchstat old new.
		*basePath, *candPath = fs.Arg(0), fs.Arg(1)
	case fs.NArg() > 0:
		return usageErr("compare: unexpected argument %q: compare two results as perfgate compare [flags] BASELINE CANDIDATE (flags first), or with --baseline and --candidate", fs.Arg(0))
	}
	if err := checkFlagRanges("compare", fs); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *cfgPath != "" {
		cfg, err := config.ReadFile(absPath(e, *cfgPath))
		if err != nil {
			return withCode(exitUsage, err)
		}
		// The config's gate, as perfgate gate applies it; flags override.
		g := gate.Settings(cfg, s.AllowEnvMismatch)
		if !set["p99-threshold"] {
			*p99 = thresholdString(g.P99Regression)
		}
		if !set["p99-equivalence"] && g.P99Equivalence > 0 {
			*p99Eq = thresholdString(g.P99Equivalence)
		}
		if !set["max-qps-threshold"] {
			*qps = thresholdString(g.MaxQPSRegression)
		}
		if !set["confidence"] {
			s.Confidence = g.Confidence
		}
		s.RunToRun = g.RunToRun
		s.RunToRunMedian = g.RunToRunMedian
		s.P50Regression = g.P50Regression
		s.ServerComputeRegression = g.ServerComputeRegression
		if !set["ignore-host-load"] {
			s.IgnoreHostLoad = g.IgnoreHostLoad
		}
		if *basePath == "" {
			*basePath = cfg.Resolve(cfg.Baselines)
		}
		if *candPath == "" {
			*candPath = defaultOutDir
		}
	}
	if *basePath == "" || *candPath == "" {
		return usageErr("compare: --baseline and --candidate are both required (or --config perfgate.yaml, which names the baselines)")
	}
	outFormat, err := report.ParseFormat(*format)
	if err != nil {
		return usageErr("compare: %v", err)
	}
	if s.P99Regression, err = parseThreshold(*p99); err != nil {
		return usageErr("compare: --p99-threshold: %v", err)
	}
	if *p99Eq != "" {
		if s.P99Equivalence, err = parseThreshold(*p99Eq); err != nil {
			return usageErr("compare: --p99-equivalence: %v", err)
		}
		if s.P99Equivalence < s.P99Regression {
			return usageErr("compare: --p99-equivalence %s: must be at least the latency threshold (%s): the margin of unchanged cannot be narrower than the threshold of a regression",
				*p99Eq, thresholdString(s.P99Regression))
		}
	}
	if s.MaxQPSRegression, err = parseThreshold(*qps); err != nil {
		return usageErr("compare: --max-qps-threshold: %v", err)
	}
	if err := s.Validate(); err != nil {
		return usageErr("compare: %v", err)
	}
	base, err := loadBaselines(absPath(e, *basePath), *firstRun)
	if err != nil {
		return usageErr("compare: %v", err)
	}
	candDir, err := resultsPath("--candidate", absPath(e, *candPath))
	if err != nil {
		return usageErr("compare: %v", err)
	}
	cand, err := result.ReadResults(candDir)
	if err != nil {
		return usageErr("compare: --candidate: %v", err)
	}
	if len(base) == 1 && len(cand) == 1 && base[0].Scenario != cand[0].Scenario {
		// Two single files: compare them as one scenario, as benchstat
		// compares two files (a variant against another, say).
		fmt.Fprintf(e.stderr, "perfgate: comparing scenario %q (baseline) with %q (candidate)\n", base[0].Scenario, cand[0].Scenario)
		b := *base[0]
		b.Scenario = cand[0].Scenario
		base = []*result.Result{&b}
	}
	if *histSpec != "" {
		src, err := history.Open(ctx, *histSpec, e.workdir)
		if err != nil {
			return usageErr("compare: --history: %v", err)
		}
		learned, notes, err := gate.LearnNoise(ctx, src, base)
		if err != nil {
			return usageErr("compare: --history: %v", err)
		}
		s.Learned = learned
		for _, n := range notes {
			fmt.Fprintf(e.stderr, "perfgate: %s\n", n)
		}
	}
	c, err := compare.Compare(base, cand, s)
	if err != nil {
		return usageErr("compare: %v", err)
	}
	if outFormat == report.FormatText && !*verbose {
		err = report.ComparisonBrief(e.stdout, c, "every metric, the method and the warnings: --verbose")
	} else {
		err = report.RenderComparison(e.stdout, c, outFormat)
	}
	if err != nil {
		return fmt.Errorf("compare: writing the report: %w", err)
	}
	if c.Verdict == compare.NoBaseline {
		fmt.Fprintln(e.stderr, "perfgate: "+gate.FirstRunMessage(*basePath, *candPath))
	}
	if code := exitcode.ForVerdict(c.Verdict, *failUndecided); code != exitPass {
		return withCode(code, errSilentFail)
	}
	return nil
}

// loadBaselines reads one baseline file or a folder of them. An empty
// folder means no baselines (the verdict is then no-baseline); so does a
// missing one with firstRun, else it is an error naming the path (a typo
// must not pass as a first run).
func loadBaselines(path string, firstRun bool) ([]*result.Result, error) {
	st, err := os.Stat(path)
	if err == nil && !st.IsDir() {
		r, err := baselines.LoadFile(path)
		if err != nil {
			return nil, err
		}
		return []*result.Result{r}, nil
	}
	rs, err := baselines.Load(path)
	if errors.Is(err, baselines.ErrNoBaselines) || firstRun && errors.Is(err, baselines.ErrNoFolder) {
		return nil, nil
	}
	return rs, err
}

// absPath resolves p against the command's working directory.
func absPath(e *env, p string) string {
	if filepath.IsAbs(p) || e.workdir == "" {
		return p
	}
	return filepath.Join(e.workdir, p)
}

// parseThreshold accepts "5%" (as in perfgate.yaml) or a fraction "0.05".
func parseThreshold(s string) (float64, error) {
	if strings.HasSuffix(strings.TrimSpace(s), "%") {
		return config.ParsePercent(s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: write a percentage like \"5%%\"", s)
	}
	if v >= 1 {
		return 0, fmt.Errorf("%q is a fraction above 1: did you mean \"%s%%\"?", s, s)
	}
	return v, nil
}

func thresholdString(f float64) string { return strconv.FormatFloat(100*f, 'g', -1, 64) + "%" }
