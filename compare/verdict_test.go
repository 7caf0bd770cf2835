package compare

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWorse(t *testing.T) {
	tests := []struct {
		name string
		a, b Verdict
		want Verdict
	}{
		{"regressed beats all", Unchanged, Regressed, Regressed},
		{"inconclusive beats improved", Improved, Inconclusive, Inconclusive},
		{"improved beats unchanged", Unchanged, Improved, Improved},
		{"same stays", Unchanged, Unchanged, Unchanged},
		// A scenario without a baseline is no decision: inconclusive.
		{"no baseline counts as inconclusive", Improved, NoBaseline, Inconclusive},
		{"regressed beats no baseline", NoBaseline, Regressed, Regressed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Worse(tt.a, tt.b); got != tt.want {
				t.Errorf("Worse(%s, %s) = %s, want %s", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestNoiseFloorGuard(t *testing.T) {
	tests := []struct {
		name string
		m    Metric
		want bool
	}{
		{"no floor", Metric{Verdict: Unchanged, CIPct: [2]float64{-8, 8}}, false},
		{"inside the configured threshold", Metric{Verdict: Unchanged, ConfiguredThresholdPct: 5, CIPct: [2]float64{-4, 4}}, false},
		{"inside the floor, not the threshold", Metric{Verdict: Unchanged, ConfiguredThresholdPct: 5, CIPct: [2]float64{-4, 7}}, true},
		{"the equivalence interval decides", Metric{Verdict: Unchanged, ConfiguredThresholdPct: 5, CIPct: [2]float64{-9, 9}, EquivCIPct: &[2]float64{-4, 4}}, false},
		{"only unchanged is checked", Metric{Verdict: Regressed, ConfiguredThresholdPct: 5, CIPct: [2]float64{6, 30}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noiseFloorHolds(tt.m); got != tt.want {
				t.Errorf("noiseFloorHolds(%+v) = %v, want %v", tt.m, got, tt.want)
			}
		})
	}
}

func TestNoTestGuard(t *testing.T) {
	tests := []struct {
		name string
		m    Metric
		want bool
	}{
		{"bracket regressed", Metric{Method: MethodBracket, Verdict: Regressed}, true},
		{"bracket improved", Metric{Method: MethodBracket, Verdict: Improved}, true},
		{"bracket unchanged", Metric{Method: MethodBracket, Verdict: Unchanged}, false},
		// A sweep that never failed has no upper bound: never unchanged.
		{"open bracket unchanged", Metric{Method: MethodBracket, Verdict: Unchanged, CIOpenHigh: true}, true},
		{"tested knee regressed", Metric{Method: MethodKneeEstimates, Verdict: Regressed}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noTestHolds(tt.m); got != tt.want {
				t.Errorf("noTestHolds(%+v) = %v, want %v", tt.m, got, tt.want)
			}
		})
	}
}

// guarded runs one scenario guard and applies its downgrade, returning
// the scenario's and its metrics' verdicts and the downgrade's code.
func guarded(g func(*ScenarioComparison, *scenarioEvidence) *Downgrade, code ReasonCode, sc ScenarioComparison, ev scenarioEvidence) (Verdict, []Verdict, []Downgrade) {
	sc.Metrics = append([]Metric{}, sc.Metrics...)
	sc.Verdict = scenarioVerdict(sc.Metrics)
	if d := g(&sc, &ev); d != nil {
		d.Code = code
		applyDowngrade(&sc, *d)
	}
	var ms []Verdict
	for _, m := range sc.Metrics {
		ms = append(ms, m.Verdict)
	}
	return sc.Verdict, ms, sc.Downgrades
}

func gatedMetric(name string, v Verdict) Metric {
	return Metric{Metric: name, Verdict: v, Gated: true, CIPct: [2]float64{10, 40}, DeltaPct: 25}
}

func TestSparseGuard(t *testing.T) {
	sparse := func(v Verdict) Metric {
		m := gatedMetric(MetricP99, v)
		m.RequestsNeeded, m.MinRequests = 100, 7
		return m
	}
	tests := []struct {
		name    string
		metrics []Metric
		want    Verdict
	}{
		{"backed by the median", []Metric{{Metric: MetricP50, Verdict: Regressed}, sparse(Regressed)}, Regressed},
		{"not backed", []Metric{{Metric: MetricP50, Verdict: Unchanged}, sparse(Regressed)}, Inconclusive},
		// Unchanged on a handful of requests is no evidence either.
		{"unchanged too", []Metric{{Metric: MetricP50, Verdict: Unchanged}, sparse(Unchanged)}, Inconclusive},
		{"enough requests", []Metric{{Metric: MetricP50, Verdict: Unchanged}, gatedMetric(MetricP99, Regressed)}, Regressed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, _ := guarded(sparseGuard, ReasonSparseQuantile, ScenarioComparison{Metrics: tt.metrics}, scenarioEvidence{})
			if got != tt.want {
				t.Errorf("scenario verdict %s, want %s", got, tt.want)
			}
		})
	}
}

func TestHostBusyGuard(t *testing.T) {
	busyBase := [2]busySide{{trials: 2, of: 5, why: "load 3.1"}, {of: 5}}
	busyCand := [2]busySide{{of: 5}, {trials: 1, of: 5, why: "load 2.5"}}
	tests := []struct {
		name     string
		v        Verdict
		ev       scenarioEvidence
		want     Verdict
		wantBusy []BusyCount
	}{
		{"quiet host", Regressed, scenarioEvidence{}, Regressed, nil},
		{"regression on a busy candidate", Regressed, scenarioEvidence{busy: busyCand}, Inconclusive,
			[]BusyCount{{Side: "candidate", Of: "trials", Busy: 1, Total: 5, Why: "load 2.5"}}},
		// A busy candidate makes it slower, never faster: an improvement stands.
		{"improvement on a busy candidate", Improved, scenarioEvidence{busy: busyCand}, Improved, nil},
		{"improvement on a busy baseline", Improved, scenarioEvidence{busy: busyBase}, Inconclusive,
			[]BusyCount{{Side: "baseline", Of: "trials", Busy: 2, Total: 5, Why: "load 3.1"}}},
		{"ignore_host_load", Regressed, scenarioEvidence{busy: busyCand, ignoreHost: true}, Regressed, nil},
		{"unchanged is not touched", Unchanged, scenarioEvidence{busy: busyCand}, Unchanged, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, ds := guarded(hostBusyGuard, ReasonHostBusy, ScenarioComparison{Metrics: []Metric{gatedMetric(MetricP99, tt.v)}}, tt.ev)
			if got != tt.want {
				t.Errorf("scenario verdict %s, want %s", got, tt.want)
			}
			var busy []BusyCount
			for _, d := range ds {
				busy = append(busy, d.Busy...)
			}
			if d := cmp.Diff(tt.wantBusy, busy); d != "" {
				t.Errorf("busy counts (-want +got):\n%s", d)
			}
		})
	}
}

func TestRunnerShiftGuard(t *testing.T) {
	tests := []struct {
		name string
		m    Metric
		ev   scenarioEvidence
		want Verdict
	}{
		// 3 × ln(1.10) ≈ 0.286: a near end of +10% (ln 1.1 ≈ 0.095) is within it.
		{"slower runner excuses a near regression", gatedMetric(MetricP99, Regressed), scenarioEvidence{shift: 10, moved: true}, Inconclusive},
		{"a regression wholly beyond its reach stands", Metric{Metric: MetricP99, Gated: true, Verdict: Regressed, DeltaPct: 80, CIPct: [2]float64{50, 110}}, scenarioEvidence{shift: 10, moved: true}, Regressed},
		{"a faster runner does not excuse a regression", gatedMetric(MetricP99, Regressed), scenarioEvidence{shift: -10, moved: true}, Regressed},
		{"not moved", gatedMetric(MetricP99, Regressed), scenarioEvidence{shift: 4}, Regressed},
		{"error rates are never excused", Metric{Metric: MetricErrorRate, Gated: true, Absolute: true, Verdict: Regressed, CIPct: [2]float64{1, 2}}, scenarioEvidence{shift: 10, moved: true}, Regressed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, _ := guarded(runnerShiftGuard, ReasonRunnerShift, ScenarioComparison{Metrics: []Metric{tt.m}}, tt.ev)
			if got != tt.want {
				t.Errorf("scenario verdict %s, want %s", got, tt.want)
			}
		})
	}
}

func TestInvalidGuard(t *testing.T) {
	tests := []struct {
		name        string
		ev          scenarioEvidence
		want        Verdict
		wantMetrics []Verdict
	}{
		{"valid", scenarioEvidence{}, Unchanged, []Verdict{Unchanged, Unchanged}},
		{"invalid: every metric, whatever its verdict", scenarioEvidence{invalid: []Note{{Code: NoteRunInterrupted, Side: "candidate"}}}, Inconclusive, []Verdict{Inconclusive, Inconclusive}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := ScenarioComparison{Metrics: []Metric{gatedMetric(MetricP99, Unchanged), {Metric: MetricP50, Verdict: Unchanged}}}
			got, ms, _ := guarded(invalidGuard, ReasonInvalidRun, sc, tt.ev)
			if got != tt.want {
				t.Errorf("scenario verdict %s, want %s", got, tt.want)
			}
			if d := cmp.Diff(tt.wantMetrics, ms); d != "" {
				t.Errorf("metric verdicts (-want +got):\n%s", d)
			}
		})
	}
}

