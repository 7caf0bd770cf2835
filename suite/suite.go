package suite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/internal/provenance"
	"github.com/perfgate/perfgate/internal/runnerspeed"
	"github.com/perfgate/perfgate/protocol"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/targetproc"
)

// Options control a suite run.
type Options struct {
	// Scenarios selects scenarios by name; empty runs them all.
	Scenarios []string
	// OutDir, when set, receives one <scenario>.json per scenario as soon
	// as it is measured, so a later failure loses nothing.
	OutDir string
	// Environ is the environment targets inherit (os.Environ() from main).
	Environ []string
	// Getenv reads the environment (git information on CI).
	Getenv func(string) string
	// Version is perfgate's version, recorded in every result.
	Version string
	// Log receives one line per event (target started, scenario done).
	Log io.Writer
	// Progress, if set, receives the engine's progress per scenario.
	Progress func(scenario string, p harness.Progress)
	// GPU enables NVML sampling when a GPU is present.
	GPU bool
	// Budget bounds each sweep's time (0: the scenario's or 5 minutes).
	Budget time.Duration
	// Self is the running perfgate binary, substituted for "{perfgate}" in
	// target commands (the demo's reference server).
	Self string
	// Generator, if set, makes this run one of several load generators
	// that send each scenario's load together (see Generator).
	Generator *Generator
	// Part, if set, is recorded on every result: the part of a
	// partitioned suite that measured it (see Partition).
	Part *result.Part
	// Supervisor is the command that supervises each target perfgate
	// starts (targetproc.Spec.Supervisor: perfgate target-supervisor);
	// empty starts targets directly.
	Supervisor []string
	// CPUs is the run's CPU isolation (PlanGenerator); nil: perfgate is
	// not pinned, and a target's cpus are checked against the CPUs this
	// process may use.
	CPUs *CPUIsolation
	// Engine chooses and tunes the load generator's open-loop engine for
	// every scenario (the zero value: the event loop where it can run).
	Engine harness.EngineSettings
	// NoBuild skips the targets' build steps. By default Run builds each
	// target the selected scenarios start (its `build:` argv), once,
	// before any of them runs (see Build); a later run of the same
	// invocation (a rerun, the baseline mode's second run) sets it.
	NoBuild bool
	// StartAt, if set, is the instant a fixed load's warm-up begins and
	// its schedule counts from (harness.Options.Start), for a load with a
	// fixed warm-up and no Generator: the concurrent A/B design starts
	// both sides' generators at one instant, so that they send the same
	// schedule at the same moments.
	StartAt time.Time
	// PeerPGID, if set, is the process group of a second target perfgate
	// loads at the same time (the concurrent A/B design's other side):
	// each trial's host load counts it as perfgate's own work, not as a
	// neighbour's (harness.HostSampler.WithPeerGroup).
	PeerPGID int
	// Metrics, if set, is the started target's Prometheus endpoint
	// (Started.Metrics) for MeasureTrial: each trial records the server's
	// own time per request from its counters (Telemetry.ServerMs), which
	// the A/B comparison gates as server_compute_ms.
	Metrics string
}

// Outcome is one scenario's result or failure.
type Outcome struct {
	Scenario *config.Scenario
	Result   *result.Result
	// Path is where the result was written, if OutDir was set.
	Path string
	Err  error
}

// ErrRunFailed marks failures of the run itself (target did not start,
// every request failed), as opposed to configuration errors.
var ErrRunFailed = errors.New("run failed")

// ErrBadInput marks a scenario's input that cannot be used (a body,
// dataset or trace file that is missing or malformed): a configuration
// error, found before any load is sent.
var ErrBadInput = errors.New("bad input")

