package compare

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfgate/perfgate/result"
)

func TestSignedRank(t *testing.T) {
	tests := []struct {
		name string
		d    []float64
		want float64
	}{
		// Every sign positive: only the two extreme assignments of 2⁵.
		{"all positive", []float64{1, 2, 3, 4, 5}, 2.0 / 32},
		{"all zero", []float64{0, 0, 0}, 1},
		// Zeros are dropped: this is the 3-difference all-positive case.
		{"zeros dropped", []float64{0, 1, 2, 3}, 2.0 / 8},
		// W⁺ = 1 of 1..4 (sum 10, mean 5): |W⁺−5| ≥ 4 for W⁺ ∈ {0, 1, 9, 10}: 4 of 16.
		{"one small positive", []float64{1, -2, -3, -4}, 4.0 / 16},
		// Ties: midranks 1.5, 1.5, 3; W⁺ = 4.5 (mean 3): |·| ≥ 1.5 for W⁺ ∈ {0, 1.5, 1.5, 4.5, 4.5, 6} of 8.
		{"tied magnitudes", []float64{1, -1, 2}, 6.0 / 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := signedRank(tt.d); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("signedRank(%v) = %v, want %v", tt.d, got, tt.want)
			}
		})
	}
}

// The normal approximation beyond signedRankExactMax agrees with the exact
// count near it.
func TestSignedRankNormalAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	d := make([]float64, signedRankExactMax)
	for i := range d {
		d[i] = rng.NormFloat64() + 0.3
	}
	exact := signedRank(d)
	big := append(append([]float64{}, d...), d[:1]...) // one more: the normal approximation
	approx := signedRank(big)
	if math.Abs(exact-approx) > 0.02 {
		t.Errorf("exact %v and normal %v differ by more than 0.02", exact, approx)
	}
}

func TestHodgesLehmannAndMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 40; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Round(rng.NormFloat64() * 3) // ties on purpose
		}
		s := append([]float64{}, v...)
		sort.Float64s(s)
		want := s[n/2]
		if n%2 == 0 {
			want = (s[n/2-1] + s[n/2]) / 2
		}
		if got := median(append([]float64{}, v...)); got != want {
			t.Errorf("median(%v) = %v, want %v", v, got, want)
		}
	}
	// One wild pair moves the mean, hardly the Hodges-Lehmann estimate.
	d := []float64{0.10, 0.12, 0.09, 0.11, 0.10, 0.13, 0.08, 2.0}
	if got := hodgesLehmann(d, nil); math.Abs(got-0.11) > 0.02 {
		t.Errorf("hodgesLehmann(%v) = %v, want about 0.11", d, got)
	}
}

// pairs builds n pairs whose head P99 is the base's times ratio[i].
func pairs(base []float64, ratio func(i int) float64) Pairs {
	var p Pairs
	for i, b := range base {
		p.Base = append(p.Base, result.Trial{Requests: 1000, Valid: true, Latency: result.Latency{P50: b / 2, P99: b}})
		h := b * ratio(i)
		p.Head = append(p.Head, result.Trial{Requests: 1000, Valid: true, Latency: result.Latency{P50: h / 2, P99: h}})
	}
	return p
}

func TestComparePaired(t *testing.T) {
	// A base that drifts upward by 5% a pair: pairing cancels it.
	var base []float64
	for i := range 12 {
		base = append(base, 10*(1+0.05*float64(i)))
	}
	noise := []float64{1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.01, 0.99}
	tests := []struct {
		name     string
		scale    float64
		want     string
		wantP99  float64
		wantErrs string
	}{
		{"unchanged despite the drift", 1, Unchanged, 0, Unchanged},
		{"30% regression", 1.3, Regressed, 30, Unchanged},
		{"20% improvement", 0.8, Improved, -20, Unchanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pairs(base, func(i int) float64 { return tt.scale * noise[i] })
			sc := ComparePaired("api", "service", p, DefaultSettings(), 0.05)
			var got []string
			for _, m := range sc.Metrics {
				got = append(got, m.Metric+":"+m.Verdict)
				if m.Metric == MetricP99 && math.Abs(m.DeltaPct-tt.wantP99) > 1.5 {
					t.Errorf("P99 change %.2f%%, want about %.0f%%", m.DeltaPct, tt.wantP99)
				}
			}
			want := []string{MetricP50 + ":" + tt.want, MetricP99 + ":" + tt.want, MetricErrorRate + ":" + tt.wantErrs}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
			if sc.Verdict != tt.want && !(tt.want == Improved && sc.Verdict == Improved) {
				t.Errorf("scenario verdict %s, want %s", sc.Verdict, tt.want)
			}
			if !Decided(sc) {
				t.Errorf("Decided = false for %v", got)
			}
		})
	}
}

func TestSequential(t *testing.T) {
	q := Sequential{Alpha: 0.05, MaxPairs: 20}
	if got := q.Spent(1); math.Abs(got-0.05) > 1e-12 {
		t.Errorf("Spent(1) = %v, want α", got)
	}
	// The looks' levels add up to α whatever the looks.
	var sum, prev float64
	for _, n := range []int{8, 10, 14, 20} {
		tn := q.Fraction(n, 0)
		sum += q.Spent(tn) - q.Spent(prev)
		prev = tn
	}
	if d := cmp.Diff(0.05, sum, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("levels sum (-want +got):\n%s", d)
	}
	if got := q.FirstLook(); got != 8 {
		t.Errorf("FirstLook() = %d, want 8 (2/2⁸ < α(0.4)/2)", got)
	}
	if got := q.Fraction(3, 0.7); got != 0.7 {
		t.Errorf("Fraction(3, 0.7) = %v, want the budget's 0.7", got)
	}
}
