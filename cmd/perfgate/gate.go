package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/baselines"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/exitcode"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/ghaction"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/suite"
)

// cmdGate is `perfgate gate`: run + compare + size + report; the exit code
// is the verdict.
func cmdGate(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	setUsage(fs, "gate")
	var (
		cfgPath   = fs.String("config", config.DefaultFile, "perfgate.yaml to run")
		baseDir   = fs.String("baselines", "", "baseline folder (default: the config's baselines)")
		out       = fs.String("out", defaultOutDir, "output `folder`: results/, comparison.json, report.md and report.html")
		format    = formatFlag(fs, "the report on stdout")
		allowEnv  = fs.Bool("allow-env-mismatch", false, "compare with baselines measured on other hardware (warns loudly)")
		results   = fs.String("results", "", "gate the results in this folder (measured elsewhere, e.g. merged from a matrix) instead of running")
		undecided = fs.Bool("fail-on-inconclusive", false, "exit 1 when the verdict is inconclusive (a gated change beyond its threshold that could not be decided); the same as --on-inconclusive fail")
		onInc     = fs.String("on-inconclusive", "", "what an inconclusive gate does: pass (exit 0, reported as inconclusive), fail (exit 1), or rerun (measure the undecided scenarios again, up to gate.rerun_budget); default: the config's gate.on_inconclusive, else pass")
		histSpec  = fs.String("history", "", "learn each scenario's run-to-run noise from the history in `DIR|REF` (a folder, or a git ref such as origin/perfgate-data; docs/history.md) instead of assuming gate.run_to_run; with --results too; refused with --ab, whose paired test has no run-to-run term")
		abRef     = fs.String("ab", "", "same-runner A/B: measure git revision `REF` and this checkout interleaved, instead of reading baselines (docs/ab.md)")
		scenarios stringList
	)
	fs.Var(&scenarios, "scenario", "gate only this scenario (repeatable)")
	e.engine.register(fs)
	if err := fs.Parse(args); err != nil {
		return usageErr("gate: %v", err)
	}
	if err := checkFlagRanges("gate", fs); err != nil {
		return err
	}
	if err := e.engine.check("gate"); err != nil {
		return err
	}
	outFormat, err := report.ParseFormat(*format)
	if err != nil {
		return usageErr("gate: %v", err)
	}
	if err := config.CheckOnInconclusive(*onInc); err != nil {
		return usageErr("gate: --on-inconclusive %v", err)
	}
	if *undecided {
		*onInc = config.OnInconclusiveFail
	}
	pipeline := gatePipeline
	if *histSpec != "" {
		pipeline = gatePipelineHistory(*histSpec)
	}
	if *results != "" {
		pipeline = resultsPipelineHistory(*results, *histSpec)
	}
	var g *gateRun
	if *abRef != "" || flagGiven(fs, "ab") {
		if *baseDir != "" || *results != "" {
			return usageErr("gate: --ab measures the base revision and the head now; --baselines and --results are not read with it")
		}
		if *histSpec != "" {
			return usageErr("gate: --history learns the run-to-run noise that a test against stored baselines must add; --ab measures both revisions now, interleaved in pairs on this runner, and its paired test has no run-to-run term, so a history would change nothing: drop --history (docs/history.md)")
		}
		g, err = gateABPipeline(ctx, e, *cfgPath, *abRef, *out, scenarios, *allowEnv, *onInc)
	} else {
		g, err = pipeline(ctx, e, *cfgPath, *baseDir, *out, scenarios, *allowEnv, *onInc)
	}
	if err != nil {
		return err
	}
	if err := report.Render(e.stdout, g.report, outFormat); err != nil {
		return withCode(exitRunFailed, err)
	}
	fmt.Fprintf(e.stderr, "wrote %s, %s and %s\n", g.comparisonPath, g.markdownPath, htmlPathNextTo(g.markdownPath))
	return g.exitErr(e, g.failOnInconclusive)
}

// gateRun is one gate's outcome, for the command and the Action.
type gateRun struct {
	report         *report.Report
	comparisonPath string
	markdownPath   string
	runErr         error
	// failOnInconclusive: an inconclusive verdict exits 1 (on_inconclusive
	// fail, or after reruns that did not decide).
	failOnInconclusive bool
}

