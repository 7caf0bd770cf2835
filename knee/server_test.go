package knee

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/result"
)

// TestSearchRealServer drives the knee search through the engine
// against a real HTTP server of known capacity: one worker (a mutex) that
// holds each request 2 ms, so it serves about 1/(2 ms) = 500 rps at most.
// The server measures its own busy time, which gives the true capacity on
// this machine (sleeps overrun under load). With constant arrivals the
// queue stays short until the worker saturates, so the knee under a 50 ms
// P99 lies just below the capacity.
//
// The tolerance is loose and a search may be repeated (at most three
// attempts, none started after 30 s): on a shared machine (load average 15
// on 2 cores was seen) a scheduling stall of a few tens of milliseconds
// fails any probe it lands in. An attempt counts only when the run itself
// shows the host was quiet enough to say something: the scheduling jitter
// watched beside it stayed small, and no probe at a rate the server serves
// with room to spare (below half its measured capacity: the reference in
// the same run) failed, since only a stall fails those. With no such
// attempt the test skips, saying so; it never fails from a neighbour's
// load. The tight ±5% goal is asserted on the simulated probe.
// Skipped with -short.
func TestSearchRealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("real-server knee search takes 8–20 s")
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

	probe := RateProbe{Options: FixedOptions(harness.Options{
		Client: newHTTP(t, srv.URL), MaxConns: 256,
		Warmup: 300 * time.Millisecond, Duration: time.Second, Drain: 3 * time.Second,
	})}.Probe()
	o := DefaultOptions(50 * time.Millisecond)
	o.Start, o.Window = 50, time.Second
	o.Drain, o.Budget, o.MaxWindows = 200*time.Millisecond, 12*time.Second, 10
	start := time.Now()
	quiet := 0
	var noisy []string
	for attempt := 1; attempt <= 3 && (attempt == 1 || time.Since(start) < 30*time.Second); attempt++ {
		busyNs.Store(0)
		served.Store(0)
		jitter := watchJitter()
		c, err := Search(context.Background(), probe, o)
		j := jitter()
		if err != nil {
			t.Fatal(err)
		}
		capacity := float64(served.Load()) / time.Duration(busyNs.Load()).Seconds()
		t.Logf("attempt %d: capacity %.0f rps (server busy time), knee %.1f rps (%.0f%% of capacity), bracket %v, %d windows, stopped %q, scheduling jitter P99.9 %v, max %v",
			attempt, capacity, c.MaxQPS, 100*c.MaxQPS/capacity, c.Bracket, c.Windows, c.Stopped, j.p999, j.max)
		logPoints(t, c.Points)
		// Structural checks hold on any machine.
		if c.Windows > o.MaxWindows || c.Windows != len(c.Points) {
			t.Fatalf("Search() windows = %d (points %d), want <= %d", c.Windows, len(c.Points), o.MaxWindows)
		}
		for _, p := range c.Points {
			if p.Pass && p.Latency.P99 > 50 {
				t.Fatalf("probe at %.1f rps passed with P99 %.2f ms > 50 ms", p.OfferedRPS, p.Latency.P99)
			}
		}
		// On a quiet machine the knee is 90–100% of the capacity; under
		// heavy load jitter lowers it. 65–110% still catches a search that
		// stops early or walks past the saturation point.
		if lo, hi := 0.65*capacity, 1.1*capacity; c.Found && c.MaxQPS >= lo && c.MaxQPS <= hi {
			return
		}
		if why := noisyAttempt(c.Points, capacity, j); why != "" {
			noisy = append(noisy, fmt.Sprintf("attempt %d: %s", attempt, why))
			continue
		}
		quiet++
	}
	if quiet == 0 {
		t.Skipf("host too noisy for a latency-SLO test, every attempt disturbed: %s", strings.Join(noisy, "; "))
	}
	t.Errorf("Search() missed 65–110%% of the measured capacity in %d attempts on a quiet host (see the log)", quiet)
}

