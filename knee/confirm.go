package knee

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/perfgate/perfgate/result"
)

// Confirm turns one knee search into several independent estimates of
// the knee, so that a gate can test max QPS against its real noise rather
// than the search's resolution (a bracket from one search says nothing of
// how far the next run's knee will be).
//
// The search's own estimate comes first. Then, estimates−1 times, fresh
// is called (the suite starts a new target process there, so each round
// samples process-to-process variance) and the bracket [highest pass,
// lowest fail] is probed again, low rate first, each probe a full window
// after its warm-up. When both probes pass the knee lies above: the round
// steps up, a bracket's width, then two, then three further and so on (at
// most maxConfirmSteps, about 5.8 times past the bracket), until a probe
// fails; when both fail it steps down the same way, and a round that
// stepped far bisects its own bracket. A search that never failed has no
// bracket: its rounds probe its highest pass and a step above, until one
// brackets the knee, whose bracket the rounds after it probe (adopt).
// A round's estimate is where its probes' worst latency, relative
// to the objective (severity, 1 at the SLO), crosses 1, interpolated
// linearly in log rate and log severity between the round's highest pass
// and lowest fail. A round without both sides extrapolates from its
// nearest probe with the slope the search measured (d ln severity / d ln
// rate near the knee), by at most one bracket width. A failing probe
// whose latency met the objective (it failed on errors or throughput)
// counts as just over it. Probes where the generator was saturated carry
// no information; a round left with none gives no estimate.
//
// No probe goes above o.MaxRate or below o.MinRate; a knee the search
// left above the max rate is not confirmed. Every probe is appended to
// c.Points; c.Estimates, c.ConfirmWindows and
// c.ConfirmS record the outcome. Nothing is done when the search found no
// knee or was generator-bound. The error is a probe's or fresh's.
func Confirm(ctx context.Context, c *result.Capacity, probe Probe, fresh func(context.Context) error, o Options, estimates int) error {
	begin := time.Now()
	k := NewConfirmer(c, probe, o)
	if k == nil {
		return nil
	}
	defer func() { c.ConfirmS = math.Round(time.Since(begin).Seconds()*10) / 10 }()
	for round := 1; round < estimates; round++ {
		if fresh != nil {
			if err := fresh(ctx); err != nil {
				return fmt.Errorf("knee confirmation %d: %w", round, err)
			}
		}
		if _, _, err := k.Round(ctx); err != nil {
			return err
		}
	}
	CompleteBracket(c, o)
	return nil
}

// CompleteBracket re-reads the bracket and max QPS of a search that ended
// before any probe failed (its budget spent, every probe passed) from all
// its probes, the confirmation rounds' included: a round whose probes all
// pass steps up until one fails, so the rounds can bracket a knee the
// search did not reach, and the knee is then measured, not missing. The
// bracket is read as the search reads its own (a rate fails when any
// window at it failed), and c.Stopped says so. It reports whether c was
// completed; a search that bracketed its knee, or whose rounds found no
// failing rate above a pass (a knee above max_rate), is left as it is.
func CompleteBracket(c *result.Capacity, o Options) bool {
	if c == nil || !c.Found || c.GeneratorBound || c.Bracket[1] > 0 {
		return false
	}
	lo, hi, okLo, okHi := bracketOf(ratesOf(c.Points, o.withDefaults()))
	if !okLo || !okHi || hi.rate <= lo.rate {
		return false
	}
	c.MaxQPS, c.Bracket = lo.rate, [2]float64{lo.rate, hi.rate}
	c.ReachedMaxRate = false
	why := c.Stopped
	if why == "" {
		why = "no probe failed"
	}
	c.Stopped = fmt.Sprintf("%s; its confirmation rounds bracketed the knee at [%s, %s] rps", why, fmtRate(lo.rate), fmtRate(hi.rate))
	return true
}

// Confirmer runs Confirm's rounds one at a time, for a caller that
// interleaves them with another search's (same-runner A/B: the base's
// round, then the head's, in the same fresh processes, so that each
// round's two estimates are paired in time). The caller starts fresh
// processes before each Round; Round does what one iteration of Confirm
// does, appending to c.Points and c.Estimates.
type Confirmer struct {
	c                   *result.Capacity
	probe               Probe
	o                   Options
	lo, hi, span, slope float64
	// step is how far a round whose two first probes both passed (or
	// both failed) steps on, in log rate: the bracket's span, or the one
	// Share gives both sides.
	step float64
	// open is set while the bracket is a guess: the search never failed,
	// so hi is a step above its highest pass, not a measured fail.
	open  bool
	round int
}

