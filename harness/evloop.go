package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/perfgate/perfgate/harness/http1"
	"github.com/perfgate/perfgate/internal/defaults"
)

// Engines, as a result's load.engine names them.
const (
	EngineEventLoop = defaults.EngineEventLoop
	EngineWorkers   = defaults.EngineWorkers
)

// DefaultLoopBatch is the event loop's least time between two bursts of
// sends when EngineSettings.LoopBatch is zero (see evloop_linux.go).
const DefaultLoopBatch = defaults.LoopBatch

// NoLoopBatch, as EngineSettings.LoopBatch, sends each hit when due
// (perfgate.yaml's loop_batch: 0).
const NoLoopBatch time.Duration = -1

// EngineSettings choose and tune the open-loop engine. The command line
// fills them in (perfgate.yaml's engine, loop_batch and loop_spin, the
// flags --engine, --loop-batch and --loop-spin, the variables
// PERFGATE_ENGINE, PERFGATE_LOOP_BATCH and PERFGATE_LOOP_SPIN); this
// package reads no environment. The zero value runs the event loop where
// it can, with the default burst and no polling. See docs/event-loop.md.
type EngineSettings struct {
	// Engine is EngineWorkers (the goroutine workers, always),
	// EngineEventLoop or "" (the event loop where it can run: an open
	// loop over HTTP/1.1 on Linux).
	Engine string
	// LoopBatch is the event loop's least time between two bursts of
	// sends: 0 is DefaultLoopBatch (1ms), NoLoopBatch (any negative)
	// sends each hit when due.
	LoopBatch time.Duration
	// LoopSpin is how long a busy loop polls for responses before it
	// parks (0: off, the default).
	LoopSpin time.Duration
}

// Validate reports an engine that is none of the two, or a negative
// LoopSpin.
func (s EngineSettings) Validate() error {
	if s.Engine != "" && s.Engine != EngineWorkers && s.Engine != EngineEventLoop {
		return fmt.Errorf("engine %q: want %s or %s (empty: the event loop where it can run)", s.Engine, EngineWorkers, EngineEventLoop)
	}
	if s.LoopSpin < 0 {
		return fmt.Errorf("loop spin %v: want a duration of 0 or more, such as 0 or 50us", s.LoopSpin)
	}
	return nil
}

// batch is the event loop's least time between bursts that s asks for.
func (s EngineSettings) batch() time.Duration {
	switch {
	case s.LoopBatch < 0:
		return 0
	case s.LoopBatch == 0:
		return DefaultLoopBatch
	}
	return s.LoopBatch
}

// eventLooper is a Client whose open loop the engine may run on event
// loops (evloop_linux.go) instead of goroutine workers: it offers the http1
// client whose request, address, timeout and parser the loops use with
// sockets of their own.
type eventLooper interface {
	leanClient() *http1.Client
}

// leanClient implements eventLooper: the http1 client, or nil when c uses
// net/http (https, Std).
func (c *HTTPClient) leanClient() *http1.Client { return c.lean }

// loopClient returns the http1 client an open loop may run on event loops,
// or nil when it must use the goroutine workers: a client that is not an
// HTTPClient on http1, a platform without epoll, or the engine set to
// EngineWorkers.
func loopClient(c Client, s EngineSettings) *http1.Client {
	el, ok := c.(eventLooper)
	if !ok || !evLoopSupported || s.Engine == EngineWorkers {
		return nil
	}
	return el.leanClient()
}

// eventLoops runs the open loop on event loops when o's client allows it,
// and reports whether it did.
func (e *engine) eventLoops(ctx, reqCtx context.Context, sched Schedule) bool {
	cl := loopClient(e.o.Client, e.o.Engine)
	if cl == nil {
		return false
	}
	f := &feed{sched: sched, start: e.start, end: e.end, max: e.o.MaxRequests}
	return e.startLoops(ctx, reqCtx, f, cl)
}
