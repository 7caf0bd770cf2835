package compare

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

// withCompute gives every trial of r the server-side compute time ms
// times a trial's small deterministic wobble; process numbers the
// trials' target processes (0: one process).
func withCompute(r *result.Result, ms float64, process bool) {
	wobble := []float64{1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99}
	for i := range r.Trials {
		r.Trials[i].Telemetry = &result.Telemetry{ServerMs: &result.ServerMs{Queue: 0.1, Compute: ms * wobble[i%len(wobble)], Source: "triton"}}
		if process {
			r.Trials[i].Process = i + 1
		}
	}
}

// server_compute_ms is gated beside P99 and the medians with its own
// threshold (Settings.ServerComputeRegression), decides the scenario when
// the client's latencies did not move, and is absent, without a warning,
// where a trial of either side has no server compute time.
func TestServerComputeGated(t *testing.T) {
	tests := []struct {
		name          string
		thr           float64
		scale         float64
		process       bool
		edit          func(b, c *result.Result)
		wantMetric    bool
		wantVerdict   Verdict
		wantGated     bool
		wantMethod    string
		wantDecidedBy []string
		wantTop       Verdict
	}{
		{name: "regressed", thr: DefaultServerComputeRegression, scale: 1.3, wantMetric: true, wantVerdict: Regressed, wantGated: true,
			wantMethod: MethodTrials, wantDecidedBy: []string{MetricServerCompute}, wantTop: Fail},
		{name: "regressed over processes", thr: DefaultServerComputeRegression, scale: 1.3, process: true, wantMetric: true, wantVerdict: Regressed,
			wantGated: true, wantMethod: MethodProcesses, wantDecidedBy: []string{MetricServerCompute}, wantTop: Fail},
		{name: "unchanged", thr: DefaultServerComputeRegression, scale: 1, wantMetric: true, wantVerdict: Unchanged, wantGated: true,
			wantMethod: MethodTrials, wantTop: Pass},
		{name: "own threshold", thr: 0.5, scale: 1.3, wantMetric: true, wantVerdict: Unchanged, wantGated: true, wantMethod: MethodTrials, wantTop: Pass},
		// 0 reports it at P99's threshold, never failing the gate.
		{name: "off", thr: 0, scale: 1.3, wantMetric: true, wantVerdict: Regressed, wantGated: false, wantMethod: MethodTrials, wantTop: Pass},
		{name: "absent on the baseline", thr: DefaultServerComputeRegression, scale: 1.3, wantTop: Pass,
			edit: func(b, c *result.Result) {
				for i := range b.Trials {
					b.Trials[i].Telemetry = nil
				}
			}},
		{name: "one candidate trial without it", thr: DefaultServerComputeRegression, scale: 1.3, wantTop: Pass,
			edit: func(b, c *result.Result) { c.Trials[2].Telemetry.ServerMs = nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, c := pair(t, 7, 1, nil) // the client's latencies unchanged
			withCompute(b, 2, tt.process)
			withCompute(c, 2*tt.scale, tt.process)
			if tt.edit != nil {
				tt.edit(b, c)
			}
			s := withinRun()
			s.ServerComputeRegression = tt.thr
			got := mustCompare(t, one(b), one(c), s)
			sc := got.Scenarios[0]
			var m *Metric
			for i := range sc.Metrics {
				if sc.Metrics[i].Metric == MetricServerCompute {
					m = &sc.Metrics[i]
				}
			}
			if (m != nil) != tt.wantMetric {
				t.Fatalf("server_compute_ms compared: %v, want %v (%+v)", m != nil, tt.wantMetric, sc.Metrics)
			}
			for _, w := range sc.Warnings {
				if strings.Contains(w, "server") || strings.Contains(w, MetricServerCompute) {
					t.Errorf("warning %q: a missing or present server time is not worth a word", w)
				}
			}
			if m != nil {
				if m.Verdict != tt.wantVerdict || m.Gated != tt.wantGated || m.Method != tt.wantMethod || m.BetterIs != LowerIsBetter {
					t.Errorf("server_compute_ms: %s gated %v method %s better %s (%+.1f%%), want %s gated %v method %s lower",
						m.Verdict, m.Gated, m.Method, m.BetterIs, m.DeltaPct, tt.wantVerdict, tt.wantGated, tt.wantMethod)
				}
				if want := 100 * tt.thr; tt.thr == 0 && m.ThresholdPct != 100*s.P99Regression || tt.thr > 0 && m.ThresholdPct != want {
					t.Errorf("threshold %v%%, want %v%% (P99's when 0)", m.ThresholdPct, want)
				}
				if m.Baseline < 1.9 || m.Baseline > 2.1 {
					t.Errorf("baseline %v ms, want about 2", m.Baseline)
				}
			}
			if d := cmp.Diff(tt.wantDecidedBy, sc.DecidedBy); d != "" {
				t.Errorf("decided_by (-want +got):\n%s", d)
			}
			if got.Verdict != tt.wantTop {
				t.Errorf("verdict %s (%s), want %s", got.Verdict, got.Reason, tt.wantTop)
			}
		})
	}
}

