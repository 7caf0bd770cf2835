package compare

import (
	"fmt"
	"math"
)

// LearnedNoise is a scenario's run-to-run noise learned from the history
// of its runs on this runner (package history): the spread of run-level
// values since the last change point, as a fraction in the form of
// Settings.RunToRun, and the number of runs it rests on.
type LearnedNoise struct {
	Fraction float64 `json:"fraction"`
	Runs     int     `json:"runs"`
}

// Sources of the run-to-run noise, as ScenarioComparison.RunToRunSource
// records them (a learned one reads "history (14 runs)").
const (
	RunToRunAssumed    = "assumed"
	RunToRunNoiseFloor = "noise floor"
	RunToRunNone       = "none"
)

// runToRun is the run-to-run variance (log scale) of a scenario's test
// and its source: none when the baseline carries a noise floor (measured
// over runs), else the history's learned noise for the scenario when
// Settings.Learned has it, else the assumed Settings.RunToRun.
func (s Settings) runToRun(scenario string, measured bool) (float64, string) {
	if measured {
		return 0, RunToRunNoiseFloor
	}
	if n, ok := s.Learned[scenario]; ok && n.Runs > 0 {
		l := math.Log1p(n.Fraction)
		return 2 * l * l, fmt.Sprintf("history (%d runs)", n.Runs)
	}
	if s.RunToRun <= 0 {
		return 0, RunToRunNone
	}
	return s.runVar(false), RunToRunAssumed
}
