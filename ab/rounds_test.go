package ab

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/result"
)

// TestTestedRounds: a busy round never vetoes a verdict that the quiet
// rounds decide (they are tested alone when two or more), and is kept
// only when too few quiet ones are left to test.
func TestTestedRounds(t *testing.T) {
	tests := []struct {
		name          string
		quiet, busy   [2][]float64
		want          [2][]float64
		wantQuietOnly bool
	}{
		{"all quiet", [2][]float64{{100, 101, 99}, {80, 79, 81}}, [2][]float64{}, [2][]float64{{100, 101, 99}, {80, 79, 81}}, true},
		{"a busy round left out", [2][]float64{{100, 101}, {80, 79}}, [2][]float64{{60}, {90}}, [2][]float64{{100, 101}, {80, 79}}, true},
		{"one quiet round: busy ones kept", [2][]float64{{100}, {80}}, [2][]float64{{60}, {90}}, [2][]float64{{100, 60}, {80, 90}}, false},
		{"all busy", [2][]float64{}, [2][]float64{{60, 61}, {90, 91}}, [2][]float64{{60, 61}, {90, 91}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, quietOnly := testedRounds(tt.quiet, tt.busy)
			if d := cmp.Diff(tt.want, got); d != "" || quietOnly != tt.wantQuietOnly {
				t.Errorf("testedRounds: quiet only %v, want %v (-want +got):\n%s", quietOnly, tt.wantQuietOnly, d)
			}
		})
	}
}

// TestBusyProbeNoVeto is the newcomer's knee: a 25% capacity loss whose
// interleaved rounds read −21.4% and −22.2% (and two more like them),
// with one busy probe among the searches'. The rounds were quiet, so the
// busy probe, no part of the test, must not veto the regression; when the
// test rests on a busy round, it still does.
func TestBusyProbeNoVeto(t *testing.T) {
	side := func(name string, knee float64, busy bool) *result.Result {
		pts := []result.Point{{OfferedRPS: knee * 0.9, Pass: true}, {OfferedRPS: knee * 1.1, Why: "p99"}}
		if busy {
			pts[0].Host = &result.HostLoad{Busy: true, Why: "other processes used 1.4 cores"}
		}
		// The latency at the knee: one trial, as kneeResult keeps it.
		r := comparetest.Result(comparetest.Spec{Scenario: name, Layer: "service", Trials: 1, Requests: 300, MedianMs: 20, Noise: 0.02},
			rand.New(rand.NewPCG(uint64(knee), 1)))
		r.Load.Mode = harness.ModeSweep
		r.Capacity = &result.Capacity{Found: true, MaxQPS: knee, Bracket: [2]float64{knee * 0.9, knee * 1.1}, Points: pts, SLOP99Ms: 50}
		return r
	}
	paired := [2][]float64{{100, 101, 99, 100.5}, {78.6, 77.8, 78.1, 78.9}}
	for _, tt := range []struct {
		name      string
		quietOnly bool
		want      compare.Verdict
	}{
		{"quiet rounds decide", true, compare.Regressed},
		{"a busy round in the test", false, compare.Inconclusive},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := [2]*result.Result{side("a", 100, false), side("b", 78, true)}
			c, err := compareKnees("svc", "service", rs, paired, tt.quietOnly, compare.DefaultSettings())
			if err != nil {
				t.Fatal(err)
			}
			sc := c.Scenarios[0]
			var qps *compare.Metric
			for i := range sc.Metrics {
				if sc.Metrics[i].Metric == compare.MetricMaxQPS {
					qps = &sc.Metrics[i]
				}
			}
			if qps == nil || qps.Method != compare.MethodPairedKnees {
				t.Fatalf("max QPS not tested over the paired rounds: %+v (%s %s %q)", sc.Metrics, sc.Verdict, sc.Reason, sc.Warnings)
			}
			if sc.Verdict != tt.want || (tt.want == compare.Inconclusive) != sc.HostBusy {
				t.Errorf("max QPS %+.1f%% [%+.1f%%, %+.1f%%]: verdict %s (host busy %v: %s), want %s",
					qps.DeltaPct, qps.CIPct[0], qps.CIPct[1], sc.Verdict, sc.HostBusy, sc.Reason, tt.want)
			}
		})
	}
}
