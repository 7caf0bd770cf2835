package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/ghaction"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
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
		noBuild   = fs.Bool("no-build", false, noBuildUsage)
		firstRun  = fs.Bool("first-run", false, "this is the first run, before any baseline is stored: a baselines folder that does not exist is read as none (no-baseline, exit 0) instead of an error (exit 2); an existing empty folder needs no flag")
		abRef     = fs.String("ab", "", "same-runner A/B: measure git revision `REF` and this checkout interleaved, instead of reading baselines (docs/ab.md)")
		design    = fs.String("design", "", "with --ab: how the two sides are measured, `interleaved` (one at a time, ABBA) or concurrent (both at once, the same schedule to each); default: the config's ab.design, else interleaved (docs/ab.md)")
		verbose   = fs.Bool("verbose", false, "print the full report (verdict, environment, method, warnings, capacity, layers) instead of the headline, the table and what would decide; it is always written to OUT/gate.log")
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
	req := gateFlags{cfgPath: *cfgPath, baseDir: *baseDir, out: *out, scenarios: scenarios, allowEnv: *allowEnv,
		onInc: *onInc, results: *results, history: *histSpec, noBuild: *noBuild, firstRun: *firstRun}
	if *abRef != "" || flagGiven(fs, "ab") {
		if *baseDir != "" || *results != "" {
			return usageErr("gate: --ab measures the base revision and the head now; --baselines and --results are not read with it")
		}
		if *noBuild {
			return usageErr("gate: --ab checks the base revision out afresh and must build it: --no-build would start it unbuilt; drop --no-build (a target without build: is not built)")
		}
		if *histSpec != "" {
			return usageErr("gate: --history learns the run-to-run noise that a test against stored baselines must add; --ab measures both revisions now, interleaved in pairs on this runner, and its paired test has no run-to-run term, so a history would change nothing: drop --history (docs/history.md)")
		}
		if err := config.CheckABDesign(*design); err != nil {
			return usageErr("gate: --design %v", err)
		}
		req.ab = &gate.AB{Ref: *abRef, OutDir: *out}
		req.design = *design
	} else if *design != "" {
		return usageErr("gate: --design chooses how --ab measures its two sides: give --ab REF, or drop --design")
	}
	o, err := e.gate(ctx, req)
	if err != nil {
		return err
	}
	if outFormat == report.FormatText && !*verbose {
		err = report.Brief(e.stdout, o.Report, "full report: "+o.Paths.Log+" (--verbose prints it here)")
	} else {
		err = report.Render(e.stdout, o.Report, outFormat)
	}
	if err != nil {
		return withCode(exitRunFailed, err)
	}
	fmt.Fprintf(e.stderr, "wrote %s, %s, %s and %s\n", o.Paths.Comparison, o.Paths.Markdown, o.Paths.HTML, o.Paths.Log)
	if msg := o.Message(); msg != "" && o.ExitCode() == exitPass {
		fmt.Fprintln(e.stderr, "perfgate: "+msg)
	}
	return o.Err()
}

// gateFlags is one gate as `perfgate gate` and the Action ask for it.
type gateFlags struct {
	cfgPath, baseDir, out string
	scenarios             []string
	allowEnv              bool
	onInc                 string
	// results gates the results in this folder instead of measuring.
	results string
	// history is where run-to-run noise is learned from (DIR|REF, "" for
	// none).
	history string
	// noBuild skips the targets' build: steps (--no-build).
	noBuild bool
	// ab, when set, measures its revision as the base instead of reading
	// the stored baselines.
	ab *gate.AB
	// firstRun reads a baselines folder that does not exist as none
	// (gate.Stored.FirstRun).
	firstRun bool
	// design, when set, replaces the config's ab.design (--design).
	design string
}

