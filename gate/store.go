package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/perfgate/perfgate/baselines"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/internal/exitcode"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// BaselineRuns is how many independent runs StoreBaseline makes of every
// scenario, to measure the noise floor stored with each baseline.
const BaselineRuns = 2

// StoreOptions control StoreBaseline.
type StoreOptions struct {
	// Dir is the baseline folder ("" for the config's baselines).
	Dir string
	// OutDir receives each run's results: OutDir/results for the first,
	// OutDir/results-run2 and on for the others, and the runs combined in
	// OutDir/results-combined.
	OutDir string
	// Runs is the number of independent runs (BaselineRuns when 0).
	Runs int
	// Suite runs the scenarios (its OutDir is set for each run).
	Suite suite.Options
	// Provenance is recorded with every baseline (its empty git fields
	// are taken from the results).
	Provenance result.Provenance
}

// StoreBaseline is the baseline mode: it runs every selected scenario
// o.Runs times and, only when every run succeeded with valid results,
// stores them as the baselines (atomically, replacing only the scenarios
// measured), each with the noise floor the runs' disagreement measures.
// It returns the files written. Its errors carry their exit code: 2 for
// bad input, 3 when a run failed (nothing is stored then).
func StoreBaseline(ctx context.Context, cfg *config.Config, o StoreOptions) ([]string, error) {
	runs := o.Runs
	if runs <= 0 {
		runs = BaselineRuns
	}
	// Compiled once, handed down: nothing below resolves the config.
	plan, err := config.Compile(cfg)
	if err != nil {
		return nil, exitcode.With(exitcode.Usage, err)
	}
	dir := o.Dir
	if dir == "" {
		dir = plan.Baselines
	}
	var dirs []string
	for i := range runs {
		so := o.Suite
		so.OutDir = filepath.Join(o.OutDir, "results")
		if i > 0 {
			so.OutDir = filepath.Join(o.OutDir, fmt.Sprintf("results-run%d", i+1))
			so.NoBuild = true // the first run built the targets
		}
		outs, err := suite.Run(ctx, plan, so)
		if err != nil {
			return nil, SuiteErr(err, outs)
		}
		LogOutcomes(so.Log, outs)
		if err := RunFailure(ctx, outs); err != nil {
			return nil, fmt.Errorf("baselines not updated: %w", err)
		}
		dirs = append(dirs, so.OutDir)
	}
	// The runs are combined in a folder of their own: each run's results
	// stay as measured.
	written, _, err := StoreRuns(dirs, dir, o.Provenance, filepath.Join(o.OutDir, "results-combined"))
	if err != nil {
		return nil, fmt.Errorf("baselines not updated: %w", err)
	}
	return written, nil
}

// StoreRuns stores the results of one or more independent runs of the
// same config (the folders runs) as the baselines in dir, stamped with
// prov, and returns the files written. With several runs each scenario's
// baseline holds every run's trials and their noise floor; they are
// combined in the folder combined (replaced; "" for a temporary one,
// removed after), so that the runs' folders stay as measured. noise is
// the number of scenarios whose noise floor was measured (0 for one run).
// Its errors carry exit code 3.
func StoreRuns(runs []string, dir string, prov result.Provenance, combined string) (written []string, noise int, err error) {
	from := runs[0]
	if len(runs) > 1 {
		if combined == "" {
			if combined, err = os.MkdirTemp("", "perfgate-combined-"); err != nil {
				return nil, 0, exitcode.With(exitcode.RunFailed, err)
			}
			defer os.RemoveAll(combined)
		} else if err := os.RemoveAll(combined); err != nil {
			return nil, 0, exitcode.With(exitcode.RunFailed, err)
		}
		scenarios, err := baselines.CombineRuns(runs, combined)
		if err != nil {
			return nil, 0, exitcode.With(exitcode.RunFailed, err)
		}
		from, noise = combined, len(scenarios)
	}
	written, err = baselines.Update(from, dir, prov)
	if err != nil {
		return nil, 0, exitcode.With(exitcode.RunFailed, err)
	}
	return written, noise, nil
}

