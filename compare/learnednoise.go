package compare

// LearnedNoise is a scenario's run-to-run noise learned from the history
// of its runs on this runner (package history): the spread of run-level
// values since the last change point, as a fraction in the form of
// Settings.RunToRun, and the number of runs it rests on. It takes
// precedence over the suite's pooled estimate and the assumed value (see
// poolRunNoise): it is this scenario's own noise, measured over many runs.
type LearnedNoise struct {
	Fraction float64 `json:"fraction"`
	Runs     int     `json:"runs"`
}