// The guards run in the documented order: a busy host's reason is
// replaced by an invalid run's, which runs later.
func TestGuardOrder(t *testing.T) {
	var got []ReasonCode
	for _, g := range scenarioGuards {
		got = append(got, g.code)
	}
	want := []ReasonCode{ReasonSparseQuantile, ReasonHostBusy, ReasonRunnerShift, ReasonInvalidRun}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("scenario guards (-want +got):\n%s", d)
	}
	sc := ScenarioComparison{Metrics: []Metric{gatedMetric(MetricP99, Regressed)}}
	guardScenario(&sc, &scenarioEvidence{busy: [2]busySide{{of: 5}, {trials: 1, of: 5}}, invalid: []Note{{Code: NoteRunInterrupted, Side: "baseline"}}})
	var codes []ReasonCode
	for _, d := range sc.Downgrades {
		codes = append(codes, d.Code)
	}
	if d := cmp.Diff([]ReasonCode{ReasonHostBusy, ReasonInvalidRun}, codes); d != "" {
		t.Errorf("downgrades (-want +got):\n%s", d)
	}
	if sc.Verdict != Inconclusive || !sc.Invalid || !sc.HostBusy || sc.Guard != ReasonInvalidRun || sc.Reason != "" {
		t.Errorf("got %s invalid %v busy %v guard %q reason %q, want inconclusive, both flags, the invalid run's guard as the reason", sc.Verdict, sc.Invalid, sc.HostBusy, sc.Guard, sc.Reason)
	}
	if sc.Metrics[0].Guard != ReasonInvalidRun {
		t.Errorf("metric guard %q, want the last guard's %q", sc.Metrics[0].Guard, ReasonInvalidRun)
	}
}