// gate runs the gate g asks for (gate.Gate) and writes its files into
// g.out (gate.Outcome.Write): the one pipeline of `perfgate gate` and the
// Action. Its errors carry their exit code.
func (e *env) gate(ctx context.Context, g gateFlags) (*gate.Outcome, error) {
	cfg, err := config.ReadFile(g.cfgPath)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	if g.design != "" {
		if g.design == config.DesignConcurrent && cfg.AB.Resident == "one" {
			return nil, usageErr("gate: --design concurrent runs both sides' targets at once, and %s sets ab.resident: one (one at a time): drop one of them", g.cfgPath)
		}
		cfg.AB.Design = g.design
	}
	if err := result.MkdirOut(g.out, e.workdir); err != nil {
		return nil, usageErr("gate: --out: %v", err)
	}
	req := gate.Request{Scenarios: g.scenarios, AllowEnvMismatch: g.allowEnv, OnInconclusive: g.onInc}
	if g.results != "" {
		dir, err := resultsPath("--results", absPath(e, g.results))
		if err != nil {
			return nil, usageErr("gate: %v", err)
		}
		req.Candidate = gate.Results{Dir: dir}
	} else {
		iso, err := pinGenerator(cfg, "", e.stderr)
		if err != nil {
			return nil, err
		}
		prog := newProgress(e)
		defer prog.close()
		req.Suite = e.suiteOptions(cfg, filepath.Join(g.out, resultsSubdir), prog, iso)
		req.Suite.NoBuild = g.noBuild
	}
	if g.ab != nil {
		req.Base = *g.ab
	} else {
		st := gate.Stored{Dir: g.baseDir, FirstRun: g.firstRun}
		if g.history != "" {
			if st.History, err = history.Open(ctx, g.history, e.workdir); err != nil {
				return nil, withCode(exitUsage, err)
			}
		}
		req.Base = st
	}
	o, err := gate.Gate(ctx, cfg, req)
	if err != nil {
		return nil, err
	}
	if _, err := o.Write(g.out); err != nil {
		return nil, err
	}
	return o, nil
}

// runGatePipeline is the Action's gate: the same pipeline as `perfgate
// gate`, its results and comparison in perfgate-out under the workspace;
// with the results input, the results measured elsewhere (a matrix's
// parts, gathered with perfgate merge); with the history branch, the
// run-to-run noise learned from it.
func runGatePipeline(ctx context.Context, e *env, in ghaction.Inputs) (*gateOutcome, error) {
	ref := ""
	if in.HistoryBranch != "" {
		var err error
		if ref, err = fetchHistory(ctx, e, in.HistoryBranch); err != nil {
			return nil, err
		}
	}
	return e.gate(ctx, gateFlags{cfgPath: in.Config, baseDir: in.Baselines, out: filepath.Join(e.workdir, defaultOutDir),
		allowEnv: in.AllowEnvMismatch, onInc: in.OnInconclusive, results: in.Results, history: ref, firstRun: in.FirstRun})
}

// runABPipeline is the Action's A/B gate: `gate --ab ref`, its outputs in
// out, with the inputs' config, allow-env-mismatch and on-inconclusive.
func runABPipeline(ctx context.Context, e *env, in ghaction.Inputs, ref, out string) (*gateOutcome, error) {
	return e.gate(ctx, gateFlags{cfgPath: in.Config, out: out, allowEnv: in.AllowEnvMismatch, onInc: in.OnInconclusive,
		ab: &gate.AB{Ref: ref, OutDir: out}})
}

// runBaselinePipeline is the Action's baseline mode (gate.StoreBaseline):
// gate.BaselineRuns runs of every scenario, their results in perfgate-out,
// stored as the baselines only when every run succeeded with valid
// results.
func runBaselinePipeline(ctx context.Context, e *env, cfgPath, baselinesDir string) ([]string, error) {
	cfg, err := config.ReadFile(cfgPath)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	prov, err := storedProvenance(e, cfgPath)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	if err := result.MkdirOut(filepath.Join(e.workdir, defaultOutDir), e.workdir); err != nil {
		return nil, usageErr("baseline: %v", err)
	}
	prog := newProgress(e)
	written, err := gate.StoreBaseline(ctx, cfg, gate.StoreOptions{Dir: baselinesDir, OutDir: filepath.Join(e.workdir, defaultOutDir),
		Suite: e.suiteOptions(cfg, "", prog, nil), Provenance: prov})
	prog.close()
	for _, w := range written {
		fmt.Fprintf(e.stderr, "stored baseline %s\n", w)
	}
	return written, err
}

// suiteOptions are the options of a run of cfg (nil: each commit's own,
// as bisect reads them) from this command's environment: the targets'
// environment, this binary for {perfgate}, the target supervisor, the
// engine settings; results in outDir, progress and log lines on prog
// (nil: none), the generator's CPUs iso (nil: not pinned).
func (e *env) suiteOptions(cfg *config.Config, outDir string, prog *progress, iso *suite.CPUIsolation) suite.Options {
	self, _ := os.Executable()
	so := suite.Options{OutDir: outDir, Environ: e.environ(), Getenv: e.getenv, Version: version, GPU: true, Self: self,
		Supervisor: e.supervisor, CPUs: iso, Engine: e.engineSettings(cfg)}
	if prog != nil {
		so.Log, so.Progress = prog, prog.update
	}
	return so
}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
