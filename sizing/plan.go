package sizing

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/perfgate/perfgate/internal/stat"
	"github.com/perfgate/perfgate/internal/textfmt"
	"github.com/perfgate/perfgate/result"
)

// Plan sizes the fleet for in from res's knee search. It returns an error
// wrapping ErrNoCapacity when res has no capacity section or no probe met
// the SLO: a plan is never made from a zero.
func Plan(res *result.Result, in Input) (*Sizing, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("%w: no result", ErrNoCapacity)
	}
	c := res.Capacity
	if c == nil {
		return nil, fmt.Errorf("%w: result of scenario %q has no capacity section: run a knee search first (perfgate run --sweep --slo-p99 DUR, or load mode: sweep)", ErrNoCapacity, res.Scenario)
	}
	knee, ok := highestPass(c)
	if !ok || !(c.MaxQPS > 0) {
		return nil, fmt.Errorf("%w: scenario %q: %s", ErrNoCapacity, res.Scenario, noPassMessage(c))
	}
	if c.GeneratorBound {
		return nil, fmt.Errorf("%w: scenario %q: the load generator, not the target, limited the knee search (generator_bound): the knee is unknown; give perfgate more cores or run it on another machine", ErrNoCapacity, res.Scenario)
	}
	// A search that passed at its max rate found a lower bound on the
	// knee: sized from it, the instance count is an upper bound
	// (CapacityAtLeast). Any other search without a failing probe (its
	// budget spent, say) knows too little to size from.
	atLeast := c.Bracket[1] == 0 && len(c.Estimates) < 2 && c.ReachedMaxRate
	if c.Bracket[1] == 0 && len(c.Estimates) < 2 && !atLeast {
		return nil, fmt.Errorf("%w: scenario %q: the knee search ended without a bracket (no probe failed%s), so the capacity is only known to be above %s rps: raise the search's max rate or its budget",
			ErrNoCapacity, res.Scenario, stoppedSuffix(c), num(c.MaxQPS))
	}
	capacity, interval, basis := sizedCapacity(c)
	h := in.Headroom
	if h == 0 {
		h = DefaultHeadroom
	}
	if in.PeakQPS == 0 && in.Traffic != nil {
		in.PeakQPS = in.Traffic.Peak()
	}
	s := &Sizing{
		Schema:                    Schema,
		Scenario:                  res.Scenario,
		SLOP99Ms:                  c.SLOP99Ms,
		PerInstanceMaxQPS:         capacity,
		PerInstanceMaxQPSInterval: interval,
		PerInstanceMaxQPSBasis:    basis,
		PerInstanceMaxQPSBracket:  c.Bracket,
		PeakQPS:                   in.PeakQPS,
		Headroom:                  h,
		Windows:                   c.Windows,
		Simulated:                 res.Simulated,
		CapacityAtLeast:           atLeast,
	}
	// The per-instance capacity to size with: the knee, or with a
	// response cache the knee's misses over the expected miss fraction.
	var capQPS float64
	s.Cache, capQPS = cachePlan(res, in, in.PeakQPS, capacity)
	s.Instances = instancesFor(in.PeakQPS, h, capQPS)
	s.Formula = fmt.Sprintf("instances = ceil(%s × %s / %s) = %d",
		num(in.PeakQPS), num(h), num(capacity), s.Instances)
	if cp := s.Cache; cp != nil && cp.Applied {
		s.Formula = fmt.Sprintf("instances = ceil(%s × (1 − %s) × %s / (%s × (1 − %s))) = %d",
			num(in.PeakQPS), num(cp.HitRate), num(h), num(capacity), num(cp.MeasuredHitRate), s.Instances)
	}

	// The range: from the estimates' interval when there is one; else the
	// high end is the plan and the low end assumes the knee is as high as
	// the lowest failing rate.
	s.InstancesRange = [2]int{s.Instances, s.Instances}
	switch lf := c.Bracket[1]; {
	case interval != nil:
		s.InstancesRange = [2]int{instancesFor(in.PeakQPS, h, interval[1]*capQPS/capacity), instancesFor(in.PeakQPS, h, interval[0]*capQPS/capacity)}
	case lf > c.MaxQPS:
		s.InstancesRange[0] = instancesFor(in.PeakQPS, h, lf*capQPS/c.MaxQPS)
	case lf == 0:
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"no probe failed (the search stopped at %s rps%s): the knee may be higher and fewer instances may do",
			num(c.MaxQPS), stoppedSuffix(c)))
	default:
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"the bracket [%s, %s] is not above max_qps %s: the range is the plan alone",
			num(c.Bracket[0]), num(c.Bracket[1]), num(c.MaxQPS)))
	}
	if interval == nil && c.Bracket[0] != 0 && c.Bracket[0] != c.MaxQPS {
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"the bracket's lower end %s differs from max_qps %s", num(c.Bracket[0]), num(c.MaxQPS)))
	}

	// Little's Law at the knee's load.
	w, basis := kneeLatency(knee)
	s.LatencyAtKneeMs, s.LatencyBasis = w, basis
	if w == 0 {
		s.Warnings = append(s.Warnings,
			"the highest passing probe recorded no latency: concurrency and queue-depth targets are unknown")
	}
	// The fleet is sized so that each instance runs at its capacity /
	// headroom, not at its knee: Little's Law there uses the latency
	// measured at (or interpolated to) that operating rate, lower than at
	// the knee. With a cache, the model behind it sees the misses' share.
	target := capQPS / h
	wOp, opBasis := latencyAt(c, target*capacity/capQPS, w)
	s.OperatingQPS, s.LatencyAtOperatingMs, s.OperatingBasis = round(target, 1), round(wOp, 3), opBasis
	s.ConcurrencyAtPeak = round(in.PeakQPS*wOp/1000, 1)
	s.Autoscaler = Autoscaler{
		TargetQPSPerInstance:  round(target, 1),
		QueueDepthPerInstance: round(target*wOp/1000, 1),
	}
	if in.CostPerInstanceHour > 0 {
		s.CostPerInstanceHour = in.CostPerInstanceHour
		m := round(float64(s.Instances)*in.CostPerInstanceHour*HoursPerMonth, 2)
		s.CostPerMonth = &m
	}
	if in.Traffic != nil {
		planTraffic(s, in, capQPS)
	}
	if cp := s.Cache; cp != nil && !cp.Applied {
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"%s cache hit rate %s%% is in %s: its hits save prefill, not whole requests, so the plan uses the knee as measured",
			cp.Source, num(100*cp.HitRate), cp.Unit))
	} else if cp != nil && in.HitRate == nil {
		s.Warnings = append(s.Warnings, fmt.Sprintf(
			"the knee was measured at a %s%% cache hit rate: the plan holds only while production's hit rate is at least that (give the expected rate to plan on it)",
			num(100*cp.MeasuredHitRate)))
	}
	if in.Whole != nil {
		pp, err := partitionPlan(res, in.Whole, in.PeakQPS, h, in.CostPerInstanceHour)
		if err != nil {
			return nil, err
		}
		s.Partition = pp
	}
	hpa, err := s.HPAYAML()
	if err != nil {
		return nil, err
	}
	s.Autoscaler.HPA = hpa
	if err := littleWindow(res.Load.DurationS, knee.Latency.Mean); err != nil {
		s.Warnings = append(s.Warnings, "Little's Law not checked at the knee: "+err.Error())
	} else if lc, err := littleAt(knee); err == nil {
		s.Little = &lc
		if !lc.OK {
			s.Warnings = append(s.Warnings, fmt.Sprintf(
				"Little's Law does not hold at the knee: measured %.1f in flight, λ·W predicts %.1f (%+.0f%%): latency may be measured from the wrong start",
				lc.MeasuredInFlight, lc.PredictedInFlight, 100*lc.RelGap))
		}
	}
	if c.Stopped != "" && c.Bracket[1] != 0 {
		s.Warnings = append(s.Warnings, "the knee search stopped early: "+c.Stopped)
	}
	if !res.Valid {
		s.Warnings = append(s.Warnings, "the result is marked invalid: do not plan from it")
	}
	if res.Simulated {
		s.Warnings = append(s.Warnings, "the target was simulated: these figures are not a real service's")
	}
	return s, nil
}

