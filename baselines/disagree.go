package baselines

import (
	"errors"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/compare"
)

// ErrRunsDisagree marks independent runs that `baseline update` would
// combine although they disagree beyond their noise (a usage error, exit
// 2, unless forced).
var ErrRunsDisagree = errors.New("the runs disagree beyond their noise")

// Disagreement is one metric of one scenario on which a later run
// differs from the first beyond the two runs' own noise.
type Disagreement struct {
	Scenario, Metric string
	// Dirs are the two runs' folders; First and Other the metric's value
	// in each (ms, or QPS, or a fraction for the error rate).
	Dirs         [2]string
	First, Other float64
	DeltaPct     float64
	CIPct        [2]float64
	Absolute     bool
}

// String names the scenario, the metric and both runs' values.
func (d Disagreement) String() string {
	if d.Absolute {
		return fmt.Sprintf("scenario %s: %s: %s %.3g%%, %s %.3g%% (%+.2f points)",
			d.Scenario, d.Metric, d.Dirs[0], 100*d.First, d.Dirs[1], 100*d.Other, d.DeltaPct)
	}
	return fmt.Sprintf("scenario %s: %s: %s %.4g, %s %.4g (%+.1f%% [%+.1f%%, %+.1f%%])",
		d.Scenario, d.Metric, d.Dirs[0], d.First, d.Dirs[1], d.Other, d.DeltaPct, d.CIPct[0], d.CIPct[1])
}

// CheckRuns compares each later run in dirs with the first, scenario by
// scenario, as the gate would compare a candidate with a baseline (s, with
// no run-to-run term: the test is of the runs' own sampling noise), and
// returns every metric decided regressed or improved: two runs of one
// configuration that would fail each other's gate. Combined into one
// baseline, such runs would store a level neither measured and a noise
// floor that hides real changes (TestBaselineUpdateRunsDisagree). Each
// metric is tested with its own noise: P50's spread is not P99's.
func CheckRuns(dirs []string, s compare.Settings) ([]Disagreement, error) {
	if len(dirs) < 2 {
		return nil, nil
	}
	s.RunToRun = 0
	s.Learned = nil
	first, _, err := readRun(dirs[0], false)
	if err != nil {
		return nil, err
	}
	var out []Disagreement
	for _, d := range dirs[1:] {
		other, _, err := readRun(d, false)
		if err != nil {
			return nil, err
		}
		c, err := compare.Compare(first, other, s)
		if err != nil {
			return nil, fmt.Errorf("comparing run %s with %s: %w", d, dirs[0], err)
		}
		for _, sc := range c.Scenarios {
			for _, m := range sc.Metrics {
				if m.Verdict != compare.Regressed && m.Verdict != compare.Improved {
					continue
				}
				out = append(out, Disagreement{Scenario: sc.Scenario, Metric: m.Metric, Dirs: [2]string{dirs[0], d},
					First: m.Baseline, Other: m.Candidate, DeltaPct: m.DeltaPct, CIPct: m.CIPct, Absolute: m.Absolute})
			}
		}
	}
	return out, nil
}

// DisagreeError is CheckRuns' finding as an error wrapping ErrRunsDisagree.
func DisagreeError(ds []Disagreement) error {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.String()
	}
	return fmt.Errorf("%w: %s", ErrRunsDisagree, strings.Join(lines, "; "))
}
