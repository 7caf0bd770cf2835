package compare

// Note is a fact about a comparison that a reader should know beside its
// numbers: a trial left out, a threshold raised to the noise floor, how max
// QPS was tested. compare states the fact as data, a code and the names and
// numbers behind it (only those its code uses are set); package report
// composes the sentence (report.NoteText), so that the statistics never
// write prose and every output (terminal, Markdown, HTML, the Action's
// comment, the JSON's warnings) says it the same way.
type Note struct {
	Code NoteCode `json:"code"`
	// Scenario is the scenario (or ladder rung) the note is about, when it
	// is not the one that holds it.
	Scenario string `json:"scenario,omitempty"`
	// Metric is the metric concerned (a Metric* name).
	Metric string `json:"metric,omitempty"`
	// Side is "baseline" or "candidate" ("base" or "head" in an A/B run,
	// "rung" in a ladder, "either" when both).
	Side string `json:"side,omitempty"`
	// Trial is the trial concerned, from 1.
	Trial int `json:"trial,omitempty"`
	// Text is a cause in its source's own words: a trial's invalid
	// reasons, a result's own warning.
	Text string `json:"text,omitempty"`
	// Names lists what the note is about: scenarios, metrics, the
	// environments' differing fields, or the two sides' load modes.
	Names []string `json:"names,omitempty"`
	// Verdict is the verdict concerned: the one that stands, or the one a
	// guard took away.
	Verdict Verdict `json:"verdict,omitempty"`
	// Count of Total: trials, units, requests or probes concerned.
	Count int `json:"count,omitempty"`
	Total int `json:"total,omitempty"`
	// Need is how many would be needed: requests a unit, trials or knee
	// estimates a side.
	Need int `json:"need,omitempty"`
	// NBase and NCand count each side's units (trials, estimates), or
	// give each side's concurrency.
	NBase int `json:"n_base,omitempty"`
	NCand int `json:"n_cand,omitempty"`
	// Base and Cand are each side's value (an offered rate, a bound).
	Base float64 `json:"base,omitempty"`
	Cand float64 `json:"cand,omitempty"`
	// BaseRange and CandRange are each side's knee bracket.
	BaseRange *[2]float64 `json:"base_range,omitempty"`
	CandRange *[2]float64 `json:"cand_range,omitempty"`
	// Pct is a percentage: a threshold, or how far runs disagreed.
	Pct float64 `json:"pct,omitempty"`
	// CIPct is Pct's interval, where the note states an estimate.
	CIPct *[2]float64 `json:"ci_pct,omitempty"`
	// FloorPct is the baseline's noise floor a threshold was raised to.
	FloorPct float64 `json:"floor_pct,omitempty"`
	// DF is degrees of freedom.
	DF float64 `json:"df,omitempty"`
	// P is the smallest p-value the counts allow; Level the level it had
	// to be below; Alpha the family's α; Tests the gated tests sharing it.
	P     float64 `json:"p,omitempty"`
	Level float64 `json:"level,omitempty"`
	Alpha float64 `json:"alpha,omitempty"`
	Tests int     `json:"tests,omitempty"`
	// From and To are a ladder step's rungs.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// NoteCode names a Note: which fact it states.
type NoteCode string

// The notes' codes. Each says which of Note's fields it sets.
const (
	// Inputs.
	NoteDuplicateBaseline  NoteCode = "duplicate-baseline"   // Scenario: the later one is used
	NoteDuplicateCandidate NoteCode = "duplicate-candidate"  // Scenario: both compared
	NoteNotMeasured        NoteCode = "not-measured"         // Scenario: a baseline with no candidate
	NoteEnvMismatchAllowed NoteCode = "env-mismatch-allowed" // Names: the differences
	NoteInvalidResults     NoteCode = "invalid-results"      // Names: the invalid scenarios
	NoteResultWarning      NoteCode = "result-warning"       // Side, Text: a result's own warning
	NoteSimulated          NoteCode = "simulated"            // Side

	// The load the two sides applied.
	NoteLoadModes    NoteCode = "load-modes-differ"    // Names: baseline's and candidate's mode
	NoteConcurrency  NoteCode = "concurrency-differs"  // NBase, NCand
	NoteOfferedRates NoteCode = "offered-rates-differ" // Base, Cand: configured rates
	NoteTrialRates   NoteCode = "trial-rates-differ"   // Base, Cand: the trials' offered rates

	// Trials.
	NoteTrialLeftOut     NoteCode = "trial-left-out"     // Side (Scenario for a rung), Trial, Text
	NoteTrialFlagged     NoteCode = "trial-flagged"      // Side (Scenario), Trial, Text: kept
	NoteTrialNoRequests  NoteCode = "trial-no-requests"  // Side (Scenario), Trial
	NoteTrialNoStreaming NoteCode = "trial-no-streaming" // Side (Scenario), Trial

	// What was compared, and what was not.
	NoteSweepLatency       NoteCode = "sweep-latency-not-gated"
	NoteKneelessLatency    NoteCode = "kneeless-latency"
	NoteNoHistograms       NoteCode = "no-histograms"
	NoteHistogramsMissing  NoteCode = "histograms-missing"   // Metric
	NoteZeroBaseline       NoteCode = "zero-baseline"        // Metric
	NoteNoiseFloorRaised   NoteCode = "noise-floor-raised"   // Metric, Pct (configured), FloorPct
	NoteBaselineRunsDiffer NoteCode = "baseline-runs-differ" // Metric, Pct, DF
	NoteTrialPower         NoteCode = "trial-power"          // Need, Level, Alpha, Tests, NBase, NCand, P
	NoteSparseInconclusive NoteCode = "sparse-inconclusive"  // Metric, Count (fewest requests), Need
	NoteSparseStands       NoteCode = "sparse-stands"        // Metric, Count, Need, Verdict
	NoteMediansNotGated    NoteCode = "medians-not-gated"    // Names, NBase, NCand, P, Tests (with), Count (without)
	NoteComputeYields      NoteCode = "compute-yields"       // Metric (inconclusive), Names (the median it yields to), Verdict (the median's)
	// An inconclusive metric whose interval rules out a regression beside
	// an improvement (noWorse): Metric, Names (the improved metrics), Pct
	// (its margin), CIPct (its equivalence interval).
	NoteNoWorse NoteCode = "no-worse"

	// How max QPS was compared.
	NoteKneeOneSweep  NoteCode = "knee-one-sweep" // only one side ran a sweep
	NoteKneeNoPass    NoteCode = "knee-no-pass"   // the baseline found no passing rate
	NoteKneeOpen      NoteCode = "knee-open"      // the candidate's knee has no top
	NoteKneeBracket   NoteCode = "knee-bracket"   // Side (without estimates), BaseRange, CandRange, Pct, Need
	NoteKneeCensored  NoteCode = "knee-censored"  // Side, Count (failed probes), Base (bound), Total (other side's estimates)
	NoteKneePaired    NoteCode = "knee-paired"    // Count (rounds), Pct
	NoteKneeEstimates NoteCode = "knee-estimates" // NBase, NCand, Pct

	// A same-runner A/B run.
	NotePairedFlagged NoteCode = "paired-flagged"  // Side (base, head), Count, Total, Text
	NotePairedLeftOut NoteCode = "paired-left-out" // Metric, Count, Total
	NoteFutile        NoteCode = "futile"          // Metric, Count (pairs), Need (pairs it would need; 0: none known), Pct (the chance to decide)
	NoteMorePairs     NoteCode = "more-pairs"      // Metric, Count (pairs), Need (pairs a design would need to decide it; 0: none known)
	// An undecided quantile's spread against its sampling floor: Metric,
	// Need (requests a unit a side, the median), Pct (the standard
	// deviation of the units' log ratios, ×100), FloorPct (what sampling
	// that many requests alone gives, ×100).
	NoteTailSampling NoteCode = "tail-sampling"
	// A side's target processes ran their first trial slower than their
	// later ones (FirstTrial): Side, Metric (p50_ms), Count (processes),
	// Pct and CIPct (the first against the later, in percent).
	NoteFirstTrial NoteCode = "first-trial"
	// Why an A/B scenario had nothing to decide from
	// (ScenarioComparison.Undecidable).
	NotePairedTooFewUnits NoteCode = "paired-too-few-units" // Count (units), Total (pairs), Need (requests a unit a side)
	NotePairedNoGated     NoteCode = "paired-no-gated"      // Count (units), Total (pairs)

	// Why a run cannot be trusted (Downgrade.Causes).
	NoteRunInterrupted  NoteCode = "run-interrupted"  // Side
	NoteRunInvalid      NoteCode = "run-invalid"      // Side: its generator lagged, or every trial was invalid
	NoteNoValidTrials   NoteCode = "no-valid-trials"  // NBase, NCand: the valid trials a side
	NoteUnreadableTrial NoteCode = "unreadable-trial" // Text: which trial, and the decoder's error

	// A ladder.
	NoteRungInvalid NoteCode = "rung-invalid"     // Scenario
	NoteRungNoLayer NoteCode = "rung-no-layer"    // Scenario
	NoteLadderNoQPS NoteCode = "ladder-no-qps"    // not every rung found a knee
	NoteLadderBusy  NoteCode = "ladder-host-busy" // From, To, Metric, Verdict (taken away), Count, Total
)
