package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfgate/perfgate/compare"
)

func TestScenarioReason(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	tests := []struct {
		name string
		sc   compare.ScenarioComparison
		want string
	}{
		{"runner slower", compare.ScenarioComparison{Guard: compare.ReasonRunnerShift,
			Downgrades: []compare.Downgrade{{Code: compare.ReasonRunnerShift, From: compare.Regressed, Metrics: []string{"p99_ms"}, ShiftPct: 40}}},
			"inconclusive (runner slower): the runner itself ran a fixed compute probe +40% per step during the candidate's run against the baseline's (measured while no load ran); a machine that much slower, not the change, may explain the regression of p99_ms"},
		{"runner faster", compare.ScenarioComparison{Guard: compare.ReasonRunnerShift,
			Downgrades: []compare.Downgrade{{Code: compare.ReasonRunnerShift, From: compare.Improved, Metrics: []string{"p99_ms", "max_qps"}, ShiftPct: -31}}},
			"inconclusive (runner faster): the runner itself ran a fixed compute probe -31% per step during the candidate's run against the baseline's (measured while no load ran); a machine that much faster, not the change, may explain the improvement of p99_ms, max_qps"},
		{"host busy", compare.ScenarioComparison{Guard: compare.ReasonHostBusy,
			Downgrades: []compare.Downgrade{{Code: compare.ReasonHostBusy, From: compare.Regressed, Busy: []compare.BusyCount{{Side: "candidate", Of: "knee probes", Busy: 1, Total: 2, Why: "other processes used 1.4 cores"}}}}},
			"inconclusive (host busy): the regression rests on trials measured while other work used the host: 1 of 2 candidate knee probes (other processes used 1.4 cores); rerun on a quiet runner"},
		{"host busy, the demo's rule", compare.ScenarioComparison{Guard: compare.ReasonHostBusy, Downgrades: []compare.Downgrade{{Code: compare.ReasonHostBusy}}},
			"inconclusive (host busy): measured while other work used the host; rerun on a quiet machine"},
		// The last downgrade of the guard's code is the reason.
		{"invalid run after host busy", compare.ScenarioComparison{Guard: compare.ReasonInvalidRun,
			Downgrades: []compare.Downgrade{{Code: compare.ReasonHostBusy}, {Code: compare.ReasonInvalidRun, Why: []string{"baseline run was interrupted", "candidate run is invalid"}}}},
			"baseline run was interrupted; candidate run is invalid: never used to pass or fail"},
		{"gate-wide", compare.ScenarioComparison{Guard: compare.ReasonGateWide,
			Metrics:    []compare.Metric{{Metric: "p50_ms"}, {Metric: "p99_ms", DeltaPct: 30, PHolm: p(0.02), PGate: p(0.26)}},
			Downgrades: []compare.Downgrade{{Code: compare.ReasonGateWide, From: compare.Regressed, Metrics: []string{"p99_ms"}, Tests: 13}}},
			"inconclusive across the gate: p99_ms +30.0% (p 0.02 alone, 0.26 across the gate's 13 tests): significant for this scenario alone, not after Holm's correction over every gated test of the comparison; rerun, or add trials (processes, knee estimates)"},
		// A reason compare (or a decoded document) set stands.
		{"a reason set", compare.ScenarioComparison{Reason: "no baseline for this scenario: nothing to compare with"},
			"no baseline for this scenario: nothing to compare with"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ScenarioReason(&tt.sc); got != tt.want {
				t.Errorf("ScenarioReason =\n%q, want\n%q", got, tt.want)
			}
		})
	}
}

// The comparison JSON says a guard's reason in words, and decoding it
// leaves the words to the guard again.
func TestScenarioReasonInJSON(t *testing.T) {
	// compare's cause as a note, and a caller's own in words (ab's).
	sc := compare.ScenarioComparison{Scenario: "s", Verdict: compare.Inconclusive, Guard: compare.ReasonInvalidRun, Invalid: true,
		Downgrades: []compare.Downgrade{{Code: compare.ReasonInvalidRun,
			Causes: []compare.Note{{Code: compare.NoteRunInterrupted, Side: "candidate"}}, Why: []string{"the A/B run stopped early (canceled)"}}}}
	c := &compare.Comparison{Schema: compare.Schema, Verdict: compare.Undecided, Scenarios: []compare.ScenarioComparison{sc}}
	const want = "candidate run was interrupted; the A/B run stopped early (canceled): never used to pass or fail"
	out := spoken(c)
	if got := out.Scenarios[0].Reason; got != want {
		t.Errorf("JSON reason %q, want %q", got, want)
	}
	if d := cmp.Diff([]string{"candidate run was interrupted", "the A/B run stopped early (canceled)"}, out.Scenarios[0].Downgrades[0].Why); d != "" {
		t.Errorf("JSON downgrade why (-want +got):\n%s", d)
	}
	if c.Scenarios[0].Reason != "" || len(c.Scenarios[0].Downgrades[0].Why) != 1 {
		t.Errorf("spoken changed the comparison: reason %q, why %q", c.Scenarios[0].Reason, c.Scenarios[0].Downgrades[0].Why)
	}
	unspoken(out)
	if d := cmp.Diff(c, out, cmpopts.IgnoreUnexported(compare.Downgrade{})); d != "" {
		t.Errorf("unspoken(spoken(c)) (-want +got):\n%s", d)
	}
	if got := ScenarioReason(&out.Scenarios[0]); got != want {
		t.Errorf("decoded reason says %q, want %q", got, want)
	}
}

// The comparison's levers read as one sentence, each in words, the
// server-compute lever naming what to declare.
func TestAdvice(t *testing.T) {
	c := &compare.Comparison{Levers: []compare.Lever{compare.LeverQuietRunner, compare.LeverServerCompute}}
	want := "to decide more: rerun on a quiet runner, or declare the target's metrics: so that the gate reads the server's compute time, which a code change moves about one to one (docs/writing-a-target.md#metrics-perfgate-reads)"
	if diff := cmp.Diff(want, Advice(c)); diff != "" {
		t.Errorf("Advice (-want +got):\n%s", diff)
	}
	if got := Advice(&compare.Comparison{}); got != "" {
		t.Errorf("Advice with no levers = %q, want \"\"", got)
	}
}