// latencyAt is the mean latency (P50 where a probe has no mean) at rate,
// interpolated linearly between the passing probes around it; below every
// probe it is the lowest probe's (an upper bound), and without probes it
// is knee, the knee's. basis says which.
func latencyAt(c *result.Capacity, rate, knee float64) (float64, string) {
	type pt struct{ r, w float64 }
	var ps []pt
	for _, p := range c.Points {
		if !p.Pass || p.OfferedRPS > c.MaxQPS {
			continue
		}
		if w, _ := kneeLatency(p); w > 0 {
			ps = append(ps, pt{p.OfferedRPS, w})
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].r < ps[j].r })
	switch {
	case len(ps) == 0:
		return knee, "the knee's (no passing probe with latency)"
	case math.Abs(rate-ps[0].r) <= 1e-9*rate:
		return ps[0].w, fmt.Sprintf("measured at %s rps", num(ps[0].r))
	case rate < ps[0].r:
		return ps[0].w, fmt.Sprintf("the lowest probe's (%s rps), an upper bound", num(ps[0].r))
	}
	for i := 1; i < len(ps); i++ {
		if rate <= ps[i].r {
			a, b := ps[i-1], ps[i]
			if b.r == a.r {
				return max(a.w, b.w), fmt.Sprintf("measured at %s rps", num(a.r))
			}
			f := (rate - a.r) / (b.r - a.r)
			return a.w + f*(b.w-a.w), fmt.Sprintf("interpolated between %s and %s rps", num(a.r), num(b.r))
		}
	}
	last := ps[len(ps)-1]
	return last.w, fmt.Sprintf("measured at %s rps", num(last.r))
}