func TestDecideNaN(t *testing.T) {
	if got := Decide(Evidence{DeltaPct: math.NaN(), EquivCIPct: [2]float64{-1, 1}, ThresholdPct: 5, BetterIs: LowerIsBetter, P: 0.01, Alpha: 0.05}); got != Inconclusive {
		t.Errorf("Decide(NaN) = %s, want inconclusive", got)
	}
}

// TestComputeYields: the server's compute time left inconclusive does not
// hold a scenario whose median decided a change (the demo's JSON → gRPC
// pair: P50 −97%, compute −50% [−84, +54]); it still holds one whose
// median is unchanged or undecided, and decided regressed it fails the
// scenario. The note follows the final state: a guard that takes the
// median's decision away takes the note with it.
func TestComputeYields(t *testing.T) {
	tests := []struct {
		name           string
		p50, p99, comp Verdict
		want           Verdict
		yields         bool
	}{
		{"median improved", Improved, Improved, Inconclusive, Improved, true},
		{"median regressed", Regressed, Inconclusive, Inconclusive, Regressed, true},
		{"median unchanged", Unchanged, Unchanged, Inconclusive, Inconclusive, false},
		{"median undecided", Inconclusive, Improved, Inconclusive, Inconclusive, false},
		{"compute regressed beside an improved median", Improved, Improved, Regressed, Regressed, false},
		{"compute decided", Improved, Improved, Improved, Improved, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := ScenarioComparison{Metrics: []Metric{gatedMetric(MetricP50, tt.p50), gatedMetric(MetricP99, tt.p99), gatedMetric(MetricServerCompute, tt.comp)}}
			guardScenario(&sc, &scenarioEvidence{})
			if sc.Verdict != tt.want {
				t.Errorf("scenario verdict %s, want %s", sc.Verdict, tt.want)
			}
			var notes []Note
			if tt.yields {
				notes = []Note{{Code: NoteComputeYields, Metric: MetricServerCompute, Names: []string{MetricP50}, Verdict: tt.p50}}
			}
			if d := cmp.Diff(notes, sc.Notes); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
		})
	}
	t.Run("a guard takes the median's decision away", func(t *testing.T) {
		sc := ScenarioComparison{Metrics: []Metric{gatedMetric(MetricP50, Improved), gatedMetric(MetricServerCompute, Inconclusive)}}
		guardScenario(&sc, &scenarioEvidence{})
		applyDowngrade(&sc, Downgrade{Code: ReasonHostBusy, at: []int{0}})
		if sc.Verdict != Inconclusive || len(sc.Notes) != 0 {
			t.Errorf("verdict %s, notes %v: want inconclusive and no note", sc.Verdict, sc.Notes)
		}
	})
}

