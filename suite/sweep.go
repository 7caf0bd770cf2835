package suite

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/knee"
	"github.com/perfgate/perfgate/result"
)

// DefaultSweepBudget bounds a knee search when neither the scenario nor
// the caller sets a budget.
const DefaultSweepBudget = 5 * time.Minute

// runSweep searches the knee, then confirms it: each probe is a full
// open-loop measurement window at one offered rate, after its own warm-up.
// The search runs in one target process; each confirmation round
// (knee.Confirm) re-probes the bracket in a fresh process when
// restarts > 1, so the knee estimates sample process-to-process variance.
// The result carries the capacity with its estimates, and the summary and
// trial of the highest passing probe so that latency at the knee is on
// record (Load.Mode "sweep" tells compare that this latency was measured
// at the knee's rate, which differs between builds, so only max QPS is
// gated). measure samples the runner's speed; it is called between the
// confirmation rounds' processes, while no load runs.
func runSweep(ctx context.Context, cfg *config.Plan, s *config.Scenario, o Options, restarts int, measure func()) (*result.Result, error) {
	ss, err := open(ctx, cfg, s, o)
	if err != nil {
		return nil, err
	}
	defer func() { ss.close() }()
	l := s.Load
	ko := kneeOptions(cfg, s, o)
	runs := map[float64]*result.Result{}
	// hs samples the host's load during the probe running now (probes run
	// one at a time).
	var hs *harness.HostSampler
	probe := knee.RateProbe{
		Options: func(rate float64) harness.Options {
			ho := probeOptions(cfg, s, ss.client, rate, o.Engine)
			if o.Progress != nil {
				ho.Progress = func(p harness.Progress) { o.Progress(fmt.Sprintf("%s @ %.0f rps", s.Name, rate), p) }
			}
			hs = withHostLoad(nil, ss.tg)
			ho.Observer = hs
			return ho
		},
		// The first run at each rate is kept: the knee's is on record.
		// Each point carries the host's load during its probe.
		Observe: func(rate float64, r *result.Result, pt *result.Point) {
			if _, seen := runs[rate]; !seen {
				runs[rate] = r
			}
			pt.Host = stallMarked(hs.Load(0), r)
		},
		SLOP99: ko.SLOP99,
	}.Probe()
	mprobe, metricsURL := probeMetrics(ctx, ss.tg, s.URL == "")
	cacheBefore, cacheOK := cacheScrape(ctx, metricsURL)
	capa, err := knee.Search(ctx, probe, ko)
	if capa == nil {
		return nil, err
	}
	// The cache's hit rate over the search, in the search's process (the
	// confirmation's fresh processes start cold).
	facts := &result.Result{}
	planFacts(ctx, facts, s, metricsURL, cacheBefore, cacheOK)
	if err == nil && l.Estimates > 1 {
		round := 0
		fresh := func(ctx context.Context) error {
			round++
			if restarts < 2 {
				return nil
			}
			ss.close()
			measure()
			if o.Log != nil {
				fmt.Fprintf(o.Log, "scenario %s: knee confirmation %d: fresh target process\n", s.Name, round)
			}
			next, err := open(ctx, cfg, s, o)
			if err != nil {
				return err
			}
			ss = next
			return nil
		}
		err = knee.Confirm(ctx, capa, probe, fresh, ko, l.Estimates)
	}
	res := &result.Result{Schema: result.Schema, StartedAt: time.Now().UTC(), Valid: true, Capacity: capa, Simulated: ss.sim,
		Metrics: mprobe, Cache: facts.Cache, Partition: facts.Partition}
	if best := runs[capa.MaxQPS]; best != nil && capa.Found {
		res.Summary = best.Summary
		res.Trials = best.Trials
		res.LLM = best.LLM
		res.StartedAt = best.StartedAt
		res.Warnings = append(res.Warnings, best.Warnings...)
	}
	res.Load = result.Load{Mode: harness.ModeSweep, Arrival: l.Arrival, DurationS: l.Duration.D().Seconds(),
		WarmupS: l.Warmup.D().Seconds(), Trials: capa.Windows}
	for _, r := range runs { // every probe ran on the same engine
		res.Load.Engine, res.Load.BurstMs = r.Load.Engine, r.Load.BurstMs
		break
	}
	if !capa.Found {
		res.Warnings = append(res.Warnings, noKneeWarning(capa, ko))
	}
	if capa.Stopped != "" {
		res.Warnings = append(res.Warnings, "knee search stopped early: "+capa.Stopped)
	}
	if w := knee.LightLoadWarning(capa); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	if len(capa.Estimates) > 1 && restarts < 2 {
		res.Warnings = append(res.Warnings, "the knee's confirmation rounds ran in one target process (a url: service, or restarts: 1): its estimates sample the noise inside one process only, not between runs")
	}
	if capa.GeneratorBound {
		res.Valid = false
		res.Warnings = append(res.Warnings, "generator-bound: the knee or the bracket's top rests on a probe where the load generator, not the target, was saturated: the capacity measures perfgate; give the generator more cores")
	}
	return res, err
}

