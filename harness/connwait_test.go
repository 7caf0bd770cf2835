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
// clients: the lean h1 one and net/http (httptrace).
func TestConnWait(t *testing.T) {
	const delay = 100 * time.Millisecond
	srv := hangServer(t, delay, 0)
	tests := []struct {
		name     string
		std      bool
		conns    int
		wantWait bool
	}{
		{"h1, one connection", false, 1, true},
		{"h1, a connection each", false, 2, false},
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
			// On a starved machine one goroutine may run only after the
			// other's request ended: then nothing could wait.
			call := func(s Sample) time.Time { return s.Start.Add(-s.Wait) }
			a, b := samples[0], samples[1]
			if call(b).Before(call(a)) {
				a, b = b, a
			}
			if tt.wantWait && !call(b).Before(a.End) {
				t.Skipf("the two requests did not overlap (busy machine): %v to %v, then from %v", call(a), a.End, call(b))
			}
			long, short := b.Wait, a.Wait
			// b waited for a's connection: until a ended.
			blocked := a.End.Sub(call(b))
			for _, s := range samples {
				if !s.OK() {
					t.Fatalf("request failed: %s %s", s.Class, s.Err)
				}
				// The service time is the server's own, wait or not.
				if svc := s.End.Sub(s.Start); svc > delay+delay/2 && tt.wantWait {
					t.Errorf("service time %v includes the wait %v", svc, s.Wait)
				}
			}
			if tt.wantWait && (long < blocked/2 || short > delay/2) {
				t.Errorf("waits %v (first) and %v (second), want about 0 and %v (until the first ended)", short, long, blocked)
			}
			if !tt.wantWait && max(long, short) > delay/2 {
				t.Errorf("waits %v and %v, want none with a connection each", short, long)
			}
		})
	}
}
