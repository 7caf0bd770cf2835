package compare

import (
	"math"
	"slices"
	"sort"

	"github.com/perfgate/perfgate/result"
)

// unlabeled is the layer name given to scenarios that carry none.
const unlabeled = "unlabeled"

// attributeLayers groups the valid compared scenarios by layer and states,
// per layer, the change in P99 and in max QPS with an interval.
//
// A layer with several scenarios gets the geometric mean of their ratios
// cand/base, so that a +10% and a −10% scenario net to about zero and no
// single scenario's unit dominates. The P99 interval comes from the
// scenarios' bootstrap replicates: replicate r of the layer is the
// geometric mean of replicate r of each scenario, which is valid because
// each scenario was resampled independently. The max QPS interval is the
// geometric mean of the scenarios' interval bounds.
//
// A layer's verdict is its scenario's metric verdict when it has one
// scenario (the same test); a layer combining several scenarios has no
// test of its own: its change is Descriptive, with no verdict word.
func attributeLayers(outs []scenarioOut, s Settings) []LayerAttribution {
	groups := map[string][]scenarioOut{}
	for _, o := range outs {
		if o.sc.Invalid {
			continue
		}
		l := o.sc.Layer
		if l == "" {
			l = unlabeled
		}
		groups[l] = append(groups[l], o)
	}
	var names []string
	for l := range groups {
		names = append(names, l)
	}
	order := func(l string) int {
		if i := slices.Index(result.Layers, l); i >= 0 {
			return i
		}
		return len(result.Layers)
	}
	sort.Slice(names, func(i, j int) bool {
		if oi, oj := order(names[i]), order(names[j]); oi != oj {
			return oi < oj
		}
		return names[i] < names[j]
	})
	var las []LayerAttribution
	for _, l := range names {
		la := LayerAttribution{Layer: l}
		var points []float64
		var reps [][]float64
		var qps [][3]float64
		for _, o := range groups[l] {
			la.Scenarios = append(la.Scenarios, o.sc.Scenario)
			if o.p99Point > 0 && len(o.p99Reps) > 0 {
				points = append(points, o.p99Point)
				reps = append(reps, o.p99Reps)
			}
			if o.qps != nil {
				qps = append(qps, *o.qps)
			}
		}
		if len(points) > 0 {
			la.P99 = p99Change(points, reps, s)
		}
		if len(qps) > 0 {
			la.MaxQPS = qpsChange(qps, s)
			la.MaxQPS.Censored = censoredSide(groups[l])
		}
		// A layer of one scenario is that scenario's test; a combination
		// of several has no test of its own and is only described.
		for _, ch := range []struct {
			c    *Change
			name string
		}{{la.P99, MetricP99}, {la.MaxQPS, MetricMaxQPS}} {
			if ch.c == nil {
				continue
			}
			describeChange(ch.c, nil)
			if len(groups[l]) == 1 {
				for _, m := range groups[l][0].sc.Metrics {
					if m.Metric == ch.name {
						// The scenario's own change and interval, so that
						// the verdict and its interval are one test's.
						describeChange(ch.c, &m)
						ch.c.DeltaPct, ch.c.CIPct, ch.c.EquivCIPct, ch.c.CIOpenHigh = m.DeltaPct, m.CIPct, m.EquivCIPct, m.CIOpenHigh
					}
				}
			}
		}
		las = append(las, la)
	}
	return las
}

// censoredSide is the side whose max QPS is a bound in the scenarios'
// max-QPS metrics (compare.Metric.Censored) when they all share it, else
// "": a geometric mean over ratios one of which is at most (at least) its
// value is at most (at least) its own.
func censoredSide(outs []scenarioOut) string {
	side := ""
	for _, o := range outs {
		for _, m := range o.sc.Metrics {
			if m.Metric != MetricMaxQPS || m.Censored == "" {
				continue
			}
			if side != "" && side != m.Censored {
				return ""
			}
			side = m.Censored
		}
	}
	return side
}

// p99Change combines P99 ratios and their replicates by geometric mean.
func p99Change(points []float64, reps [][]float64, s Settings) *Change {
	n := len(reps[0])
	for _, r := range reps {
		n = min(n, len(r))
	}
	deltas := make([]float64, n)
	col := make([]float64, len(reps))
	for i := range n {
		for k, r := range reps {
			col[k] = r[i]
		}
		deltas[i] = 100 * (GeoMean(col) - 1)
	}
	return &Change{DeltaPct: 100 * (GeoMean(points) - 1), CIPct: percentileInterval(deltas, s.Confidence)}
}

// qpsChange combines max QPS ratios [point, low, high] by geometric mean;
// one open top (+Inf) leaves the layer's top open.
func qpsChange(qps [][3]float64, s Settings) *Change {
	var pt, lo, hi []float64
	for _, q := range qps {
		pt, lo, hi = append(pt, q[0]), append(lo, q[1]), append(hi, q[2])
	}
	ch := &Change{DeltaPct: 100 * (GeoMean(pt) - 1),
		CIPct: [2]float64{100 * (GeoMean(lo) - 1), 100 * (GeoMean(hi) - 1)}}
	if math.IsInf(ch.CIPct[1], 1) {
		// JSON has no infinity: flag the open top, as Metric does.
		ch.CIOpenHigh = true
		ch.CIPct[1] = math.Max(ch.DeltaPct, ch.CIPct[0])
	}
	return ch
}
