package compare

import (
	"math"

	"github.com/perfgate/perfgate/result"
)

// OrderEffect is how much slower the side measured first in a pair was
// than the side measured second, over an interleaved A/B run's ABBA
// blocks: 100·(exp(θ) − 1) per quantile, where θ is the mean over
// blocks of half the difference between the log ratio head/base of the
// block's head-first pair and that of its base-first pair, with
// Student's interval at the comparison's confidence.
//
// Within a block the change δ enters both pairs' log ratios with the same
// sign and the order effect θ with opposite signs (δ+θ when the head ran
// first, δ−θ when the base did), so the paired estimate, their mean,
// holds δ alone and this half-difference θ alone.
type OrderEffect struct {
	// Blocks is the number of blocks (a head-first and a base-first pair
	// side by side) behind the estimate.
	Blocks   int        `json:"blocks"`
	P50Pct   float64    `json:"p50_pct"`
	P50CIPct [2]float64 `json:"p50_ci_pct"`
	P99Pct   float64    `json:"p99_pct"`
	P99CIPct [2]float64 `json:"p99_ci_pct"`
}

// EstimateOrderEffect estimates the order effect of an interleaved run's
// pairs from the order each ran in (Pairs.HeadFirst). Consecutive pairs
// (0 and 1, 2 and 3, …) whose orders differ form a block; others are
// left out. It returns nil with
// fewer than two blocks (no interval) or where a trial lacks a P50 or P99.
func EstimateOrderEffect(p Pairs, conf float64) *OrderEffect {
	headFirst := p.HeadFirst
	var d50, d99 []float64
	for i := 0; i+1 < min(p.Len(), len(headFirst)); i += 2 {
		if headFirst[i] == headFirst[i+1] {
			continue
		}
		hf, bf := i, i+1
		if !headFirst[i] {
			hf, bf = i+1, i
		}
		l50, ok50 := halfDiff(p, hf, bf, func(t result.Latency) float64 { return t.P50 })
		l99, ok99 := halfDiff(p, hf, bf, func(t result.Latency) float64 { return t.P99 })
		if !ok50 || !ok99 {
			return nil
		}
		d50, d99 = append(d50, l50), append(d99, l99)
	}
	if len(d50) < 2 {
		return nil
	}
	pct := func(x float64) float64 { return 100 * (math.Exp(x) - 1) }
	t50, t99 := pairedT(d50, conf), pairedT(d99, conf)
	return &OrderEffect{Blocks: len(d50),
		P50Pct: pct(t50.mid), P50CIPct: [2]float64{pct(t50.lo), pct(t50.hi)},
		P99Pct: pct(t99.mid), P99CIPct: [2]float64{pct(t99.lo), pct(t99.hi)}}
}

// halfDiff is half of ln(head/base) of the head-first pair hf less that of
// the base-first pair bf, for the quantile q reads.
func halfDiff(p Pairs, hf, bf int, q func(result.Latency) float64) (float64, bool) {
	v := [4]float64{q(p.Head[hf].Latency), q(p.Base[hf].Latency), q(p.Head[bf].Latency), q(p.Base[bf].Latency)}
	for _, x := range v {
		if !(x > 0) {
			return 0, false
		}
	}
	return (math.Log(v[0]/v[1]) - math.Log(v[2]/v[3])) / 2, true
}
