package compare

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfgate/perfgate/result"
)

// TestPairedT checks the paired t-test against hand-computed values.
func TestPairedT(t *testing.T) {
	tests := []struct {
		name                  string
		d                     []float64
		wantP, wantLo, wantHi float64
	}{
		// mean 2, s² = 2.5, se = √(2.5/5) = 0.7071, t = 2.828 with 4 df:
		// p = 0.0474; t(0.975, 4) = 2.7764, interval 2 ± 1.9632.
		{"five values", []float64{0, 1, 2, 3, 4}, 0.04742, 0.03676, 3.96324},
		// No spread: the point, p 1 at zero.
		{"all zero", []float64{0, 0, 0}, 1, 0, 0},
		{"constant", []float64{0.1, 0.1}, 0, 0.1, 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := pairedT(tt.d, 0.95)
			p, lo, hi := r.p, r.lo, r.hi
			got := []float64{p, lo, hi}
			want := []float64{tt.wantP, tt.wantLo, tt.wantHi}
			if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-4)); d != "" {
				t.Errorf("pairedT(%v) (-want +got):\n%s", tt.d, d)
			}
		})
	}
}

// TestPairedUnits checks the grouping: pairs merged until each side holds
// enough requests; leftover pairs join the last unit.
func TestPairedUnits(t *testing.T) {
	mk := func(reqs ...int64) Pairs {
		var p Pairs
		for _, r := range reqs {
			p.Base = append(p.Base, result.Trial{Requests: r, Valid: true})
			p.Head = append(p.Head, result.Trial{Requests: r, Valid: true})
		}
		return p
	}
	tests := []struct {
		name string
		p    Pairs
		want []int // pairs per unit
	}{
		{"enough requests a pair", mk(300, 300, 300), []int{1, 1, 1}},
		// 30 requests a trial: four pairs make the 100.
		{"short trials merge", mk(30, 30, 30, 30, 30, 30, 30, 30), []int{4, 4}},
		{"leftover joins the last", mk(30, 30, 30, 30, 30), []int{5}},
		{"one short pair", mk(30), []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			for _, u := range pairedUnits(tt.p, 100) {
				got = append(got, len(u.base))
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("units (-want +got):\n%s", d)
			}
		})
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
		want     Verdict
		wantP99  float64
		wantErrs Verdict
	}{
		{"unchanged despite the drift", 1, Unchanged, 0, Unchanged},
		{"30% regression", 1.3, Regressed, 30, Unchanged},
		{"20% improvement", 0.8, Improved, -20, Unchanged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pairs(base, func(i int) float64 { return tt.scale * noise[i] })
			sc := ComparePaired("api", "service", p, DefaultSettings(), 0.05, 0.05)
			var got []string
			for _, m := range sc.Metrics {
				got = append(got, m.Metric+":"+string(m.Verdict))
				if m.Metric == MetricP99 && math.Abs(m.DeltaPct-tt.wantP99) > 1.5 {
					t.Errorf("P99 change %.2f%%, want about %.0f%%", m.DeltaPct, tt.wantP99)
				}
			}
			want := []string{MetricP50 + ":" + string(tt.want), MetricP99 + ":" + string(tt.want), MetricErrorRate + ":" + string(tt.wantErrs)}
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
	// The equivalence budget likewise sums to α, spends almost nothing at
	// the first look and most at the last.
	var eqs []float64
	prev = 0
	for _, n := range []int{6, 12, 20} {
		tn := q.Fraction(n, 0)
		eqs = append(eqs, q.EquivSpent(tn)-q.EquivSpent(prev))
		prev = tn
	}
	if d := cmp.Diff(0.05, eqs[0]+eqs[1]+eqs[2], cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("equivalence levels sum (-want +got):\n%s", d)
	}
	if eqs[0] > 0.001 || eqs[2] < 0.035 || q.EquivSpent(0) != 0 {
		t.Errorf("equivalence levels %v at 6, 12, 20 pairs (EquivSpent(0) %v): want under 0.001 first, over 0.035 last, 0 at t = 0", eqs, q.EquivSpent(0))
	}
	if got := q.FirstLook(); got != 6 {
		t.Errorf("FirstLook() = %d, want 6 (three blocks)", got)
	}
	// Looks at 6, 12 and 20 pairs: 18 would leave the last look 2 pairs.
	var looks []int
	last := 0
	for n := 2; n <= 20; n += 2 {
		if q.LookAt(n, last) {
			looks, last = append(looks, n), n
		}
	}
	if d := cmp.Diff([]int{6, 12, 20}, looks); d != "" {
		t.Errorf("looks (-want +got):\n%s", d)
	}
	if got := q.Fraction(3, 0.7); got != 0.7 {
		t.Errorf("Fraction(3, 0.7) = %v, want the budget's 0.7", got)
	}
}

// TestComparePairedTargetFellBehind: a head that could not keep up with
// the offered load (its trials flagged invalid, the target's doing, not
// the generator's) is compared, as against a stored baseline, and its
// backlog is a regression; trials the generator limited are left out, and
// with nothing left the scenario says why.
func TestComparePairedTargetFellBehind(t *testing.T) {
	var base []float64
	for i := range 12 {
		base = append(base, 6*(1+0.01*float64(i%3)))
	}
	behind := pairs(base, func(i int) float64 { return 140 * (1 + 0.02*float64(i%4)) })
	for i := range behind.Head {
		behind.Head[i].Valid = false
		behind.Head[i].Invalid = []string{"achieved 84.7 rps, under 95% of the offered 100.0 rps"}
	}
	sc := ComparePaired("api", "service", behind, DefaultSettings(), 0.05, 0.05)
	if sc.Verdict != Regressed {
		t.Errorf("a head 140× slower that fell behind the load: %s (%s), want regressed", sc.Verdict, sc.Reason)
	}
	if !hasNote(sc.Notes, Note{Code: NotePairedFlagged, Side: "head", Count: 12, Total: 12}) {
		t.Errorf("notes %+v do not say the flagged trials were kept", sc.Notes)
	}
	limited := pairs(base, func(int) float64 { return 1 })
	for i := range limited.Head {
		limited.Head[i].Valid, limited.Head[i].GeneratorLimited = false, true
	}
	sc = ComparePaired("api", "service", limited, DefaultSettings(), 0.05, 0.05)
	if sc.Verdict != Inconclusive || sc.Undecidable == nil || sc.Undecidable.Code != NotePairedNoGated {
		t.Errorf("every head trial generator-limited: %s (%+v), want inconclusive saying why", sc.Verdict, sc.Undecidable)
	}
}

// A host-busy scenario's levers name a same-runner A/B against a stored
// baseline, and not in a gate --ab run, which already measured both sides
// under the same load (an A/B beside a CPU hog said "or use perfgate gate
// --ab"). report's TestComparisonReason holds the words.
func TestHostBusyAdvice(t *testing.T) {
	busy := ScenarioComparison{Scenario: "knee", Verdict: Inconclusive, HostBusy: true, Levers: []Lever{LeverQuietRunner, LeverSameRunnerAB},
		Metrics: []Metric{{Metric: MetricMaxQPS, Gated: true, Verdict: Inconclusive, DeltaPct: -40, ThresholdPct: 5, BetterIs: HigherIsBetter}}}
	stored := &Comparison{Scenarios: []ScenarioComparison{busy}}
	setTop(stored, &EnvCheck{Match: true}, 1, DefaultSettings(), false)
	paired := PairedComparison([]ScenarioComparison{busy}, DefaultSettings())
	for _, tt := range []struct {
		name   string
		v      Verdict
		levers []Lever
		wantAB bool
	}{{"stored baseline", stored.Verdict, stored.Levers, true}, {"gate --ab", paired.Verdict, paired.Levers, false}} {
		if tt.v != Undecided {
			t.Errorf("%s: verdict %s, want %s", tt.name, tt.v, Undecided)
		}
		if got := slices.Contains(tt.levers, LeverSameRunnerAB); got != tt.wantAB || !slices.Contains(tt.levers, LeverQuietRunner) {
			t.Errorf("%s: levers %v: a same-runner A/B %v, want %v, and a quiet runner", tt.name, tt.levers, got, tt.wantAB)
		}
	}
}
