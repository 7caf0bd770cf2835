package http1

import (
	"bufio"
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// TestDeadlineMovesWithReuse checks the lazily moved deadline: requests on
// one kept-alive connection keep succeeding well past the first request's
// Timeout (so the deadline moved), and a request the server then never
// answers still times out (so it is enforced after reuse).
//
// The Timeout is long enough that one request on a loaded 2-core host
// (another test binary on both cores) never takes it, so a failure means
// the deadline did not move, not that the host was slow.
func TestDeadlineMovesWithReuse(t *testing.T) {
	const timeout = 400 * time.Millisecond
	var stalled atomic.Bool
	srv := newRawServer(t, func(n int64, c net.Conn, r *bufio.Reader) {
		// Answer until told to stall; a stalled connection reads on and
		// answers nothing.
		for !stalled.Load() {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(line) <= 2 { // the blank line ending a request
				if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")); err != nil {
					return
				}
			}
		}
		stall(n, c, r)
	})
	cl := newClient(t, Options{URL: srv.URL, Timeout: timeout, MaxConns: 1})
	ctx := context.Background()
	start := time.Now()
	n := 0
	// Bounded in time and count; at least 4 Timeouts of reuse.
	for time.Since(start) < 4*timeout && n < 1_000_000 {
		if status, err := cl.Do(ctx, nil); err != nil || status != 200 {
			t.Fatalf("request %d after %v: Do = %d, %v (the deadline did not move?)", n, time.Since(start), status, err)
		}
		n++
	}
	if d := cl.Dials(); d != 1 {
		t.Fatalf("Dials() = %d after %d requests, want 1 (keep-alive)", d, n)
	}
	stalled.Store(true)
	// The server may answer one more request before it sees the flag.
	t0 := time.Now()
	var err error
	for range 2 {
		if _, err = cl.Do(ctx, nil); err != nil {
			break
		}
	}
	if !IsTimeout(err) {
		t.Fatalf("stalled request: error %v, want a timeout", err)
	}
	if took := time.Since(t0); took < timeout {
		t.Errorf("stalled request timed out after %v, before Timeout %v", took, timeout)
	}
}

func TestDeadlineSlack(t *testing.T) {
	tests := []struct{ timeout, want time.Duration }{
		{80 * time.Millisecond, 5 * time.Millisecond},
		{30 * time.Second, time.Second},
		{time.Minute, time.Second},
	}
	for _, tt := range tests {
		if got := deadlineSlack(tt.timeout); got != tt.want {
			t.Errorf("deadlineSlack(%v) = %v, want %v", tt.timeout, got, tt.want)
		}
	}
}
