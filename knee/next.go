package knee

import (
	"fmt"
	"math"
)

// next chooses the rate of the next probe, or reports that the search is
// over (done), setting s.stopped when it ended without converging.
func (s *kneeSearch) next() (rate float64, done bool) {
	o := s.o
	rs := s.rates()
	lo, hi, okLo, okHi := bracketOf(rs)
	s.trackMove(lo, hi, okLo, okHi)
	res := o.Resolution
	if r, ok := s.generatorBound(lo, hi, okLo, okHi); ok {
		s.genBound = true
		s.stopped = fmt.Sprintf("the load generator was saturated at %s rps, inside the bracket: the knee cannot be told from the generator's limit", fmtRate(r))
		return 0, true
	}
	if r, ok := s.nonMonotone(hi, okHi); ok {
		return r, false // a pass above a fail: probed again, not trusted
	}

	// confirm re-probes a near-boundary pass once before it is reported.
	confirm := func() (float64, bool) {
		if okLo && lo.n == 1 && lo.sev >= 1-o.NoiseBand {
			return lo.rate, true
		}
		return 0, false
	}
	switch {
	case okLo && !okHi: // growing: no probe failed yet
		if o.MaxRate > 0 && lo.rate >= o.MaxRate*(1-1e-9) {
			if r, ok := confirm(); ok {
				return r, false
			}
			s.stopped = fmt.Sprintf("reached the max rate %s rps without a failing probe: the knee is higher", fmtRate(o.MaxRate))
			s.reachedMax = true
			return 0, true
		}
		next := lo.rate * o.Growth
		if j := littleJump(rs); j > next {
			next = j
		}
		if m, ok := fitKnee(rs); ok && m < next {
			// The fitted curve says the knee is nearer than a full step:
			// go there, but not by less than a quarter step.
			next = max(m, lo.rate*(1+(o.Growth-1)/4))
		}
		if o.MaxRate > 0 {
			next = min(next, o.MaxRate)
		}
		return next, false

	case !okLo && okHi: // shrinking: no probe passed yet
		if hi.rate <= o.MinRate*(1+1e-9) {
			s.stopped = fmt.Sprintf("no probe passed down to the min rate %s rps", fmtRate(o.MinRate))
			return 0, true
		}
		next := hi.rate / o.Growth
		if hi.saturated && hi.achieved > 0 {
			// The target saturated: its throughput is about hi.achieved,
			// and the knee lies below that.
			next = max(min(next, 0.9*hi.achieved), hi.rate/(o.Growth*o.Growth))
		}
		return max(next, o.MinRate), false

	case okLo && okHi: // narrowing the bracket
		if hi.rate <= lo.rate*(1+res)*(1+1e-9) {
			if r, ok := confirm(); ok {
				return r, false
			}
			return 0, true
		}
		loB, hiB := lo.rate*(1+res), hi.rate/(1+res)
		if w := hi.rate - lo.rate; loB < hiB {
			loB, hiB = max(loB, lo.rate+0.05*w), min(hiB, hi.rate-0.05*w)
		}
		mid := math.Sqrt(lo.rate * hi.rate)
		if loB >= hiB || s.stuck() {
			return mid, false
		}
		m, ok := fitKnee(rs)
		switch {
		case !ok:
			return mid, false
		case m <= loB:
			return loB, false // the knee is just above the pass: close from below
		case m >= hiB:
			return hiB, false // the knee is just below the fail: close from above
		}
		// Aim a little below the estimate: a pass there leaves a bracket one
		// closing probe at lo × (1+res) can finish.
		return min(max(m*(1-res/2), loB), hiB), false
	}
	return 0, true // no probe yet: cannot happen after measure
}

