package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/compare"
)

// row is a scenario's figures as every format's summary table shows them:
// P99 base → PR with its change and interval, max QPS base → PR with its
// change and interval, and the notes after the verdict. A side without a
// figure is the format's dash; a change is split in its point (P99Pct,
// QPSPct: markdown bolds a regressed one) and its interval.
type row struct {
	P99, P99Pct, P99CI string
	QPS, QPSPct, QPSCI string
	// P99Regressed and QPSRegressed: that metric regressed.
	P99Regressed, QPSRegressed bool
	// Notes qualify the verdict: (invalid run), (host busy), (simulated),
	// (by p50_ms): the metrics that decided it, where the row shows none.
	Notes []string
}

// scenarioRow computes s's row, dash standing for a missing figure.
func (r *Report) scenarioRow(s compare.ScenarioComparison, dash string) row {
	p99, knee := metric(s, compare.MetricP99), metric(s, compare.MetricMaxQPS)
	cand := find(r.Candidate, s.Scenario)
	w := row{P99: dash, P99Pct: dash, QPS: dash, QPSPct: dash}
	switch {
	case p99 != nil && !p99.Gated:
		// Measured at each side's knee: the rates differ, so not gated.
		w.P99 = ms(p99.Baseline) + " → " + ms(p99.Candidate) + " ms"
		w.P99Pct = kneeRateNote
	case p99 != nil:
		w.P99 = ms(p99.Baseline) + " → " + ms(p99.Candidate) + " ms"
		w.P99Pct, w.P99CI, w.P99Regressed = pct(p99.DeltaPct, false), interval(p99), p99.Verdict == compare.Regressed
	case cand != nil && len(cand.Trials) > 0:
		w.P99 = dash + " → " + ms(cand.Summary.Latency.P99) + " ms"
	}
	switch {
	case knee != nil:
		bq, cq := values(knee, qps)
		w.QPS = bq + " → " + cq
		w.QPSPct, w.QPSCI, w.QPSRegressed = delta(knee), interval(knee), knee.Verdict == compare.Regressed
	case cand != nil && cand.Capacity != nil && cand.Capacity.Found:
		w.QPS = dash + " → " + qps(cand.Capacity.MaxQPS)
	}
	if s.Invalid {
		w.Notes = append(w.Notes, "(invalid run)")
	}
	if s.HostBusy {
		w.Notes = append(w.Notes, "(host busy)")
	}
	if s.RunnerShifted && s.RunnerShiftPct != nil {
		w.Notes = append(w.Notes, fmt.Sprintf("(runner %+.0f%%)", *s.RunnerShiftPct))
	}
	if s.Simulated {
		w.Notes = append(w.Notes, "(simulated)")
	}
	// A verdict the row's columns do not show (a stream whose TPOT
	// regressed while its P99 improved, a median that decided where the
	// P99 could not) names the metrics that decided it.
	if len(s.DecidedBy) > 0 && !slices.Contains(s.DecidedBy, compare.MetricP99) && !slices.Contains(s.DecidedBy, compare.MetricMaxQPS) {
		w.Notes = append(w.Notes, "(by "+strings.Join(s.DecidedBy, ", ")+")")
	}
	return w
}

// withCI joins a change's point and interval ("+17.8% [+12.1%, +23.5%]");
// the point alone when there is no interval.
func withCI(point, ci string) string {
	if ci == "" {
		return point
	}
	return point + " " + ci
}

// notes is the verdict's notes after a space, or "".
func (w row) notes() string {
	if len(w.Notes) == 0 {
		return ""
	}
	return " " + strings.Join(w.Notes, " ")
}
