package compare

import (
	"math"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// probes returns n runner-speed samples around computeNs and memoryNs,
// spread by ±1% (compute) and ±4% (memory) as on a quiet machine.
func probes(n int, computeNs, memoryNs float64) *result.RunnerSpeed {
	spread := []float64{-1, 0.5, 1, -0.5, 0, 0.7}
	r := &result.RunnerSpeed{}
	for i := range n {
		f := spread[i%len(spread)] / 100
		r.Samples = append(r.Samples, result.SpeedSample{ComputeNs: computeNs * (1 + f), MemoryNs: memoryNs * (1 + 4*f), CPUs: 2})
	}
	return r
}

func TestRunnerSpeed(t *testing.T) {
	tests := []struct {
		name       string
		scale      float64 // the candidate's latency over the baseline's
		base, cand *result.RunnerSpeed
		ignore     bool
		want       Verdict
		shifted    bool
		shiftPct   float64    // the recorded shift, ±1 point; NaN when absent
		guard      ReasonCode // the scenario's reason: the runner-shift guard
	}{
		{name: "runner 40% slower excuses a 30% regression", scale: 1.3,
			base: probes(6, 1.6, 170), cand: probes(6, 2.24, 170),
			want: Inconclusive, shifted: true, shiftPct: 40, guard: ReasonRunnerShift},
		// The memory loop moves with a process's page placement: recorded,
		// never tested.
		{name: "memory loop slower is not a slower runner", scale: 1.3,
			base: probes(6, 1.6, 170), cand: probes(6, 1.6, 240),
			want: Regressed, shiftPct: 0},
		{name: "same runner: the regression stands", scale: 1.3,
			base: probes(6, 1.6, 170), cand: probes(6, 1.6, 170),
			want: Regressed, shiftPct: 0},
		{name: "a 5% shift is not a different machine", scale: 1.3,
			base: probes(6, 1.6, 170), cand: probes(6, 1.68, 170),
			want: Regressed, shiftPct: 0},
		{name: "a 12% slower runner does not explain 3x", scale: 3,
			base: probes(6, 1.6, 170), cand: probes(6, 1.79, 170),
			want: Regressed, shiftPct: 12},
		{name: "faster runner excuses an improvement", scale: 0.7,
			base: probes(6, 1.6, 170), cand: probes(6, 1.1, 170),
			want: Inconclusive, shifted: true, shiftPct: -31, guard: ReasonRunnerShift},
		{name: "slower runner does not excuse an improvement", scale: 0.7,
			base: probes(6, 1.6, 170), cand: probes(6, 2.24, 170),
			want: Improved, shiftPct: 40},
		{name: "ignore_host_load keeps the regression", scale: 1.3, ignore: true,
			base: probes(6, 1.6, 170), cand: probes(6, 2.24, 170),
			want: Regressed, shiftPct: 40},
		{name: "no probes on one side", scale: 1.3,
			base: nil, cand: probes(6, 2.24, 170),
			want: Regressed, shiftPct: -1},
		{name: "one probe is no test", scale: 1.3,
			base: probes(1, 1.6, 170), cand: probes(6, 2.24, 170),
			want: Regressed, shiftPct: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, c := pair(t, 21, tt.scale, nil)
			b.Runner, c.Runner = tt.base, tt.cand
			s := withinRun()
			s.IgnoreHostLoad = tt.ignore
			sc := mustCompare(t, one(b), one(c), s).Scenarios[0]
			if sc.Verdict != tt.want {
				t.Errorf("verdict %s (%s), want %s", sc.Verdict, sc.Reason, tt.want)
			}
			if sc.RunnerShifted != tt.shifted {
				t.Errorf("runner_shifted %v, want %v", sc.RunnerShifted, tt.shifted)
			}
			switch {
			case tt.shiftPct == -1:
				if sc.RunnerShiftPct != nil {
					t.Errorf("runner_shift_pct %v, want absent", *sc.RunnerShiftPct)
				}
			case sc.RunnerShiftPct == nil:
				t.Errorf("runner_shift_pct absent, want %v", tt.shiftPct)
			case *sc.RunnerShiftPct < tt.shiftPct-1 || *sc.RunnerShiftPct > tt.shiftPct+1:
				t.Errorf("runner_shift_pct %.1f, want %v", *sc.RunnerShiftPct, tt.shiftPct)
			}
			if sc.Guard != tt.guard {
				t.Errorf("reason guard %q, want %q", sc.Guard, tt.guard)
			}
		})
	}
}

// A gate whose only regression the runner's slowdown explains is
// inconclusive, with the shift on the scenario for its headline to name
// (report's TestComparisonReason says it).
func TestRunnerSpeedHeadline(t *testing.T) {
	b, c := pair(t, 21, 1.3, nil)
	b.Runner, c.Runner = probes(6, 1.6, 170), probes(6, 2.24, 170)
	got := mustCompare(t, one(b), one(c), withinRun())
	sc := got.Scenarios[0]
	if got.Verdict != Undecided || !sc.RunnerShifted || sc.RunnerShiftPct == nil || math.Round(*sc.RunnerShiftPct) != 40 {
		t.Errorf("verdict %s, runner shifted %v by %v: want %s, shifted by +40%%", got.Verdict, sc.RunnerShifted, sc.RunnerShiftPct, Undecided)
	}
}