// generatorBound reports a generator-saturated probe above the highest
// pass and below the lowest fail (or above the highest pass when nothing
// failed): the knee, or the bracket's top, would rest on it.
func (s *kneeSearch) generatorBound(lo, hi rateStat, okLo, okHi bool) (float64, bool) {
	for _, p := range s.points {
		if !p.GeneratorBound {
			continue
		}
		above := !okLo || p.OfferedRPS > lo.rate
		below := !okHi || p.OfferedRPS < hi.rate
		if above && below {
			return p.OfferedRPS, true
		}
	}
	return 0, false
}

// nonMonotone returns a rate that passed above the lowest failing one and
// was probed only once: noise, or a target that recovered, so it is probed
// again before the bracket is trusted (the pessimistic merge then decides).
func (s *kneeSearch) nonMonotone(hi rateStat, okHi bool) (float64, bool) {
	if !okHi {
		return 0, false
	}
	for _, r := range s.rates() {
		if r.rate > hi.rate && r.pass && r.n == 1 {
			return r.rate, true
		}
	}
	return 0, false
}

// bracketOf returns the lowest failing rate and the highest passing rate
// below it.
func bracketOf(rs []rateStat) (lo, hi rateStat, okLo, okHi bool) {
	for _, r := range rs {
		if !r.pass {
			hi, okHi = r, true
			break
		}
	}
	for _, r := range rs {
		if r.pass && (!okHi || r.rate < hi.rate) {
			lo, okLo = r, true
		}
	}
	return lo, hi, okLo, okHi
}

// trackMove records the bracket's width, log(hi/lo), after each probe
// that found both ends.
func (s *kneeSearch) trackMove(lo, hi rateStat, okLo, okHi bool) {
	if !okLo || !okHi {
		return
	}
	w := math.Log(hi.rate / lo.rate)
	if n := len(s.widths); n > 0 && w > s.widths[n-1] {
		// A re-probe turned the highest pass into a fail and the bracket
		// widened: noise, not the model, moved it. Start counting afresh.
		s.widths = s.widths[:0]
	}
	s.widths = append(s.widths, w)
}

// stuck reports whether the last two probes failed to halve the bracket
// (in log rate): the model is off, and the search bisects; from the second
// time on, it bisects for good.
func (s *kneeSearch) stuck() bool {
	n := len(s.widths)
	slow := n >= 3 && s.widths[n-1] > 0.5*s.widths[n-3]
	if slow {
		s.slowSteps++
	}
	// Twice wrong, the model is not asked again.
	return slow || s.slowSteps >= 2
}

// littleJump is the rate one worker could serve, by Little's Law: with one
// request in flight, λ = 1/W, W the mean latency at the lowest passing
// rate (near zero load, W is the service time). 0 when unknown.
func littleJump(rs []rateStat) float64 {
	for _, r := range rs {
		if r.pass && r.meanMs > 0 {
			return 1000 / r.meanMs
		}
	}
	return 0
}

// Prior used when the points cannot determine the tail's steepness: the
// excess P99 is kPrior × the zero-load P99 at ρ/(1−ρ) = 1. An M/D/1 queue
// has about 2.3 (ln 100 / 2), an M/M/1 queue 4.6 relative to its mean
// service time; real servers with a tail at zero load sit lower.
const kPrior = 2.0

// maxFitErr is the largest mean squared relative residual (about 20% rms)
// at which a fitted curve is trusted; past it the latency does not follow
// a queue's curve (a cliff, heavy noise) and the search bisects.
const maxFitErr = 0.04

// maxBase is the highest zero-load latency, relative to the objective, from
// which the prior-based estimate extrapolates: above it the latency has no
// room to show the queue's rise before it crosses the objective.
const maxBase = 0.8