// highestPass returns the probe the knee was taken from: the passing probe
// at max_qps (the slowest of them when it was probed more than once), or
// else the highest passing probe below it.
func highestPass(c *result.Capacity) (result.Point, bool) {
	var best result.Point
	found := false
	for _, p := range c.Points {
		if !p.Pass || p.OfferedRPS > c.MaxQPS*(1+1e-9) {
			continue
		}
		if !found || p.OfferedRPS > best.OfferedRPS ||
			(p.OfferedRPS == best.OfferedRPS && p.Latency.Mean > best.Latency.Mean) {
			best, found = p, true
		}
	}
	if !found && c.Found && c.MaxQPS > 0 {
		// A capacity section written without its points still has a knee.
		return result.Point{OfferedRPS: c.MaxQPS, Pass: true}, true
	}
	return best, found && c.Found
}

// noPassMessage explains why no probe passed, from the lowest rate tried.
func noPassMessage(c *result.Capacity) string {
	if len(c.Points) == 0 {
		return "no probe met the SLO: the knee search recorded no probes"
	}
	pts := append([]result.Point(nil), c.Points...)
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].OfferedRPS < pts[j].OfferedRPS })
	lo := pts[0]
	if c.SLOP99Ms > 0 && lo.Latency.P99 > c.SLOP99Ms {
		return fmt.Sprintf("no probe met the SLO: the lowest rate tried, %s rps, already had P99 %s ms > SLO %s ms",
			num(lo.OfferedRPS), num(lo.Latency.P99), num(c.SLOP99Ms))
	}
	why := lo.Why
	if why == "" {
		why = "it did not pass"
	}
	return fmt.Sprintf("no probe met the SLO: the lowest rate tried, %s rps, already failed: %s", num(lo.OfferedRPS), why)
}

// kneeLatency is W for Little's Law: the mean latency of the knee probe, or
// its P50 when it has no mean.
func kneeLatency(p result.Point) (float64, string) {
	switch {
	case p.Latency.Mean > 0:
		return p.Latency.Mean, "mean"
	case p.Latency.P50 > 0:
		return p.Latency.P50, "p50"
	}
	return 0, "none"
}

// LittlesLaw checks L = λW for a run: the measured mean in-flight count
// (summary.in_flight_mean) against achieved_rps × latency_ms.mean. It is
// meaningful for closed-loop runs, where the generator holds a known number
// of requests in flight, and returns an error when the run did not measure
// what the check needs.
func LittlesLaw(res *result.Result) (LittleCheck, error) {
	if res == nil {
		return LittleCheck{}, fmt.Errorf("little's law: no result")
	}
	s := res.Summary
	if err := littleWindow(res.Load.DurationS, s.Latency.Mean); err != nil {
		return LittleCheck{}, fmt.Errorf("little's law for scenario %q: %w", res.Scenario, err)
	}
	lc, err := little(s.InFlightMean, s.AchievedRPS, s.Latency.Mean)
	if err != nil {
		return lc, fmt.Errorf("little's law for scenario %q: %w", res.Scenario, err)
	}
	return lc, nil
}

// LittleMinWindow is how many mean latencies a trial's window must span
// for the Little's Law check to be made. The window's edges cut the
// requests in flight across them: they count in L for the part inside,
// but in λ (completions inside the window) and W (requests due inside
// it) whole or not at all, which moves λ·W by up to about one mean
// latency over the window, W/T. At 20 mean latencies that is 5%, half
// of LittleTolerance; a shorter window is not checked, and says so (a
// 5 s window of 0.5 s requests showed −11% with nothing wrong).
const LittleMinWindow = 20

// ErrLittleWindowTooShort is wrapped by LittlesLaw's error for a window
// too short for the check (see LittleMinWindow).
var ErrLittleWindowTooShort = errors.New("window too short")

// littleWindow says why a window of windowS seconds is too short for
// requests of mean latency meanMs, or nil (also when either is unknown).
func littleWindow(windowS, meanMs float64) error {
	if !(windowS > 0) || !(meanMs > 0) || windowS*1000 >= LittleMinWindow*meanMs {
		return nil
	}
	return fmt.Errorf("%w: the %gs window is %.1f mean latencies (%.0f ms) long, under %d, so the requests cut by its edges move λ·W by up to about %.0f%%; lengthen --duration to at least %.0fs to check it",
		ErrLittleWindowTooShort, windowS, windowS*1000/meanMs, meanMs, LittleMinWindow, 100*meanMs/(windowS*1000), math.Ceil(LittleMinWindow*meanMs/1000))
}

