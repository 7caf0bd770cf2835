package compare

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// bar is one non-empty bucket of a histogram: the top of its value range
// (what hdrhistogram-go's Distribution calls To) and its count.
type bar struct {
	to, count int64
}

// nonEmptyBars returns h's non-empty buckets in ascending order, as
// Distribution would with its empty buckets left out. Distribution builds
// a Bar for every bucket up to the largest value, which made laying out
// histograms the larger part of a comparison's time; this reads the
// counts once and maps each non-empty index to its value by the
// histogram's own layout (hdrhistogram-go's New and iterator).
// TestNonEmptyBarsMatchDistribution holds the two equal.
func nonEmptyBars(h *hdrhistogram.Histogram) []bar {
	snap := h.Export()
	sigFigs := snap.SignificantFigures
	if sigFigs < 1 {
		sigFigs = 1
	} else if sigFigs > 5 {
		sigFigs = 5
	}
	lowest := max(snap.LowestTrackableValue, 1)
	countMag := int64(math.Ceil(math.Log2(2 * math.Pow10(int(sigFigs)))))
	halfMag := max(countMag, 1) - 1
	unitMag := max(int64(math.Floor(math.Log2(float64(lowest)))), 0)
	half := int64(1) << halfMag
	count := half << 1

	// Counted first: the slice is then allocated once, at its size.
	nonEmpty := 0
	for _, n := range snap.Counts {
		if n > 0 {
			nonEmpty++
		}
	}
	out := make([]bar, 0, nonEmpty)
	for i, n := range snap.Counts {
		if n <= 0 {
			continue
		}
		idx := int64(i)
		bucket, sub := int64(0), idx
		if idx >= count {
			bucket = idx>>halfMag - 1
			sub = idx&(half-1) + half
		}
		lo := sub << (bucket + unitMag)
		out = append(out, bar{to: lo + int64(1)<<(unitMag+bucket) - 1, count: n})
	}
	return out
}