// fitKnee estimates the rate at which the worst latency meets its objective
// (severity 1) by fitting the latency curve of a single queue,
//
//	r(λ) = b + k·λ/(μ − λ)
//
// (b: the zero-load latency, μ: the saturation rate, k: how fast the tail
// grows, all relative to the objective) to the probes whose latency means
// something (the target kept up). Then r = 1 at λ* = μ(1 − b)/(k + 1 − b).
// For fixed μ the model is linear in b and k, so μ is searched on a grid
// and b, k solved by least squares on relative residuals. When a probe
// saturated the target, μ is its achieved rate. With too few points, b is
// the lowest probe's latency and k = kPrior·b.
func fitKnee(rs []rateStat) (float64, bool) {
	var pts []rateStat
	mu := math.Inf(1)
	for _, r := range rs {
		if r.latOK && r.sev > 0 {
			pts = append(pts, r)
		} else if r.saturated && r.achieved > 0 {
			mu = min(mu, r.achieved)
		}
	}
	if len(pts) == 0 {
		return 0, false
	}
	if !math.IsInf(mu, 1) {
		var below []rateStat
		for _, p := range pts {
			if p.rate < mu*0.999 {
				below = append(below, p)
			}
		}
		if b, k, e, ok := fitBK(below, mu); ok && e <= maxFitErr && b <= maxBase {
			return solveKnee(b, k, mu)
		}
		if len(below) > 0 && below[0].sev <= maxBase {
			b := below[0].sev
			return solveKnee(b, kPrior*b, mu)
		}
		return 0, false
	}
	if len(pts) >= 3 {
		top := pts[len(pts)-1].rate
		best, bestErr := 0.0, math.Inf(1)
		var bb, bk float64
		for i := 1; i <= 400; i++ {
			m := top * math.Pow(30, float64(i)/400) // μ in (top, 30·top]
			if b, k, e, ok := fitBK(pts, m); ok && e < bestErr {
				best, bestErr, bb, bk = m, e, b, k
			}
		}
		if best > 0 && bestErr <= maxFitErr && bb <= maxBase {
			return solveKnee(bb, bk, best)
		}
	}
	// Two points, or a failed fit: b from the lowest, μ from the most
	// elevated point with the prior steepness.
	b := pts[0].sev
	p := pts[len(pts)-1]
	if b > maxBase || p.sev <= b*1.02 || len(pts) < 2 {
		return 0, false
	}
	k := kPrior * b
	return solveKnee(b, k, p.rate+k*p.rate/(p.sev-b))
}

// fitBK fits r = b + k·g, g = λ/(μ−λ), by least squares on residuals
// relative to r, with b >= 0 and k > 0. e is the mean squared relative
// residual. It needs two points with different g.
func fitBK(pts []rateStat, mu float64) (b, k, e float64, ok bool) {
	if len(pts) < 2 {
		return 0, 0, 0, false
	}
	// Weighted least squares with weights 1/r²: minimize Σ((r − b − kg)/r)².
	var sw, sg, sr, sgg, sgr float64
	for _, p := range pts {
		if p.rate >= mu {
			return 0, 0, 0, false
		}
		g := p.rate / (mu - p.rate)
		w := 1 / (p.sev * p.sev)
		sw += w
		sg += w * g
		sr += w * p.sev
		sgg += w * g * g
		sgr += w * g * p.sev
	}
	det := sw*sgg - sg*sg
	if det <= 0 {
		return 0, 0, 0, false
	}
	k = (sw*sgr - sg*sr) / det
	b = (sr - k*sg) / sw
	if b < 0 { // refit k through the origin
		b, k = 0, sgr/sgg
	}
	if !(k > 0) {
		return 0, 0, 0, false
	}
	for _, p := range pts {
		d := (p.sev - b - k*p.rate/(mu-p.rate)) / p.sev
		e += d * d
	}
	return b, k, e / float64(len(pts)), true
}

// solveKnee solves b + k·λ/(μ−λ) = 1 for λ.
func solveKnee(b, k, mu float64) (float64, bool) {
	if !(b < 1) || !(k > 0) || !(mu > 0) || math.IsInf(mu, 0) {
		return 0, false
	}
	x := mu * (1 - b) / (k + 1 - b)
	return x, x > 0 && !math.IsNaN(x)
}
