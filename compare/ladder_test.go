package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

// TestLadder checks the steps' changes, verdicts and additivity, with the
// rungs' trials from one process (the test over trials) and each from its
// own process (the test over processes).
func TestLadder(t *testing.T) {
	for _, perTrial := range []bool{false, true} {
		t.Run(map[bool]string{false: "one process a rung", true: "a process a trial"}[perTrial], func(t *testing.T) {
			ladderCase(t, perTrial)
		})
	}
}

func ladderCase(t *testing.T, perTrial bool) {
	rng := rand.New(rand.NewPCG(42, 1))
	rung := func(name, layer string, scale, qps float64) *result.Result {
		r := comparetest.Result(comparetest.Spec{Scenario: name, Layer: layer, Trials: 5, Requests: 5000,
			MedianMs: 4, Noise: 0.02, Scale: scale, MaxQPS: qps, Bracket: [2]float64{qps, qps * 1.02}}, rng)
		if perTrial {
			for i := range r.Trials {
				r.Trials[i].Process = i + 1
			}
			r.Restarts = len(r.Trials)
		}
		return r
	}
	rungs := []*result.Result{
		rung("fp16", "model", 1, 1000),
		rung("int8", "model", 1.2, 800),
		rung("int8-batched", "service", 0.96, 1600),
	}
	la, err := Ladder(rungs, DefaultSettings())
	if err != nil {
		t.Fatalf("Ladder: %v", err)
	}
	if len(la.Steps) != 2 {
		t.Fatalf("steps = %d, want 2", len(la.Steps))
	}
	tests := []struct {
		name    string
		got     Change
		want    float64
		verdict Verdict
	}{
		{"int8 step", la.Steps[0].P99, 20, Regressed},
		{"batching step", la.Steps[1].P99, -20, Improved},
		{"whole", la.Whole.P99, -4, ""},
	}
	for _, tt := range tests {
		if math.Abs(tt.got.DeltaPct-tt.want) > 5 {
			t.Errorf("%s: P99 change %.1f%%, want about %.0f%%", tt.name, tt.got.DeltaPct, tt.want)
		}
		if tt.got.CIPct[0] > tt.got.DeltaPct || tt.got.CIPct[1] < tt.got.DeltaPct {
			t.Errorf("%s: interval %v does not hold the point %.2f", tt.name, tt.got.CIPct, tt.got.DeltaPct)
		}
		if tt.verdict != "" && tt.got.Verdict != tt.verdict {
			t.Errorf("%s: verdict %s, want %s", tt.name, tt.got.Verdict, tt.verdict)
		}
	}
	if la.Steps[1].Layer != "service" || la.Steps[0].From != "fp16" || la.Steps[1].To != "int8-batched" {
		t.Errorf("steps = %+v, want fp16→int8 (model), int8→int8-batched (service)", la.Steps)
	}
	// Log ratios add up to the whole's, exactly: (1.2)(0.8) = 0.96.
	sum := la.Steps[0].P99.LogRatio + la.Steps[1].P99.LogRatio
	if math.Abs(sum-la.Whole.P99.LogRatio) > 1e-9 {
		t.Errorf("Σ log ratios = %v, whole's = %v: they must add up", sum, la.Whole.P99.LogRatio)
	}
	if r := la.Steps[0].P99.Ratio; math.Abs(r-(1+la.Steps[0].P99.DeltaPct/100)) > 1e-9 {
		t.Errorf("ratio %v disagrees with the change %v%%", r, la.Steps[0].P99.DeltaPct)
	}
	// One knee a rung (brackets): the max QPS change is shown, not called.
	if la.Whole.MaxQPS == nil || la.Whole.MaxQPS.Verdict != Inconclusive || la.Whole.MaxQPS.Ratio < 1.5 {
		t.Errorf("max QPS whole = %+v; want a ratio about 1.6, inconclusive without knee estimates", la.Whole.MaxQPS)
	}
}

func TestLadderErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	r := comparetest.Result(comparetest.Spec{Scenario: "a", Trials: 2, Requests: 100, MedianMs: 1}, rng)
	broken := comparetest.Result(comparetest.Spec{Scenario: "b", Trials: 2, Requests: 100, MedianMs: 1}, rng)
	broken.Trials[1].Histogram = "not base64!"
	tests := []struct {
		name  string
		rungs []*result.Result
		want  string
	}{
		{"one rung", []*result.Result{r}, "at least two rungs"},
		{"bad histogram", []*result.Result{r, broken}, "trial 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Ladder(tt.rungs, DefaultSettings())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Ladder: err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// A ladder step measured while the host was busy with other work is not
// credited to its layer, as a scenario's verdict is not (the demo beside
// a CPU hog printed `int8 → int8-batched +91.1% regressed`); with
// gate.ignore_host_load it stands.
func TestLadderHostBusy(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(42, 1))
		rung := func(name, layer string, scale float64) *result.Result {
			return comparetest.Result(comparetest.Spec{Scenario: name, Layer: layer, Trials: 5, Requests: 5000,
				MedianMs: 4, Noise: 0.02, Scale: scale}, rng)
		}
		rungs := []*result.Result{rung("fp16", "model", 1), rung("int8", "model", 1.2)}
		rungs[1].Trials[2].Host = &result.HostLoad{OtherCPUCores: 1.1, Busy: true, Why: "other processes used 1.10 cores"}
		s := DefaultSettings()
		s.IgnoreHostLoad = ignore
		la, err := Ladder(rungs, s)
		if err != nil {
			t.Fatal(err)
		}
		want := Inconclusive
		if ignore {
			want = Regressed
		}
		if got := la.Steps[0].P99.Verdict; got != want {
			t.Errorf("ignore_host_load %v: step verdict %s, want %s (notes %+v)", ignore, got, want, la.Notes)
		}
		if !ignore && !hasNote(la.Notes, Note{Code: NoteLadderBusy, Metric: MetricP99, Verdict: Regressed}) {
			t.Errorf("notes %+v do not say the host was busy", la.Notes)
		}
	}
}

// A ladder step's P99 change is judged as a scenario's metric is, with
// P99's margin of unchanged (Settings.P99Equivalence): a step whose
// equivalence interval leaves ±5% but sits inside ±10%, its point inside
// ±5%, is unchanged with the margin and inconclusive without; a point
// beyond the threshold is not unchanged under any margin.
func TestLadderTailMargin(t *testing.T) {
	tests := []struct {
		name          string
		seed          uint64
		noise         float64
		plain, margin Verdict
	}{
		{"inside the margin", 7, 0.05, Inconclusive, Unchanged},
		{"the point past the threshold", 1, 0.03, Inconclusive, Inconclusive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tt.seed, 1))
			rung := func(name string) *result.Result {
				return comparetest.Result(comparetest.Spec{Scenario: name, Layer: "model", Trials: 5, Requests: 5000, MedianMs: 4, Noise: tt.noise, Scale: 1}, rng)
			}
			rungs := []*result.Result{rung("fp16"), rung("int8")}
			s := DefaultSettings()
			plain, err := Ladder(rungs, s)
			if err != nil {
				t.Fatal(err)
			}
			s.P99Equivalence = 0.10
			wide, err := Ladder(rungs, s)
			if err != nil {
				t.Fatal(err)
			}
			c := plain.Steps[0].P99
			if got, want := [2]Verdict{c.Verdict, wide.Steps[0].P99.Verdict}, [2]Verdict{tt.plain, tt.margin}; got != want {
				t.Errorf("P99 step %+.1f%%, equivalence interval %.1f: %s at ±5%%, %s at ±10%%; want %s and %s",
					c.DeltaPct, *c.EquivCIPct, got[0], got[1], want[0], want[1])
			}
		})
	}
}
