package harness

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/perfgate/perfgate/internal/stat"
)

// Warm-up until steady (load.warmup: auto).
//
// A fixed warm-up is a guess: too short and the first trial measures a
// server still filling its caches, too long and runner time is wasted.
// WarmUntilSteady instead sends the load in one-second windows and ends
// the warm-up once the last SteadyWindow per-second medians and P99s have
// stopped trending, by the Mann-Kendall test, within a minimum and a
// maximum.
const (
	// SteadyWindow is how many one-second values the trend test looks at.
	SteadyWindow = 6
	// DefaultWarmupMin and DefaultWarmupMax bound an automatic warm-up
	// (load.warmup_max sets the maximum). The minimum is SteadyWindow
	// seconds: the test needs that many values.
	DefaultWarmupMin = SteadyWindow * time.Second
	DefaultWarmupMax = 60 * time.Second
	// SteadyZ is the Mann-Kendall statistic (standard normal under no
	// trend) beyond which a series is trending: 1.645, a two-sided test
	// at α = 0.10. A lenient α keeps warming up on weaker evidence of a
	// trend; a trendless series still passes nine checks in ten, and is
	// checked again every warmupStep.
	SteadyZ = 1.645
	// warmupStep is the load sent between two checks after the first.
	warmupStep = 2 * time.Second
)

// SteadyBounds bounds an automatic warm-up; zero values mean
// DefaultWarmupMin and DefaultWarmupMax. Min is raised to SteadyWindow
// seconds and Max to Min.
type SteadyBounds struct {
	Min, Max time.Duration
}

// WarmupReport is what WarmUntilSteady did.
type WarmupReport struct {
	// Took is how long the load was sent: the warm-up's length.
	Took time.Duration
	// Start is when the warm-up's load began (its first run's StartedAt).
	Start time.Time
	// Steady is true when the trend test passed; false when the warm-up
	// ended at its maximum (or was interrupted) still trending.
	Steady bool
	// ZP50 and ZP99 are the Mann-Kendall statistics of the last check.
	ZP50, ZP99 float64
	// P50Ms and P99Ms are every second's latency quantiles, in order.
	P50Ms, P99Ms []float64
	// AchievedRPS is the completed requests per second over the last
	// SteadyWindow seconds: the throughput of the warmed-up target (what
	// an automatic window of a closed loop is sized from).
	AchievedRPS float64
}

// WarmUntilSteady sends o's load (its Warmup, Duration, Trials, Observer
// and Start ignored) in one-second windows until the per-second P50 and P99
// of the last SteadyWindow seconds show no trend (stat.MannKendallZ within
// ±SteadyZ for both), at least b.Min and at most b.Max. It returns the
// report and an error only when the load itself failed (every request
// failed, ctx cancelled). The caller then measures with no warm-up of its
// own; the client's connections stay open in between.
func WarmUntilSteady(ctx context.Context, o Options, b SteadyBounds) (WarmupReport, error) {
	if b.Min <= 0 {
		b.Min = DefaultWarmupMin
	}
	if b.Max <= 0 {
		b.Max = DefaultWarmupMax
	}
	b.Min = max(b.Min, DefaultWarmupMin).Round(time.Second)
	b.Max = max(b.Max, b.Min).Round(time.Second)
	o.Warmup, o.Duration, o.Observer, o.Start = 0, time.Second, nil, time.Time{}
	var rep WarmupReport
	var achieved []float64
	progress := o.Progress
	var sent, done, errs int64 // counts of the chunks before, for progress
	for rep.Took < b.Max {
		step := warmupStep
		if rep.Took == 0 {
			step = b.Min
		}
		step = min(step, b.Max-rep.Took)
		o.Trials = int(step / time.Second)
		if progress != nil {
			took, total, s0, d0, e0 := rep.Took, b.Max, sent, done, errs
			o.Progress = func(p Progress) {
				p.Phase, p.Trial, p.Trials, p.PhaseDone = "warmup", 0, 0, false
				p.Elapsed, p.Total = took+p.Elapsed, total
				p.Sent, p.Done, p.Errors = s0+p.Sent, d0+p.Done, e0+p.Errors
				sent, done, errs = p.Sent, p.Done, p.Errors
				progress(p)
			}
		}
		res, err := Run(ctx, o)
		if res != nil {
			if rep.Start.IsZero() {
				rep.Start = res.StartedAt
			}
			for _, t := range res.Trials {
				rep.P50Ms = append(rep.P50Ms, t.Latency.P50)
				rep.P99Ms = append(rep.P99Ms, t.Latency.P99)
				achieved = append(achieved, t.AchievedRPS)
			}
			rep.Took += time.Duration(o.Trials) * time.Second
		}
		if err != nil {
			return rep, fmt.Errorf("warming up: %w", err)
		}
		n := len(rep.P99Ms)
		if n < SteadyWindow {
			continue
		}
		rep.ZP50 = stat.MannKendallZ(rep.P50Ms[n-SteadyWindow:])
		rep.ZP99 = stat.MannKendallZ(rep.P99Ms[n-SteadyWindow:])
		rep.AchievedRPS = stat.Mean(achieved[n-SteadyWindow:])
		if math.Abs(rep.ZP50) <= SteadyZ && math.Abs(rep.ZP99) <= SteadyZ {
			rep.Steady = true
			break
		}
	}
	if progress != nil {
		progress(Progress{Phase: "warmup", PhaseDone: true, Elapsed: rep.Took, Total: rep.Took, Sent: sent, Done: done, Errors: errs})
	}
	return rep, nil
}