func littleAt(p result.Point) (LittleCheck, error) {
	return little(p.InFlightMean, p.AchievedRPS, p.Latency.Mean)
}

func little(inFlight, rps, meanMs float64) (LittleCheck, error) {
	switch {
	case !(inFlight > 0):
		return LittleCheck{}, fmt.Errorf("in_flight_mean is %v: not measured", inFlight)
	case !(rps > 0):
		return LittleCheck{}, fmt.Errorf("achieved_rps is %v", rps)
	case !(meanMs > 0):
		return LittleCheck{}, fmt.Errorf("latency_ms.mean is %v", meanMs)
	}
	pred := rps * meanMs / 1000
	gap := (inFlight - pred) / pred
	return LittleCheck{
		MeasuredInFlight:  inFlight,
		PredictedInFlight: pred,
		RelGap:            gap,
		OK:                math.Abs(inFlight-pred) <= LittleTolerance*pred+LittleSlack,
	}, nil
}

// Compare returns the change from base's plan to cand's. Plans for
// different peaks or headrooms are compared as given, with a warning.
func Compare(base, cand *Sizing) Diff {
	d := Diff{
		Scenario:           cand.Scenario,
		PeakQPS:            cand.PeakQPS,
		BaselineInstances:  base.Instances,
		CandidateInstances: cand.Instances,
		InstancesDelta:     cand.Instances - base.Instances,
		BaselineMaxQPS:     base.PerInstanceMaxQPS,
		CandidateMaxQPS:    cand.PerInstanceMaxQPS,
		Overlap:            base.InstancesRange[0] <= cand.InstancesRange[1] && cand.InstancesRange[0] <= base.InstancesRange[1],
	}
	if base.PerInstanceMaxQPS > 0 {
		d.MaxQPSDeltaPct = round(100*(cand.PerInstanceMaxQPS-base.PerInstanceMaxQPS)/base.PerInstanceMaxQPS, 1)
	}
	if base.CostPerMonth != nil && cand.CostPerMonth != nil {
		b, c := *base.CostPerMonth, *cand.CostPerMonth
		delta := round(c-b, 2)
		d.BaselineCostPerMonth, d.CandidateCostPerMonth, d.CostPerMonthDelta = &b, &c, &delta
	}
	if base.CostPerDay != nil && cand.CostPerDay != nil {
		b, c := *base.CostPerDay, *cand.CostPerDay
		delta := round(c-b, 2)
		d.BaselineCostPerDay, d.CandidateCostPerDay, d.CostPerDayDelta = &b, &c, &delta
	}
	if base.PeakQPS != cand.PeakQPS || base.Headroom != cand.Headroom {
		d.Warnings = append(d.Warnings, fmt.Sprintf(
			"the plans were made for different loads (baseline %s rps × %s, candidate %s rps × %s)",
			num(base.PeakQPS), num(base.Headroom), num(cand.PeakQPS), num(cand.Headroom)))
	}
	if base.SLOP99Ms != cand.SLOP99Ms {
		d.Warnings = append(d.Warnings, fmt.Sprintf(
			"the knees were searched under different SLOs (baseline P99 %s ms, candidate %s ms)",
			num(base.SLOP99Ms), num(cand.SLOP99Ms)))
	}
	if d.InstancesDelta != 0 && d.Overlap {
		d.Warnings = append(d.Warnings, fmt.Sprintf(
			"the instance ranges overlap (baseline %d–%d, candidate %d–%d): the change may be within the knee search's resolution",
			base.InstancesRange[0], base.InstancesRange[1], cand.InstancesRange[0], cand.InstancesRange[1]))
	}
	return d
}

func stoppedSuffix(c *result.Capacity) string {
	if c.Stopped == "" {
		return ""
	}
	return ": " + c.Stopped
}

// round rounds x to n decimals.
func round(x float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(x*p) / p
}

// num writes a figure into the plan's formula and warnings as every
// report writes it (textfmt.Num).
func num(x float64) string { return textfmt.Num(x) }

// sizedCapacity is the per-instance capacity a plan sizes from: with two
// or more knee estimates (the search's confirmation rounds, each from its
// own target process) their geometric mean and its 95% t-interval on the
// log scale, the figure the gate tests as max QPS; else the knee.
func sizedCapacity(c *result.Capacity) (capacity float64, interval *[2]float64, basis string) {
	gm, lo, hi, n := stat.GeoMeanInterval(c.Estimates, 0.95)
	if n < 2 {
		return c.MaxQPS, nil, "knee"
	}
	return round(gm, 1), &[2]float64{round(lo, 1), round(hi, 1)},
		fmt.Sprintf("geometric mean of %d knee estimates", n)
}
