package compare

// LearnedNoise is a scenario's run-to-run noise learned from the history
// of its runs on this runner (package history): the spread of run-level
// values since the last change point, as a fraction in the form of
// Settings.RunToRun, and the number of runs it rests on. It takes
// precedence over the suite's pooled estimate and the assumed value (see
// poolRunNoise): it is this scenario's own noise, measured over many runs.
//
// MedianFraction and MedianRuns are the same for the medians' family (P50,
// TTFT and TPOT P50), learned from their own spread where the history has
// enough runs of them (0: not learned; the medians then take the pooled,
// noise-floor or assumed value, never the tail's learned one, which would
// hide the change they are gated to see).
type LearnedNoise struct {
	Fraction       float64 `json:"fraction"`
	Runs           int     `json:"runs"`
	MedianFraction float64 `json:"median_fraction,omitempty"`
	MedianRuns     int     `json:"median_runs,omitempty"`
}
