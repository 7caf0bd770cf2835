package compare

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// FutilePower is the chance below which a sequential A/B scenario stops
// as futile: the pairs it has left could decide it in fewer than one run
// in ten.
const FutilePower = 0.10

// Futility is a look's projection of an undecided paired scenario to the
// end of its design: the chance that measuring on decides it, and the
// metric that holds it with the pairs it would need.
type Futility struct {
	// Power is the conditional power: the chance, were the change what it
	// is estimated to be now, that the scenario is decided by the last
	// pair: some undecided metric regressed, or every one decided. It is
	// an upper bound: the sum of the metrics' chances to regress and the
	// smallest of their chances to be decided.
	Power float64
	// Metric is the undecided metric with the smallest chance; Pairs the
	// pairs measured and PairsNeeded about how many would decide it at its
	// present spread and estimate (0 when no number of pairs would: an
	// estimate exactly at the threshold).
	Metric      string
	Pairs       int
	PairsNeeded int
}

// Look is where a sequential A/B scenario stands at a look: the pairs
// measured of the EndPairs its design can reach (its max pairs, or fewer
// when its time budget ends first), the look's level (its intervals are
// at 1 − Level), and the levels left for its last look: AlphaLeft for a
// regression or an improvement (two-sided), EqAlphaLeft for each
// one-sided test of `unchanged`.
type Look struct {
	Pairs, EndPairs               int
	Level, AlphaLeft, EqAlphaLeft float64
}

// Futile projects an undecided paired scenario at look l to its last
// look, which tests at the levels left. Under the change as estimated now,
// the final mean log ratio is normal about today's with the spread of the
// pairs still to come, σ·√(N−n)/N, and its standard error σ/√N (σ the
// units' spread, n and N the units now and at the end). A metric is
// decided at the end when that mean lies beyond the threshold and the
// test's bound, or when its equivalence interval fits inside ±threshold;
// the scenario, when one regresses or every gated metric is decided.
//
// The projection is generous to measuring on: the levels are the whole of
// what is left, not shared by Holm's correction; the final test's spread
// is its lower 90% bound; the scenario's chance is an upper bound. So
// stopping on it costs few verdicts (TestSimulatedABFutility), and it
// never adds a false alarm, which the levels bound. ok is false when the
// scenario is decided, no more pairs can come, or an undecided metric is
// not a paired test of a ratio (a stored knee's unpaired estimates, the
// error rate, one held by a guard): those have no such projection. An
// A/B knee's paired rounds are one (MethodPairedKnees: a round is a
// unit, and Look counts rounds).
func Futile(sc ScenarioComparison, l Look) (Futility, bool) {
	if l.EndPairs <= l.Pairs || l.Pairs < 1 || Decided(sc) || !(l.Level > 0 && l.Level < 1) || !(l.AlphaLeft > 0) || !(l.EqAlphaLeft > 0) {
		return Futility{}, false
	}
	f := Futility{Power: 1, Pairs: l.Pairs}
	var regress float64 // the chance that some undecided metric regresses
	for _, m := range sc.Metrics {
		if !m.Gated || m.Verdict != Inconclusive || yields(sc.Metrics, m) != nil {
			continue
		}
		p, need, ok := metricPower(m, l)
		if !ok {
			return Futility{}, false
		}
		regress += p.regress
		if p.decide < f.Power {
			f.Power, f.Metric, f.PairsNeeded = p.decide, m.Metric, need
		}
	}
	f.Power = math.Min(1, f.Power+regress)
	return f, f.Metric != "" && f.Power < FutilePower
}

