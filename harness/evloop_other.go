//go:build !linux

package harness

import (
	"context"

	"github.com/perfgate/perfgate/harness/http1"
)

// evLoopSupported: the event loop needs epoll (Linux); elsewhere the
// goroutine workers run every open loop.
const evLoopSupported = false

func (e *engine) startLoops(ctx, reqCtx context.Context, f *feed, cl *http1.Client) bool {
	return false
}
