package history

import "math"

// round4 rounds x to four significant figures, the precision a history
// record stores an interval's ends with. The statistics themselves (mean,
// standard deviation, t quantiles, geometric means) are internal/stat's
// and compare's, shared with the gate.
func round4(x float64) float64 {
	if x == 0 {
		return 0
	}
	p := math.Pow(10, 4-math.Ceil(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}
