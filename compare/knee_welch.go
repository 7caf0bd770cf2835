package compare

import (
	"github.com/perfgate/perfgate/result"
)

// welchKnees compares max QPS when both sides carry independent knee
// estimates (Capacity.Estimates: the search's own and one per
// confirmation round, each round in a fresh target process): the point
// values are their geometric means and the test is Welch's t-test on
// their logarithms (see welchLog), whose interval is the change's, with
// the run-to-run variance a one-run baseline cannot show. The verdict is
// the point-and-test rule (Decide): with few estimates an interval is
// wide, and requiring all of it beyond the threshold would miss most real
// losses; the threshold guards practical significance, the test
// statistical.
type welchKnees struct{}

func (welchKnees) method() string { return MethodKneeEstimates }

func (welchKnees) estimate(b, c *result.Capacity, s Settings, runVar, runDF float64) (Estimate, bool) {
	if !baseKnown(b) || !c.Found || len(b.Estimates) < 2 || len(c.Estimates) < 2 {
		return Estimate{}, false
	}
	t, ok := welchLogDF(b.Estimates, c.Estimates, s.Confidence, runVar, runDF)
	if !ok {
		return Estimate{}, false
	}
	base, cand := GeoMean(b.Estimates), GeoMean(c.Estimates)
	e := Estimate{Base: base, Cand: cand, DeltaPct: pctChange(base, cand), CIPct: t.ci, P: t.p,
		NBase: len(b.Estimates), NCand: len(c.Estimates), RunToRunVar: runVar,
		Ratio: [3]float64{cand / base, 1 + t.ci[0]/100, 1 + t.ci[1]/100}}
	if eq, ok := welchLogDF(b.Estimates, c.Estimates, equivConf(s.Confidence), runVar, runDF); ok {
		e.EquivCIPct = &eq.ci
	}
	e.Note = Note{Code: NoteKneeEstimates, NBase: e.NBase, NCand: e.NCand, Pct: 100 * s.MaxQPSRegression}
	return e, true
}
