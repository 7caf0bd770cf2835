package harness

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Two requests at once on a pool of one connection: the second waits for
// the first (100 ms) inside the client, and says so in Sample.Wait; its
// Start is when it was sent. With a pool of two neither waits. Both HTTP
// clients: the lean http1 one and net/http (httptrace).
func TestConnWait(t *testing.T) {
	const delay = 100 * time.Millisecond
	srv := hangServer(t, delay, 0)
	tests := []struct {
		name     string
		std      bool
		conns    int
		wantWait bool
	}{
		{"http1, one connection", false, 1, true},
		{"http1, a connection each", false, 2, false},
		{"net/http, one connection", true, 1, true},
		{"net/http, a connection each", true, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewHTTPClient(HTTPOptions{URL: srv.URL, Timeout: 5 * time.Second, MaxConns: tt.conns, Std: tt.std})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.Do(context.Background(), Hit{}) // open a connection: dials are not waits
			var wg sync.WaitGroup
			samples := make([]Sample, 2)
			for i := range samples {
				wg.Add(1)
				go func() { defer wg.Done(); samples[i] = c.Do(context.Background(), Hit{}) }()
			}
			wg.Wait()
			for _, s := range samples {
				if !s.OK() {
					t.Fatalf("request failed: %s %s", s.Class, s.Err)
				}
			}
			// On a starved machine one goroutine may run only after the
			// other's request ended: then nothing could wait.
			call := func(s Sample) time.Time { return s.Start.Add(-s.Wait) }
			w, o := samples[0], samples[1] // the waiter (longer wait), the other
			if o.Wait > w.Wait {
				w, o = o, w
			}
			if !tt.wantWait {
				if w.Wait > delay/2 {
					t.Errorf("waits %v and %v, want none with a connection each", w.Wait, o.Wait)
				}
				return
			}
			if !call(w).Before(o.End) || !call(o).Before(w.End) {
				t.Skipf("the two requests did not overlap (busy machine)")
			}
			// The waiter waited until the other's request ended, and its
			// Start is when it was sent: its service time is the
			// server's alone, without the wait.
			blocked := o.End.Sub(call(w))
			if w.Wait < blocked/2 || o.Wait > delay/2 {
				t.Errorf("waits %v and %v, want about %v (until the other request ended) and about 0", w.Wait, o.Wait, blocked)
			}
			if svc := w.End.Sub(w.Start); svc > delay+w.Wait/2 {
				t.Errorf("service time %v of the request that waited %v includes its wait", svc, w.Wait)
			}
		})
	}
}