// PairsToDecide is, for a paired scenario left undecided at the end of
// its design (ab.max_trials or its budget) after l.Pairs pairs, tested at
// l.Level, the undecided gated metric that needs the most pairs and about
// how many pairs in all would decide it at its present estimate and
// spread, were a design to test at alpha: the advice behind "raise
// ab.max_trials". need is 0 when no number of pairs would (an estimate at
// the threshold). ok is false when the scenario is decided, an undecided
// metric has no such projection (Futile's cases), or the projection asks
// for no more pairs than were measured: then the looks' spent levels held
// it, not the pairs, and more pairs is not the advice.
func PairsToDecide(sc ScenarioComparison, l Look, alpha float64) (metric string, need int, ok bool) {
	if Decided(sc) || l.Pairs < 1 || !(l.Level > 0 && l.Level < 1) || !(alpha > 0 && alpha < 1) {
		return "", 0, false
	}
	// metricPower's pairs needed rest on the spread, the estimate and the
	// levels; EndPairs only shapes the chance it also projects, unused here.
	at := Look{Pairs: l.Pairs, EndPairs: 2 * l.Pairs, Level: l.Level, AlphaLeft: alpha, EqAlphaLeft: alpha}
	for _, m := range sc.Metrics {
		if !m.Gated || m.Verdict != Inconclusive || yields(sc.Metrics, m) != nil {
			continue
		}
		_, n, ok := metricPower(m, at)
		if !ok {
			return "", 0, false
		}
		if metric == "" || (need != 0 && (n == 0 || n > need)) {
			metric, need = m.Metric, n
		}
	}
	return metric, need, metric != "" && (need == 0 || need > l.Pairs)
}

// power is one undecided metric's chance, at the end of its design, to
// be decided (regressed, improved or unchanged) and to be regressed.
type power struct{ decide, regress float64 }

// metricPower is one undecided metric's chances at the end (Futile) and
// about the pairs that would decide it.
func metricPower(m Metric, l Look) (pw power, pairsNeeded int, ok bool) {
	n := m.NBase
	if (m.Method != MethodPaired && m.Method != MethodPairedKnees) || m.Absolute || m.Guard != "" || n < 3 || m.NCand != n || m.ThresholdPct <= 0 {
		return power{}, 0, false
	}
	lo, hi := m.CIPct[0], m.CIPct[1]
	if lo <= -100 || m.DeltaPct <= -100 {
		return power{}, 0, false
	}
	x := math.Log1p(m.DeltaPct / 100)
	lim := math.Log1p(m.ThresholdPct / 100)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - l.Level/2)
	se := (math.Log1p(hi/100) - math.Log1p(lo/100)) / (2 * tq)
	if !(se > 0) {
		return power{}, 0, false
	}
	unitsEnd := float64(n) * float64(l.EndPairs) / float64(l.Pairs)
	sigma := se * math.Sqrt(float64(n))
	sdEnd := sigma * math.Sqrt(unitsEnd-float64(n)) / unitsEnd
	// The final test's standard error from the spread's lower 90% bound
	// (n − 1 degrees of freedom): a spread estimated from a few units
	// may be high by chance, and the projection stays generous.
	df := float64(n - 1)
	seEnd := sigma * math.Sqrt(df/distuv.ChiSquared{K: df}.Quantile(0.9)) / math.Sqrt(unitsEnd)
	qChange := distuv.UnitNormal.Quantile(1 - l.AlphaLeft/2)
	qEq := distuv.UnitNormal.Quantile(1 - l.EqAlphaLeft)
	final := distuv.Normal{Mu: x, Sigma: sdEnd}
	bound := math.Max(lim, qChange*seEnd)
	worse, better := final.Survival(bound), final.CDF(-bound)
	if m.BetterIs == HigherIsBetter {
		worse, better = better, worse
	}
	pw = power{decide: worse + better, regress: worse}
	// Unchanged: the equivalence interval inside ±margin (the threshold,
	// or a tail quantile's wider margin) and the mean inside ±threshold.
	eqLim := lim
	if m.EquivalencePct > m.ThresholdPct {
		eqLim = math.Log1p(m.EquivalencePct / 100)
	}
	if w := math.Min(eqLim-qEq*seEnd, lim); w > 0 {
		pw.decide += final.CDF(w) - final.CDF(-w)
	}
	// The units at the present spread that would decide the estimate as it
	// stands: unchanged inside the margin, a change beyond the threshold.
	var units float64
	switch gap := eqLim - math.Abs(x); {
	case math.Abs(x) < lim && gap > 0:
		units = math.Pow(qEq*sigma/gap, 2)
	case math.Abs(x) > lim:
		units = math.Pow(qChange*sigma/math.Abs(x), 2)
	}
	if units > 0 {
		pairsNeeded = int(math.Ceil(units * float64(l.Pairs) / float64(n)))
	}
	pw.decide = math.Min(1, pw.decide)
	return pw, pairsNeeded, true
}