// pipelineFunc runs (or reads) a gate: config, baselines, output folder,
// scenarios, --allow-env-mismatch and --on-inconclusive.
type pipelineFunc func(ctx context.Context, e *env, cfgPath, baseDir, out string, scenarios []string, allowEnv bool, onInc string) (*gateRun, error)

// verdict is the comparison's verdict.
func (g *gateRun) verdict() string { return g.report.Comparison.Verdict }

// exitErr maps the outcome to the exit code: 3 when the run failed, else
// exitcode.ForVerdict (1 on a regression or an incomparable baseline, and
// on an inconclusive one when failOnInconclusive; 0 on pass or no
// baseline).
func (g *gateRun) exitErr(e *env, failOnInconclusive bool) error {
	if g.runErr != nil {
		return withCode(exitRunFailed, g.runErr)
	}
	code := exitcode.ForVerdict(g.verdict(), failOnInconclusive)
	switch g.verdict() {
	case compare.Fail:
		return withCode(code, errors.New("gate failed: a regression beyond the threshold"))
	case compare.Incomparable:
		return withCode(code, errors.New("gate cannot compare: the baselines were measured on other hardware; update them on this runner, or pass --allow-env-mismatch"))
	case compare.NoBaseline:
		fmt.Fprintln(e.stderr, "perfgate: no baseline to compare with: the gate passes; store baselines with `perfgate baseline update`")
	case compare.Undecided:
		if code != exitPass {
			return withCode(code, errors.New("gate inconclusive: "+g.report.Comparison.Reason))
		}
		fmt.Fprintln(e.stderr, "perfgate: inconclusive: "+g.report.Comparison.Reason+" (the gate passes as inconclusive, not pass; gate.on_inconclusive: fail or --on-inconclusive fail fails it, rerun measures more trials)")
	}
	return nil
}

// gatePipeline loads the config, runs it against the baselines, and writes
// comparison.json and report.md into out.
func gatePipeline(ctx context.Context, e *env, cfgPath, baseDir, out string, scenarios []string, allowEnv bool, onInc string) (*gateRun, error) {
	return gatePipelineHistory("")(ctx, e, cfgPath, baseDir, out, scenarios, allowEnv, onInc)
}

// gatePipelineHistory is gatePipeline learning each scenario's run-to-run
// noise from the history at spec (a folder or a git ref; "" for none).
func gatePipelineHistory(spec string) func(ctx context.Context, e *env, cfgPath, baseDir, out string, scenarios []string, allowEnv bool, onInc string) (*gateRun, error) {
	return func(ctx context.Context, e *env, cfgPath, baseDir, out string, scenarios []string, allowEnv bool, onInc string) (*gateRun, error) {
		return gatePipelineWith(ctx, e, cfgPath, baseDir, out, scenarios, allowEnv, onInc, spec)
	}
}

func gatePipelineWith(ctx context.Context, e *env, cfgPath, baseDir, out string, scenarios []string, allowEnv bool, onInc, historySpec string) (*gateRun, error) {
	cfg, err := config.ReadFile(cfgPath)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	iso, err := pinGenerator(cfg, "", e.stderr)
	if err != nil {
		return nil, err
	}
	self, _ := os.Executable()
	prog := newProgress(e)
	gopts := gate.Options{
		Baselines: baseDir, AllowEnvMismatch: allowEnv, OnInconclusive: onInc,
		Suite: suite.Options{Scenarios: scenarios, OutDir: filepath.Join(out, resultsSubdir), Environ: e.environ(),
			Getenv: e.getenv, Version: version, Log: prog, Progress: prog.update, GPU: true, Self: self, Supervisor: e.supervisor, CPUs: iso, Engine: e.engineSettings(cfg)},
	}
	if historySpec != "" {
		if gopts.History, err = history.Open(ctx, historySpec, e.workdir); err != nil {
			prog.close()
			return nil, withCode(exitUsage, err)
		}
	}
	res, err := gate.Run(ctx, cfg, gopts)
	prog.close()
	if err != nil {
		// A damaged baseline or an unknown scenario: configuration errors.
		return nil, withCode(exitUsage, err)
	}
	g, err := writeGateRun(out, res)
	if err != nil {
		return nil, err
	}
	g.failOnInconclusive = gate.FailsOnInconclusive(cfg, gopts)
	return g, nil
}

