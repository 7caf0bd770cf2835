package ab

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/knee"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// pairedProbes probes the two sides of a sweep at the same rates back to
// back. A knee search asks one side for a rate; the rate is measured on
// both sides (which goes first alternates), the asking side gets its
// point, and the other's is queued for its own search, which takes it when
// it asks for that rate (a repeated rate, as a confirmation re-probe is,
// takes the next queued point or is measured again). So each side's knee
// comes from its own search, and every probe of one side has a twin of
// the other's measured moments apart.
type pairedProbes struct {
	ctx   context.Context
	cfg   *config.Config
	s     *config.Scenario
	o     suite.Options
	sides [2]*targetSide
	// queued holds each side's points measured as twins, by rate.
	queued [2]map[float64][]result.Point
	// best keeps each side's passing probe runs by rate, for the
	// latency at the knee.
	runs  [2]map[float64]*result.Result
	order strings.Builder
	pairs int
	// residentOne runs one side's process at a time: a probe of the other
	// side stops this one and starts that one (its warm-up excluded, as
	// every probe's is); active is the side running (-1: none).
	residentOne bool
	active      int
	processes   *[2]int
}

// probe returns side i's knee-search probe.
func (p *pairedProbes) probe(i int) knee.Probe {
	return func(ctx context.Context, rate float64) (result.Point, error) {
		if q := p.queued[i][rate]; len(q) > 0 {
			p.queued[i][rate] = q[1:]
			return q[0], nil
		}
		first := i
		if p.pairs%2 == 1 {
			first = 1 - i
		}
		var pts [2]result.Point
		for _, k := range []int{first, 1 - first} {
			if p.residentOne && p.active != k {
				if p.active >= 0 {
					p.sides[p.active].Stop()
				}
				if err := p.sides[k].Start(ctx); err != nil {
					return result.Point{OfferedRPS: rate}, fmt.Errorf("%s side: %w", sideName(k), err)
				}
				p.processes[k]++
				p.active = k
			}
			r, pt, err := suite.Probe(ctx, p.cfg, p.s, p.sides[k].client, rate, p.o)
			if err != nil {
				return result.Point{OfferedRPS: rate}, fmt.Errorf("%s side at %.4g/s: %w", sideName(k), rate, err)
			}
			if _, seen := p.runs[k][rate]; !seen && r != nil {
				p.runs[k][rate] = r
			}
			pts[k] = pt
			p.order.WriteString([2]string{"A", "B"}[k])
		}
		p.pairs++
		p.queued[1-i][rate] = append(p.queued[1-i][rate], pts[1-i])
		return pts[i], nil
	}
}

// fresh starts fresh processes before a confirmation round: both sides'
// when both are resident, else none (the next probe starts its side's).
func (p *pairedProbes) fresh(run *compare.ABScenario) func(context.Context) error {
	return func(ctx context.Context) error {
		if p.residentOne {
			if p.active >= 0 {
				p.sides[p.active].Stop()
			}
			p.active = -1
			return nil
		}
		for k, sd := range p.sides {
			if err := sd.Start(ctx); err != nil {
				return fmt.Errorf("%s side: %w", sideName(k), err)
			}
			run.Processes[k]++
		}
		return nil
	}
}

// sweepAB searches both sides' knees with paired probes: the base side's
// search first, then, after fresh processes for both, the head's (which
// reads the twins measured during the first and measures both sides at
// any rate it needs anew). Max QPS is compared as compare does a knee:
// by the two brackets.
func sweepAB(ctx context.Context, cfg *config.Config, s *config.Scenario, base, head *targetSide, o Options) (*compare.ScenarioComparison, compare.ABScenario, *result.Result, *result.Result, error) {
	run := compare.ABScenario{Scenario: s.Name, Stopped: "knee", Looks: 1}
	begin := time.Now()
	defer base.Stop()
	defer head.Stop()
	p := &pairedProbes{ctx: ctx, cfg: cfg, s: s, o: o.Suite, sides: [2]*targetSide{base, head},
		queued: [2]map[float64][]result.Point{{}, {}}, runs: [2]map[float64]*result.Result{{}, {}},
		residentOne: cfg.AB.ABResident() == "one", active: -1, processes: &run.Processes}
	ko := suite.KneeOptions(cfg, s, o.Suite)
	var caps [2]*result.Capacity
	for i := range 2 {
		// Fresh processes for each side's search: two per side in all.
		for k, sd := range p.sides {
			if p.residentOne {
				break // started probe by probe
			}
			if err := sd.Start(ctx); err != nil {
				return nil, run, nil, nil, fmt.Errorf("%s side: %w", sideName(k), err)
			}
			run.Processes[k]++
		}
		c, err := knee.Search(ctx, p.probe(i), ko)
		if c == nil {
			return nil, run, nil, nil, fmt.Errorf("%s side's knee search: %w", sideName(i), err)
		}
		// The knee confirmation (independent estimates, each round in
		// fresh processes), its probes paired like the search's.
		if err == nil && s.Load.Estimates > 1 {
			err = knee.Confirm(ctx, c, p.probe(i), p.fresh(&run), ko, s.Load.Estimates)
		}
		if err != nil {
			return nil, run, nil, nil, fmt.Errorf("%s side's knee search: %w", sideName(i), err)
		}
		caps[i] = c
	}
	run.Order = p.order.String()
	run.Pairs, run.Trials = p.pairs, 2*p.pairs
	run.FixedTrials = run.Trials
	run.RunnerS = time.Since(begin).Seconds()
	run.FixedRunnerS = run.RunnerS
	var rs [2]*result.Result
	for i := range 2 {
		rs[i] = kneeResult(s, caps[i], p.runs[i])
	}
	c, err := compare.Compare([]*result.Result{rs[0]}, []*result.Result{rs[1]}, o.Settings)
	if err != nil {
		return nil, run, rs[0], rs[1], err
	}
	sc := c.Scenarios[0]
	sc.Warnings = append(sc.Warnings, fmt.Sprintf("max QPS: both sides probed at the same rates back to back (%d pairs of probes)", p.pairs))
	return &sc, run, rs[0], rs[1], nil
}

// kneeResult is a side's sweep as a result, as the suite writes one: the
// capacity, and the summary and trial of the highest passing probe.
func kneeResult(s *config.Scenario, c *result.Capacity, runs map[float64]*result.Result) *result.Result {
	l := s.Load
	r := &result.Result{Schema: result.Schema, Scenario: s.Name, Layer: s.Layer, Protocol: s.Protocol, Target: s.Target,
		StartedAt: time.Now().UTC(), Valid: true, Capacity: c}
	if best := runs[c.MaxQPS]; best != nil && c.Found {
		r.Summary, r.Trials, r.LLM, r.StartedAt = best.Summary, best.Trials, best.LLM, best.StartedAt
	}
	r.Load = result.Load{Mode: harness.ModeSweep, Arrival: l.Arrival, DurationS: l.Duration.D().Seconds(),
		WarmupS: l.Warmup.D().Seconds(), Trials: c.Windows}
	if !c.Found {
		r.Warnings = append(r.Warnings, "no probe met the SLO: the service cannot meet it at the lowest rate tried")
	}
	if c.Stopped != "" {
		r.Warnings = append(r.Warnings, "knee search stopped early: "+c.Stopped)
	}
	return r
}
