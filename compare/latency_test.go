package compare

import (
	"math"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// trialHists is one histogram a trial, trial i holding n requests of
// (10 + i)·scale ms, so that every trial's quantiles differ.
func trialHists(t *testing.T, trials, n int, scale float64) []*hdrhistogram.Histogram {
	t.Helper()
	var hs []*hdrhistogram.Histogram
	for i := range trials {
		h := hdrhistogram.New(1, 60_000_000, 3)
		for range n {
			if err := h.RecordValue(int64(1000 * scale * float64(10+i))); err != nil {
				t.Fatal(err)
			}
		}
		hs = append(hs, h)
	}
	return hs
}

// TestLatencyMethodsOrder checks which of latencyMethods compares a
// quantile: processes from three in all, trials below that or when a
// process has no value, paired units for an A/B run's differences, and
// none for no input.
func TestLatencyMethodsOrder(t *testing.T) {
	tests := []struct {
		name       string
		bp, cp     []int
		emptyTrial bool // the candidate's last trial holds no requests
		want       string
		wantN      [4]int // NBase, NCand, NBaseTrials, NCandTrials
	}{
		{"one process a side", []int{1, 1, 1, 1}, []int{1, 1, 1, 1}, false, MethodTrials, [4]int{4, 4, 0, 0}},
		{"four processes in all", []int{1, 1, 2, 2}, []int{1, 1, 2, 2}, false, MethodProcesses, [4]int{2, 2, 4, 4}},
		{"a trial a process", []int{1, 2, 3, 4}, []int{1, 2, 3, 4}, false, MethodProcesses, [4]int{4, 4, 4, 4}},
		// A process with no requests has no quantile, so no log: the
		// test over processes does not apply and the trials compare.
		{"a process with no value", []int{1, 2, 3, 4}, []int{1, 2, 3, 4}, true, MethodTrials, [4]int{4, 4, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bh, ch := trialHists(t, 4, 200, 1), trialHists(t, 4, 200, 1.2)
			if tt.emptyTrial {
				ch[3] = hdrhistogram.New(1, 60_000_000, 3)
			}
			s := DefaultSettings()
			outs := quantileMetrics(bh, ch, tt.bp, tt.cp, []quantSpec{{MetricP99, 99, true, s.P99Regression, false}}, s, noRunNoise(), newResampler(s.Seed, "x"))
			if len(outs) != 1 {
				t.Fatalf("quantileMetrics gave %d metrics, want 1", len(outs))
			}
			m := outs[0].m
			if m.Method != tt.want {
				t.Errorf("method = %s, want %s", m.Method, tt.want)
			}
			if got := [4]int{m.NBase, m.NCand, m.NBaseTrials, m.NCandTrials}; got != tt.wantN {
				t.Errorf("NBase, NCand, NBaseTrials, NCandTrials = %v, want %v", got, tt.wantN)
			}
			if m.PValue == nil || m.EquivCIPct == nil || len(outs[0].reps) != s.Resamples {
				t.Errorf("p %v, equivalence interval %v, %d replicates: want a p-value, an interval and %d replicates", m.PValue, m.EquivCIPct, len(outs[0].reps), s.Resamples)
			}
		})
	}
	t.Run("paired units", func(t *testing.T) {
		d := []float64{math.Log(1.2), math.Log(1.25), math.Log(1.15)}
		e, ok := estimateLatency(latencyInput{conf: 0.95, eqConf: 0.9,
			paired: &pairedDiffs{d: d, base: []float64{10, 10, 10}, head: []float64{12, 12.5, 11.5}, pairs: 6}})
		if !ok || e.Method != MethodPaired {
			t.Fatalf("estimateLatency(paired) = %s, %v, want %s", e.Method, ok, MethodPaired)
		}
		if got := [4]int{e.NBase, e.NCand, e.NBaseTrials, e.NCandTrials}; got != [4]int{3, 3, 6, 6} {
			t.Errorf("units and pairs = %v, want [3 3 6 6]", got)
		}
		if want := 100 * (math.Exp((d[0]+d[1]+d[2])/3) - 1); math.Abs(e.DeltaPct-want) > 1e-9 {
			t.Errorf("DeltaPct = %v, want %v", e.DeltaPct, want)
		}
	})
	t.Run("no input", func(t *testing.T) {
		if e, ok := estimateLatency(latencyInput{conf: 0.95, eqConf: 0.9}); ok {
			t.Errorf("estimateLatency(nothing) = %+v, want no method", e)
		}
	})
}
