package compare

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/perfgate/perfgate/result"
)

// censoredKnees compares max QPS when one side's knee search met the SLO
// at no rate it tried and the other's has knee estimates (censoredKnee
// says how): the baseline's when it found no knee, else the candidate's.
type censoredKnees struct{}

func (censoredKnees) method() string { return MethodCensoredKnee }

func (censoredKnees) estimate(b, c *result.Capacity, s Settings, runVar, runDF float64) (Estimate, bool) {
	switch {
	case !baseKnown(b):
		return censoredKnee(b, c, "baseline", s, runVar, runDF)
	case !c.Found:
		return censoredKnee(c, b, "candidate", s, runVar, runDF)
	}
	return Estimate{}, false
}

// MinCensoredFails is the fewest failing probes, and no passing one, that
// a knee search must have for its lowest failing rate to stand in for its
// max QPS (MethodCensoredKnee): one failing window may be one unlucky
// second; a search that went on failing as it lowered the rate has found
// a service that cannot meet the SLO there.
const MinCensoredFails = 3

// censoredKnee compares max QPS when one side's knee search (none) met the
// SLO at no rate it tried and the other's (known) has two or more knee
// estimates: the side without a knee has a max QPS below its lowest
// failing rate r, so r stands in for it as an upper bound. Under the null
// hypothesis that side's knee would be one more estimate like the known
// side's, so r is tested as one new observation (a prediction test):
//
//	t = (ln r − mean ln known) / √(s²·(1 + 1/n) + run-to-run variance)
//
// on n − 1 degrees of freedom (Satterthwaite's when the run-to-run
// variance is itself estimated). Since the true value lies below r, the
// one-sided p-value in the direction of "no knee" is conservative; the
// two-sided p is twice it. DeltaPct is the change with r in place of the
// missing max QPS: a bound, the least change the data allow in that
// direction, and the interval is open beyond it (−100% for a candidate,
// ci_open_high for a baseline). So a service that cannot meet the SLO at
// any rate it was probed at is regressed against one that could (unless
// the bound is within the threshold, or the test is not significant);
// before, it was left inconclusive with the knee "invalid".
//
// ok is false when the known side has fewer than two positive estimates,
// or the censored side has fewer than MinCensoredFails failing probes or
// any passing one (not generator-bound ones, which neither pass nor fail).
func censoredKnee(none, known *result.Capacity, side string, s Settings, runVar, runDF float64) (Estimate, bool) {
	fails, bound := 0, math.Inf(1)
	for _, p := range none.Points {
		switch {
		case p.GeneratorBound:
		case p.Pass:
			return Estimate{}, false
		case p.OfferedRPS > 0:
			fails++
			bound = math.Min(bound, p.OfferedRPS)
		}
	}
	lk, ok := logs(known.Estimates)
	if fails < MinCensoredFails || !ok || len(lk) < 2 || !known.Found {
		return Estimate{}, false
	}
	mk, vk := meanVar(lk)
	n := float64(len(lk))
	pred := vk * (1 + 1/n)
	v := pred + runVar
	if !(v > 0) {
		return Estimate{}, false
	}
	df := n - 1
	if pred > 0 && runVar > 0 {
		df = v * v / (pred*pred/(n-1) + runVar*runVar/runDF)
	}
	td := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	z := (math.Log(bound) - mk) / math.Sqrt(v)
	p := math.Min(1, 2*td.CDF(z)) // the censored side lies below the bound
	q := td.Quantile((1 + s.Confidence) / 2)
	spread := q * math.Sqrt(vk/n+runVar)
	kv := GeoMean(known.Estimates)
	e := Estimate{P: p, Censored: side, RunToRunVar: runVar}
	if side == "candidate" {
		// The change is at most bound/known − 1 (and below it, to −100%).
		d := math.Log(bound) - mk
		e.Base, e.Cand = kv, bound
		e.NBase, e.NCand = len(lk), fails
		e.DeltaPct = 100 * math.Expm1(d)
		e.CIPct = [2]float64{-100, 100 * math.Expm1(d+spread)}
		e.Ratio = [3]float64{bound / kv, 0, math.Exp(d + spread)}
	} else {
		// The change is at least known/bound − 1 (and above it, unbounded).
		d := mk - math.Log(bound)
		e.Base, e.Cand = bound, kv
		e.NBase, e.NCand = fails, len(lk)
		e.DeltaPct = 100 * math.Expm1(d)
		e.CIPct = [2]float64{100 * math.Expm1(d-spread), 100 * math.Expm1(d)}
		e.CIOpenHigh = true
		e.Ratio = [3]float64{kv / bound, math.Exp(d - spread), math.Inf(1)}
	}
	eq := e.CIPct
	e.EquivCIPct = &eq
	e.Note = Note{Code: NoteKneeCensored, Side: side, Count: fails, Base: bound, Total: len(lk)}
	return e, true
}