// TestNoWorse: a metric left inconclusive whose equivalence interval rules
// out a regression does not hold a scenario that improved in another
// metric (the demo's LLM model pair: P50 −34.5% improved, P99 −24.3%
// with its equivalence interval [−35.2, −11.4] at the last look, which
// neither a significant improvement nor ±5% could decide); an interval
// reaching into a regression, a point beyond the threshold, a guard's
// downgrade or no improvement beside it keep the scenario inconclusive,
// and a regression anywhere still fails it.
func TestNoWorse(t *testing.T) {
	tail := func(lo, hi, delta, margin float64) Metric {
		return Metric{Metric: MetricP99, Verdict: Inconclusive, Gated: true, DeltaPct: delta,
			CIPct: [2]float64{lo - 3, hi + 3}, EquivCIPct: &[2]float64{lo, hi}, ThresholdPct: 5, EquivalencePct: margin, BetterIs: LowerIsBetter}
	}
	p50 := func(v Verdict) Metric {
		m := gatedMetric(MetricP50, v)
		m.ThresholdPct, m.BetterIs = 5, LowerIsBetter
		return m
	}
	knee := func(lo, hi float64) Metric {
		return Metric{Metric: MetricMaxQPS, Verdict: Inconclusive, Gated: true, DeltaPct: (lo + hi) / 2,
			CIPct: [2]float64{lo, hi}, EquivCIPct: &[2]float64{lo, hi}, ThresholdPct: 5, BetterIs: HigherIsBetter}
	}
	guarded := tail(-35.2, -11.4, -24.3, 0)
	guarded.Guard = ReasonSparseQuantile
	censored := knee(-3, 40)
	censored.Censored = "baseline"
	tests := []struct {
		name    string
		metrics []Metric
		want    Verdict
		yields  bool
	}{
		{"improved beside a tail no worse", []Metric{p50(Improved), tail(-35.2, -11.4, -24.3, 0)}, Improved, true},
		{"its interval's top at the threshold", []Metric{p50(Improved), tail(-20, 5, -8, 0)}, Improved, true},
		{"its interval reaching past the threshold", []Metric{p50(Improved), tail(-20, 5.1, -8, 0)}, Inconclusive, false},
		{"inside a wider tail margin", []Metric{p50(Improved), tail(-12, 8, 1, 10)}, Improved, true},
		{"a point beyond the threshold inside the margin", []Metric{p50(Improved), tail(3, 9, 6, 10)}, Inconclusive, false},
		{"a guard's downgrade holds", []Metric{p50(Improved), guarded}, Inconclusive, false},
		{"no improvement beside it", []Metric{p50(Unchanged), tail(-35.2, -11.4, -24.3, 0)}, Inconclusive, false},
		{"a regression beside it", []Metric{p50(Regressed), tail(-35.2, -11.4, -24.3, 0)}, Regressed, false},
		{"an improvement and a regression beside it", []Metric{p50(Improved), tail(-35.2, -11.4, -24.3, 0), gatedMetric(MetricTPOTP99, Regressed)}, Regressed, false},
		{"a knee no worse", []Metric{p50(Improved), knee(-4, 30)}, Improved, true},
		{"a knee that may have lost capacity", []Metric{p50(Improved), knee(-6, 30)}, Inconclusive, false},
		{"a censored knee's bound", []Metric{p50(Improved), censored}, Inconclusive, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := ScenarioComparison{Metrics: tt.metrics}
			guardScenario(&sc, &scenarioEvidence{})
			if sc.Verdict != tt.want {
				t.Errorf("scenario verdict %s, want %s", sc.Verdict, tt.want)
			}
			if got := Decided(sc); got != (tt.want != Inconclusive) {
				t.Errorf("Decided = %v, want %v", got, tt.want != Inconclusive)
			}
			var notes []Note
			if tt.yields {
				m := tt.metrics[1]
				notes = []Note{{Code: NoteNoWorse, Metric: m.Metric, Names: []string{MetricP50}, Pct: max(m.ThresholdPct, m.EquivalencePct), CIPct: m.EquivCIPct}}
			}
			if d := cmp.Diff(notes, sc.Notes); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
		})
	}
	t.Run("a guard takes the improvement away", func(t *testing.T) {
		sc := ScenarioComparison{Metrics: []Metric{p50(Improved), tail(-35.2, -11.4, -24.3, 0)}}
		guardScenario(&sc, &scenarioEvidence{})
		applyDowngrade(&sc, Downgrade{Code: ReasonGateWide, at: []int{0}})
		if sc.Verdict != Inconclusive || len(sc.Notes) != 0 {
			t.Errorf("verdict %s, notes %v: want inconclusive and no note", sc.Verdict, sc.Notes)
		}
	})
}
