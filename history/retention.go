package history

import "sort"

// Retention bounds a history's growth. Records are kept per scenario and
// runner; the newest (by date, then file order) survive.
type Retention struct {
	// Keep is how many records per scenario and runner are kept (0: all).
	Keep int
	// KeepHistograms is how many of the newest kept records per scenario
	// and runner keep their per-process histograms (0: all); older ones
	// keep their values only, enough for series, change points and noise.
	KeepHistograms int
}

// DefaultRetention keeps 1000 records per scenario and runner (years of
// daily baselines) and histograms on the newest 100. At about 3 KB a
// record without histograms and 10-20 KB with (see docs/history.md), a
// scenario's file stays under about 5 MB.
var DefaultRetention = Retention{Keep: 1000, KeepHistograms: 100}

// Apply returns recs under r, in their original order.
func (r Retention) Apply(recs []Record) []Record {
	type key struct{ scenario, runner string }
	idx := map[key][]int{}
	for i, rec := range recs {
		k := key{rec.Scenario, rec.Runner}
		idx[k] = append(idx[k], i)
	}
	drop := map[int]bool{}
	strip := map[int]bool{}
	for _, is := range idx {
		sort.SliceStable(is, func(a, b int) bool { return recs[is[a]].Date.After(recs[is[b]].Date) })
		for rank, i := range is {
			if r.Keep > 0 && rank >= r.Keep {
				drop[i] = true
			} else if r.KeepHistograms > 0 && rank >= r.KeepHistograms {
				strip[i] = true
			}
		}
	}
	out := make([]Record, 0, len(recs)-len(drop))
	for i, rec := range recs {
		if drop[i] {
			continue
		}
		if strip[i] {
			rec.Histograms = nil
		}
		out = append(out, rec)
	}
	return out
}
