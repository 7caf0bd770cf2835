package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/perfgate/perfgate/baselines"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// cmdReport is `perfgate report`: it renders results (and their baselines)
// as one self-contained HTML page.
//
//	perfgate report --html OUT.html [--baseline FILE|DIR] [--config perfgate.yaml] RESULTS…
func cmdReport(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var (
		htmlPath = fs.String("html", "", "write the HTML report to `FILE`")
		basePath = fs.String("baseline", "", "baseline `FILE` or folder to compare with (default: none)")
		cfgPath  = fs.String("config", "", "perfgate.yaml whose gate thresholds, capacity plan and ladder to use (optional)")
		allowEnv = fs.Bool("allow-env-mismatch", false, "compare with baselines measured on other hardware (warns loudly)")
	)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: perfgate report --html OUT.html [--baseline FILE|DIR] [--config perfgate.yaml] RESULTS…")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageErr("report: %v", err)
	}
	if *htmlPath == "" {
		return usageErr("report: --html OUT.html is required")
	}
	if fs.NArg() == 0 {
		return usageErr("report: name at least one result file or folder (for example perfgate-out/results)")
	}
	var cand []*result.Result
	for _, p := range fs.Args() {
		rs, err := baselines.ReadResults(absPath(e, p))
		if err != nil {
			return usageErr("report: %v", err)
		}
		cand = append(cand, rs...)
	}
	var base []*result.Result
	if *basePath != "" {
		var err error
		if base, err = loadBaselines(absPath(e, *basePath)); err != nil {
			return usageErr("report: --baseline: %v", err)
		}
	}
	r, err := buildReport(e, *cfgPath, base, cand, *allowEnv)
	if err != nil {
		return err
	}
	out := absPath(e, *htmlPath)
	if err := writeHTML(out, r); err != nil {
		return withCode(exitRunFailed, fmt.Errorf("report: %w", err))
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", out)
	return nil
}

// buildReport compares cand with base, under cfgPath's gate, capacity and
// ladder when one is given, else with the default settings.
func buildReport(e *env, cfgPath string, base, cand []*result.Result, allowEnv bool) (*report.Report, error) {
	if cfgPath != "" {
		cfg, err := config.ReadFile(absPath(e, cfgPath))
		if err != nil {
			return nil, withCode(exitUsage, err)
		}
		r, err := gate.Evaluate(cfg, base, cand, cand, allowEnv)
		if err != nil {
			return nil, usageErr("report: %v", err)
		}
		return r, nil
	}
	s := compare.DefaultSettings()
	s.AllowEnvMismatch = allowEnv
	c, err := compare.Compare(base, cand, s)
	if err != nil {
		return nil, usageErr("report: %v", err)
	}
	return &report.Report{Comparison: c, Baseline: base, Candidate: cand}, nil
}

// writeHTML writes r's HTML report to path atomically.
func writeHTML(path string, r *report.Report) error {
	return result.WriteFileAtomic(path, func(w io.Writer) error {
		return report.HTML(w, r, report.HTMLOptions{Version: version})
	})
}

// htmlPathNextTo is report.html beside a report.md.
func htmlPathNextTo(markdownPath string) string {
	return filepath.Join(filepath.Dir(markdownPath), "report.html")
}
