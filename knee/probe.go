package knee

import (
	"context"
	"errors"
	"time"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/result"
)

// RateProbe is the probe a sweep uses: each Measure runs the engine in
// open loop at the probed rate for one trial (the options' warm-up, then
// one measurement window) and summarizes it with PointOf.
//
// A probe in which every request failed is a failing point (error rate 1),
// not an error: overload can do that. Errors are setup failures only.
type RateProbe struct {
	// Options returns the run's options at rate: client, warm-up, window,
	// arrival, drain, SLOTTFT/SLOTPOT for goodput, progress. Their Mode,
	// Rate, Schedule and Trials are set by the probe. It is called for
	// every probe, so a caller may change client between probes (a fresh
	// target process).
	Options func(rate float64) harness.Options
	// Observe, when set, sees the run of every probe that measured and
	// may add to its point (the host's load during the probe, say).
	Observe func(rate float64, r *result.Result, p *result.Point)
	// SLOP99, when set, makes each point count its requests and those
	// slower than it (result.Point.Requests and OverSLO), from the
	// window's latency histogram: a search judges a failure that rests on
	// a request or two again (see ThinTailP).
	SLOP99 time.Duration
}

// FixedOptions is a RateProbe's Options that gives base at every rate.
func FixedOptions(base harness.Options) func(float64) harness.Options {
	return func(float64) harness.Options { return base }
}

// Probe is p as a knee-search probe.
func (p RateProbe) Probe() Probe { return p.Measure }

// Measure runs one probe at rate.
func (p RateProbe) Measure(ctx context.Context, rate float64) (result.Point, error) {
	o := p.Options(rate)
	o.Mode, o.Rate, o.Schedule, o.Trials = harness.ModeRate, rate, nil, 1
	res, err := harness.Run(ctx, o)
	if res == nil {
		if err == nil {
			err = errors.New("the run returned no result")
		}
		return result.Point{OfferedRPS: rate}, err
	}
	if err != nil && !errors.Is(err, harness.ErrAllFailed) {
		return result.Point{OfferedRPS: rate}, err
	}
	pt := PointOf(res, rate)
	if p.SLOP99 > 0 {
		pt.Requests, pt.OverSLO = countOver(res, p.SLOP99)
	}
	if p.Observe != nil {
		p.Observe(rate, res, &pt)
	}
	return pt, nil
}

// PointOf summarizes a run at an offered rate as a knee-search point: the
// achieved rate, error rate, latency (from the intended send time), mean
// in-flight count and, for streaming runs, TTFT and TPOT P99 and goodput.
// Pass and Why are left for the search to set.
func PointOf(res *result.Result, rate float64) result.Point {
	s := res.Summary
	p := result.Point{
		OfferedRPS:   rate,
		AchievedRPS:  s.AchievedRPS,
		ErrorRate:    s.ErrorRate,
		Latency:      s.Latency,
		InFlightMean: s.InFlightMean,
		ErrorsBy:     s.ErrorsBy,
	}
	if s.Requests > 0 && s.Requests == s.Errors {
		p.ErrorRate = 1
	}
	for _, t := range res.Trials {
		p.GeneratorBound = p.GeneratorBound || t.GeneratorLimited
	}
	if l := res.LLM; l != nil {
		p.TTFTP99Ms, p.GoodputRPS = l.TTFT.P99, l.GoodputRPS
		if l.TPOT != nil { // absent with one-token answers: it meets any TPOT SLO
			p.TPOTP99Ms = l.TPOT.P99
		}
	}
	return p
}

// countOver counts the successful requests of res's trials and those
// slower than slo, from the trials' merged latency histogram (µs). A value
// counts as slower when its bucket's highest equivalent value is above
// slo, as the bucket's P99 would read. Zero counts when the trials carry
// no histogram.
func countOver(res *result.Result, slo time.Duration) (n, over int64) {
	h, err := result.MergeTrials(res.Trials)
	if err != nil || h.TotalCount() == 0 {
		return 0, 0
	}
	limit := slo.Microseconds()
	for _, b := range h.Distribution() {
		n += b.Count
		if b.To > limit {
			over += b.Count
		}
	}
	return n, over
}
