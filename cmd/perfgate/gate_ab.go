package main

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/ab"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/suite"
)

// gateABPipeline is `gate --ab REF`: the same outputs as gatePipeline, the
// base measured now from REF on this runner instead of read from stored
// baselines. onInc is --on-inconclusive (or the Action's input); with the
// config's gate.on_inconclusive it decides whether an inconclusive verdict
// exits 1, as for the stored gate. The targets of both sides run under
// the target supervisor, so they die with perfgate.
func gateABPipeline(ctx context.Context, e *env, cfgPath, ref, out string, scenarios []string, allowEnv bool, onInc string) (*gateRun, error) {
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
	gopts := gate.Options{AllowEnvMismatch: allowEnv, OnInconclusive: onInc,
		Suite: suite.Options{Scenarios: scenarios, OutDir: filepath.Join(out, resultsSubdir), Environ: e.environ(),
			Getenv: e.getenv, Version: version, Log: prog, Progress: prog.update, GPU: true, Self: self, Supervisor: e.supervisor, CPUs: iso, Engine: e.engineSettings(cfg)}}
	res, err := gate.RunAB(ctx, cfg, gate.ABOptions{Ref: ref, OutDir: out, Options: gopts})
	prog.close()
	switch {
	case errors.Is(err, ab.ErrBadRef), errors.Is(err, ab.ErrRefused):
		return nil, withCode(exitUsage, err)
	case err != nil:
		// A build that failed, a worktree git could not add.
		return nil, withCode(exitRunFailed, err)
	}
	g, err := writeGateRun(out, res)
	if err != nil {
		return nil, err
	}
	g.failOnInconclusive = gate.FailsOnInconclusive(cfg, gopts)
	return g, nil
}

// writeGateRun writes a gate's comparison.json, report.md and report.html
// into out.
func writeGateRun(out string, res *gate.Outcome) (*gateRun, error) {
	g := &gateRun{report: res.Report, runErr: res.RunErr,
		comparisonPath: filepath.Join(out, "comparison.json"), markdownPath: filepath.Join(out, "report.md")}
	if err := gate.WriteComparison(g.comparisonPath, res.Report.Comparison); err != nil {
		return nil, withCode(exitRunFailed, err)
	}
	if err := writeMarkdown(g.markdownPath, res.Report); err != nil {
		return nil, withCode(exitRunFailed, err)
	}
	if err := writeHTML(htmlPathNextTo(g.markdownPath), res.Report); err != nil {
		return nil, withCode(exitRunFailed, err)
	}
	return g, nil
}

// flagGiven reports whether the flag name was set on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
