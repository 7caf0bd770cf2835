package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/internal/capread"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// cmdReport is `perfgate report`: it renders results (and their baselines)
// as one self-contained HTML page. Its usage is synopses()' "report".
func cmdReport(_ context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	var (
		htmlPath = fs.String("html", "", "write the HTML report to `FILE`")
		basePath = fs.String("baseline", "", "baseline `FILE` or folder to compare with (default: none)")
		cfgPath  = fs.String("config", "", "perfgate.yaml whose gate thresholds, capacity plan and ladder to use (optional)")
		allowEnv = fs.Bool("allow-env-mismatch", false, "compare with baselines measured on other hardware (warns loudly)")
	)
	setUsage(fs, "report")
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
		return usageErr("report: name at least one result file or folder (for example %s)", defaultOutDir)
	}
	var cand []*result.Result
	for _, p := range fs.Args() {
		path, err := resultsPath("results", absPath(e, p))
		if err != nil {
			return withCode(exitUsage, fmt.Errorf("report: %w", err))
		}
		rs, err := readForReport(path)
		if err != nil {
			return usageErr("report: %v", err)
		}
		cand = append(cand, rs...)
	}
	var base []*result.Result
	if *basePath != "" {
		var err error
		if base, err = loadBaselines(absPath(e, *basePath), false); err != nil {
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

// readForReport reads a result file, or every perfgate.result/v1 file of a
// folder (other JSON documents there are skipped). Unlike a baseline or a
// gated candidate, a result is drawn as it is: a sweep that found no knee
// and so kept no trials still has its probes to show.
func readForReport(path string) ([]*result.Result, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("results %q: %w", path, err)
	}
	paths := []string{path}
	if st.IsDir() {
		if paths, err = filepath.Glob(filepath.Join(path, "*.json")); err != nil {
			return nil, err
		}
	}
	var rs []*result.Result
	for _, p := range paths {
		b, err := capread.ReadFile(p, capread.Result)
		if err != nil {
			return nil, fmt.Errorf("result %q: %w", p, err)
		}
		var head struct {
			Schema string `json:"schema"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, fmt.Errorf("result %q: %w", p, err)
		}
		if st.IsDir() && head.Schema != result.Schema {
			continue // a comparison, a sizing: not a result
		}
		r, err := result.Decode(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("result %q: %w", p, err)
		}
		for i, t := range r.Trials {
			if err := t.PerSecond.Check(); err != nil {
				return nil, fmt.Errorf("result %q: trials[%d].%w", p, i, err)
			}
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("results %q: no %s files", path, result.Schema)
	}
	return rs, nil
}

// writeHTML writes r's HTML report to path atomically.
func writeHTML(path string, r *report.Report) error {
	return result.WriteFileAtomic(path, func(w io.Writer) error {
		return report.HTML(w, r, report.HTMLOptions{Version: version})
	})
}