func writeMarkdown(path string, r *report.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := report.Markdown(f, r, report.Options{MaxBytes: report.SummaryMaxBytes}); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runGatePipeline is the Action's gate: the same pipeline as `perfgate
// gate`, its results and comparison in perfgate-out under the workspace.
func runGatePipeline(ctx context.Context, e *env, in ghaction.Inputs) (*gateOutcome, error) {
	pipeline := gatePipeline
	ref := ""
	if in.HistoryBranch != "" {
		var err error
		if ref, err = fetchHistory(ctx, e, in.HistoryBranch); err != nil {
			return nil, err
		}
		pipeline = gatePipelineHistory(ref)
	}
	// The results input: gate results measured elsewhere (a matrix's
	// parts, gathered with perfgate merge) instead of running; the
	// history's noise applies to them the same.
	if in.Results != "" {
		pipeline = resultsPipelineHistory(in.Results, ref)
	}
	g, err := pipeline(ctx, e, in.Config, in.Baselines, filepath.Join(e.workdir, defaultOutDir), nil, in.AllowEnvMismatch, in.OnInconclusive)
	if err != nil {
		return nil, err
	}
	if g.runErr != nil {
		return nil, withCode(exitRunFailed, g.runErr)
	}
	return outcomeOf(g), nil
}

// BaselineRuns is how many independent runs the Action's baseline mode
// makes of every scenario, to measure the noise floor.
const BaselineRuns = 2

// runBaselinePipeline is the Action's baseline mode: it runs every
// scenario and, only when the whole run succeeded with valid results,
// stores them as the baselines (atomically, replacing only the scenarios
// measured).
func runBaselinePipeline(ctx context.Context, e *env, cfgPath, baselinesDir string) ([]string, error) {
	cfg, err := config.ReadFile(cfgPath)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	if baselinesDir == "" {
		baselinesDir = cfg.Resolve(cfg.Baselines)
	}
	// BaselineRuns independent runs: their disagreement is each
	// scenario's noise floor, stored with the baseline.
	var dirs []string
	for i := range BaselineRuns {
		dir := filepath.Join(e.workdir, defaultResults)
		if i > 0 {
			dir = filepath.Join(e.workdir, defaultOutDir, fmt.Sprintf("%s-run%d", resultsSubdir, i+1))
		}
		outs, err := runSuite(ctx, e, cfg, nil, dir)
		if err != nil {
			return nil, err
		}
		if err := outcomeErr(ctx, outs); err != nil {
			return nil, fmt.Errorf("baselines not updated: %w", err)
		}
		dirs = append(dirs, dir)
	}
	// The runs are combined in a folder of their own: each run's results
	// stay as measured in perfgate-out.
	resultsDir := filepath.Join(e.workdir, defaultOutDir, resultsSubdir+"-combined")
	if err := os.RemoveAll(resultsDir); err != nil {
		return nil, withCode(exitRunFailed, fmt.Errorf("baselines not updated: %w", err))
	}
	if _, err := baselines.CombineRuns(dirs, resultsDir); err != nil {
		return nil, withCode(exitRunFailed, fmt.Errorf("baselines not updated: %w", err))
	}
	prov, err := storedProvenance(e, cfgPath)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	written, err := baselines.Update(resultsDir, baselinesDir, prov)
	if err != nil {
		return nil, withCode(exitRunFailed, fmt.Errorf("baselines not updated: %w", err))
	}
	for _, w := range written {
		fmt.Fprintf(e.stderr, "stored baseline %s\n", w)
	}
	return written, nil
}

// outcomeOf is a gate run as the Action reports it: the verdict and one
// line per regressed scenario (report.RegressionLines).
func outcomeOf(g *gateRun) *gateOutcome {
	return &gateOutcome{Report: g.report, ComparisonPath: g.comparisonPath, Verdict: g.verdict(), FailOnInconclusive: g.failOnInconclusive,
		Regressions: report.RegressionLines(g.report.Comparison)}
}
