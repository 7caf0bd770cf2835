// Package compare decides, with statistics, whether a candidate's results
// are better, worse or the same as the baselines', and attributes the
// changes to layers. It does no I/O and no formatting: it returns a
// Comparison (the perfgate.comparison/v1 document) whose warnings are data.
//
// # Model
//
// The unit of evidence is the trial, never the request: requests inside one
// measurement window are correlated (a GC pause, a noisy neighbour), so
// treating 60,000 of them as independent would make every wobble
// "significant". For each metric each side yields one value per valid trial.
//
// A metric's verdict combines statistical and practical significance:
//
//   - p: the two-sided Mann-Whitney U test of the per-trial values, exact
//     (a permutation over midranks, so ties are handled) when the number of
//     arrangements is small (5 vs 5 has 252), else the normal approximation
//     with tie correction. Holm's step-down correction is applied across the
//     gated metrics of a scenario, leaving out (after Tarone) tests whose
//     values are all tied, such as an error rate of zero on every trial:
//     they cannot reject, so they should not dilute the others.
//   - the interval: a percentile bootstrap of the relative change
//     100·(cand/base − 1). Each resample draws each side's trials with
//     replacement; for latency quantiles the resampled trials' HDR
//     histograms are merged and the quantile taken from the merge, so one
//     long-tailed trial weighs by its requests, as it did in the run. The
//     generator is seeded (Settings.Seed): the same inputs give the same
//     verdict.
//
// The verdict, with threshold t (5%) and α = 1 − confidence:
//
//	regressed     interval wholly beyond +t in the bad direction, and p_holm < α
//	improved      interval wholly beyond −t in the good direction, and p_holm < α
//	unchanged     interval inside [−t, +t]
//	inconclusive  otherwise: the noise is wider than the threshold
//
// Max QPS under the SLO: a sweep confirms its knee with independent
// estimates (the search's and one per confirmation round, each in a fresh
// target process); with estimates on both sides it is tested by Welch's
// t-test on their logarithms and regresses when the change is beyond t and
// the test is significant. With one knee a side (no estimates) the
// interval is the worst and best case the two brackets allow, with no
// p-value, and it is never called regressed or improved. A max-QPS
// regression resting on knee probes measured while the host was busy is
// inconclusive (host busy).
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
// and P99 for streaming; the medians at Settings.P50Regression, unless 0)
// decide the scenario's and the gate's verdict; P999,
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
