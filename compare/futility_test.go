package compare

import "testing"

// TestFutile: a look finds a paired scenario futile only when every
// undecided gated metric is a paired ratio whose projection to the end of
// the design leaves it under FutilePower to be decided.
func TestFutile(t *testing.T) {
	pairedM := func(name string, v Verdict, delta, lo, hi float64, units int) Metric {
		return Metric{Metric: name, Gated: true, Verdict: v, Method: MethodPaired, DeltaPct: delta,
			CIPct: [2]float64{lo, hi}, ThresholdPct: 5, BetterIs: LowerIsBetter, NBase: units, NCand: units}
	}
	// The second look of 20 pairs (Pocock-type and O'Brien-Fleming-type
	// levels, Sequential.Spent and EquivSpent).
	q := Sequential{Alpha: 0.05, MaxPairs: 20}
	look := Look{Pairs: 12, EndPairs: 20, Level: q.Spent(0.6) - q.Spent(0.3),
		AlphaLeft: q.Spent(1) - q.Spent(0.6), EqAlphaLeft: q.EquivSpent(1) - q.EquivSpent(0.6)}
	p50 := pairedM(MetricP50, Unchanged, 0.3, -1.5, 2.1, 12)
	tests := []struct {
		name   string
		ms     []Metric
		look   Look
		futile bool
		metric string
	}{
		// An A/A P99 on a noisy runner: ±15% after 12 pairs (at the look's level), ±8% at best
		// after 20, which ±5% cannot hold.
		{"A/A P99 too wide", []Metric{p50, pairedM(MetricP99, Inconclusive, 1, -12.5, 16.5, 12)}, look, true, MetricP99},
		// The same spread half as wide could fit by the end.
		{"A/A P99 narrowing", []Metric{p50, pairedM(MetricP99, Inconclusive, 1, -5, 7.3, 12)}, look, false, ""},
		// A median just past the threshold may still be called.
		{"P50 near the threshold", []Metric{pairedM(MetricP50, Inconclusive, 5.8, 3.5, 8.2, 12), pairedM(MetricP99, Unchanged, 1, -3, 4, 12)}, look, false, ""},
		// A P99 far beyond it may yet regress.
		{"P99 far out", []Metric{p50, pairedM(MetricP99, Inconclusive, 9, -4, 24, 12)}, look, false, ""},
		{"the last look", []Metric{p50, pairedM(MetricP99, Inconclusive, 1, -10.5, 13.5, 20)}, Look{Pairs: 20, EndPairs: 20, Level: 0.02, AlphaLeft: 0.01, EqAlphaLeft: 0.01}, false, ""},
		{"decided", []Metric{p50, pairedM(MetricP99, Unchanged, 1, -3, 4, 12)}, look, false, ""},
		{"a knee undecided", []Metric{p50, pairedM(MetricP99, Inconclusive, 1, -10.5, 13.5, 12),
			{Metric: MetricMaxQPS, Gated: true, Verdict: Inconclusive, Method: MethodPairedKnees, ThresholdPct: 5, NBase: 4, NCand: 4}}, look, false, ""},
		{"held by a guard", []Metric{p50, func() Metric {
			m := pairedM(MetricP99, Inconclusive, 1, -10.5, 13.5, 12)
			m.Guard = ReasonHostBusy
			return m
		}()}, look, false, ""},
		{"too few units", []Metric{p50, pairedM(MetricP99, Inconclusive, 1, -30, 40, 2)}, look, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := ScenarioComparison{Metrics: tt.ms, Verdict: scenarioVerdict(tt.ms)}
			f, ok := Futile(sc, tt.look)
			if ok != tt.futile {
				t.Fatalf("futile %v (power %.3f, metric %q, pairs needed %d), want %v", ok, f.Power, f.Metric, f.PairsNeeded, tt.futile)
			}
			if !ok {
				return
			}
			if f.Metric != tt.metric || f.Pairs != tt.look.Pairs || !(f.Power < FutilePower) {
				t.Errorf("got %+v: want metric %s, %d pairs, power under %v", f, tt.metric, tt.look.Pairs, FutilePower)
			}
			if f.PairsNeeded <= tt.look.EndPairs {
				t.Errorf("pairs needed %d: want more than the design's %d", f.PairsNeeded, tt.look.EndPairs)
			}
		})
	}
}

// PairsToDecide's advice holds: a P99 left undecided by 12 pairs (its
// equivalence interval past ±5%) names p99_ms and a number of pairs; the
// same pairs' pattern measured to a quarter more than that number is
// decided, and to half of it is not. A decided scenario has no advice,
// nor one whose projection asks for no more pairs than were measured.
func TestPairsToDecide(t *testing.T) {
	s := DefaultSettings()
	cycle := func(n int) Pairs {
		src := tailPairs(1)
		var p Pairs
		for i := range n {
			p.Base = append(p.Base, src.Base[i%src.Len()])
			p.Head = append(p.Head, src.Head[i%src.Len()])
		}
		return p
	}
	sc := ComparePaired("api", "service", tailPairs(1), s, 0.05, 0.05)
	metric, need, ok := PairsToDecide(sc, Look{Pairs: 12, Level: 0.05}, 0.05)
	if !ok || metric != MetricP99 || need <= 12 {
		t.Fatalf("PairsToDecide = %q, %d, %v: want p99_ms and more than the 12 pairs measured", metric, need, ok)
	}
	t.Logf("12 pairs, P99's equivalence interval past ±5%%: about %d pairs advised", need)
	if got := ComparePaired("api", "service", cycle(need*5/4), s, 0.05, 0.05); !Decided(got) {
		t.Errorf("the pattern measured to %d pairs (a quarter more than the advised %d) is undecided: %+v", need*5/4, need, got.Metrics)
	}
	if got := ComparePaired("api", "service", cycle(need/2), s, 0.05, 0.05); Decided(got) {
		t.Errorf("the pattern measured to %d pairs (half the advised %d) is decided: the advice asks for too many", need/2, need)
	}
	// A late look's small level leaves the same pattern undecided with
	// more pairs than a design at α needs: the level held it, not the pairs.
	late := cycle(need * 5 / 4)
	if sc := ComparePaired("api", "service", late, s, 0.0005, 0.0005); Decided(sc) {
		t.Fatalf("%d pairs at level 0.0005 decided: the case needs an undecided scenario", late.Len())
	} else if m, n, ok := PairsToDecide(sc, Look{Pairs: late.Len(), Level: 0.0005}, 0.05); ok {
		t.Errorf("%d pairs held by a late look's level: advice %s, %d pairs; want none", late.Len(), m, n)
	}
	decided := ComparePaired("api", "service", cycle(need*2), s, 0.05, 0.05)
	if _, _, ok := PairsToDecide(decided, Look{Pairs: need * 2, Level: 0.05}, 0.05); ok {
		t.Error("a decided scenario got advice")
	}
}
