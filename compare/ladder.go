package compare

import (
	"fmt"
	"math"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perfgate/perfgate/result"
)

// Ladder attributes the end-to-end change across rungs, ordered results
// from the baseline variant to the candidate variant measured in one run,
// each rung changing one layer (say fp16 → int8, then batching on, then
// protobuf). Step i is the change in P99 (and max QPS, when every rung ran
// a sweep) from rung i−1 to rung i, credited to rung i's layer.
//
// The whole is the change from the first rung to the last. Relative steps
// compound rather than add ((1+a)(1+b) = 1+whole exactly for the point
// values), so the interaction, whole − Σ steps, measures how far the
// layers' effects are from adding up: near zero when the parts are small
// and independent, large when one change amplifies another.
//
// Intervals come from one joint bootstrap: each replicate resamples every
// rung's trials once and computes all steps, the whole and the interaction
// from the same resampled rungs, so their intervals are consistent. The
// error is for fewer than two rungs, invalid settings or a rung without
// usable histograms.
func Ladder(rungs []*result.Result, s Settings) (*LadderAttribution, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("comparison settings: %w", err)
	}
	if len(rungs) < 2 {
		return nil, fmt.Errorf("ladder needs at least two rungs, got %d", len(rungs))
	}
	la := &LadderAttribution{}
	var hists []*hdrhistogram.Histogram
	offs := make([]int, len(rungs)+1)
	var names []string
	for i, r := range rungs {
		la.Rungs = append(la.Rungs, r.Scenario)
		names = append(names, r.Scenario)
		sd := prepare(r, "rung "+r.Scenario)
		if sd.broken != "" {
			return nil, fmt.Errorf("ladder: %s", sd.broken)
		}
		if len(sd.lat) == 0 {
			return nil, fmt.Errorf("ladder: rung %q has no valid trial with latencies", r.Scenario)
		}
		la.Warnings = append(la.Warnings, sd.warnings...)
		if r.Interrupted || !r.Valid {
			la.Warnings = append(la.Warnings, fmt.Sprintf("rung %q is from an invalid or interrupted run: its attribution is not to be trusted", r.Scenario))
		}
		if i > 0 && r.Layer == "" {
			la.Warnings = append(la.Warnings, fmt.Sprintf("rung %q names no layer: its step cannot be credited to one", r.Scenario))
		}
		hists = append(hists, sd.lat...)
		offs[i+1] = offs[i] + len(sd.lat)
	}
	qs := newQuantSet(hists)
	k := len(rungs)
	ws := make([][]int, k)
	for i := range ws {
		ws[i] = make([]int, offs[k])
		for j := offs[i]; j < offs[i+1]; j++ {
			ws[i][j] = 1
		}
	}
	p99 := func() []float64 {
		q := make([]float64, k)
		for i := range q {
			q[i] = qs.quantile(ws[i], 99)
		}
		return q
	}
	point := p99()
	stepReps := make([][]float64, k-1)
	var wholeReps, interReps []float64
	rs := newResampler(s.Seed, "ladder:"+strings.Join(names, ">"))
	for range s.Resamples {
		for i := range ws {
			rs.draw(ws[i], offs[i], offs[i+1]-offs[i])
		}
		q := p99()
		sum := 0.0
		for i := 1; i < k; i++ {
			d := 100 * (q[i]/q[i-1] - 1)
			stepReps[i-1] = append(stepReps[i-1], d)
			sum += d
		}
		whole := 100 * (q[k-1]/q[0] - 1)
		wholeReps = append(wholeReps, whole)
		interReps = append(interReps, whole-sum)
	}
	thr := 100 * s.P99Regression
	change := func(pt float64, reps []float64) Change {
		c := Change{DeltaPct: pt, CIPct: percentileInterval(reps, s.Confidence)}
		c.Verdict = decide(c.CIPct, thr, LowerIsBetter, math.NaN(), s.alpha())
		return c
	}
	allQPS := true
	for _, r := range rungs {
		allQPS = allQPS && r.Capacity != nil && r.Capacity.Found
	}
	var qpsSum float64
	for i := 1; i < k; i++ {
		st := LadderStep{From: rungs[i-1].Scenario, To: rungs[i].Scenario, Layer: rungs[i].Layer,
			P99: change(100*(point[i]/point[i-1]-1), stepReps[i-1])}
		if allQPS {
			st.MaxQPS = qpsStep(rungs[i-1].Capacity, rungs[i].Capacity, s)
			qpsSum += st.MaxQPS.DeltaPct
		}
		la.Steps = append(la.Steps, st)
		la.SumOfPartsP99Pct += st.P99.DeltaPct
	}
	la.Whole = LadderStep{From: rungs[0].Scenario, To: rungs[k-1].Scenario,
		P99: change(100*(point[k-1]/point[0]-1), wholeReps)}
	la.InteractionP99Pct = la.Whole.P99.DeltaPct - la.SumOfPartsP99Pct
	la.InteractionCIPct = percentileInterval(interReps, s.Confidence)
	if allQPS {
		la.Whole.MaxQPS = qpsStep(rungs[0].Capacity, rungs[k-1].Capacity, s)
		la.SumOfPartsMaxQPSPct = ptr(qpsSum)
		la.InteractionMaxQPSPct = ptr(la.Whole.MaxQPS.DeltaPct - qpsSum)
	} else {
		la.Warnings = append(la.Warnings, "not every rung ran a sweep that found a knee: max QPS is not attributed")
	}
	return la, nil
}

// qpsStep is the max QPS change between two knees, by their brackets.
func qpsStep(a, b *result.Capacity, s Settings) *Change {
	m, _, _ := maxQPS(a, b, s)
	if m == nil {
		return nil
	}
	return &Change{DeltaPct: m.DeltaPct, CIPct: m.CIPct, CIOpenHigh: m.CIOpenHigh, Verdict: m.Verdict}
}
