package compare

import (
	"math"

	"github.com/perfgate/perfgate/result"
)

// pairedKneeRounds compares max QPS over paired knee estimates
// (Settings.PairedKnees: a same-runner A/B whose round r of each side ran
// in the same fresh processes, back to back): d_r = ln(cand_r / base_r)
// for each round r, the change exp(mean d) − 1 with Student's t interval
// and test on n − 1 degrees of freedom, and no run-to-run term (both
// sides ran every round together). It does not apply without two or more
// rounds on each side, the same number, or with an estimate that is not
// positive.
type pairedKneeRounds struct{}

func (pairedKneeRounds) method() string { return MethodPairedKnees }

func (pairedKneeRounds) estimate(b, c *result.Capacity, s Settings, _, _ float64) (Estimate, bool) {
	if !baseKnown(b) || !c.Found || !s.PairedKnees || len(b.Estimates) < 2 || len(b.Estimates) != len(c.Estimates) {
		return Estimate{}, false
	}
	be, ce := b.Estimates, c.Estimates
	d := make([]float64, len(be))
	for i := range be {
		if !(be[i] > 0) || !(ce[i] > 0) {
			return Estimate{}, false
		}
		d[i] = math.Log(ce[i] / be[i])
	}
	stat := func(x float64) float64 { return 100 * (math.Exp(x) - 1) }
	t := pairedT(d, s.Confidence)
	eqConf := equivConf(s.Confidence)
	if s.KneeEquivLevel > 0 {
		eqConf = math.Max(0, 1-2*s.KneeEquivLevel)
	}
	eq := pairedT(d, eqConf)
	e := Estimate{Base: GeoMean(be), Cand: GeoMean(ce), DeltaPct: stat(t.mid),
		CIPct: [2]float64{stat(t.lo), stat(t.hi)}, EquivCIPct: &[2]float64{stat(eq.lo), stat(eq.hi)}, P: t.p,
		NBase: len(be), NCand: len(ce), Ratio: [3]float64{math.Exp(t.mid), math.Exp(t.lo), math.Exp(t.hi)}}
	e.Note = Note{Code: NoteKneePaired, Count: len(be), Pct: 100 * s.MaxQPSRegression}
	return e, true
}