// Run runs the selected scenarios in config order. It returns an outcome
// per scenario; a scenario's failure does not stop the others unless ctx is
// cancelled. The error is non-nil when a scenario name is unknown, and
// wraps ErrBuild when a target's build step failed (nothing ran then).
func Run(ctx context.Context, cfg *config.Plan, o Options) ([]Outcome, error) {
	var selected []*config.Scenario
	for _, n := range o.Scenarios {
		if !slices.ContainsFunc(cfg.Scenarios, func(s *config.Scenario) bool { return s.Name == n }) {
			return nil, fmt.Errorf("%s: no scenario is named %q", cfg.Path, n)
		}
	}
	for _, s := range cfg.Scenarios {
		if len(o.Scenarios) == 0 || slices.Contains(o.Scenarios, s.Name) {
			selected = append(selected, s)
		}
	}
	if err := o.Generator.validate(selected); err != nil {
		return nil, err
	}
	var manifest *result.Manifest
	if o.OutDir != "" {
		// A results folder that is a link (committed by a pull request
		// inside perfgate-out) is refused, not written through.
		if err := result.MkdirOut(o.OutDir, ""); err != nil {
			return nil, fmt.Errorf("creating output folder: %w", err)
		}
		// A new manifest replaces any earlier run's at once: baseline
		// update promotes only what this run lists.
		manifest = result.NewManifest(runID(), time.Now())
		if err := manifest.Write(o.OutDir); err != nil {
			return nil, fmt.Errorf("writing the run manifest: %w", err)
		}
	}
	if !o.NoBuild {
		// After the manifest: a failed build leaves no earlier run's
		// results listed as this run's.
		if err := buildTargets(ctx, cfg, selected, o); err != nil {
			return nil, err
		}
	}
	if o.Log != nil {
		for _, w := range fixedPortWarnings(cfg, selected) {
			fmt.Fprintln(o.Log, w)
		}
	}
	env := harness.Environment(ctx, o.Version, gpuEnvironment(o.GPU))
	git := provenance.Git(ctx, cfg.Dir, o.getenv)
	var outs []Outcome
	for _, s := range selected {
		if ctx.Err() != nil {
			break
		}
		res, err := RunScenario(ctx, cfg, s, o)
		out := Outcome{Scenario: s, Result: res, Err: err}
		if res != nil {
			res.Environment = env
			res.Git = git
			if o.Part != nil {
				res.Part = &result.Part{Index: o.Part.Index, Count: o.Part.Count, ConfigHash: cfg.Hash}
			}
			if o.OutDir != "" {
				out.Path = filepath.Join(o.OutDir, FileName(s.Name))
				werr := res.WriteFile(out.Path)
				if werr == nil {
					if werr = manifest.Add(s.Name, out.Path); werr == nil {
						werr = manifest.Write(o.OutDir)
					}
				}
				if werr != nil && out.Err == nil {
					out.Err = werr
				}
			}
		}
		// A failure is not logged here: the caller reports each
		// outcome's error once, at the end (issue 21: it was printed
		// three times).
		outs = append(outs, out)
	}
	if manifest != nil && ctx.Err() == nil && len(outs) == len(selected) {
		manifest.Complete = true
		if err := manifest.Write(o.OutDir); err != nil {
			return outs, fmt.Errorf("writing the run manifest: %w", err)
		}
	}
	return outs, nil
}

// runID is a random identifier for a run's manifest.
func runID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

func (o *Options) getenv(k string) string {
	if o.Getenv == nil {
		return ""
	}
	return o.Getenv(k)
}

// FileName is the result file name for a scenario, the same as its
// baseline's, so that a run's folder can become a baseline folder.
func FileName(scenario string) string { return result.FileName(scenario) }