// NewConfirmer prepares c's confirmation and records the search's own
// estimate as c.Estimates' first (when the search has one). It is nil
// when there is nothing to confirm (Confirm's cases: no knee, generator-
// bound, or a knee above the max rate).
func NewConfirmer(c *result.Capacity, probe Probe, o Options) *Confirmer {
	o = o.withDefaults()
	if c == nil || !c.Found || c.GeneratorBound || c.MaxQPS <= 0 {
		return nil
	}
	lo, hi := c.Bracket[0], c.Bracket[1]
	if lo <= 0 {
		lo = c.MaxQPS
	}
	if hi <= 0 && o.MaxRate > 0 && lo >= o.MaxRate*(1-1e-9) {
		return nil // the knee is above the max rate: nothing to confirm
	}
	k := &Confirmer{c: c, probe: probe, o: o, lo: lo}
	span := math.Log(1 + 2*o.Resolution)
	if hi > lo {
		span = math.Max(math.Log(hi/lo), math.Log(1+o.Resolution))
	} else {
		hi = k.clamp(lo * math.Exp(span)) // the search never failed: probe a step up
		k.open = true
	}
	k.hi, k.span, k.step = hi, span, span
	k.slope = kneeSlope(c.Points, o)
	c.Estimates = nil
	if e, ok := estimateRound(searchPoints(c.Points, lo, hi), o, k.slope, span); ok {
		c.Estimates = append(c.Estimates, e)
	}
	return k
}

// Bracket is the pair of rates each round probes first.
func (k *Confirmer) Bracket() (lo, hi float64) { return k.lo, k.hi }

// Rebracket makes the rounds to come probe [lo, hi] first (clamped, with
// the span recomputed), in place of the search's bracket; a hi not above
// lo is ignored. Same-runner A/B gives both sides' confirmations one
// bracket that holds both knees, so that each round's two estimates are
// read from probes at the same rates: a round's estimate leans on the
// rates it probed (interpolated between a pass and a fail), and two
// searches that stopped at different brackets would otherwise differ by
// that lean in every round alike, which a test over rounds takes for a
// change (bench/RESULTS-rules.md#kneeconfirmerrebracket).
func (k *Confirmer) Rebracket(lo, hi float64) {
	lo, hi = k.clamp(lo), k.clamp(hi)
	if !(lo > 0) || hi <= lo {
		return
	}
	k.lo, k.hi = lo, hi
	k.span = math.Max(math.Log(hi/lo), math.Log(1+k.o.Resolution))
	k.step = k.span
	k.open = false
}

// ShareApart is how far apart two sides' knees may be for Share to give
// their rounds one bracket: the top of the two brackets at most this many
// times their bottom. Beyond it the knees differ by far more than a
// round's lean, and a bracket spanning both leans a round's estimate by
// tens of percent (interpolated between a pass far below its knee and a
// fail far above), so each side keeps its own
// (bench/RESULTS-rules.md#kneeshareapart).
const ShareApart = 2.0

// Share gives the two sides' confirmers of a same-runner A/B one bracket
// holding both knees (Rebracket) and one step, the wider of their
// searches' spans, and returns the bracket and true. A round whose two
// probes both pass (or both fail) steps on by it: both sides' rounds that step probe
// the same rates (their lean cancels, as Rebracket's does), as far as
// the coarser search resolved its knee rather than the shared bracket's
// width, which spans both knees and, stepped by, lands far past a knee:
// a probe far into overload drains for seconds, and the round's estimate
// is then interpolated across a bracket several times its knee's width.
// The narrower span would take several steps to reach a knee that moved
// by the other's (bench/RESULTS-rules.md#kneeshare). Knees further apart
// than ShareApart are left their own brackets, and it returns false.
func Share(a, b *Confirmer) (lo, hi float64, shared bool) {
	step := math.Max(a.span, b.span)
	bl, bh := a.Bracket()
	hl, hh := b.Bracket()
	lo, hi = min(bl, hl), max(bh, hh)
	if hi > ShareApart*lo {
		return lo, hi, false
	}
	for _, k := range []*Confirmer{a, b} {
		k.Rebracket(lo, hi)
		k.step = step
	}
	lo, hi = a.Bracket()
	return lo, hi, true
}

// clamp keeps a rate within the options' bounds.
func (k *Confirmer) clamp(r float64) float64 {
	if k.o.MaxRate > 0 {
		r = min(r, k.o.MaxRate)
	}
	return max(r, k.o.MinRate)
}

