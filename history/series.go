package history

import (
	"math"
	"sort"
	"time"

	"github.com/perfgate/perfgate/changepoint"
)

// Point is one run of a series.
type Point struct {
	Commit   string    `json:"commit,omitempty"`
	Ref      string    `json:"ref,omitempty"`
	Date     time.Time `json:"date"`
	Baseline bool      `json:"baseline,omitempty"`
	Value    float64   `json:"value"`
	Lo       float64   `json:"lo,omitempty"`
	Hi       float64   `json:"hi,omitempty"`
}

// Key names a series: one metric of one scenario on one runner.
type Key struct {
	Scenario string `json:"scenario"`
	Runner   string `json:"runner"`
	Metric   string `json:"metric"`
}

// Series is a key's points in date order (records of equal dates keep
// their file order).
type Series struct {
	Key
	Points []Point `json:"points"`
}

// AllSeries splits recs into series, sorted by scenario, runner and
// metric. A scenario or metric filter that is not empty keeps only that
// one.
func AllSeries(recs []Record, scenario, metric string) []Series {
	m := map[Key][]Point{}
	for _, r := range recs {
		if scenario != "" && r.Scenario != scenario {
			continue
		}
		for name, v := range r.Metrics {
			if metric != "" && name != metric {
				continue
			}
			k := Key{r.Scenario, r.Runner, name}
			m[k] = append(m[k], Point{Commit: r.Commit, Ref: r.Ref, Date: r.Date, Baseline: r.Baseline,
				Value: v.Value, Lo: v.Lo, Hi: v.Hi})
		}
	}
	out := make([]Series, 0, len(m))
	for k, ps := range m {
		sort.SliceStable(ps, func(i, j int) bool { return ps[i].Date.Before(ps[j].Date) })
		out = append(out, Series{Key: k, Points: ps})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Key, out[j].Key
		if a.Scenario != b.Scenario {
			return a.Scenario < b.Scenario
		}
		if a.Runner != b.Runner {
			return a.Runner < b.Runner
		}
		return a.Metric < b.Metric
	})
	return out
}

// logValues are the series' values on the log scale (non-positive values
// are skipped, so the indices of the result map back through idx).
func (s Series) logValues() (z []float64, idx []int) {
	for i, p := range s.Points {
		if p.Value > 0 {
			z = append(z, math.Log(p.Value))
			idx = append(idx, i)
		}
	}
	return z, idx
}

// Change is a change point of a series: between the runs Before and After
// (the commit window where it happened), of SizePct (the segment after
// over the segment before, in percent) at Confidence (1 − the permutation
// p-value).
type Change struct {
	Key
	// Index is the series index of the first run after the change.
	Index      int     `json:"index"`
	Before     Point   `json:"before"`
	After      Point   `json:"after"`
	SizePct    float64 `json:"size_pct"`
	Confidence float64 `json:"confidence"`
	// Regression is true when the change is for the worse (slower,
	// fewer requests served, more errors).
	Regression bool `json:"regression"`
}

// Changes runs the change-point detector over the series (on the log
// scale, so sizes are relative; the error rate, which is often zero, on
// its own scale).
func (s Series) Changes(set changepoint.Settings) ([]Change, error) {
	var z []float64
	var idx []int
	if s.Metric == MetricErrorRate {
		for i, p := range s.Points {
			z, idx = append(z, p.Value), append(idx, i)
		}
	} else {
		z, idx = s.logValues()
	}
	cps, err := changepoint.Detect(z, set)
	if err != nil {
		return nil, err
	}
	var out []Change
	for _, c := range cps {
		i := idx[c.Index]
		ch := Change{Key: s.Key, Index: i, Before: s.Points[idx[c.Index-1]], After: s.Points[i],
			Confidence: math.Round((1-c.P)*1000) / 1000}
		if s.Metric == MetricErrorRate {
			ch.SizePct = 100 * (c.After - c.Before)
		} else {
			ch.SizePct = 100 * (math.Exp(c.After-c.Before) - 1)
		}
		ch.SizePct = math.Round(ch.SizePct*10) / 10
		ch.Regression = (ch.SizePct > 0) != HigherIsBetter(s.Metric)
		out = append(out, ch)
	}
	return out, nil
}
