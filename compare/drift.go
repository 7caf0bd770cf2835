package compare

import "math"

// DriftPct is how far y moved over the span of x, in percent: the
// least-squares slope b of ln y on x, applied over the span,
//
//	drift = 100 · (exp(b · (x_last − x_first)) − 1).
//
// An A/B run reads it from the base side's P99 against the time of each
// trial (ab's base_drift_pct): a slow drift of the runner that the
// interleaving cancels, but that an unpaired reading would take for a
// change. Fewer than two points, or x with no spread, give 0. The y must
// be positive.
func DriftPct(x, y []float64) float64 {
	n := float64(len(x))
	if len(x) < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range x {
		ly := math.Log(y[i])
		sx += x[i]
		sy += ly
		sxx += x[i] * x[i]
		sxy += x[i] * ly
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0
	}
	slope := (n*sxy - sx*sy) / den
	return 100 * (math.Exp(slope*(x[len(x)-1]-x[0])) - 1)
}

// UnpairedDeltaPct is the change an unpaired reading of paired figures
// would give: the ratio of the two sides' geometric means, in percent,
//
//	100 · (exp(mean ln head − mean ln base) − 1),
//
// over the pairs where both figures are positive (0 when none is). Beside
// the paired estimate it shows what the pairing removed (ab's
// unpaired_delta_pct).
func UnpairedDeltaPct(base, head []float64) float64 {
	var lb, lh float64
	n := 0
	for i := range min(len(base), len(head)) {
		b, h := base[i], head[i]
		if b > 0 && h > 0 {
			lb += math.Log(b)
			lh += math.Log(h)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return 100 * (math.Exp((lh-lb)/float64(n)) - 1)
}
