package suite

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/result"
)

// Enough requests (load.duration: auto) and warm-up until steady
// (load.warmup: auto) for fixed loads.
//
// The gate tests a P99 over units: target processes when a scenario's
// trials are spread over several, else trials. A unit of fewer than
// compare.RequestsForQuantile(99) = 100 requests has a P99 that is its
// slowest request, and compare declares such a metric sparse and
// inconclusive after the fact. An automatic window is sized before the
// load so that each unit holds them: at throughput r requests a second
// and k trials a unit, the window is
//
//	d = ⌈autoMargin × 100 / (r × k)⌉ seconds, within [config.AutoDurationMin, duration_max],
//
// where r is the rate in open loop, and in closed loop the throughput the
// warmed-up target reached in the last seconds of its warm-up.

// autoMargin covers the requests a window loses at its edges and a rate
// achieved a little under the one offered.
const autoMargin = 1.2

// The units of the gate's test (result.DurationAuto.Unit).
const (
	UnitProcess = "process"
	UnitTrial   = "trial"
)

// AutoWindow is the window for throughput rps requests a second and
// unitTrials trials a unit (UnitProcess or UnitTrial), within [min, max];
// the record says how it was chosen.
func AutoWindow(rps float64, unitTrials int, unit string, min, max time.Duration) (time.Duration, *result.DurationAuto) {
	need := compare.RequestsForQuantile(99)
	unitTrials = maxInt(unitTrials, 1)
	d := max
	if rps > 0 {
		secs := math.Ceil(autoMargin * float64(need) / (rps * float64(unitTrials)))
		if secs < max.Seconds() {
			d = time.Duration(secs) * time.Second
		}
	}
	d = clampDuration(d, min, max)
	rec := &result.DurationAuto{Unit: unit, UnitTrials: unitTrials, RequestsNeeded: need,
		ExpectedRequests: rps * d.Seconds() * float64(unitTrials), RPS: rps,
		MinS: min.Seconds(), MaxS: max.Seconds()}
	rec.Capped = rec.ExpectedRequests < float64(need)
	return d, rec
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func clampDuration(d, lo, hi time.Duration) time.Duration {
	return min(max(d, lo), hi)
}

// unitTrials is the unit of the gate's test for scenario s and how many
// trials it holds: a target process of the fewest trials any process has
// when the trials are spread over several processes, else a trial.
func unitTrials(s *config.Scenario) (int, string) {
	restarts := restartsOf(s.Restarts, s.URL == "", s.Load.Trials, false)
	if restarts <= 1 {
		return 1, UnitTrial
	}
	return s.Load.Trials / restarts, UnitProcess
}

// autoLoad applies load.warmup: auto and load.duration: auto to ho before
// the measured windows: it warms up (until steady, or for the fixed
// warm-up when only the window is automatic and the loop is closed, to
// learn the throughput), sets ho's window, and leaves ho.Warmup 0 when it
// warmed up itself. It returns what it did, for the result, and when its
// automatic warm-up began.
func autoLoad(ctx context.Context, s *config.Scenario, ho *harness.Options, o Options) (wa *result.WarmupAuto, da *result.DurationAuto, warm time.Time, err error) {
	l := s.Load
	if l.Warmup != config.Auto && l.Duration != config.Auto {
		return nil, nil, time.Time{}, nil
	}
	if o.Generator != nil {
		return nil, nil, time.Time{}, fmt.Errorf("%w: scenario %s: warmup: auto and duration: auto size the load while it runs, which several generators cannot agree on: give fixed values for --generator runs", ErrBadInput, s.Name)
	}
	rps := l.Rate
	if l.Warmup == config.Auto {
		b := harness.SteadyBounds{Max: l.WarmupMax.D()}
		rep, err := harness.WarmUntilSteady(ctx, *ho, b)
		if err != nil {
			return nil, nil, rep.Start, err
		}
		maxW := l.WarmupMax.D()
		if maxW <= 0 {
			maxW = harness.DefaultWarmupMax
		}
		wa = &result.WarmupAuto{Test: "mann-kendall", WindowS: harness.SteadyWindow, ZLimit: harness.SteadyZ,
			MinS: harness.DefaultWarmupMin.Seconds(), MaxS: max(maxW, harness.DefaultWarmupMin).Seconds(),
			Steady: rep.Steady, ZP50: rep.ZP50, ZP99: rep.ZP99}
		warm, ho.Warmup = rep.Start, 0 // warmed up here: the measurement starts at once
		if p := ho.Progress; p != nil {
			// The measured run's own empty warm-up is not reported.
			ho.Progress = func(pr harness.Progress) {
				if pr.Phase != "warmup" {
					p(pr)
				}
			}
		}
		if l.Mode == harness.ModeConcurrency {
			rps = rep.AchievedRPS
		}
		if o.Log != nil {
			state := "steady"
			if !rep.Steady {
				state = "still trending at its maximum"
			}
			fmt.Fprintf(o.Log, "scenario %s: warm-up %v: %s (Mann-Kendall z: P50 %.2f, P99 %.2f)\n", s.Name, rep.Took, state, rep.ZP50, rep.ZP99)
		}
	} else if l.Mode == harness.ModeConcurrency && l.Duration == config.Auto {
		// The closed loop's throughput is learnt from its fixed warm-up.
		w := *ho
		w.Duration, w.Trials, w.Warmup, w.Observer = max(ho.Warmup, time.Second), 1, 0, nil
		res, err := harness.Run(ctx, w)
		if err != nil {
			return nil, nil, time.Time{}, fmt.Errorf("warming up: %w", err)
		}
		rps = res.Summary.AchievedRPS
		ho.Warmup = 0
	}
	if l.Duration == config.Auto {
		maxD := l.DurationMax.D()
		if maxD <= 0 {
			maxD = config.DefaultDurationMax
		}
		k, unit := unitTrials(s)
		ho.Duration, da = AutoWindow(rps, k, unit, config.AutoDurationMin, maxD)
		if o.Log != nil {
			fmt.Fprintf(o.Log, "scenario %s: window %v: about %.0f requests a %s at %.1f/s (P99 needs %d)\n",
				s.Name, ho.Duration, da.ExpectedRequests, da.Unit, rps, da.RequestsNeeded)
		}
	}
	return wa, da, warm, nil
}

// recordAuto stamps res with what autoLoad did. An automatic warm-up
// that began at warm ran as runs of its own, before res's: res then starts
// at warm, and its warm-up lasts until res's first window, so that, as for
// any result, started_at + warmup_s is the first window's start (what
// keepTrialsBefore relies on).
func recordAuto(res *result.Result, wa *result.WarmupAuto, da *result.DurationAuto, warm time.Time) {
	if res == nil {
		return
	}
	if wa != nil && !warm.IsZero() {
		first := res.StartedAt.Add(time.Duration(res.Load.WarmupS * float64(time.Second)))
		res.StartedAt = warm.UTC()
		res.Load.WarmupS = first.Sub(warm).Seconds()
		res.Load.WarmupAuto = wa
		if !wa.Steady {
			res.Warnings = append(res.Warnings, fmt.Sprintf("warmup: auto: latency was still trending after the maximum warm-up of %gs (Mann-Kendall z: P50 %.2f, P99 %.2f): the first trials may measure a server still warming up; raise load.warmup_max", wa.MaxS, wa.ZP50, wa.ZP99))
		}
	}
	if da != nil {
		res.Load.DurationAuto = da
		if da.Capped {
			res.Warnings = append(res.Warnings, fmt.Sprintf("duration: auto: a %s needs %d requests for its P99, and the longest window (load.duration_max %gs) gives about %.0f at %.1f/s: raise duration_max, the rate or the trials a process", da.Unit, da.RequestsNeeded, da.MaxS, da.ExpectedRequests, da.RPS))
		}
	}
}
