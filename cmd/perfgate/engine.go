package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
)

// The environment variables that choose and tune the load generator's
// engine (docs/event-loop.md). Only this command reads them; the harness
// takes harness.EngineSettings.
const (
	engineEnv = "PERFGATE_ENGINE"
	batchEnv  = "PERFGATE_LOOP_BATCH"
	spinEnv   = "PERFGATE_LOOP_SPIN"
)

// engineFlags are --engine, --loop-batch and --loop-spin of the commands
// that send load; they override the environment, which overrides
// perfgate.yaml's engine, loop_batch and loop_spin.
type engineFlags struct {
	engine string
	batch  optDuration
	spin   optDuration
}

// register declares the flags on fs.
func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.engine, "engine", "", "the load generator's open-loop `engine`: event-loop or workers; overrides PERFGATE_ENGINE and the config's engine (default: the event loop where it can run)")
	fs.Var(&f.batch, "loop-batch", "the event loop's least time between bursts of sends, such as 250us; 0 sends each hit when due; overrides PERFGATE_LOOP_BATCH and the config's loop_batch (default 1ms)")
	fs.Var(&f.spin, "loop-spin", "how long the event loop, with two or more responses outstanding, polls for them before it parks, such as 20us; 0 parks at once; overrides PERFGATE_LOOP_SPIN and the config's loop_spin (default 0, off)")
}

// check reports an --engine that is none of the engines.
func (f *engineFlags) check(cmd string) error {
	if f.engine != "" && !slices.Contains(config.Engines, f.engine) {
		return usageErr("%s: --engine %q: want %s", cmd, f.engine, strings.Join(config.Engines, " or "))
	}
	return nil
}

// engineSettings resolves the engine for a run of cfg (nil: none): the
// flags over the environment over the config.
func (e *env) engineSettings(cfg *config.Config) harness.EngineSettings {
	var s harness.EngineSettings
	if cfg != nil {
		s.Engine = cfg.Engine
		if cfg.LoopBatch != nil {
			s.LoopBatch = loopBatch(cfg.LoopBatch.D())
		}
		s.LoopSpin = cfg.LoopSpin.D()
	}
	fromEnv, _ := engineFromEnv(e.getenv) // checked before the command ran
	if fromEnv.Engine != "" {
		s.Engine = fromEnv.Engine
	}
	if fromEnv.LoopBatch != 0 { // given: NoLoopBatch for 0
		s.LoopBatch = fromEnv.LoopBatch
	}
	if e.getenv(spinEnv) != "" { // given: 0 turns the config's off
		s.LoopSpin = fromEnv.LoopSpin
	}
	if e.engine.engine != "" {
		s.Engine = e.engine.engine
	}
	if e.engine.batch.set {
		s.LoopBatch = loopBatch(e.engine.batch.d)
	}
	if e.engine.spin.set {
		s.LoopSpin = e.engine.spin.d
	}
	return s
}

// loopBatch is a written loop batch as harness.EngineSettings.LoopBatch
// takes it: 0 written sends each hit when due.
func loopBatch(d time.Duration) time.Duration {
	if d == 0 {
		return harness.NoLoopBatch
	}
	return d
}

// engineFromEnv reads PERFGATE_ENGINE, PERFGATE_LOOP_BATCH and
// PERFGATE_LOOP_SPIN from getenv, and reports a value that means nothing
// rather than running with a default the user did not ask for.
func engineFromEnv(getenv func(string) string) (harness.EngineSettings, error) {
	var s harness.EngineSettings
	if v := getenv(engineEnv); v != "" {
		if !slices.Contains(config.Engines, v) {
			return s, fmt.Errorf("environment %s=%q: want %s (unset: the event loop where it can run)", engineEnv, v, strings.Join(config.Engines, " or "))
		}
		s.Engine = v
	}
	for _, v := range []struct {
		name string
		to   *time.Duration
	}{{batchEnv, &s.LoopBatch}, {spinEnv, &s.LoopSpin}} {
		raw := getenv(v.name)
		if raw == "" {
			continue
		}
		d, err := time.ParseDuration(raw)
		if err != nil || d < 0 {
			return s, fmt.Errorf("environment %s=%q: want a duration of 0 or more, such as 1ms, 250us or 0", v.name, raw)
		}
		*v.to = d
	}
	if getenv(batchEnv) != "" {
		s.LoopBatch = loopBatch(s.LoopBatch)
	}
	return s, nil
}

// optDuration is a duration flag that knows whether it was given (0 given
// is not 0 left out).
type optDuration struct {
	d   time.Duration
	set bool
}

func (o *optDuration) String() string {
	if o == nil || !o.set {
		return ""
	}
	return o.d.String()
}

func (o *optDuration) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 250us or 0", v)
	}
	o.d, o.set = d, true
	return nil
}

// Get implements flag.Getter, for the range check (checkFlagRanges).
func (o *optDuration) Get() any { return o.d }
