package harness

import (
	"context"
	"net/http/httptrace"
	"sync"
	"time"
)

// ConnWait measures, for one net/http request, how long it waited inside
// the client for a connection: from asking the transport for one (GetConn)
// to getting it (GotConn), less the time spent dialling a new one
// (ConnectStart to ConnectDone), which is the target's cost. What is left
// is the queue behind a full pool (Transport.MaxConnsPerHost): time inside
// perfgate, never the server's. Use one ConnWait per request.
type ConnWait struct {
	// The trace's hooks may run on the transport's dialling goroutine,
	// possibly after the request got another connection.
	mu                  sync.Mutex
	get, got, dialStart time.Time
	dial                time.Duration
}

// WithConnWait returns ctx carrying a client trace that fills w.
func (w *ConnWait) WithConnWait(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn:      func(string) { w.set(&w.get) },
		GotConn:      func(httptrace.GotConnInfo) { w.set(&w.got) },
		ConnectStart: func(string, string) { w.set(&w.dialStart) },
		ConnectDone: func(string, string, error) {
			w.mu.Lock()
			if !w.dialStart.IsZero() && w.got.IsZero() {
				w.dial += time.Since(w.dialStart)
			}
			w.mu.Unlock()
		},
	})
}

// Wait returns the time waited for a connection, excluding dials; zero
// when the request never asked for or never got one.
func (w *ConnWait) Wait() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.get.IsZero() || w.got.IsZero() {
		return 0
	}
	return max(w.got.Sub(w.get)-w.dial, 0)
}

// Got returns when the request got its connection (zero if it did not):
// the moment it could actually be sent.
func (w *ConnWait) Got() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.got
}

func (w *ConnWait) set(t *time.Time) {
	now := time.Now()
	w.mu.Lock()
	*t = now
	w.mu.Unlock()
}
