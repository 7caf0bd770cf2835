package harness

import (
	"context"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"
)

// ConnWait measures, for one net/http request, how long it waited inside
// the client for a connection slot: from asking the transport for one
// (GetConn) until a dial was started for it (ConnectStart) or, when none
// was, until it got an idle one (GotConn). A dial is the target's cost (and
// a connection freed while it ran is taken at once), so it is never wait;
// what is left is the queue behind a full pool (Transport.MaxConnsPerHost):
// time inside perfgate, never the server's. Use one ConnWait per request.
type ConnWait struct {
	// Pool, if set, counts the client's requests: only a request that
	// asks for a connection while they outnumber the pool can queue for
	// one, and only its wait is counted (see PoolCount).
	Pool *PoolCount
	// The trace's hooks may run on the transport's dialling goroutine,
	// possibly after the request got another connection.
	mu             sync.Mutex
	get, got, dial time.Time
	full           bool
}

// WithConnWait returns ctx carrying a client trace that fills w.
func (w *ConnWait) WithConnWait(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn: func(string) {
			full := w.Pool == nil || w.Pool.n.Load() > w.Pool.Max
			w.mu.Lock()
			w.get, w.full = time.Now(), full
			w.mu.Unlock()
		},
		GotConn: func(httptrace.GotConnInfo) { w.set(&w.got) },
		ConnectStart: func(string, string) {
			now := time.Now()
			w.mu.Lock()
			if w.dial.IsZero() && w.got.IsZero() {
				w.dial = now
			}
			w.mu.Unlock()
		},
	})
}

// Wait returns the time waited for a connection slot; zero when the
// request never asked for or never got a connection.
func (w *ConnWait) Wait() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.get.IsZero() || w.got.IsZero() {
		return 0
	}
	if w.dial.IsZero() || !w.dial.Before(w.got) {
		// It got a connection another request had used: all of the gap
		// was spent waiting for one to come free.
		return max(w.got.Sub(w.get), 0)
	}
	// A dial was started for it: before that it queued only if the pool
	// was full; otherwise the gap was the dialling goroutine's start.
	if !w.full {
		return 0
	}
	return max(w.dial.Sub(w.get), 0)
}

func (w *ConnWait) set(t *time.Time) {
	now := time.Now()
	w.mu.Lock()
	*t = now
	w.mu.Unlock()
}

// PoolCount counts the requests of one client that hold or seek one of its
// Max connections. Only a request that asks for a connection while they
// outnumber Max can queue for one; for the others, a gap between asking
// for a connection and the dial starting is the transport's goroutines
// waiting to run (a starved generator, measured apart as its scheduling
// delay), not a queue, and their wait is zero. Call Enter before the
// request and Leave once its connection is released.
type PoolCount struct {
	Max int64
	n   atomic.Int64
}

// Enter counts a request in.
func (p *PoolCount) Enter() { p.n.Add(1) }

// Leave counts a request out, once its connection is released.
func (p *PoolCount) Leave() { p.n.Add(-1) }
