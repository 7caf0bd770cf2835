package suite

import (
	"context"
	"fmt"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/result"
)

// Generator makes this process one of Count load generators that send a
// scenario's load together (perfgate run --generator I/N). Open loop: it
// sends every Count-th request of the scenario's schedule, starting at the
// Index-th, so the union of all generators' requests is the whole schedule
// (rate R/N each, phase-shifted). Closed loop: it keeps its share of the
// concurrency in flight (C/N, the first C mod N generators one more).
// Knee searches cannot be split: each probe's pass or fail needs the
// whole load's latency.
type Generator struct {
	// Index is 1-based; Count ≥ 1.
	Index, Count int
	// StartAt, if set, is the wall-clock instant every generator begins its
	// warm-up, so that their trials cover the same windows.
	StartAt time.Time
}

// validate checks g against the scenarios it will load.
func (g *Generator) validate(selected []*config.Scenario) error {
	if g == nil {
		return nil
	}
	if g.Count < 1 || g.Index < 1 || g.Index > g.Count {
		return fmt.Errorf("generator %d/%d: want 1 ≤ I ≤ N", g.Index, g.Count)
	}
	for _, s := range selected {
		switch s.Load.Mode {
		case harness.ModeSweep:
			return fmt.Errorf("scenario %s: a knee search (mode sweep) cannot be split over generators: run it from one generator, or split a fixed rate", s.Name)
		case harness.ModeConcurrency:
			if s.Load.Concurrency < g.Count {
				return fmt.Errorf("scenario %s: concurrency %d split over %d generators leaves some with none: give a concurrency of at least %d", s.Name, s.Load.Concurrency, g.Count, g.Count)
			}
		}
	}
	return nil
}

// concurrency is generator g's share of c.
func (g *Generator) concurrency(c int) int {
	share := c / g.Count
	if g.Index-1 < c%g.Count {
		share++
	}
	return share
}

// prepare turns ho, built for the whole load l, into this generator's
// share of it, then waits until StartAt. It returns the instant the
// warm-up actually began. A generator that reaches StartAt later than the
// warm-up's end would measure windows the others did not: an error.
func (g *Generator) prepare(ctx context.Context, ho *harness.Options, l config.Load) (time.Time, error) {
	if g == nil {
		return time.Time{}, nil
	}
	if ho.Mode == harness.ModeConcurrency {
		ho.Concurrency = g.concurrency(ho.Concurrency)
	} else {
		inner := ho.Schedule
		if inner == nil {
			if ho.Arrival == harness.ArrivalPoisson {
				inner = harness.NewPoissonSchedule(ho.Rate, ho.Seed)
			} else {
				inner = &harness.ConstantSchedule{Rate: ho.Rate}
			}
		}
		ho.Schedule = &harness.ShardSchedule{Inner: inner, Index: g.Index - 1, Count: g.Count}
		ho.Rate /= float64(g.Count)
	}
	if g.StartAt.IsZero() {
		now := time.Now()
		ho.Start = now
		return now, nil
	}
	if late := time.Since(g.StartAt); late > ho.Warmup {
		return time.Time{}, fmt.Errorf("generator %d/%d reached --start-at %s %v late, after the warm-up's end: start every generator earlier, or give a later instant", g.Index, g.Count, g.StartAt.Format(time.RFC3339Nano), late.Round(time.Millisecond))
	}
	t := time.NewTimer(time.Until(g.StartAt))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
	ho.Start = g.StartAt
	return time.Now(), nil
}

// record marks res as generator g's shard of the whole load l.
func (g *Generator) record(res *result.Result, cfg *config.Plan, l config.Load, started time.Time) {
	if g == nil || res == nil {
		return
	}
	gen := &result.Generator{Index: g.Index, Count: g.Count, ConfigHash: cfg.Hash,
		StartedAt: started.UTC()}
	if !g.StartAt.IsZero() {
		at := g.StartAt.UTC()
		gen.StartAt = &at
	}
	// The shard's Load is the whole load every shard shares; its own
	// share is in Generator.
	res.Load.Rate, res.Load.Concurrency = l.Rate, l.Concurrency
	if l.Mode == harness.ModeConcurrency {
		gen.Concurrency = g.concurrency(l.Concurrency)
	}
	if l.Mode == harness.ModeRate {
		res.Load.Arrival = harness.ArrivalConstant
		if l.Arrival == harness.ArrivalPoisson {
			res.Load.Arrival, res.Load.Seed = harness.ArrivalPoisson, l.Seed
		}
	}
	res.Generator = gen
}
