package compare

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfgate/perfgate/result"
)

type hdrHist = hdrhistogram.Histogram

func seq(from, to float64) []float64 {
	var v []float64
	for x := from; x <= to; x++ {
		v = append(v, x)
	}
	return v
}

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		{"5v5 separated", seq(1, 5), seq(6, 10), 2.0 / 252},
		{"5v5 reversed", seq(6, 10), seq(1, 5), 2.0 / 252},
		{"3v3 separated cannot reach 0.05", seq(1, 3), seq(4, 6), 0.1},
		{"5v5 one swap", []float64{1, 2, 3, 4, 6}, []float64{5, 7, 8, 9, 10}, 4.0 / 252},
		{"identical", seq(1, 5), seq(1, 5), 1},
		{"all tied", []float64{0, 0, 0, 0, 0}, []float64{0, 0, 0, 0, 0}, 1},
		// Every arrangement deviates by the same 2.5 from the mean: no evidence.
		{"one tied outlier", []float64{0, 0, 0, 0, 1}, []float64{0, 0, 0, 0, 0}, 1},
		{"empty side", nil, seq(1, 3), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mannWhitney(tt.x, tt.y); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("mannWhitney(%v, %v) = %v, want %v", tt.x, tt.y, got, tt.want)
			}
		})
	}
}

// TestMannWhitneyNormalAgreesWithExact checks the normal approximation
// (used above exactLimit arrangements) against the exact enumeration at a
// size where both are computable.
func TestMannWhitneyNormalAgreesWithExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 20 {
		x, y := make([]float64, 9), make([]float64, 9)
		for k := range x {
			x[k] = rng.NormFloat64()
			y[k] = rng.NormFloat64() + float64(i%4)*0.4
		}
		exact := mannWhitney(x, y)
		approx := mannWhitneyLimit(x, y, 0)
		if math.Abs(exact-approx) > 0.02 {
			t.Errorf("sample %d: exact p %v, normal approximation %v: differ by more than 0.02", i, exact, approx)
		}
	}
	// Large samples take the approximation: 30 vs 30 fully separated.
	if got := mannWhitney(seq(1, 30), seq(31, 60)); got > 1e-10 || got <= 0 {
		t.Errorf("mannWhitney(1..30, 31..60) = %v, want a tiny positive p", got)
	}
}

func TestHolm(t *testing.T) {
	got := holm([]float64{0.01, 0.04, 0.03})
	want := []float64{0.03, 0.06, 0.06}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("holm (-want +got):\n%s", d)
	}
	if got := holm(nil); len(got) != 0 {
		t.Errorf("holm(nil) = %v, want empty", got)
	}
}

func TestDecide(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name     string
		delta    float64
		ci       [2]float64
		betterIs string
		p        float64
		want     Verdict
	}{
		{"beyond threshold and significant", 12, [2]float64{6, 20}, LowerIsBetter, 0.01, Regressed},
		{"beyond threshold, not significant", 12, [2]float64{6, 20}, LowerIsBetter, 0.2, Inconclusive},
		{"point beyond, interval straddles, significant", 7, [2]float64{2, 12}, LowerIsBetter, 0.01, Regressed},
		{"point inside, interval straddles", 4, [2]float64{2, 12}, LowerIsBetter, 0.01, Inconclusive},
		{"inside threshold", 0.5, [2]float64{-4, 4.9}, LowerIsBetter, 0.5, Unchanged},
		// Significant but small: practical significance says unchanged.
		{"significant but small", 2, [2]float64{1, 3}, LowerIsBetter, 0.001, Unchanged},
		{"improved latency", -12, [2]float64{-20, -6}, LowerIsBetter, 0.01, Improved},
		{"throughput drop", -12, [2]float64{-20, -6}, HigherIsBetter, 0.01, Regressed},
		{"throughput gain", 12, [2]float64{6, 20}, HigherIsBetter, 0.01, Improved},
		{"no test: never regressed", -20, [2]float64{-30, -10}, HigherIsBetter, nan, Inconclusive},
		{"open top cannot be unchanged", 1, [2]float64{-2, math.Inf(1)}, HigherIsBetter, nan, Inconclusive},
		{"no interval", 3, [2]float64{nan, nan}, LowerIsBetter, 0.01, Inconclusive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Evidence{DeltaPct: tt.delta, EquivCIPct: tt.ci, ThresholdPct: 5, BetterIs: tt.betterIs, P: tt.p, Alpha: 0.05}
			if got := Decide(e); got != tt.want {
				t.Errorf("Decide(%+v) = %s, want %s", e, got, tt.want)
			}
		})
	}
}

func TestTrialsNeeded(t *testing.T) {
	tests := []struct {
		level float64
		want  int
	}{{0.05, 4}, {0.025, 5}, {0.0125, 5}, {0.005, 6}}
	for _, tt := range tests {
		if got := trialsNeeded(tt.level); got != tt.want {
			t.Errorf("trialsNeeded(%v) = %d, want %d", tt.level, got, tt.want)
		}
	}
}

// TestQuantSetMatchesMerge checks that quantiles of weighted merges taken
// from the common grid equal hdrhistogram-go's quantiles of the actually
// merged histograms.
func TestQuantSetMatchesMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var hs = make([]*hdrHist, 6)
	raw := make([]*hdrHist, 6)
	for i := range hs {
		h := result.NewHistogram()
		n := 500 + rng.IntN(3000)
		for range n {
			_ = h.RecordValue(int64(math.Exp(7 + 0.8*rng.NormFloat64() + 0.1*float64(i))))
		}
		hs[i], raw[i] = h, h
	}
	qs := newQuantSet(hs)
	for range 50 {
		w := make([]int, len(hs))
		merged := result.NewHistogram()
		for i := range w {
			w[i] = rng.IntN(3)
			for range w[i] {
				if err := result.Merge(merged, raw[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, pct := range []float64{50, 99, 99.9} {
			got := qs.quantile(w, pct)
			if merged.TotalCount() == 0 {
				if !math.IsNaN(got) {
					t.Errorf("quantile of an empty merge = %v, want NaN", got)
				}
				continue
			}
			want := float64(merged.ValueAtQuantile(pct)) / 1000
			if got != want {
				t.Errorf("quantile(%v, %v) = %v, want %v (merged histogram)", w, pct, got, want)
			}
		}
	}
}

func TestMinTrials(t *testing.T) {
	tests := []struct {
		conf  float64
		tests int
		want  int
	}{
		{0.95, 1, 4}, // 2/C(6,3) = 0.1 ≥ 0.05; 2/C(8,4) = 0.029
		{0.95, 3, 5}, // 0.05/3 = 0.0167: 2/C(10,5) = 0.0079
		{0.99, 1, 5},
		{0.90, 1, 4}, // 2/C(6,3) = 0.1 is not below 0.1
	}
	for _, tt := range tests {
		if got := MinTrials(tt.conf, tt.tests); got != tt.want {
			t.Errorf("MinTrials(%v, %d) = %d, want %d", tt.conf, tt.tests, got, tt.want)
		}
	}
	if err := Underpowered(false, 3, 0, 0.95, 1); err == nil || !strings.Contains(err.Error(), "load.trials to at least 4") {
		t.Errorf("Underpowered(3 trials, 95%%) = %v, want an error naming load.trials and the minimum", err)
	}
	if err := Underpowered(true, 1, 2, 0.95, 1); err == nil || !strings.Contains(err.Error(), "load.estimates to at least 3") {
		t.Errorf("Underpowered(sweep, 2 estimates) = %v, want an error naming load.estimates", err)
	}
}
