package gate

import (
	"context"
	"errors"
	"fmt"

	"github.com/perfgate/perfgate/ab"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/internal/exitcode"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/suite"
)

// Request is one gate: where the candidate's results come from, what they
// are compared with, and the gate's policy. `perfgate gate` and the
// GitHub Action build one and pass it to Gate.
type Request struct {
	// Candidate is Measure{} (run the config's scenarios now; the
	// default when nil) or Results{Dir} (results measured elsewhere).
	Candidate Candidate
	// Base is Stored{...} (the stored baselines; the default when nil) or
	// AB{Ref} (the base revision, measured now on this runner).
	Base Base
	// Scenarios selects the config's scenarios; empty gates them all.
	// Gate copies it into Suite.Scenarios.
	Scenarios []string
	// AllowEnvMismatch compares with results measured on other hardware
	// (warned loudly).
	AllowEnvMismatch bool
	// OnInconclusive overrides the config's gate.on_inconclusive: pass,
	// fail or rerun ("" for the config's, else pass).
	OnInconclusive string
	// Suite runs the scenarios (Measure, AB): its OutDir receives the
	// candidate's results. Its Version is also the one report.html names.
	Suite suite.Options
}

// Candidate is where a gate's candidate results come from: Measure or
// Results.
type Candidate interface{ isCandidate() }

// Measure runs the config's scenarios now (with Request.Suite).
type Measure struct{}

// Results reads results measured elsewhere (a matrix's parts gathered
// with perfgate merge) from Dir instead of running anything. A selected
// scenario without a result there is a run failure (exit 3).
type Results struct{ Dir string }

// Base is what a gate compares the candidate with: Stored or AB.
type Base interface{ isBase() }

// Stored compares with the stored baselines.
type Stored struct {
	// Dir is the baseline folder ("" for the config's baselines).
	Dir string
	// FirstRun reads a Dir that does not exist as no baselines (the
	// verdict no-baseline, a pass). Without it such a Dir is a
	// configuration error: a mistyped path must not switch the gate off.
	// An existing empty folder is a first run either way.
	FirstRun bool
	// History, when set, is where each scenario's run-to-run noise is
	// learned from (LearnNoise) instead of assumed (gate.run_to_run); the
	// report then draws its trend.
	History history.Source
}

// AB measures the base revision Ref and the current checkout now,
// interleaved on this runner (package ab); stored baselines are not read.
// Its paired test has no run-to-run term, so it takes no history.
type AB struct {
	// Ref is the git revision measured as the base.
	Ref string
	// OutDir receives the A/B logs (builds, each process's target log).
	OutDir string
}

func (Measure) isCandidate() {}
func (Results) isCandidate() {}
func (Stored) isBase()       {}
func (AB) isBase()           {}

// Gate runs the one gate r asks for under cfg and returns its outcome:
// the report, and the exit code and message it maps to (Outcome.ExitCode,
// Outcome.Message); Outcome.Write writes its files. The three
// combinations are Measure against Stored (run, then compare with the
// baselines; on_inconclusive: rerun measures undecided scenarios again),
// Results against Stored (gate results measured elsewhere), and Measure
// against AB (same-runner A/B); Results against AB is refused.
//
// The error, when the gate could not reach a verdict, carries its exit
// code (exitcode.Of): 2 for a configuration error (an underpowered
// scenario, a damaged baseline, an unknown scenario or revision), 3 when
// the run itself failed (a build, a full disk).
func Gate(ctx context.Context, cfg *config.Config, r Request) (*Outcome, error) {
	if r.Scenarios != nil {
		r.Suite.Scenarios = r.Scenarios
	}
	var (
		o    *Outcome
		err  error
		code = exitcode.Usage
	)
	switch b := r.Base.(type) {
	case nil, Stored:
		st, _ := b.(Stored)
		switch c := r.Candidate.(type) {
		case nil, Measure:
			o, err = measureStored(ctx, cfg, r, st)
		case Results:
			o, err = fromResults(ctx, cfg, c.Dir, r, st)
		default:
			return nil, fmt.Errorf("gate: unknown candidate %T", c)
		}
	case AB:
		if _, ok := r.Candidate.(Results); ok {
			return nil, exitcode.With(exitcode.Usage, errors.New("gate: an A/B gate measures the base revision and the head now: results measured elsewhere are not read with it"))
		}
		o, err = measureAB(ctx, cfg, r, b)
		if !errors.Is(err, ab.ErrBadRef) && !errors.Is(err, ab.ErrRefused) {
			// A build that failed, a worktree git could not add.
			code = exitcode.RunFailed
		}
	default:
		return nil, fmt.Errorf("gate: unknown base %T", b)
	}
	if err != nil {
		return nil, withDefaultCode(code, err)
	}
	o.FailOnInconclusive = onInconclusive(cfg, r.OnInconclusive) == config.OnInconclusiveFail
	o.Regressions = report.RegressionLines(o.Report.Comparison)
	o.version = r.Suite.Version
	return o, nil
}

// withDefaultCode marks err with code unless it carries one already.
func withDefaultCode(code int, err error) error {
	var coded *exitcode.Error
	if errors.As(err, &coded) {
		return err
	}
	return exitcode.With(code, err)
}
