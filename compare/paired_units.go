package compare

import (
	"math"

	"github.com/perfgate/perfgate/result"
)

// PairsPerBlock is the number of pairs in one ABBA block (A B B A: two
// trials a side).
const PairsPerBlock = 2

// pairedUnit is one unit of a paired comparison: the trials of one or more
// consecutive pairs, per side.
type pairedUnit struct {
	base, head []result.Trial
	// order is the mean over the unit's pairs of +1 (head ran first) or
	// −1 (base ran first); 0 when Pairs.HeadFirst is not known.
	order float64
}

// pairedUnits groups the pairs into the units a paired comparison tests:
// each pair, merged with the pairs after it until each side of the unit
// holds at least minRequests requests (the gated quantile's
// RequestsForQuantile: a P99 of fewer requests is their maximum, one slow
// request), the unit's quantile read from each side's merged histogram.
// Pairs left over at the end join the last unit, or form one when there is
// none.
//
// Why not whole ABBA blocks, though a block cancels a linear drift exactly:
// blocks halve the units and the t-test's degrees of freedom, which costs
// more A/A decisions than the drift within a pair, alternating in sign
// over ABBA, does (docs/ab.md's table of designs, from ab's
// TestSimulatedABDecides).
func pairedUnits(p Pairs, minRequests int64) []pairedUnit {
	n := p.Len()
	var units []pairedUnit
	var cur pairedUnit
	var nb, nh int64
	var signs float64 // the sum of the current unit's pairs' ±1
	sign := func(i int) float64 {
		switch {
		case i >= len(p.HeadFirst):
			return 0
		case p.HeadFirst[i]:
			return 1
		}
		return -1
	}
	flush := func() {
		cur.order = signs / float64(len(cur.base))
		units = append(units, cur)
		cur, nb, nh, signs = pairedUnit{}, 0, 0, 0
	}
	for i := 0; i < n; i++ {
		cur.base = append(cur.base, p.Base[i])
		cur.head = append(cur.head, p.Head[i])
		signs += sign(i)
		nb += p.Base[i].Requests
		nh += p.Head[i].Requests
		if nb >= minRequests && nh >= minRequests {
			flush()
		}
	}
	if len(cur.base) > 0 {
		if len(units) > 0 {
			last := &units[len(units)-1]
			k := float64(len(last.base))
			last.order = (last.order*k + signs) / (k + float64(len(cur.base)))
			last.base = append(last.base, cur.base...)
			last.head = append(last.head, cur.head...)
		} else {
			cur.order = signs / float64(len(cur.base))
			units = append(units, cur)
		}
	}
	return units
}

// unitValue is a metric's value over one side of a unit: for latency
// quantiles the quantile of the trials' merged histograms (the geometric
// mean of the trials' values when a trial has no histogram), for the error
// rate the errors over the requests, for the others the geometric mean of
// the trials' values. ok is false when a trial has no value or the load
// generator, not the target, limited it (result.Trial.GeneratorLimited).
//
// A trial flagged because the target fell behind the offered load (it
// achieved under 95% of the rate, or every connection was busy) is kept,
// as Compare keeps it against a stored baseline: that is the very thing a
// gate must see, and its latencies, counted from each request's intended
// send time, show the backlog. Leaving such trials out once left an A/B
// run whose head took 12 ms a request at 100 requests/s (P99 844 ms
// against 6 ms) with no unit to compare and no metric: "inconclusive",
// with no reason, after all 20 pairs.
func unitValue(sp pairedSpec, trials []result.Trial) (float64, bool) {
	var logSum float64
	var errs, reqs int64
	for i := range trials {
		t := &trials[i]
		v, ok := sp.value(t)
		if !ok || leftOut(t) {
			return 0, false
		}
		errs += t.Errors
		reqs += t.Requests
		if !sp.absolute {
			logSum += math.Log(v)
		}
	}
	switch {
	case sp.absolute:
		if reqs <= 0 {
			return 0, false
		}
		return float64(errs) / float64(reqs), true
	case sp.merged != nil && len(trials) > 1:
		if h, err := result.MergeTrials(trials); err == nil && h != nil && h.TotalCount() > 0 {
			if v := sp.merged(result.LatencyOf(h)); v > 0 {
				return v, true
			}
		}
	}
	return math.Exp(logSum / float64(len(trials))), true
}
