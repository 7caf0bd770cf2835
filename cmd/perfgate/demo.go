package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/internal/demo"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// cmdDemo is `perfgate demo`: the embedded default. It measures the
// reference server's declared layer pairs interleaved and paired
// (demo.Measure), prints their report with the capacity plans, measures
// and reports the planted regression the same way, and stores what it
// measured as a baseline folder to gate against.
func cmdDemo(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	setUsage(fs, "demo")
	quick := fs.Bool("quick", false, "shorter knee searches, no ladder and no planted knee: about two and a half minutes, with wider intervals")
	out := fs.String("out", "perfgate-demo", "folder for results, baselines, the config to gate with and demo.log")
	verbose := fs.Bool("verbose", false, "print every log line, each result's notes and warnings and the full report (they are always written to OUT/demo.log)")
	var scenarios stringList
	fs.Var(&scenarios, "scenario", "run only this scenario (repeatable)")
	if err := fs.Parse(args); err != nil {
		return usageErr("demo: %v", err)
	}
	cfg, err := demo.Config(*quick)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("demo config: %w", err))
	}
	self, err := os.Executable()
	if err != nil {
		return withCode(exitRunFailed, fmt.Errorf("demo: finding the perfgate binary to start the reference server: %w", err))
	}
	start := time.Now()
	fmt.Fprintf(e.stdout, "perfgate demo: %d scenarios against the reference server (perfgate fixture serve), %s, planned about %s if each pair decides at its first look (a second look: up to %s more)\n",
		len(cfg.Scenarios), map[bool]string{true: "quick", false: "full"}[*quick], demo.Planned(cfg, *quick, scenarios).Round(time.Second),
		demo.SecondLook(cfg, *quick, scenarios).Round(time.Second))
	resultsDir := filepath.Join(*out, "results")
	// The full log: every log line of the run, each result's notes and
	// the full reports. The terminal shows one screen of it (the live
	// progress line, the results' figures, the verdicts in brief) unless
	// --verbose.
	logPath := filepath.Join(*out, "demo.log")
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return withCode(exitUsage, fmt.Errorf("demo: --out: %w", err))
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("demo: the log: %w", err))
	}
	defer logFile.Close()
	dl := demoLog{e: e, log: logFile, path: logPath, verbose: *verbose}
	prog := dl.progress()
	so := e.suiteOptions(cfg, resultsDir, prog, nil)
	m, err := demo.Measure(ctx, cfg, so, *out, scenarios)
	prog.close()
	if err != nil {
		return withCode(exitUsage, err)
	}
	fmt.Fprintln(e.stdout)
	rows := runRows(demoOutcomes(cfg, m.Run))
	_ = report.RunTable(logFile, rows)
	if *verbose {
		_ = report.RunTable(e.stdout, rows)
	} else {
		_ = report.RunFigures(e.stdout, rows) // a terminal write error has nowhere to go
	}
	if rep := demo.PairedReport(cfg, m, demo.Title); rep != nil {
		if err := dl.report(rep); err != nil {
			return err
		}
		if page := filepath.Join(*out, "report.html"); writeHTML(page, rep) == nil {
			fmt.Fprintf(e.stdout, "\nthe charts: open %s (one file, works offline)\n", page)
		}
		if err := gate.WriteComparison(filepath.Join(*out, "comparison.json"), rep.Comparison); err != nil {
			return withCode(exitRunFailed, err)
		}
	}
	if err := demoPlanted(ctx, dl, cfg, *out, demo.PlantedSelection(*quick, scenarios)); err != nil {
		return err
	}
	storeDemoBaselines(ctx, e, cfg, *out, resultsDir, self, m.Run.ByName)
	if !*verbose {
		fmt.Fprintf(e.stdout, "\nevery log line, each result's notes and the full reports: %s (--verbose prints them)\n", logPath)
	}
	fmt.Fprintf(e.stdout, "demo took %s\n", time.Since(start).Round(time.Second))
	return m.Failed(ctx)
}

// demoLog is where the demo writes: the full log file always, the
// terminal in brief unless verbose.
type demoLog struct {
	e       *env
	log     *os.File
	path    string
	verbose bool
}

// progress is a progress display whose log lines go to the log file
// (and the terminal too when verbose).
func (d demoLog) progress() *progress {
	p := newProgress(d.e)
	if !d.verbose {
		p.log = d.log
	}
	return p
}

// report writes rep in full to the log, and to the terminal in full when
// verbose, else in brief.
func (d demoLog) report(rep *report.Report) error {
	fmt.Fprintln(d.e.stdout)
	fmt.Fprintln(d.log)
	if err := report.Text(d.log, rep); err != nil {
		return withCode(exitRunFailed, fmt.Errorf("demo: writing %s: %w", d.path, err))
	}
	var err error
	if d.verbose {
		err = report.Text(d.e.stdout, rep)
	} else {
		err = report.Brief(d.e.stdout, rep, "")
	}
	if err != nil {
		return withCode(exitRunFailed, err)
	}
	return nil
}

