package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/perfgate/perfgate/baselines"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
)

// ErrInterrupted is Store's error when the run was interrupted before
// every scenario ran: nothing is stored then.
var ErrInterrupted = errors.New("baselines not stored: the demo was interrupted before every scenario ran")

// NotStoredError is Store's error when no baseline could be stored; Err
// says why (Stored.Skipped names the results that could not be one, if
// any).
type NotStoredError struct{ Err error }

func (e *NotStoredError) Error() string { return "baselines not stored: " + e.Err.Error() }

// Unwrap returns Err.
func (e *NotStoredError) Unwrap() error { return e.Err }

// Skip is a result that could not be a baseline, and why.
type Skip struct {
	// Scenario is the result's scenario.
	Scenario string
	// Why is the short reason: "no knee: no probe met the SLO", "invalid
	// run" or "cannot be a baseline", with ", host busy" added when the
	// host's other work was measured during it.
	Why string
}

// String is "scenario (why)".
func (s Skip) String() string { return fmt.Sprintf("%s (%s)", s.Scenario, s.Why) }

// Stored is what Store did.
type Stored struct {
	// Dir is the baseline folder: out/baselines.
	Dir string
	// Written are the baseline files written.
	Written []string
	// Skipped are the results left out, as no baseline can be made of
	// them (stored or not, they are not gated until measured again).
	Skipped []Skip
	// ConfigPath is the config written to gate against the baselines
	// (out/perfgate.yaml); empty when it was not written.
	ConfigPath string
}

// Store stores the run in folder resultsDir (whose results are byName)
// as baselines in out/baselines, and writes cfg, pointed at them, as
// out/perfgate.yaml to gate with. On a busy host some results cannot be
// a baseline (an invalid run, a knee search that found no knee): the
// others are stored all the same, and Stored.Skipped names those left
// out and why. Its errors: ErrInterrupted when ctx is done (the run is
// incomplete); a *NotStoredError when no baseline was stored; else an
// error writing the config (the baselines are stored). It sets
// cfg.Baselines.
func Store(ctx context.Context, cfg *config.Config, out, resultsDir string, byName map[string]*result.Result) (Stored, error) {
	st := Stored{Dir: filepath.Join(out, "baselines")}
	if ctx.Err() != nil {
		return st, ErrInterrupted
	}
	written, skipped, err := baselines.UpdateValid(resultsDir, st.Dir, result.Provenance{Tag: "demo", ConfigHash: cfg.Hash})
	for _, s := range skipped {
		st.Skipped = append(st.Skipped, Skip{Scenario: s.Scenario, Why: why(byName[s.Scenario])})
	}
	if err != nil {
		return st, &NotStoredError{Err: err}
	}
	st.Written = written
	cfg.Baselines = "baselines"
	b, err := yaml.Marshal(cfg)
	path := filepath.Join(out, "perfgate.yaml")
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		return st, fmt.Errorf("writing the demo config: %w", err)
	}
	st.ConfigPath = path
	return st, nil
}

// why is the short reason no baseline can be made of r (nil: not in the
// run's results): no knee, or an invalid run, and "host busy" when the
// host's other work was measured during it.
func why(r *result.Result) string {
	w := "cannot be a baseline"
	if r == nil {
		return w
	}
	switch {
	case r.Capacity != nil && !r.Capacity.Found:
		w = "no knee: no probe met the SLO"
	case !r.Valid:
		w = "invalid run"
	}
	if busy(r) {
		w += ", host busy"
	}
	return w
}
