package harness

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSearchKneeRealServer drives the knee search through the engine
// against a real HTTP server of known capacity: one worker (a mutex) that
// holds each request 2 ms, so it serves about 1/(2 ms) = 500 rps at most.
// The server measures its own busy time, which gives the true capacity on
// this machine (sleeps overrun under load). With constant arrivals the
// queue stays short until the worker saturates, so the knee under a 20 ms
// P99 lies just below the capacity. The tolerance is loose: the machine is
// shared and noisy; the tight ±5% goal is asserted on the simulated probe.
func TestSearchKneeRealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("real-server knee search takes about 15 s")
	}
	var (
		mu     sync.Mutex
		busyNs atomic.Int64
		served atomic.Int64
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		t0 := time.Now()
		time.Sleep(2 * time.Millisecond)
		busyNs.Add(int64(time.Since(t0)))
		served.Add(1)
		mu.Unlock()
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)

	probe := RateProbe(Options{
		Client: newHTTP(t, srv.URL), MaxConns: 256,
		Warmup: 300 * time.Millisecond, Duration: time.Second, Drain: 3 * time.Second,
	})
	o := DefaultKneeOptions(20 * time.Millisecond)
	o.Drain, o.Budget, o.MaxWindows = 200*time.Millisecond, 25*time.Second, 10
	start := time.Now()
	c, err := SearchKnee(context.Background(), probe, o)
	if err != nil {
		if c != nil {
			for _, p := range c.Points {
				t.Logf("  %7.1f rps  achieved %7.1f  errors %.3f  p99 %8.2f ms  pass %v %s",
					p.OfferedRPS, p.AchievedRPS, p.ErrorRate, p.Latency.P99, p.Pass, p.Why)
			}
		}
		t.Fatal(err)
	}
	capacity := float64(served.Load()) / time.Duration(busyNs.Load()).Seconds()
	t.Logf("capacity %.0f rps (server busy time), knee %.1f rps (%.0f%% of capacity), bracket %v, %d windows in %v, stopped %q",
		capacity, c.MaxQPS, 100*c.MaxQPS/capacity, c.Bracket, c.Windows, time.Since(start).Round(time.Millisecond), c.Stopped)
	for _, p := range c.Points {
		t.Logf("  %7.1f rps  achieved %7.1f  p50 %7.2f  p99 %8.2f ms  pass %v %s",
			p.OfferedRPS, p.AchievedRPS, p.Latency.P50, p.Latency.P99, p.Pass, p.Why)
	}
	if !c.Found {
		t.Fatalf("SearchKnee() found no passing rate against a %.0f rps server", capacity)
	}
	if lo, hi := 0.8*capacity, 1.1*capacity; c.MaxQPS < lo || c.MaxQPS > hi {
		t.Errorf("SearchKnee() max QPS = %.1f, want within [%.0f, %.0f] (80–110%% of the measured capacity %.0f)", c.MaxQPS, lo, hi, capacity)
	}
	if c.Windows > 10 || c.Windows != len(c.Points) {
		t.Errorf("SearchKnee() windows = %d (points %d), want <= 10", c.Windows, len(c.Points))
	}
	for _, p := range c.Points {
		if p.Pass && p.Latency.P99 > 20 {
			t.Errorf("probe at %.1f rps passed with P99 %.2f ms > 20 ms", p.OfferedRPS, p.Latency.P99)
		}
	}
}
