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
	"github.com/perfgate/perfgate/demo"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// cmdDemo is `perfgate demo`: the embedded default. It starts the
// reference server variants, runs the layered suite, compares each layer's
// candidate with its baseline variant, sizes capacity, prints the report,
// and stores what it measured as a baseline folder to gate against.
func cmdDemo(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	setUsage(fs, "demo")
	quick := fs.Bool("quick", false, "shorter windows: about a minute and a half, with wider intervals")
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
	fmt.Fprintf(e.stdout, "perfgate demo: %d scenarios against the reference server (perfgate fixture serve), %s, planned about %s\n",
		len(cfg.Scenarios), map[bool]string{true: "quick", false: "full"}[*quick], demo.Planned(cfg, scenarios).Round(time.Second))
	resultsDir := filepath.Join(*out, "results")
	plan, err := config.Compile(cfg)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("demo config: %w", err))
	}
	// The full log: every log line of the run, each result's notes and
	// the full report. The terminal shows one screen of it (the live
	// progress line, the results' table, the verdict in brief) unless
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
	prog := newProgress(e)
	if !*verbose {
		prog.log = logFile
	}
	so := e.suiteOptions(cfg, resultsDir, prog, nil)
	so.Scenarios = scenarios
	outs, err := suite.Run(ctx, plan, so)
	prog.close()
	if err != nil {
		return withCode(exitUsage, err)
	}
	fmt.Fprintln(e.stdout)
	rows := runRows(outs)
	_ = report.RunTable(logFile, rows)
	if *verbose {
		_ = report.RunTable(e.stdout, rows)
	} else {
		_ = report.RunFigures(e.stdout, rows) // a terminal write error has nowhere to go
	}

	run := demo.Results(outs)
	rep, err := demo.Compare(cfg, run)
	if err != nil {
		return withCode(exitRunFailed, err)
	}
	if rep != nil {
		fmt.Fprintln(e.stdout)
		fmt.Fprintln(logFile)
		if err := report.Text(logFile, rep); err != nil {
			return withCode(exitRunFailed, fmt.Errorf("demo: writing %s: %w", logPath, err))
		}
		if *verbose {
			err = report.Text(e.stdout, rep)
		} else {
			err = report.Brief(e.stdout, rep, "")
		}
		if err != nil {
			return withCode(exitRunFailed, err)
		}
		if page := filepath.Join(*out, "report.html"); writeHTML(page, rep) == nil {
			fmt.Fprintf(e.stdout, "\nthe charts: open %s (one file, works offline)\n", page)
		}
	}
	storeDemoBaselines(ctx, e, cfg, *out, resultsDir, self, run.ByName)
	if !*verbose {
		fmt.Fprintf(e.stdout, "\nevery log line, each result's notes and the full report: %s (--verbose prints them)\n", logPath)
	}
	fmt.Fprintf(e.stdout, "demo took %s\n", time.Since(start).Round(time.Second))
	return gate.RunFailure(ctx, outs)
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