// demoOutcomes are the run's results as suite outcomes, in the config's
// order, for the results table.
func demoOutcomes(cfg *config.Config, run demo.Run) []suite.Outcome {
	var outs []suite.Outcome
	for _, s := range cfg.Scenarios {
		if r := run.ByName[s.Name]; r != nil {
			outs = append(outs, suite.Outcome{Scenario: s, Result: r})
		}
	}
	return outs
}

// demoPlanted shows the gate catching the planted regression
// (demo.MeasurePlanted): the service layer's batched variant at a fixed
// rate and at its knee against the same server with a slower batcher,
// measured by the engine that measured the layer pairs, its report (the
// verdicts, the metrics that decided and the instance count recomputed)
// and where its results went (out/planted, never among the baselines).
// only is demo.PlantedSelection's: it runs when that holds a planted
// scenario (all, by default; with --quick the fixed rate's pair alone).
func demoPlanted(ctx context.Context, dl demoLog, cfg *config.Config, out string, only []string) error {
	e := dl.e
	if ctx.Err() != nil || !demo.PlantedSelected(only) {
		return nil
	}
	dir := filepath.Join(out, "planted")
	fmt.Fprintf(e.stdout, "\nthe planted regression: the service layer's batched variant against the same server with `fixture serve --item-overhead %s` (a slower batcher, inert with batching off), measured the same way (its pairs below)\n",
		demo.PlantedOverhead)
	prog := dl.progress()
	so := e.suiteOptions(cfg, filepath.Join(dir, "results"), prog, nil)
	m, err := demo.MeasurePlanted(ctx, cfg, so, dir, only)
	prog.close()
	if err != nil {
		return withCode(exitUsage, err)
	}
	if rep := demo.PairedReport(cfg, m, demo.PlantedTitle); rep != nil {
		if err := dl.report(rep); err != nil {
			return err
		}
		if err := gate.WriteComparison(filepath.Join(dir, "comparison.json"), rep.Comparison); err != nil {
			return withCode(exitRunFailed, err)
		}
	}
	if err := m.Failed(ctx); err != nil {
		fmt.Fprintf(e.stdout, "the planted regression's run failed: %v\n", err)
	}
	return nil
}

// storeDemoBaselines stores the run as a baseline folder, with the
// config that gates against it (demo.Store), and prints the command to
// gate with. On a busy host some results cannot be a baseline: the others
// are stored all the same, and one line names those left out, why, and
// the command that measures them again. When nothing is stored it says so
// in one line, with the command to run.
func storeDemoBaselines(ctx context.Context, e *env, cfg *config.Config, out, resultsDir, self string, byName map[string]*result.Result) {
	st, err := demo.Store(ctx, cfg, out, resultsDir, byName)
	var notStored *demo.NotStoredError
	switch {
	case errors.Is(err, demo.ErrInterrupted):
		fmt.Fprintf(e.stdout, "\n%v; run it again to store them: %s\n", err, demoCommand(self, demoArgs(out, nil)...))
		return
	case errors.As(err, &notStored):
		if len(st.Skipped) > 0 {
			fmt.Fprintf(e.stdout, "\nbaselines not stored: no result of this run can be a baseline (%s); run instead, on a quieter machine: %s\n",
				demoSkipped(st.Skipped), demoCommand(self, demoArgs(out, nil)...))
			return
		}
		fmt.Fprintf(e.stdout, "\n%v; run the demo again: %s\n", err, demoCommand(self, demoArgs(out, nil)...))
		return
	case err != nil:
		fmt.Fprintf(e.stdout, "\n%v\n", err)
		return
	}
	fmt.Fprintf(e.stdout, "\nstored %d baselines in %s; gate the next run against them with:\n  %s\n",
		len(st.Written), st.Dir, demoCommand(self, "gate", "--config", st.ConfigPath))
	if len(st.Skipped) > 0 {
		fmt.Fprintf(e.stdout, "not stored, so not gated until measured again: %s; measure them again, on a quieter machine, with: %s\n",
			demoSkipped(st.Skipped), demoCommand(self, demoArgs(out, st.Skipped)...))
	}
}

// demoSkipped lists the skipped results, each with its reason.
func demoSkipped(skipped []demo.Skip) string {
	parts := make([]string, len(skipped))
	for i, s := range skipped {
		parts[i] = s.String()
	}
	return strings.Join(parts, ", ")
}

// demoArgs are the arguments of a demo into folder out that measures the
// skipped scenarios (all, when none), storing their baselines beside the
// others.
func demoArgs(out string, skipped []demo.Skip) []string {
	args := []string{"demo"}
	if out != "perfgate-demo" {
		args = append(args, "--out", out)
	}
	for _, s := range skipped {
		args = append(args, "--scenario", s.Scenario)
	}
	return args
}

// demoCommand is how to run perfgate with args: "go run ./cmd/perfgate"
// when the demo itself runs from go run (a binary in the go build cache),
// else "perfgate".
func demoCommand(self string, args ...string) string {
	cmd := "perfgate"
	if strings.Contains(filepath.ToSlash(self), "/go-build") {
		cmd = "go run ./cmd/perfgate"
	}
	return strings.Join(append([]string{cmd}, args...), " ")
}
