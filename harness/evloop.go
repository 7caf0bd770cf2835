package harness

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/perfgate/perfgate/harness/h1"
)

// EngineEnv names the environment variable that chooses the open-loop
// engine: "workers" forces the goroutine workers (openWorker) where the
// event loop would run; "event-loop", or unset, lets the event loop run
// where it can. BatchEnv and SpinEnv (Go durations) set the event loop's
// least time between bursts of sends (default 1ms; 0 sends each hit when
// due) and its response polling (default off).
const (
	EngineEnv = "PERFGATE_ENGINE"
	BatchEnv  = "PERFGATE_LOOP_BATCH"
	SpinEnv   = "PERFGATE_LOOP_SPIN"
)

// Engines, as a result's load.engine names them.
const (
	EngineEventLoop = "event-loop"
	EngineWorkers   = "workers"
)

// checkEngineEnv is CheckEngineEnv on the process's environment.
func checkEngineEnv() error { return CheckEngineEnv(os.Getenv) }

// CheckEngineEnv reports a value of EngineEnv, BatchEnv or SpinEnv in
// getenv's environment that means nothing, rather than running with a
// default the user did not ask for.
func CheckEngineEnv(getenv func(string) string) error {
	if v := getenv(EngineEnv); v != "" && v != EngineWorkers && v != EngineEventLoop {
		return fmt.Errorf("environment %s=%q: want %s or %s (unset: the event loop where it can run)", EngineEnv, v, EngineWorkers, EngineEventLoop)
	}
	for _, name := range []string{BatchEnv, SpinEnv} {
		if v := getenv(name); v != "" {
			if d, err := time.ParseDuration(v); err != nil || d < 0 {
				return fmt.Errorf("environment %s=%q: want a duration of 0 or more, such as 1ms, 250us or 0", name, v)
			}
		}
	}
	return nil
}

// eventLooper is a Client whose open loop the engine may run on event
// loops (evloop_linux.go) instead of goroutine workers: it offers the h1
// client whose request, address, timeout and parser the loops use with
// sockets of their own.
type eventLooper interface {
	leanClient() *h1.Client
}

// leanClient implements eventLooper: the h1 client, or nil when c uses
// net/http (https, Std).
func (c *HTTPClient) leanClient() *h1.Client { return c.lean }

// loopClient returns the h1 client an open loop may run on event loops,
// or nil when it must use the goroutine workers: a client that is not an
// HTTPClient on h1, a platform without epoll, or PERFGATE_ENGINE=workers.
func loopClient(c Client) *h1.Client {
	el, ok := c.(eventLooper)
	if !ok || !evLoopSupported || os.Getenv(EngineEnv) == EngineWorkers {
		return nil
	}
	return el.leanClient()
}

// eventLoops runs the open loop on event loops when o's client allows it,
// and reports whether it did.
func (e *engine) eventLoops(ctx, reqCtx context.Context, sched Schedule) bool {
	cl := loopClient(e.o.Client)
	if cl == nil {
		return false
	}
	f := &feed{sched: sched, start: e.start, end: e.end, max: e.o.MaxRequests}
	return e.startLoops(ctx, reqCtx, f, cl)
}
