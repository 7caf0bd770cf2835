package compare

import (
	"fmt"
	"strings"
)

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
func gateWide(scs []ScenarioComparison, s Settings) {
	type ref struct{ sc, m int }
	var refs []ref
	var ps []float64
	for i := range scs {
		if scs[i].Verdict == NoBaseline || scs[i].Invalid {
			continue
		}
		for k, m := range scs[i].Metrics {
			if m.Gated && m.PHolm != nil && m.PValue != nil && (m.Method == MethodProcesses || m.Method == MethodKneeEstimates || m.Method == MethodCensoredKnee) {
				refs = append(refs, ref{i, k})
				ps = append(ps, *m.PValue)
			}
		}
	}
	alpha := s.alpha()
	changed := map[int][]string{}
	for j, p := range holm(ps) {
		r := refs[j]
		m := &scs[r.sc].Metrics[r.m]
		m.PGate = ptr(p)
		if (m.Verdict == Regressed || m.Verdict == Improved) && p >= alpha {
			changed[r.sc] = append(changed[r.sc], fmt.Sprintf("%s %+.1f%% (p %.3g alone, %.3g across the gate's %d tests)", m.Metric, m.DeltaPct, *m.PHolm, p, len(ps)))
			m.Verdict = Inconclusive
			if m.TrialsNeeded == 0 && beyond(*m) {
				m.TrialsNeeded = needed(*m, alpha/float64(len(ps)))
			}
		}
	}
	for i, what := range changed {
		sc := &scs[i]
		if sc.Verdict != Regressed && sc.Verdict != Improved {
			continue
		}
		if v := scenarioVerdict(sc.Metrics); v != sc.Verdict {
			sc.Verdict = v
			if v == Inconclusive {
				sc.Reason = "inconclusive across the gate: " + strings.Join(what, "; ") +
					": significant for this scenario alone, not after Holm's correction over every gated test of the comparison; rerun, or add trials (processes, knee estimates)"
			}
		}
		for _, m := range sc.Metrics {
			sc.TrialsNeeded = max(sc.TrialsNeeded, m.TrialsNeeded)
		}
	}
}
