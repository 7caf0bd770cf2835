package suite

import (
	"context"
	"fmt"
	"maps"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/knee"
	"github.com/perfgate/perfgate/result"
)

// Started is a scenario's target started for a caller that drives the load
// itself (the A/B runner): the address its protocol client uses, and Stop.
type Started struct {
	// Base is the protocol client's address; HTTPBase the HTTP base URL
	// when known.
	Base, HTTPBase string
	// Metrics is the Prometheus endpoint, if any; PGID the process group.
	Metrics string
	PGID    int
	// Stop stops the target (idempotent).
	Stop func()
}

// StartAt starts scenario s's target as RunScenario does, but with the
// target's command run in dir (its relative program path resolved there)
// and its log written to logPath (empty: a temporary file). The A/B runner
// starts the base side in a worktree of the base revision this way.
func StartAt(ctx context.Context, cfg *config.Plan, s *config.Scenario, o Options, dir, logPath string) (*Started, error) {
	t, ok := cfg.Targets[s.Target]
	if s.URL != "" || !ok {
		return nil, fmt.Errorf("scenario %s: no target to start (url %q)", s.Name, s.URL)
	}
	// The plan's copy with this target's dir replaced: the plan itself,
	// shared with the head side, is left as it is.
	cc := *cfg.Config
	cc.Targets = maps.Clone(cfg.Targets)
	tc := *t
	tc.Dir = dir
	cc.Targets[s.Target] = &tc
	c := *cfg
	c.Config = &cc
	o.OutDir = ""
	r, err := startTargetLog(ctx, &c, s, o, logPath)
	if err != nil {
		return nil, err
	}
	return &Started{Base: r.base, HTTPBase: r.httpBase, Metrics: r.metrics, PGID: r.pgid, Stop: r.stop}, nil
}

// NewClient builds scenario s's protocol client for a target at base.
func NewClient(ctx context.Context, cfg *config.Plan, s *config.Scenario, base string) (harness.Client, error) {
	c, err := newClient(ctx, cfg, s, base)
	if err != nil {
		return nil, fmt.Errorf("%w: scenario %s: %v", ErrBadInput, s.Name, err)
	}
	return c, nil
}

// MeasureTrial runs one trial of scenario s's fixed load (rate,
// concurrency or replay) against client, after the scenario's warm-up.
// The trial carries the host's load from outside perfgate and the target's
// process group pgid (result.Trial.Host), as a suite run's trials do, and,
// when o.Metrics names the target's Prometheus endpoint, the server's own
// time per request over the trial (its Telemetry: ServerMs, the target's
// CPU; no GPU sampling).
func MeasureTrial(ctx context.Context, cfg *config.Plan, s *config.Scenario, client harness.Client, pgid int, o Options) (*result.Result, error) {
	one := *s
	one.Load.Trials = 1
	var obs harness.TrialObserver
	if o.Metrics != "" {
		var closeObs func()
		obs, closeObs = newObserver(ctx, false, pgid, o.Metrics)
		defer closeObs()
	}
	hs := harness.NewHostSampler(obs, pgid).WithPeerGroup(o.PeerPGID)
	res, err := fixedLoad(ctx, cfg, &one, client, hs, o, 1)
	if res != nil {
		stampHostLoad(res, hs)
	}
	return res, err
}

// KneeOptions are the knee search settings scenario s's sweep uses.
func KneeOptions(cfg *config.Plan, s *config.Scenario, o Options) knee.Options {
	return kneeOptions(cfg, s, o)
}

// Probe measures one knee-search probe of scenario s at rate against
// client, as the suite's sweep does: one open-loop window after the
// scenario's warm-up. A probe whose every request failed is a point (its
// error rate 100%), not an error. The point carries the host's load from
// outside perfgate and the target's process group pgid (result.Point.Host),
// as a suite sweep's probes do: a max-QPS change resting on busy probes is
// inconclusive (host busy).
func Probe(ctx context.Context, cfg *config.Plan, s *config.Scenario, client harness.Client, pgid int, rate float64, o Options) (*result.Result, result.Point, error) {
	var run *result.Result
	var hs *harness.HostSampler
	p := knee.RateProbe{
		Options: func(rate float64) harness.Options {
			ho := probeOptions(cfg, s, client, rate, o.Engine)
			hs = harness.NewHostSampler(nil, pgid)
			ho.Observer = hs
			return ho
		},
		Observe: func(_ float64, r *result.Result, pt *result.Point) {
			run = r
			pt.Host = stallMarked(hs.Load(0), r)
		},
		SLOP99: cfg.SLO.P99.D(),
	}
	pt, err := p.Measure(ctx, rate)
	return run, pt, err
}