// RunFailure maps the scenarios' failures in outs to an error carrying
// its exit code: 2 when a scenario's input was bad (suite.ErrBadInput),
// else 3 when any run failed or ctx was interrupted; nil when every
// scenario ran. A TLS failure gets a line saying how to fix it.
func RunFailure(ctx context.Context, outs []suite.Outcome) error {
	var errs []error
	code := exitcode.RunFailed
	for _, o := range outs {
		if o.Err != nil {
			errs = append(errs, o.Err)
			if errors.Is(o.Err, suite.ErrBadInput) {
				code = exitcode.Usage
			}
		}
	}
	if ctx.Err() != nil {
		errs = append(errs, errors.New("interrupted: partial results were written, marked interrupted"))
	}
	if len(errs) == 0 {
		return nil
	}
	err := errors.Join(errs...)
	if hint := tlsHint(err.Error()); hint != "" {
		err = fmt.Errorf("%w\n%s", err, hint)
	}
	return exitcode.With(code, err)
}

// InvalidRuns is the error, carrying exit code 3, for the results in outs
// marked invalid (result.Result.Valid false: every request failed, the
// generator was the bottleneck, the run was interrupted, ...), naming
// each; nil when every result is valid. `perfgate run` returns it, so
// that an invalid run is not mistaken for a measurement.
func InvalidRuns(outs []suite.Outcome) error {
	var names []string
	for _, o := range outs {
		if o.Result != nil && !o.Result.Valid {
			names = append(names, strconv.Quote(o.Result.Scenario))
		}
	}
	if len(names) == 0 {
		return nil
	}
	return exitcode.With(exitcode.RunFailed, fmt.Errorf("invalid run of scenario %s: its result was written but no gate compares it and it cannot be a baseline (its warnings say why)",
		strings.Join(names, ", ")))
}

// tlsHint says how to fix a TLS failure the requests met, or "".
func tlsHint(msg string) string {
	switch {
	case strings.Contains(msg, "x509: certificate signed by unknown authority"):
		return "hint: the server's certificate is from a CA this machine does not trust: give it with --cacert FILE (or tls: {ca: FILE} in the scenario)"
	case strings.Contains(msg, "x509: certificate is valid for"), strings.Contains(msg, "x509: cannot validate certificate"):
		return "hint: the certificate names another host: --tls-server-name NAME (or tls: {server_name: NAME}) says which name to verify"
	case strings.Contains(msg, "certificate required"), strings.Contains(msg, "bad certificate"):
		return "hint: the server asks for a client certificate (mutual TLS): give --cert FILE --key FILE (or tls: {cert: FILE, key: FILE})"
	}
	return ""
}

// SuiteErr maps an error suite.Run returned to its exit code. Before a
// scenario runs, such an error is the configuration's (exit 2); once the
// run has happened, or when the disk is full, read-only or failing, it is
// the run's output that could not be written (exit 3), and the scenarios'
// own errors, which name each result file not written, are reported with
// it (issue 28: a full disk exited 2 and never named the lost result). A
// target's failed build (suite.ErrBuild) is the run's failure too (exit 3).
func SuiteErr(err error, outs []suite.Outcome) error {
	if errors.Is(err, suite.ErrBuild) {
		return exitcode.With(exitcode.RunFailed, err)
	}
	if len(outs) == 0 && !ioFailure(err) {
		return exitcode.With(exitcode.Usage, err)
	}
	errs := []error{err}
	for _, o := range outs {
		if o.Err != nil {
			errs = append(errs, o.Err)
		}
	}
	return exitcode.With(exitcode.RunFailed, errors.Join(errs...))
}

// ioFailure reports whether err is the storage's failure: no space, no
// quota, a read-only file system, an I/O error.
func ioFailure(err error) bool {
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EIO} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// LogOutcomes writes to log (nil: nowhere) what each scenario of a run
// measured, in the counts its result holds, and the file it wrote.
func LogOutcomes(log io.Writer, outs []suite.Outcome) {
	if log == nil {
		return
	}
	for _, o := range outs {
		if r := o.Result; r != nil && r.Load.Mode != "sweep" {
			// The counts the result holds, so the log agrees with it:
			// requests by the window they were due in, those still in
			// flight at a trial's end included.
			fmt.Fprintf(log, "scenario %s: measured %d requests, %d errors, in %d trials (as the result counts them)\n",
				o.Scenario.Name, r.Summary.Requests, r.Summary.Errors, len(r.Trials))
		}
		if o.Path != "" {
			fmt.Fprintf(log, "scenario %s: wrote %s\n", o.Scenario.Name, o.Path)
		}
	}
}
