// Package defaults holds the defaults that perfgate.yaml's settings and
// the packages that run them share: one home each, so that package config
// states them (config.Defaults) without importing an engine, and the
// engine falls back to the same value for a zero field.
package defaults

import "time"

// ReadyTimeout is how long a target perfgate starts has to become ready
// (targets.NAME.ready_timeout; targetproc.Spec.ReadyTimeout's zero).
const ReadyTimeout = 60 * time.Second

// Headroom is the safety margin instances are sized with: sized for
// peak × headroom (capacity.headroom, --headroom; sizing.Input.Headroom's
// zero).
const Headroom = 1.3

// The load generator's open-loop engines, as perfgate.yaml's engine, the
// flag --engine, PERFGATE_ENGINE and a result's load.engine name them.
const (
	EngineEventLoop = "event-loop"
	EngineWorkers   = "workers"
)

// LoopBatch is the event loop's least time between two bursts of sends
// (loop_batch, --loop-batch, PERFGATE_LOOP_BATCH); see docs/event-loop.md.
const LoopBatch = time.Millisecond