// noKneeWarning says why a search found no knee: the service cannot meet
// the SLO at the lowest rate tried (with the P99 each rate reached and the
// SLO that would have been met, knee.NoKneeWarning), unless the host was
// busy with other work during the probes, which may explain it instead.
func noKneeWarning(c *result.Capacity, o knee.Options) string {
	busy := 0
	for _, p := range c.Points {
		if p.Host != nil && p.Host.Busy {
			busy++
		}
	}
	what := knee.NoKneeWarning(c, o)
	if what == "" {
		what = "no probe met the SLO"
	}
	if busy == 0 {
		if what == "no probe met the SLO" {
			return what + ": the service cannot meet it at the lowest rate tried"
		}
		return what
	}
	return fmt.Sprintf("%s; %d of %d probes ran while the host was busy with other work (host busy): its load, not the service, may explain it; rerun on a quiet machine", what, busy, len(c.Points))
}

// sweepDrain is the pause between knee probes.
const sweepDrain = 250 * time.Millisecond

// minProbeRequests is the fewest requests a knee probe's window is
// expected to hold: a search whose probes all fail halves its rate down to
// the min rate, and below this a window may hold none at all (the probe is
// then an error, not a failing point, and the whole sweep ends with it).
// Found beside a CPU hog: an SLO no rate could meet sent a 1-second-window
// search down to 0.2 rps, where no request completed.
const minProbeRequests = 5

// minProbeRate is the lowest rate a knee search may probe: the knee's own
// floor, raised so that a window of the given length holds
// minProbeRequests, never above the max rate.
func minProbeRate(floor, maxRate float64, window time.Duration) float64 {
	if w := window.Seconds(); w > 0 {
		floor = math.Max(floor, minProbeRequests/w)
	}
	if maxRate > 0 {
		floor = math.Min(floor, maxRate)
	}
	return floor
}

// kneeOptions are the knee search's settings for scenario s.
func kneeOptions(cfg *config.Plan, s *config.Scenario, o Options) knee.Options {
	l := s.Load
	ko := knee.DefaultOptions(cfg.SLO.P99.D())
	ko.MaxErrorRate = float64(cfg.SLO.MaxErrorRate)
	if l.Start > 0 {
		ko.Start = l.Start
	}
	if l.MaxRate > 0 {
		ko.MaxRate = l.MaxRate
	}
	if l.Resolution > 0 {
		ko.Resolution = float64(l.Resolution)
	}
	// harness.Run already waits for in-flight requests; a short pause lets
	// the target's own queues empty before the next probe.
	ko.Drain = sweepDrain
	ko.Window = l.Duration.D()
	ko.MinRate = minProbeRate(ko.MinRate, ko.MaxRate, ko.Window)
	ko.Budget = DefaultSweepBudget
	if o.Budget > 0 {
		ko.Budget = o.Budget
	}
	if l.Budget > 0 {
		ko.Budget = l.Budget.D()
	}
	if cfg.Inputs[s.Name].Traits.Streaming {
		// The goodput knee: requests per second under the TTFT and TPOT SLOs.
		ko.SLOTTFT, ko.SLOTPOT = cfg.SLO.TTFT.D(), cfg.SLO.TPOT.D()
	}
	return ko
}

// MinProbeRequests is how many requests a probe's window should hold for its
// P99 to be more than its maximum: at low rates the window is lengthened,
// up to four times the configured one.
const MinProbeRequests = 200

// probeWindow returns the measurement window for a probe at rate.
func probeWindow(d time.Duration, rate float64) time.Duration {
	need := time.Duration(MinProbeRequests / rate * float64(time.Second))
	return min(max(d, need), 4*d)
}

// probeOptions are the engine's options of one knee-search probe of
// scenario s at rate: one open-loop window after the scenario's warm-up
// (knee.RateProbe sets the mode, rate and trial count), on engine eng.
func probeOptions(cfg *config.Plan, s *config.Scenario, client harness.Client, rate float64, eng harness.EngineSettings) harness.Options {
	l := s.Load
	return harness.Options{
		Client: client, Arrival: l.Arrival, Seed: l.Seed, Engine: eng,
		Warmup: l.Warmup.D(), Duration: probeWindow(l.Duration.D(), rate), MaxConns: l.Connections,
		SLOTTFT: cfg.SLO.TTFT.D(), SLOTPOT: cfg.SLO.TPOT.D(), Drain: 5 * time.Second,
	}
}
