package ab

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/internal/cpuset"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// targetSide is a real side: scenario s's target started in dir (the base
// revision's worktree or the current checkout), measured one trial at a
// time with the scenario's load.
type targetSide struct {
	cfg *config.Plan
	s   *config.Scenario
	o   suite.Options
	// dir is where the target's command runs; logPrefix names its logs
	// (one per process: .1.log, .2.log, …).
	dir, logPrefix string

	// peer is the other side when both are measured at once (Duet):
	// its process's CPU time is the design's own load, not a neighbour's.
	peer *targetSide

	cur    *suite.Started
	client harness.Client
	gen    int
	// inProcess counts the trials measured in the running process.
	inProcess int
	// results are the trials measured, each as the one-trial result the
	// suite returned (kept for the side's combined result).
	results []*result.Result
}

var _ Side = (*targetSide)(nil)

var _ DuetSide = (*targetSide)(nil)

// Start starts a fresh process of the target and its protocol client.
func (t *targetSide) Start(ctx context.Context) error { return t.start(ctx, t.cfg) }

// StartOn starts a fresh process on cpus, in place of the target's own
// cpus (nil: as Start).
func (t *targetSide) StartOn(ctx context.Context, cpus cpuset.Set) error {
	if cpus == nil {
		return t.Start(ctx)
	}
	// The plan's copy with this target's cpus replaced: the plan itself,
	// shared with the other side, is left as it is.
	cc := *t.cfg.Config
	cc.Targets = maps.Clone(t.cfg.Targets)
	tc := *cc.Targets[t.s.Target]
	tc.CPUs = cpus.String()
	cc.Targets[t.s.Target] = &tc
	p := *t.cfg
	p.Config = &cc
	return t.start(ctx, &p)
}

// start starts a fresh process of the target as cfg describes it.
func (t *targetSide) start(ctx context.Context, cfg *config.Plan) error {
	t.Stop()
	t.gen++
	log := ""
	if t.logPrefix != "" {
		log = fmt.Sprintf("%s.%d.log", t.logPrefix, t.gen)
	}
	st, err := suite.StartAt(ctx, cfg, t.s, t.o, t.dir, log)
	if err != nil {
		return fmt.Errorf("%w: scenario %s: %v", suite.ErrRunFailed, t.s.Name, err)
	}
	c, err := suite.NewClient(ctx, t.cfg, t.s, st.Base)
	if err != nil {
		st.Stop()
		return err
	}
	t.cur, t.client = st, c
	t.inProcess = 0
	return nil
}

// Stop stops the running process, if any.
func (t *targetSide) Stop() {
	if c, ok := t.client.(harness.Closer); ok {
		c.Close()
	}
	t.client = nil
	if t.cur != nil {
		t.cur.Stop()
		t.cur = nil
	}
}

// Trial measures one trial after the scenario's warm-up. A trial whose
// every request failed is a measurement (an error rate of 100%), not an
// error.
func (t *targetSide) Trial(ctx context.Context) (*result.Trial, error) {
	return t.trial(ctx, t.o)
}

// TrialAt measures one trial whose warm-up begins at the instant at.
func (t *targetSide) TrialAt(ctx context.Context, at time.Time) (*result.Trial, error) {
	o := t.o
	o.StartAt = at
	if t.peer != nil && t.peer.cur != nil {
		o.PeerPGID = t.peer.cur.PGID
	}
	return t.trial(ctx, o)
}

// trial measures one trial under the suite options o.
func (t *targetSide) trial(ctx context.Context, o suite.Options) (*result.Trial, error) {
	if t.client == nil {
		return nil, errors.New("no process running")
	}
	o.Metrics = t.cur.Metrics // each trial records the server's own time per request
	s := t.s
	if t.inProcess > 0 {
		s = rewarmed(s)
	}
	t.inProcess++
	r, err := suite.MeasureTrial(ctx, t.cfg, s, t.client, t.cur.PGID, o)
	if err != nil && (r == nil || !errors.Is(err, harness.ErrAllFailed)) {
		return nil, err
	}
	if r == nil || len(r.Trials) == 0 {
		return nil, fmt.Errorf("scenario %s: the trial produced no measurement", t.s.Name)
	}

	r.Trials[0].Process = t.gen // which of the side's fresh starts served it
	if s != t.s {
		r.Trials[0].WarmupS = s.Load.Warmup.D().Seconds()
	}
	t.results = append(t.results, r)
	return &r.Trials[0], nil
}

// RewarmFraction is the part of a scenario's fixed warm-up a process's
// later trials are warmed with, and RewarmMin the least re-warm (a
// warm-up shorter than it is kept whole): the process warmed up fully
// before its first trial, and before a later one it only sat idle while
// the other side measured, which a part of a long warm-up recovers from,
// but not a few requests. Both sides of a pair get the same (ABBA: the
// second pair of a block is two later trials), so it cancels in the
// paired ratio as the order does (bench/RESULTS-rules.md#abrewarmfraction).
const (
	RewarmFraction = 0.25
	RewarmMin      = 250 * time.Millisecond
)

// rewarmed is s with its fixed warm-up cut to RewarmFraction of it, at
// least RewarmMin, for a trial in a process that has measured before; an
// automatic warm-up (load.warmup: auto), none, or one that the cut would
// not shorten is left as it is.
func rewarmed(s *config.Scenario) *config.Scenario {
	w := s.Load.Warmup.D()
	if w <= 0 || s.Load.Warmup == config.Auto {
		return s
	}
	r := max(time.Duration(float64(w)*RewarmFraction), RewarmMin)
	if r >= w {
		return s
	}
	c := *s
	c.Load.Warmup = config.Duration(r)
	return &c
}

// combined is the side's trials as one result, as a suite run would have
// written it: the first trial's metadata, every trial, the summary of the
// merged histograms.
func (t *targetSide) combined(s *config.Scenario) *result.Result {
	if len(t.results) == 0 {
		return nil
	}
	r := *t.results[0]
	r.Trials = nil
	r.Valid = true
	r.Warnings = nil
	var reqs, errs int64
	var rps float64
	for _, x := range t.results {
		r.Trials = append(r.Trials, x.Trials...)
		r.Warnings = append(r.Warnings, x.Warnings...)
		r.Valid = r.Valid && x.Valid
		r.Interrupted = r.Interrupted || x.Interrupted
		for _, tr := range x.Trials {
			reqs += tr.Requests
			errs += tr.Errors
			rps += tr.AchievedRPS
		}
	}
	r.Scenario, r.Layer, r.Protocol, r.Target = s.Name, s.Layer, s.Protocol, s.Target
	r.Load.Trials = len(r.Trials)
	for _, tr := range r.Trials {
		r.Restarts = max(r.Restarts, tr.Process) // the fresh starts that served them
	}
	r.Summary.Requests, r.Summary.Errors = reqs, errs
	if reqs > 0 {
		r.Summary.ErrorRate = float64(errs) / float64(reqs)
	}
	r.Summary.AchievedRPS = rps / float64(len(r.Trials))
	if h, err := result.MergeTrials(r.Trials); err == nil && h != nil {
		r.Summary.Latency = result.LatencyOf(h)
	}
	return &r
}