// noisyAttempt says why an attempt of TestSearchRealServer tells nothing
// about the search, or "" when it does: scheduling stalls beside it
// (jitter), or a failed probe at a rate below half the server's measured
// capacity, which only a stall fails.
func noisyAttempt(pts []result.Point, capacity float64, j jitterStats) string {
	if j.p999 > maxJitter || j.max > maxStall {
		return fmt.Sprintf("scheduling jitter P99.9 %v, max %v (limits %v, %v)", j.p999, j.max, maxJitter, maxStall)
	}
	for _, p := range pts {
		if !p.Pass && p.OfferedRPS < capacity/2 {
			return fmt.Sprintf("the probe at %.0f rps, under half the capacity of %.0f rps, failed: %s", p.OfferedRPS, capacity, p.Why)
		}
	}
	return ""
}

// maxStall is the longest single scheduling stall an attempt may see: a
// stall that long holds enough of a low-rate probe's requests to push its
// P99 past the 50 ms objective.
const maxStall = 25 * time.Millisecond

// maxJitter is the scheduling noise above which an attempt says nothing
// about the search: a stall that long fails the probe it lands in.
const maxJitter = 10 * time.Millisecond

// jitterStats is the scheduling noise watchJitter saw.
type jitterStats struct{ p999, max time.Duration }

// watchJitter measures, until the returned function is called, how late
// sleeps of 1 ms wake: the scheduling noise every latency measured here
// includes. The function stops the watch and returns the 99.9th percentile
// and the worst.
func watchJitter() func() jitterStats {
	stop := make(chan struct{})
	done := make(chan []time.Duration)
	go func() {
		var late []time.Duration
		for {
			select {
			case <-stop:
				done <- late
				return
			default:
			}
			t0 := time.Now()
			time.Sleep(time.Millisecond)
			late = append(late, time.Since(t0)-time.Millisecond)
		}
	}()
	return func() jitterStats {
		close(stop)
		late := <-done
		if len(late) == 0 {
			return jitterStats{}
		}
		slices.Sort(late)
		return jitterStats{p999: late[len(late)*999/1000], max: late[len(late)-1]}
	}
}

func logPoints(t *testing.T, pts []result.Point) {
	t.Helper()
	for _, p := range pts {
		t.Logf("  %7.1f rps  achieved %7.1f  p50 %7.2f  p99 %8.2f ms  pass %v %s",
			p.OfferedRPS, p.AchievedRPS, p.Latency.P50, p.Latency.P99, p.Pass, p.Why)
	}
}

// newHTTP is a plain HTTP client of url, closed with the test.
func newHTTP(t *testing.T, url string) *harness.HTTPClient {
	t.Helper()
	c, err := harness.NewHTTPClient(harness.HTTPOptions{URL: url, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// In a sweep, a probe whose target hangs one request in ten fails on its
// error rate: the hung requests count, as timeouts, in the probe's window.
// (Moved from harness with the knee search.)
func TestSweepCountsHungRequests(t *testing.T) {
	release := make(chan struct{})
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%10 == 0 {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		time.Sleep(time.Millisecond)
		w.Write([]byte("ok"))
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	probe := RateProbe{Options: FixedOptions(harness.Options{Client: newHTTP(t, srv.URL), Warmup: 200 * time.Millisecond,
		Duration: time.Second, Drain: 300 * time.Millisecond})}.Probe()
	o := DefaultOptions(50 * time.Millisecond)
	o.Start, o.Window, o.MaxWindows, o.Drain = 40, time.Second, 2, 50*time.Millisecond
	c, err := Search(context.Background(), probe, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Points) == 0 {
		t.Fatal("Search() probed nothing")
	}
	for _, p := range c.Points {
		if p.ErrorRate < 0.05 || p.Pass {
			t.Errorf("probe at %.0f rps: error rate %.3f, pass %v; want about 0.1 and a failing probe", p.OfferedRPS, p.ErrorRate, p.Pass)
		}
	}
	if c.Found {
		t.Errorf("Search() found a knee at %.1f rps against a target that hangs 10%% of requests", c.MaxQPS)
	}
}