// Round runs one confirmation round and returns its estimate (ok false:
// the round's probes carried no information, and no estimate was added).
func (k *Confirmer) Round(ctx context.Context) (estimate float64, ok bool, err error) {
	k.round++
	round, c, o := k.round, k.c, k.o
	lo, hi, span := k.lo, k.hi, k.span
	var pts []result.Point
	once := func(rate float64) (result.Point, error) {
		if err := pause(ctx, o.Drain); err != nil {
			return result.Point{}, err
		}
		return probeJudged(ctx, k.probe, rate, o)
	}
	// measure probes rate; a failure resting on a thin tail is measured
	// once more and the two windows judged together, as in the search.
	// It returns the rate's judged point.
	measure := func(rate float64) (result.Point, error) {
		p, err := once(rate)
		if err != nil {
			return p, err
		}
		ps, err := retryThin(p, o, func() (result.Point, error) { return once(rate) })
		pts = append(pts, ps...)
		c.Points = append(c.Points, ps...)
		c.Windows += len(ps)
		c.ConfirmWindows += len(ps)
		return ps[len(ps)-1], err
	}
	var ends [2]result.Point
	for i, r := range []float64{lo, hi} {
		p, err := measure(r)
		if err != nil {
			return 0, false, fmt.Errorf("knee confirmation %d: probe at %s rps: %w", round, fmtRate(r), err)
		}
		ends[i] = p
	}
	// Both passed (or both failed): the knee moved in this process.
	// Step on, a span further each time, until the round has its own
	// pass and fail, so that its estimate is not anchored on the
	// search's bracket.
	if a, b := ends[0], ends[1]; !a.GeneratorBound && !b.GeneratorBound && a.Pass == b.Pass {
		up := a.Pass
		next := hi
		if !up {
			next = lo
		}
		step := math.Max(k.step, math.Log(1+minConfirmStep))
		for s := 1; s <= maxConfirmSteps; s++ {
			prev := next
			if up {
				next = k.clamp(next * math.Exp(step*float64(s)))
			} else {
				next = k.clamp(next / math.Exp(step*float64(s)))
			}
			if next == prev {
				break // at the max (or min) rate
			}
			last, err := measure(next)
			if err != nil {
				return 0, false, fmt.Errorf("knee confirmation %d: probe at %s rps: %w", round, fmtRate(next), err)
			}
			if last.GeneratorBound || last.Pass != up {
				break
			}
		}
	}
	// A round that stepped far ends with a pass and a fail far apart, and
	// an estimate interpolated across them leans on where they fell: on a
	// curve that turns up sharply at the knee, low (bench/RESULTS-rules.md,
	// "narrowing a round's bracket"). Such a bracket is bisected (geometric
	// midpoint), at most maxNarrowSteps times, until it is no
	// wider than narrowBeyond and four times the search's.
	for n := 0; n < maxNarrowSteps; n++ {
		hp, lf, ok := roundBracket(pts, o)
		if !ok || math.Log(lf/hp) <= math.Max(4*span, math.Log(1+narrowBeyond)) {
			break
		}
		mid := math.Sqrt(hp * lf)
		if _, err := measure(mid); err != nil {
			return 0, false, fmt.Errorf("knee confirmation %d: probe at %s rps: %w", round, fmtRate(mid), err)
		}
	}
	e, ok := estimateRound(pts, o, k.slope, span)
	if ok {
		c.Estimates = append(c.Estimates, e)
	}
	k.adopt(pts, span)
	return e, ok, nil
}

// adopt makes the rounds to come probe this round's bracket first when
// the search never failed (open): its bracket was a guess a step above
// its highest pass, and every round would otherwise step from there
// to the knee again, several probes a round. The round's bracket is
// adopted only when it is as narrow as the narrowing leaves a round's
// (four spans, or narrowBeyond): a wider one would lean every later
// round's estimate low. A bracket shared with the other side (Share,
// Rebracket) is never open: both sides' rounds keep probing the same
// rates (bench/RESULTS-rules.md#kneeconfirmeradopt).
func (k *Confirmer) adopt(pts []result.Point, span float64) {
	if !k.open {
		return
	}
	pass, fail, ok := roundBracket(pts, k.o)
	if !ok || math.Log(fail/pass) > math.Max(4*span, math.Log(1+narrowBeyond)) {
		return
	}
	k.Rebracket(pass, fail)
}

// maxNarrowSteps bounds the bisections of a round's own bracket, and
// narrowBeyond (relative) with four times the search's bracket is the
// width past which it is bisected. Only a round that stepped far is
// narrowed: one that stepped once or twice keeps its bracket, as the
// other side's round in a same-runner A/B does, so that paired rounds
// read their estimates from alike brackets: narrowing every wide
// bracket adds false alarms to paired rounds (TestSimulatedPairedKnees;
// bench/RESULTS-rules.md).
const (
	maxNarrowSteps = 2
	narrowBeyond   = 0.15
)

// roundBracket is a round's highest passing rate below its lowest failing
// one, as the search reads its own (bracketOf; generator-bound probes
// carry no information); ok is false when the round has not both.
func roundBracket(pts []result.Point, o Options) (pass, fail float64, ok bool) {
	lo, hi, okLo, okHi := bracketOf(ratesOf(pts, o))
	return lo.rate, hi.rate, okLo && okHi
}

