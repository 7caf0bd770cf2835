package compare

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfgate/perfgate/result"
)

// TestEstimateOrderEffect checks the order effect on hand-made pairs: a
// base-first pair (head 10% faster) and a head-first pair (head 10%
// slower) per block, so the change is nil and the first-measured side is
// slower by exp((ln 1.1 − ln 0.9)/2) − 1 at P99 and by nothing at P50.
func TestEstimateOrderEffect(t *testing.T) {
	tr := func(p50, p99 float64) result.Trial {
		return result.Trial{Latency: result.Latency{P50: p50, P99: p99}}
	}
	var p Pairs
	var headFirst []bool
	for range 3 { // ABBA: base first, then head first
		p.Base = append(p.Base, tr(5, 10), tr(5, 10))
		p.Head = append(p.Head, tr(5, 9), tr(5, 11))
		headFirst = append(headFirst, false, true)
	}
	want := 100 * (math.Exp((math.Log(1.1)-math.Log(0.9))/2) - 1)
	tests := []struct {
		name      string
		p         Pairs
		headFirst []bool
		want      *OrderEffect
	}{
		{name: "three blocks", p: p, headFirst: headFirst,
			want: &OrderEffect{Blocks: 3, P99Pct: want, P99CIPct: [2]float64{want, want}}},
		{name: "one block: no interval", p: Pairs{Base: p.Base[:2], Head: p.Head[:2]}, headFirst: headFirst[:2]},
		{name: "pairs in one order form no block", p: p, headFirst: []bool{true, true, false, false, true, true}},
		{name: "a trial without a P99", p: Pairs{Base: append(append([]result.Trial{}, p.Base[:5]...), tr(5, 0)), Head: p.Head},
			headFirst: headFirst},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p
			p.HeadFirst = tt.headFirst
			got := EstimateOrderEffect(p, 0.95)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("order effect (-want +got):\n%s", diff)
			}
		})
	}
}

// The paired test with the order as a covariate: an order effect that
// ABBA alternates (+θ head first, −θ base first) leaves the change where
// it was and its interval as narrow as the noise without the effect,
// where the plain paired test's interval carries θ.
func TestOrderAdjustedT(t *testing.T) {
	const delta, theta = 0.05, 0.10
	noise := []float64{0.004, -0.006, 0.003, -0.002, 0.005, -0.004, 0.001, -0.001}
	var d, s []float64
	for i, e := range noise {
		sign := []float64{-1, 1}[i%2] // AB, BA, AB, BA: ABBA blocks
		d = append(d, delta+theta*sign+e)
		s = append(s, sign)
	}
	plain := pairedT(d, 0.95)
	adj, ok := orderAdjustedT(d, s, 0.95)
	if !ok {
		t.Fatal("orderAdjustedT did not apply to 8 units of both orders")
	}
	if math.Abs(adj.mid-delta) > 0.005 {
		t.Errorf("adjusted change %.4f, want %.2f", adj.mid, delta)
	}
	if w, pw := adj.hi-adj.lo, plain.hi-plain.lo; w > pw/5 {
		t.Errorf("adjusted interval %.4f wide, plain %.4f: want the order effect out of it", w, pw)
	}
	if adj.p > 1e-4 || plain.p < 0.01 {
		t.Errorf("p adjusted %.2g, plain %.2g: want the change significant only once the order is out", adj.p, plain.p)
	}
	for _, c := range []struct {
		name string
		d, s []float64
	}{
		{"three units", d[:3], s[:3]},
		{"order unknown", d, nil},
		{"one order only", d, make([]float64, len(d))},
	} {
		if _, ok := orderAdjustedT(c.d, c.s, 0.95); ok {
			t.Errorf("%s: orderAdjustedT applied, want the plain paired test", c.name)
		}
	}
}
