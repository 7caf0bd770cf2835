package harness

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/result"
)

func newHTTP(t *testing.T, url string) *HTTPClient {
	t.Helper()
	c, err := NewHTTPClient(HTTPOptions{URL: url, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A server that stalls for 200 ms, 400 ms into the run's window, behind a
// generator allowed only 4 connections: the requests scheduled during the
// stall cannot even be sent until it ends. In open loop their latency
// counts from the intended send time, so the stall shows in the tail even
// though the generator could not send on time (no coordinated omission);
// the uncorrected service time, kept beside it, hides most of it.
func TestOpenLoopStallShowsInP99(t *testing.T) {
	t.Parallel() // it waits on loopback servers (why the event-loop tests do not: run)
	srv := stallServer(t, 700*time.Millisecond, 900*time.Millisecond)
	res, err := Run(context.Background(), Options{
		Client: newHTTP(t, srv.URL), Mode: ModeRate, Rate: 200, MaxConns: 4,
		Warmup: 300 * time.Millisecond, Duration: time.Second, Trials: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	// 200 rps × 0.2 s = 40 requests are scheduled into the stall: 20% of
	// the 200 in the window, waiting 0–200 ms each.
	lat, svc := res.Summary.Latency, res.Summary.Service
	if lat.P99 < 150 {
		t.Errorf("P99 = %.1f ms, want >= 150 ms: the 200 ms stall was hidden", lat.P99)
	}
	if lat.P50 > 50 {
		t.Errorf("P50 = %.1f ms, want < 50 ms: only 20%% of requests met the stall", lat.P50)
	}
	lh, _ := result.DecodeHistogram(res.Trials[0].Histogram)
	sh, _ := result.DecodeHistogram(res.Trials[0].ServiceHistogram)
	slowLat, slowSvc := countAbove(lh, 20000), countAbove(sh, 20000)
	if slowLat < 20 {
		t.Errorf("%d requests over 20 ms counted from the intended time, want about 35", slowLat)
	}
	if slowSvc > slowLat/2 {
		t.Errorf("%d requests over 20 ms of service time vs %d of latency: want the uncorrected figure to hide most of the stall", slowSvc, slowLat)
	}
	if svc == nil || svc.P50 > lat.P50+1 {
		t.Errorf("service time %+v should not exceed latency %+v at P50", svc, lat)
	}
}

// Little's Law in closed loop: with C requests always in flight,
// throughput λ = C / W where W is the mean latency.
func TestClosedLoopLittlesLaw(t *testing.T) {
	t.Parallel() // it waits on loopback servers (why the event-loop tests do not: run)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(10 * time.Millisecond)
	}))
	t.Cleanup(srv.Close)
	const c = 8
	res, err := Run(context.Background(), Options{
		Client: newHTTP(t, srv.URL), Mode: ModeConcurrency, Concurrency: c,
		Warmup: 200 * time.Millisecond, Duration: 1500 * time.Millisecond, Trials: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	want := float64(c) / (s.Latency.Mean / 1000)
	if rel := math.Abs(s.AchievedRPS-want) / want; rel > 0.15 {
		t.Errorf("achieved %.1f rps, Little's Law predicts C/W = %d/%.2fms = %.1f (off by %.0f%%)", s.AchievedRPS, c, s.Latency.Mean, want, rel*100)
	}
	if math.Abs(s.InFlightMean-c) > 1.5 {
		t.Errorf("measured in-flight mean %.2f, want about %d", s.InFlightMean, c)
	}
	if len(res.Trials) != 2 {
		t.Fatalf("got %d trials, want 2", len(res.Trials))
	}
}

// Errors are counted by class and never recorded as latencies: a fast 500
// must not make the latency look better.
func TestErrorsCountedNotTimed(t *testing.T) {
	t.Parallel() // it waits on loopback servers (why the event-loop tests do not: run)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%4 == 0 {
			w.WriteHeader(http.StatusInternalServerError) // fast failure
			return
		}
		time.Sleep(20 * time.Millisecond)
	}))
	t.Cleanup(srv.Close)
	res, err := Run(context.Background(), Options{
		Client: newHTTP(t, srv.URL), Mode: ModeRate, Rate: 100,
		Warmup: 100 * time.Millisecond, Duration: time.Second, Trials: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.ErrorsBy["http_500"] == 0 || s.ErrorsBy["http_500"] != s.Errors {
		t.Errorf("errors by class = %v, errors = %d; want all as http_500", s.ErrorsBy, s.Errors)
	}
	if r := s.ErrorRate; r < 0.15 || r > 0.35 {
		t.Errorf("error rate = %.3f, want about 0.25", r)
	}
	if s.Latency.P50 < 19 {
		t.Errorf("P50 = %.1f ms: fast errors leaked into the latencies (all successes take 20 ms)", s.Latency.P50)
	}
	h, err := result.DecodeHistogram(res.Trials[0].Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := h.TotalCount(), s.Requests-s.Errors; got != want {
		t.Errorf("histogram holds %d values, want %d successes", got, want)
	}
}

func TestAllFailedIsAnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	_, err := Run(context.Background(), Options{
		Client: newHTTP(t, srv.URL), Mode: ModeRate, Rate: 50,
		Duration: 300 * time.Millisecond, Trials: 1,
	})
	if err == nil {
		t.Fatal("Run succeeded against a server that only fails; want ErrAllFailed")
	}
}

// The trial histograms round-trip through the V2 compressed encoding and
// merge into the summary without loss.
func TestHistogramRoundTrip(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	res, err := Run(context.Background(), Options{
		Client: newHTTP(t, srv.URL), Mode: ModeRate, Rate: 300, Arrival: ArrivalPoisson, Seed: 7,
		Duration: 400 * time.Millisecond, Trials: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	merged, err := result.MergeTrials(res.Trials)
	if err != nil {
		t.Fatal(err)
	}
	var successes int64
	for i, tr := range res.Trials {
		h, err := result.DecodeHistogram(tr.Histogram)
		if err != nil {
			t.Fatalf("trial %d: %v", i, err)
		}
		successes += tr.Requests - tr.Errors
		enc, err := result.EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		h2, _ := result.DecodeHistogram(enc)
		if d := cmp.Diff(result.LatencyOf(h), result.LatencyOf(h2)); d != "" {
			t.Errorf("trial %d: re-encoded histogram differs (-first +second):\n%s", i, d)
		}
	}
	if merged.TotalCount() != successes {
		t.Errorf("merged count %d, want %d", merged.TotalCount(), successes)
	}
	if d := cmp.Diff(res.Summary.Latency, result.LatencyOf(merged)); d != "" {
		t.Errorf("summary latency is not the merged trials' (-summary +merged):\n%s", d)
	}
}

func TestPoissonScheduleSeeded(t *testing.T) {
	a, b := NewPoissonSchedule(1000, 42), NewPoissonSchedule(1000, 42)
	var last time.Duration
	for i := range 10000 {
		x, _, _ := a.Next()
		y, _, _ := b.Next()
		if x != y {
			t.Fatalf("hit %d: %v != %v with the same seed", i, x, y)
		}
		last = x
	}
	// 10,000 arrivals at 1000/s take about 10 s (±5% is > 5 sigma).
	if last < 9500*time.Millisecond || last > 10500*time.Millisecond {
		t.Errorf("10000 Poisson arrivals at 1000/s ended at %v, want about 10s", last)
	}
}

func TestInterruptReturnsPartial(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	res, err := Run(ctx, Options{
		Client: newHTTP(t, srv.URL), Mode: ModeRate, Rate: 100,
		Warmup: 100 * time.Millisecond, Duration: 10 * time.Second, Trials: 1,
	})
	if err == nil {
		t.Fatal("want the context's error")
	}
	if res == nil || !res.Interrupted || res.Valid {
		t.Fatalf("result %+v: want interrupted and invalid", res)
	}
	if res.Summary.Requests == 0 {
		t.Error("the partial result lost what was measured before the interrupt")
	}
}

// countAbove counts the values of h above us microseconds.
func countAbove(h *hdrhistogram.Histogram, us int64) int64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.From > us {
			n += b.Count
		}
	}
	return n
}

// stallServer is a server that answers one request at a time and stalls
// every request that arrives between from and to after its start until
// to: requests queue behind the stall.
func stallServer(t *testing.T, from, to time.Duration) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	start := time.Now()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if now := time.Since(start); now >= from && now < to {
			time.Sleep(to - now)
		}
		mu.Unlock()
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv
}