// maxConfirmSteps bounds the extra probes of one confirmation round
// beyond the bracket's two. The steps grow (a span, then two, …), so eight
// reach about 5.8 times past the bracket at the smallest step: a round
// must find a knee that moved far since the search, not stop near the
// search's bracket and report its edge: a search disturbed by the host
// can land far below the knee, and rounds that cannot reach past it
// repeat its error (bench/RESULTS-rules.md#knee-maxconfirmsteps).
const maxConfirmSteps = 8

// minConfirmStep is the smallest relative step of a confirmation round
// beyond the bracket: about the run-to-run noise of a knee, so that one
// step usually finds the round's own pass or fail.
const minConfirmStep = 0.05

// searchPoints are the search's probes at the bracket's two rates (the
// last one at each), the search's own round.
func searchPoints(ps []result.Point, lo, hi float64) []result.Point {
	var out []result.Point
	for _, r := range []float64{lo, hi} {
		for i := len(ps) - 1; i >= 0; i-- {
			if ps[i].OfferedRPS == r {
				out = append(out, ps[i])
				break
			}
		}
	}
	return out
}

// effSeverity is p's severity as the estimate uses it: a failing probe
// whose latency met the objective counts as just over it, and a passing
// one never above it. 0 when p carries no information.
func effSeverity(p result.Point, o Options) float64 {
	if p.GeneratorBound {
		return 0
	}
	s := severity(p, o)
	if p.Pass {
		return math.Min(s, 0.999)
	}
	return math.Max(s, 1.05)
}

// estimateRound estimates the knee from one round's probes: interpolated
// between the highest pass and the lowest fail above it, else
// extrapolated from the nearest probe by at most one span (in log rate).
func estimateRound(pts []result.Point, o Options, slope, span float64) (float64, bool) {
	var pass, fail *result.Point
	var sp, sf float64
	for i := range pts {
		p := &pts[i]
		s := effSeverity(*p, o)
		if s <= 0 {
			continue
		}
		if p.Pass && (pass == nil || p.OfferedRPS > pass.OfferedRPS) {
			pass, sp = p, s
		}
	}
	for i := range pts {
		p := &pts[i]
		s := effSeverity(*p, o)
		if s <= 0 || p.Pass {
			continue
		}
		if (pass == nil || p.OfferedRPS > pass.OfferedRPS) && (fail == nil || p.OfferedRPS < fail.OfferedRPS) {
			fail, sf = p, s
		}
	}
	switch {
	case pass != nil && fail != nil:
		x0, x1 := math.Log(pass.OfferedRPS), math.Log(fail.OfferedRPS)
		y0, y1 := math.Log(sp), math.Log(sf)
		if sp <= 0 || y1 <= y0 {
			return math.Sqrt(pass.OfferedRPS * fail.OfferedRPS), true
		}
		return math.Exp(x0 + (0-y0)*(x1-x0)/(y1-y0)), true
	case pass != nil: // every probe passed: the knee is above
		if sp <= 0 {
			return pass.OfferedRPS, true
		}
		step := math.Min(-math.Log(sp)/slope, span)
		return pass.OfferedRPS * math.Exp(step), true
	case fail != nil: // every probe failed: the knee is below
		// Only the lowest fail matters here; find it among all probes.
		low := fail
		for i := range pts {
			if !pts[i].Pass && effSeverity(pts[i], o) > 0 && pts[i].OfferedRPS < low.OfferedRPS {
				low = &pts[i]
			}
		}
		step := math.Min(math.Log(effSeverity(*low, o))/slope, span)
		return low.OfferedRPS / math.Exp(step), true
	}
	return 0, false
}

// kneeSlope is how steeply the worst latency rises with the rate near the
// knee, d ln severity / d ln rate between the search's two highest passing
// probes whose latency means something, clamped to [1, 30]; 5 when it
// cannot be measured.
func kneeSlope(ps []result.Point, o Options) float64 {
	var a, b *result.Point
	for i := range ps {
		p := &ps[i]
		if !p.Pass || p.GeneratorBound || severity(*p, o) <= 0 {
			continue
		}
		switch {
		case a == nil || p.OfferedRPS > a.OfferedRPS:
			a, b = p, a
		case p.OfferedRPS < a.OfferedRPS && (b == nil || p.OfferedRPS > b.OfferedRPS):
			b = p
		}
	}
	if a == nil || b == nil {
		return 5
	}
	s := math.Log(severity(*a, o)/severity(*b, o)) / math.Log(a.OfferedRPS/b.OfferedRPS)
	if math.IsNaN(s) {
		return 5
	}
	return math.Min(math.Max(s, 1), 30)
}
