package compare

import (
	"math"

	"github.com/perfgate/perfgate/result"
)

// kneeBrackets compares one knee a side (no independent estimates on at
// least one side, as in older results): the interval is what the two
// brackets allow, [cand.low/base.high − 1, cand.high/base.low − 1], which
// is search resolution, not run-to-run noise, so there is no test: the
// change can be unchanged but never regressed or improved (the no-test
// guard), and a change beyond the threshold asks for knee estimates.
type kneeBrackets struct{}

func (kneeBrackets) method() string { return MethodBracket }

func (kneeBrackets) estimate(b, c *result.Capacity, s Settings, _, _ float64) (Estimate, bool) {
	if !baseKnown(b) {
		return Estimate{}, false
	}
	bLo, bHi := bracket(b)
	cLo, cHi := bracket(c)
	base, cand := b.MaxQPS, c.MaxQPS
	if !c.Found {
		cand = 0
	}
	lo := 100 * (cLo/bHi - 1)
	hi := 100 * (cHi/bLo - 1)
	thr := 100 * s.MaxQPSRegression
	e := Estimate{Base: base, Cand: cand, DeltaPct: pctChange(base, cand), CIPct: [2]float64{lo, hi},
		P: math.NaN(), NBase: 1, NCand: 1, Ratio: [3]float64{cand / base, cLo / bHi, cHi / bLo}}
	// Without a test the rule says unchanged or inconclusive; an
	// inconclusive change beyond the threshold asks for knee estimates.
	v := Decide(Evidence{DeltaPct: e.DeltaPct, EquivCIPct: e.CIPct, ThresholdPct: thr, BetterIs: HigherIsBetter, P: math.NaN(), Alpha: s.alpha()})
	if v == Inconclusive && (e.DeltaPct < -thr || e.DeltaPct > thr) {
		e.UnitsNeeded = MinKneeEstimates
	}
	if math.IsInf(hi, 1) {
		// JSON has no infinity: the open top is flagged and shown as the
		// larger of the point and the bottom.
		e.CIOpenHigh = true
		e.CIPct[1] = math.Max(e.DeltaPct, lo)
		e.Note = Note{Code: NoteKneeOpen}
		return e, true
	}
	e.Note = Note{Code: NoteKneeBracket, Side: estimateSides(b, c), BaseRange: &[2]float64{bLo, bHi}, CandRange: &[2]float64{cLo, cHi}, Pct: thr, Need: MinKneeEstimates}
	return e, true
}

// estimateSides names the sides without knee estimates: "either",
// "baseline" or "candidate".
func estimateSides(b, c *result.Capacity) string {
	switch {
	case len(b.Estimates) < 2 && len(c.Estimates) < 2:
		return "either"
	case len(b.Estimates) < 2:
		return "baseline"
	}
	return "candidate"
}

// bracket returns the knee's bounds: [0, lowest fail] when nothing passed,
// and an infinite top when nothing failed.
func bracket(c *result.Capacity) (lo, hi float64) {
	lo, hi = c.Bracket[0], c.Bracket[1]
	if !c.Found {
		lo = 0
		if hi <= 0 {
			hi = c.Bracket[0]
		}
	}
	if c.Found && lo <= 0 {
		lo = c.MaxQPS
	}
	if hi <= lo {
		hi = math.Inf(1)
	}
	return lo, hi
}
