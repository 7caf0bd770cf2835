package compare

// gateWide applies Holm's correction across every gated metric of every
// compared scenario that is tested over target processes or knee
// estimates, so that the gate as a whole, not each scenario alone, fails
// on noise at most at the tests' level (1 − Confidence): the demo's suite
// has 21 such tests, and at 5% each an A/A gate would call something in
// a large share of runs. Metrics tested over trials (one process a side:
// a url: target, restarts: 1) keep their scenario's correction only: the
// Mann-Whitney test's smallest p-value at the default 5 trials a side is
// 0.0079, which no gate-wide level could reach, and the gate would then
// be one that cannot fail. A metric regressed
// or improved within its scenario whose gate-wide adjusted p-value
// (PGate) is not below α becomes inconclusive; nothing is ever upgraded
// (the family is a superset of each scenario's, so PGate ≥ PHolm). The
// scenario's verdict follows, with a reason that says so.
func gateWide(scs []ScenarioComparison, s Settings) { gateWideGuard(scs, s) }