// RunScenario measures one scenario: starts its target if it has one,
// applies its load, and stops the target.
//
// A target perfgate starts is started afresh restarts times (the
// scenario's restarts key): a fixed load's trials are spread over the
// processes, each after its own warm-up, so that the trials sample
// process-to-process variance (memory layout, warm state), not only the
// noise inside one process; a sweep's confirmation rounds each run in a
// fresh process.
func RunScenario(ctx context.Context, cfg *config.Plan, s *config.Scenario, o Options) (*result.Result, error) {
	if s.TLS != nil && s.TLS.Insecure && o.Log != nil {
		fmt.Fprintf(o.Log, "scenario %s: WARNING: %s\n", s.Name, protocol.InsecureWarning)
	}
	sweepMode := s.Load.Mode == harness.ModeSweep
	restarts := restartsOf(s.Restarts, s.URL == "", s.Load.Trials, sweepMode)
	var res *result.Result
	var err error
	// The runner's own speed, sampled while none of the scenario's load
	// runs: before the first process and after each one (compare calls a
	// regression measured on a slower runner inconclusive).
	var speed []result.SpeedSample
	measure := func() { speed = append(speed, runnerspeed.Measure()) }
	measure()
	if sweepMode {
		res, err = runSweep(ctx, cfg, s, o, restarts, measure)
		measure()
	} else {
		var parts []*result.Result
		for i, n := range splitTrials(s.Load.Trials, restarts) {
			if ctx.Err() != nil {
				break
			}
			if restarts > 1 && o.Log != nil {
				fmt.Fprintf(o.Log, "scenario %s: process %d of %d: %d trial(s)\n", s.Name, i+1, restarts, n)
			}
			var part *result.Result
			part, err = runProcess(ctx, cfg, s, o, n)
			measure()
			if part != nil {
				parts = append(parts, part)
			}
			if err != nil {
				break
			}
		}
		if len(parts) > 0 {
			res = mergeRuns(parts)
		}
	}
	if res != nil {
		invalidIfNothingSucceeded(res)
		res.Scenario, res.Layer, res.Protocol = s.Name, s.Layer, s.Protocol
		res.Target = s.Target
		res.Runner = &result.RunnerSpeed{Samples: speed}
		res.CPUs = cpuRecord(cfg, s, o)
		if s.TLS != nil && s.TLS.Insecure {
			res.Warnings = append(res.Warnings, protocol.InsecureWarning)
		}
		if restarts > 1 {
			res.Restarts = restarts
		} else if s.URL == "" && s.Restarts == 1 {
			res.Warnings = append(res.Warnings, "restarts: 1: every trial ran in one target process, so process-to-process variance is not sampled and the statistics may understate the noise")
		}
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, ErrBadInput) {
			return res, err
		}
		if errors.Is(err, ErrRunFailed) {
			return res, err
		}
		return res, fmt.Errorf("%w: scenario %s: %v", ErrRunFailed, s.Name, err)
	}
	return res, nil
}

// invalidIfNothingSucceeded marks a fixed-load result whose every
// measured request failed (or that measured none) invalid: it is written,
// since the errors are the finding, but a gate never passes or fails on
// it, whatever its trials' own verdicts. (A sweep's probes that all
// failed are a capacity of zero, judged by the knee search.)
func invalidIfNothingSucceeded(res *result.Result) {
	s := res.Summary
	if res.Load.Mode == harness.ModeSweep || s.Requests > s.Errors {
		return
	}
	res.Valid = false
	if s.Requests == 0 {
		res.Warnings = append(res.Warnings, "no request was measured: the result is invalid")
		return
	}
	res.Warnings = append(res.Warnings, fmt.Sprintf("every one of the %d measured requests failed: the result is invalid", s.Requests))
}

// session is one started (or given) target with its protocol client.
type session struct {
	tg     *running
	client harness.Client
	sim    bool
	closed bool
}

// open starts the scenario's target (or takes its URL) and builds its
// client.
func open(ctx context.Context, cfg *config.Plan, s *config.Scenario, o Options) (*session, error) {
	tg, err := startTarget(ctx, cfg, s, o)
	if err != nil {
		return nil, fmt.Errorf("%w: scenario %s: %v", ErrRunFailed, s.Name, err)
	}
	if err := preflight(ctx, cfg, s, tg.base, o); err != nil {
		tg.stop()
		return nil, err
	}
	client, err := newClient(ctx, cfg, s, tg.base)
	if err != nil {
		tg.stop()
		return nil, fmt.Errorf("%w: scenario %s: %v", ErrBadInput, s.Name, err)
	}
	return &session{tg: tg, client: client, sim: simulated(ctx, tg.httpBase, cfg.Inputs[s.Name].Traits, s.Model)}, nil
}

// close closes the client and stops the target, once.
func (ss *session) close() {
	if ss.closed {
		return
	}
	ss.closed = true
	if c, ok := ss.client.(harness.Closer); ok {
		c.Close()
	}
	ss.tg.stop()
}

