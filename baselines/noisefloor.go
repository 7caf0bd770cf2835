package baselines

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
)

// CombineRuns folds independent runs of the same configuration into the
// folder into (created, and empty: a new temporary folder), ready for
// Update; the runs' own folders are left as they were measured (they are
// results, and a failed update must not lose them). Each scenario
// measured in every run gets the trials of all runs (numbered by process
// across runs), the knee estimates of all runs, and the runs' NoiseFloor;
// a scenario missing from a later run keeps its first run's result
// without a floor. into gets a run manifest listing every scenario of the
// first run. It returns the scenarios combined.
func CombineRuns(dirs []string, into string) ([]string, error) {
	if len(dirs) < 2 {
		return nil, nil
	}
	if into == "" || filepath.Clean(into) == filepath.Clean(dirs[0]) {
		return nil, fmt.Errorf("combining runs: want a folder of its own to write into, not the first run's %q", dirs[0])
	}
	first, _, err := readRun(dirs[0], false)
	if err != nil {
		return nil, err
	}
	m, err := result.ReadManifest(dirs[0])
	if err != nil {
		return nil, err
	}
	others := map[string][]*result.Result{}
	for _, d := range dirs[1:] {
		rs, _, err := readRun(d, false)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			others[r.Scenario] = append(others[r.Scenario], r)
		}
	}
	if err := os.MkdirAll(into, 0o755); err != nil {
		return nil, fmt.Errorf("combining runs: %w", err)
	}
	var done []string
	for _, r := range first {
		if more := others[r.Scenario]; len(more) > 0 {
			runs := append([]*result.Result{r}, more...)
			r.NoiseFloorPct = compare.NoiseFloor(runs)
			combine(r, more)
			done = append(done, r.Scenario)
		}
		path := filepath.Join(into, result.FileName(r.Scenario))
		if err := r.WriteFile(path); err != nil {
			return nil, fmt.Errorf("combining runs: %w", err)
		}
		if err := m.Add(r.Scenario, path); err != nil {
			return nil, fmt.Errorf("combining runs: %w", err)
		}
	}
	if err := m.Write(into); err != nil {
		return nil, fmt.Errorf("combining runs: %w", err)
	}
	return done, nil
}

// combine appends the later runs' trials and knee estimates to r.
func combine(r *result.Result, more []*result.Result) {
	procs := max(r.Restarts, 1)
	if len(r.Trials) > 0 && r.Trials[0].Process == 0 {
		for i := range r.Trials {
			r.Trials[i].Process = 1
		}
	}
	for _, m := range more {
		base := procs
		if r.Load.Mode == "sweep" {
			// A sweep's trial is its knee probe, at each run's own knee:
			// the estimates carry the runs, not the trials.
			m = &result.Result{Restarts: m.Restarts, Valid: m.Valid, Capacity: m.Capacity}
		}
		for _, t := range m.Trials {
			p := t.Process
			if p == 0 {
				p = 1
			}
			t.Process = base + p
			procs = max(procs, t.Process)
			r.Trials = append(r.Trials, t)
		}
		procs = max(procs, base+max(m.Restarts, 1))
		r.Valid = r.Valid && m.Valid
		if r.Capacity != nil && m.Capacity != nil {
			r.Capacity.Estimates = append(r.Capacity.Estimates, m.Capacity.Estimates...)
		}
	}
	r.Restarts = procs
	if r.Load.Mode != "sweep" {
		r.Load.Trials = len(r.Trials)
	}
	resummarize(r)
}

// resummarize brings r's summary in step with its trials after more were
// appended (a result must agree with itself: result.Check refuses one
// whose summary is not its trials' sum): result.SummaryOf, the one
// re-summary the suite and baselines share.
func resummarize(r *result.Result) {
	s, err := result.SummaryOf(r.Trials, r.Summary)
	if err != nil {
		r.Warnings = append(r.Warnings, fmt.Sprintf("combining runs: %v", err))
	}
	r.Summary = s
}