func TestSettingsServerComputeValidate(t *testing.T) {
	s := DefaultSettings()
	for _, v := range []float64{-0.01, 1} {
		s.ServerComputeRegression = v
		if s.Validate() == nil {
			t.Errorf("Validate(server compute %v) = nil, want an error", v)
		}
	}
	s.ServerComputeRegression = 0
	if err := s.Validate(); err != nil {
		t.Errorf("Validate(server compute 0, not gated) = %v, want nil", err)
	}
}

// An A/B run compares server_compute_ms pair by pair (the paired log
// ratio, as P50), in Holm's family with the other gated metrics, and
// leaves it out without a word when a trial of either side lacks it.
func TestComparePairedServerCompute(t *testing.T) {
	base := []float64{10, 10.5, 11, 9.8, 10.2, 10.7, 10.1, 9.9}
	noise := []float64{1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0}
	tests := []struct {
		name          string
		scale         float64
		drop          bool // one head trial without server time
		wantVerdict   Verdict
		wantDecidedBy []string
	}{
		{name: "regressed", scale: 1.3, wantVerdict: Regressed, wantDecidedBy: []string{MetricServerCompute}},
		{name: "unchanged", scale: 1, wantVerdict: Unchanged},
		{name: "absent", scale: 1.3, drop: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pairs(base, func(i int) float64 { return noise[i] }) // the client's latencies unchanged
			for i := range p.Base {
				p.Base[i].Telemetry = &result.Telemetry{ServerMs: &result.ServerMs{Compute: 2 * noise[(i+3)%len(noise)]}}
				p.Head[i].Telemetry = &result.Telemetry{ServerMs: &result.ServerMs{Compute: 2 * tt.scale * noise[i]}}
			}
			if tt.drop {
				p.Head[5].Telemetry = nil
			}
			s := DefaultSettings()
			sc := ComparePaired("api", "service", p, s, 0.05, 0.05)
			c := PairedComparison([]ScenarioComparison{sc}, s)
			sc = c.Scenarios[0]
			var m *Metric
			for i := range sc.Metrics {
				if sc.Metrics[i].Metric == MetricServerCompute {
					m = &sc.Metrics[i]
				}
			}
			for _, w := range sc.Warnings {
				if strings.Contains(w, MetricServerCompute) {
					t.Errorf("warning %q about the server's time", w)
				}
			}
			if tt.drop {
				if m != nil {
					t.Errorf("server_compute_ms compared with a head trial lacking it: %+v", *m)
				}
				return
			}
			if m == nil {
				t.Fatalf("server_compute_ms not compared: %+v", sc.Metrics)
			}
			if m.Method != MethodPaired || !m.Gated || m.PHolm == nil || m.Verdict != tt.wantVerdict {
				t.Errorf("server_compute_ms: method %s gated %v holm %v verdict %s (%+.1f%%), want paired, gated, in Holm's family, %s",
					m.Method, m.Gated, m.PHolm, m.Verdict, m.DeltaPct, tt.wantVerdict)
			}
			if d := cmp.Diff(tt.wantDecidedBy, sc.DecidedBy); d != "" {
				t.Errorf("decided_by (-want +got):\n%s", d)
			}
		})
	}
}

