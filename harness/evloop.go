package harness

import (
	"context"
	"os"

	"github.com/perfgate/perfgate/harness/h1"
)

// EngineEnv names the environment variable that chooses the open-loop
// engine: "workers" forces the goroutine workers (openWorker) where the
// event loop would run; anything else, or unset, lets the event loop run
// where it can.
const EngineEnv = "PERFGATE_ENGINE"

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
	if !ok || !evLoopSupported || os.Getenv(EngineEnv) == "workers" {
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
