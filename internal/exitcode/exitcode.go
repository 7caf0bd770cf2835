// Package exitcode holds perfgate's exit codes and the one mapping from a
// comparison's verdict to them, shared by `perfgate gate`, `perfgate
// compare` and the Action, so that one verdict exits the same way from
// every front end.
//
// The codes, as the README documents them: 0 pass, 1 a regression failed
// the gate, 2 usage or configuration error, 3 the run itself failed.
package exitcode

import (
	"errors"

	"github.com/perfgate/perfgate/compare"
)

// The exit codes.
const (
	// Pass: the gate passed (or there was nothing to compare with).
	Pass = 0
	// Regression: a regression failed the gate, or the baselines could
	// not be compared (measured on other hardware).
	Regression = 1
	// Usage: a usage or configuration error.
	Usage = 2
	// RunFailed: the run itself failed (the target did not start, every
	// request failed, interrupted).
	RunFailed = 3
)

// ForVerdict is the exit code of a comparison's top-level verdict: 1 for
// fail and for incomparable (baselines measured on other hardware fail the
// gate: the verdict cannot be trusted, and --allow-env-mismatch is the way
// to accept them), 1 for inconclusive when failOnInconclusive is set, and 0
// otherwise (pass, no-baseline).
func ForVerdict(verdict compare.Verdict, failOnInconclusive bool) int {
	switch verdict {
	case compare.Fail, compare.Incomparable:
		return Regression
	case compare.Inconclusive:
		if failOnInconclusive {
			return Regression
		}
	}
	return Pass
}

// Error carries an exit code with its error.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// With marks err with an exit code; With(code, nil) is nil.
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Of is the exit code err carries: Pass for nil, RunFailed for an error
// that carries none.
func Of(err error) int {
	if err == nil {
		return Pass
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return RunFailed
}
