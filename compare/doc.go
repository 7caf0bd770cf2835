// Package compare decides, with statistics, whether a candidate's results
// are better, worse or the same as the baselines', and attributes the
// changes to layers. It does no I/O and no formatting: it returns a
// Comparison (the perfgate.comparison/v1 document) whose warnings are data.
//
// # Facts, not sentences
//
// Statistics state facts; reports speak. What a reader should know beside
// the numbers (a trial left out, a threshold raised to the noise floor,
// how max QPS was tested) is a Note: a NoteCode and the names and numbers
// behind it, on the Comparison, each ScenarioComparison and the ladder.
// Why a guard downgraded a verdict is a Downgrade, and what would decide
// an undecided comparison a Lever. Package report writes every sentence
// from them (report.NoteText, report.LeverAdvice) for the terminal,
// Markdown, HTML, the Action's comment and the JSON's warnings, so that
// rewording or renaming a command never edits the statistics.
// Tests of this package (noprose_test.go, nocli_test.go) hold the rule;
// errors for bad input (a setting out of range, Underpowered) name the
// field and value here, where they are found. A scenario's reason is a
// guard's downgrade (ScenarioComparison.Guard), or a note when an A/B
// scenario had no evidence (ScenarioComparison.Undecidable), that report
// says in words (report.ScenarioReason); an invalid run's causes are notes
// (Downgrade.Causes). The comparison's reason is composed by report from
// its verdict, scenarios (StandingOf) and Sensitivity when it renders
// (report.Reason), and what more units cannot do is an MDEBound
// (report.MDELimit, report.SensitivityLever, report.Detects).
//
// # Model
//
// The unit of evidence is the one that carries the noise, never the
// request: requests inside one measurement window are correlated (a GC
// pause, a noisy neighbour), and trials inside one target process share
// its state, so each metric is tested over the largest independent unit
// the two sides have. Each ScenarioComparison's Metric records the method
// used (Metric.Method):
//
//   - MethodProcesses: a latency quantile whose trials came from three or
//     more target processes in all, one value per process (the quantile of
//     its merged trials), Student's t-test pooled over both sides on the
//     logarithms, with the run-to-run variance (assumed, pooled over the
//     suite's other scenarios, or from the baseline's noise floor) added.
//   - MethodTrials: with one process a side, the two-sided Mann-Whitney U
//     test of the per-trial values (exact over midranks when the
//     arrangements are few, else normal with tie correction) and a
//     seeded percentile bootstrap of 100·(cand/base − 1), resampling
//     trials and merging their histograms for quantiles.
//   - MethodKneeEstimates: max QPS over each side's knee estimates,
//     Welch's t-test on their logarithms with the run-to-run variance.
//   - MethodPairedKnees: max QPS of a same-runner A/B sweep, Student's
//     paired t-test on the confirmation rounds' log ratios.
//   - MethodCensoredKnee: max QPS where one side met the SLO at no rate,
//     its lowest failing rate tested as one more estimate (a prediction
//     test).
//   - MethodBracket: one knee a side, the brackets as the interval, no
//     p-value: never regressed or improved.
//   - MethodPaired: an interleaved A/B run (ComparePaired), Student's
//     paired t-test over the blocks' log ratios.
//
// Each method is one implementation, in a file of its own, returning an
// Estimate (the change, its interval and equivalence interval, the p-value,
// the units behind it): the max-QPS methods are tried in one order
// (censored knee, paired rounds, knee estimates, brackets), the latency
// methods in another (paired units of an A/B run, processes, trials); the
// first that applies compares.
//
// Holm's step-down correction is applied across the gated metrics of a
// scenario (leaving out, after Tarone, tests whose values are all tied)
// and, for tests over processes and knee estimates, across the whole gate
// (Metric.PGate).
//
// The verdict, with threshold t (5%), point change Δ and α = 1 −
// confidence:
//
//	regressed     Δ beyond +t in the bad direction, and p < α
//	improved      Δ beyond t in the good direction, and p < α
//	unchanged     the equivalence interval (at 1 − 2α: two one-sided tests) inside [−t, +t]
//	inconclusive  otherwise: the noise is wider than the threshold
//
// A max-QPS or latency change resting on knee probes or trials measured
// while the host was busy, or on a runner whose speed probe moved, is
// inconclusive rather than regressed.
//
// # The verdict pipeline
//
// Every verdict is set in verdict.go, in this order: Decide on each
// metric's evidence; the metric guards (noise floor, no test); the
// scenario's verdict as the worst of its gated metrics, then the scenario
// guards (sparse quantile, host busy, runner shift, invalid run); the
// gate-wide family; the top verdict. A guard only downgrades to
// inconclusive and records why as data (ScenarioComparison.Downgrades,
// Metric.Guard). What would decide an undecided comparison is data too
// (Lever); package report says it in words, with the commands.
//
// Gated metrics (P50 and P99, max QPS, error rate, and TTFT and TPOT P50
// and P99 for streaming; the medians at Settings.P50Regression, unless 0;
// the server's own compute time per request, server_compute_ms, at
// Settings.ServerComputeRegression where every trial has it) decide the scenario's and the gate's verdict; P999,
// output tokens/s and goodput are reported with verdicts of their own (on
// the raw p-value) but never fail the gate. The error rate is compared in
// percentage points, not relative percent, because a baseline of zero
// errors has no relative change.
//
// Results whose run was invalid (the generator lagged its schedule) or
// interrupted are compared for reading but never pass or fail: the scenario
// is inconclusive and says why. A baseline from another environment (GPU
// model, count, driver, CUDA, MIG mode, CPU model, cores) makes the whole
// comparison incomparable unless Settings.AllowEnvMismatch.
//
// # Statistics other packages read
//
// The statistics that other stages report, but do not decide with, live
// here too, so that each has one implementation: GeoMean (the centre of
// figures whose changes are ratios), KneeQPS (a sweep's knee from its
// estimates) and NoiseFloor (the run-to-run disagreement of a baseline
// combined from runs; baselines.CombineRuns records it), DriftPct and
// UnpairedDeltaPct (what an A/B run's interleaving and pairing removed;
// package ab reports them).
package compare
