package harness

import (
	"context"
	"errors"

	"github.com/perfgate/perfgate/result"
)

// RateProbe returns the Probe a sweep uses: each call runs base in open
// loop at the probed rate for one trial (base.Warmup, then one
// base.Duration window) and summarizes it with PointOf. base's Mode, Rate,
// Schedule and Trials are overridden; everything else (client, warm-up,
// window, arrival, drain, SLOTTFT/SLOTPOT for goodput) is used as given.
//
// A probe in which every request failed is a failing point (error rate 1),
// not an error: overload can do that. Errors are setup failures only.
func RateProbe(base Options) Probe {
	return func(ctx context.Context, rate float64) (result.Point, error) {
		o := base
		o.Mode, o.Rate, o.Schedule, o.Trials = ModeRate, rate, nil, 1
		res, err := Run(ctx, o)
		if err != nil && !(errors.Is(err, ErrAllFailed) && res != nil) {
			return result.Point{}, err
		}
		if res == nil {
			return result.Point{}, errors.New("the run returned no result")
		}
		return PointOf(res, rate), nil
	}
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
	}
	if s.Requests > 0 && s.Requests == s.Errors {
		p.ErrorRate = 1
	}
	for _, t := range res.Trials {
		p.GeneratorBound = p.GeneratorBound || t.GeneratorLimited
	}
	if l := res.LLM; l != nil {
		p.TTFTP99Ms, p.TPOTP99Ms, p.GoodputRPS = l.TTFT.P99, l.TPOT.P99, l.GoodputRPS
	}
	return p
}