// With 4 trials a side the family of P99, P50 and server_compute_ms
// could not reject at all where P99 alone can: the location metrics are
// reported, not gated, and P99 still fails the gate (settleMedians).
func TestServerComputeLeftOutWhenTrialsTooFew(t *testing.T) {
	for _, tt := range []struct {
		trials    int
		wantGated bool
	}{{4, false}, {5, true}} {
		b, c := pair(t, 5, 1.3, func(sp *comparetest.Spec) { sp.Trials = tt.trials })
		withCompute(b, 2, false)
		withCompute(c, 2.6, false)
		got := mustCompare(t, one(b), one(c), withinRun())
		if m := metric(t, got, MetricServerCompute); m.Gated != tt.wantGated {
			t.Errorf("%d trials: server_compute_ms gated %v, want %v", tt.trials, m.Gated, tt.wantGated)
		}
		if got.Verdict != Fail {
			t.Errorf("%d trials: verdict %s (%s), want fail", tt.trials, got.Verdict, got.Reason)
		}
	}
}

// An undecided scenario whose gated median did not decide and that has
// no server compute time names the lever that reads it
// (LeverServerCompute), as the comparison does; one that has it, a
// decided median and a decided or invalid scenario do not.
func TestServerComputeLever(t *testing.T) {
	p50 := func(v Verdict, gated bool) Metric { return Metric{Metric: MetricP50, Verdict: v, Gated: gated} }
	p99 := Metric{Metric: MetricP99, Verdict: Inconclusive, Gated: true}
	compute := Metric{Metric: MetricServerCompute, Verdict: Inconclusive, Gated: true}
	tests := []struct {
		name    string
		verdict Verdict
		metrics []Metric
		invalid bool
		want    bool
	}{
		{name: "median undecided, no compute time", verdict: Inconclusive, metrics: []Metric{p50(Inconclusive, true), p99}, want: true},
		{name: "compute time read", verdict: Inconclusive, metrics: []Metric{p50(Inconclusive, true), p99, compute}},
		{name: "median unchanged (P99 holds it)", verdict: Inconclusive, metrics: []Metric{p50(Unchanged, true), p99}},
		{name: "median reported only", verdict: Inconclusive, metrics: []Metric{p50(Inconclusive, false), p99}},
		{name: "no median (a knee)", verdict: Inconclusive, metrics: []Metric{{Metric: MetricMaxQPS, Verdict: Inconclusive, Gated: true}}},
		{name: "invalid run", verdict: Inconclusive, metrics: []Metric{p50(Inconclusive, true), p99}, invalid: true},
		{name: "regressed", verdict: Regressed, metrics: []Metric{p50(Inconclusive, true), {Metric: MetricP99, Verdict: Regressed, Gated: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := ScenarioComparison{Scenario: "s", Verdict: tt.verdict, Metrics: tt.metrics, Invalid: tt.invalid}
			if got := serverComputeLever(&sc); got != tt.want {
				t.Errorf("serverComputeLever = %v, want %v", got, tt.want)
			}
			c := PairedComparison([]ScenarioComparison{sc}, withinRun())
			if got := slices.Contains(c.Scenarios[0].Levers, LeverServerCompute); got != tt.want {
				t.Errorf("the scenario's levers %v: want %s %v", c.Scenarios[0].Levers, LeverServerCompute, tt.want)
			}
			if got := slices.Contains(c.Levers, LeverServerCompute); got != tt.want {
				t.Errorf("the comparison's levers %v: want %s %v", c.Levers, LeverServerCompute, tt.want)
			}
		})
	}
}
