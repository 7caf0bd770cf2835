package main

// TEMPORARY: the lead's cmd/perfgate/gate.go replaces this file with the real
// pipelines (run every scenario, compare with the baselines, size). Until
// then the action can be driven end to end from files:
//
//	PERFGATE_ACTION_REPORT=report.json   a perfgate.report/v1 document to gate on
//	PERFGATE_ACTION_RESULTS=DIR          result files baseline mode stores

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/baselines"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// runGatePipeline reads the report PERFGATE_ACTION_REPORT names and writes
// its comparison next to it.
func runGatePipeline(ctx context.Context, e *env, cfgPath, baselinesDir string, allowEnvMismatch bool) (*gateOutcome, error) {
	path := e.getenv("PERFGATE_ACTION_REPORT")
	if path == "" {
		return nil, withCode(exitUsage, errors.New("gate pipeline not wired yet: set PERFGATE_ACTION_REPORT to a perfgate.report/v1 file"))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	defer f.Close()
	r, err := report.Decode(f)
	if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("%q: %w", path, err))
	}
	out := &gateOutcome{Report: r, Verdict: r.Comparison.Verdict, ComparisonPath: filepath.Join(filepath.Dir(path), "comparison.json")}
	err = result.WriteFileAtomic(out.ComparisonPath, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r.Comparison)
	})
	if err != nil {
		return nil, withCode(exitRunFailed, err)
	}
	for _, s := range r.Comparison.Scenarios {
		if s.Verdict == compare.Regressed {
			out.Regressions = append(out.Regressions, fmt.Sprintf("%s (%s layer) regressed", s.Scenario, s.Layer))
		}
	}
	return out, nil
}

// runBaselinePipeline stores the results in PERFGATE_ACTION_RESULTS as the
// baselines.
func runBaselinePipeline(ctx context.Context, e *env, cfgPath, baselinesDir string) error {
	from := e.getenv("PERFGATE_ACTION_RESULTS")
	if from == "" || baselinesDir == "" {
		return withCode(exitUsage, errors.New("baseline pipeline not wired yet: set PERFGATE_ACTION_RESULTS and the baselines input"))
	}
	_, err := baselines.Update(from, baselinesDir, result.Provenance{GitSHA: e.getenv("GITHUB_SHA"), GitRef: e.getenv("GITHUB_REF")})
	return withCode(exitRunFailed, err)
}