// runProcess measures trials of a fixed-load scenario in one target
// process: start, warm up, measure, stop.
func runProcess(ctx context.Context, cfg *config.Plan, s *config.Scenario, o Options, trials int) (*result.Result, error) {
	ss, err := open(ctx, cfg, s, o)
	if err != nil {
		return nil, err
	}
	defer ss.close()
	// A target that dies mid-run stops the run (see deathWatch).
	ctx, died, unwatch := watch(ctx, ss.tg)
	defer unwatch()
	probe, metricsURL := probeMetrics(ctx, ss.tg, s.URL == "")
	cacheBefore, cacheOK := cacheScrape(ctx, metricsURL)
	obs, closeObs := newObserver(ctx, o.GPU, ss.tg.pgid, ss.tg.metrics)
	defer closeObs()
	hs := withHostLoad(obs, ss.tg)
	res, err := fixedLoad(ctx, cfg, s, ss.client, hs, o, trials)
	if res != nil {
		stampHostLoad(res, hs)
		res.Simulated = ss.sim
		res.Metrics = probe
		planFacts(ctx, res, s, metricsURL, cacheBefore, cacheOK)
		var envs []map[string]string
		if t := cfg.Targets[s.Target]; t != nil {
			envs = append(envs, t.Env)
		}
		annotate(res, obs, targetCores(append(envs, s.Env)...))
	}
	unwatch()
	if at, ok := died.diedAt(); ok {
		why := fmt.Sprintf("target %s ended", s.Target)
		if terr := ss.tg.err(); terr != nil {
			why = terr.Error()
		}
		if res != nil {
			// Not a signal to perfgate: the target died, and the watch
			// cancelled the load. The harness's "interrupted" would be a
			// second, wrong account of that one event.
			res.Interrupted = false
			res.Warnings = slices.DeleteFunc(res.Warnings, func(w string) bool { return w == harness.InterruptedWarning })
		}
		keepTrialsBefore(res, at, why)
		return res, fmt.Errorf("%w: scenario %s: %s during the run%s", ErrRunFailed, s.Name, why, targetproc.QuoteLog(ss.tg.logPath, ss.tg.logTail()))
	}
	return res, err
}

// fixedLoad runs a rate, concurrency or replay scenario.
func fixedLoad(ctx context.Context, cfg *config.Plan, s *config.Scenario, client harness.Client, obs harness.TrialObserver, o Options, trials int) (*result.Result, error) {
	l := s.Load
	ho := harness.Options{
		Client: client, Mode: l.Mode, Rate: l.Rate, Arrival: l.Arrival, Seed: l.Seed,
		Concurrency: l.Concurrency, Warmup: l.Warmup.D(), Duration: l.Duration.D(), Trials: trials,
		MaxConns: l.Connections, SLOTTFT: cfg.SLO.TTFT.D(), SLOTPOT: cfg.SLO.TPOT.D(),
		Observer: obs, Engine: o.Engine,
	}
	if o.Progress != nil {
		ho.Progress = func(p harness.Progress) { o.Progress(s.Name, p) }
	}
	if l.Mode == harness.ModeReplay {
		tr, err := harness.LoadTrace(l.Trace, l.Speed) // absolute: compiled
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
		}
		ho.Schedule = tr
		if ho.Duration <= 0 {
			ho.Duration = tr.Duration() + time.Millisecond
		}
	}
	wa, da, warm, err := autoLoad(ctx, s, &ho, o)
	if err != nil {
		return nil, err
	}
	started, err := o.Generator.prepare(ctx, &ho, l)
	if err != nil {
		return nil, err
	}
	if o.Generator == nil && !o.StartAt.IsZero() && warm.IsZero() {
		ho.Start = o.StartAt
	}
	res, err := harness.Run(ctx, ho)
	recordAuto(res, wa, da, warm)
	o.Generator.record(res, cfg, l, started)
	if res != nil && l.Mode == harness.ModeReplay {
		res.Load.Speed = l.Speed
	}
	return res, err
}
