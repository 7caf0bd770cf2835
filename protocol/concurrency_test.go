package protocol

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/internal/ssestub"
	"github.com/perfgate/perfgate/result"
)

// closedLoop runs c in closed loop at concurrency n with the pool that
// harness.PoolSize gives for the connections cap (0: sized from the load).
func closedLoop(t *testing.T, o Options, n, connections int, window time.Duration) *result.Result {
	t.Helper()
	o.MaxConns = harness.PoolSize(harness.ModeConcurrency, n, connections)
	c := newClient(t, o)
	res, err := harness.Run(context.Background(), harness.Options{Client: c, Mode: harness.ModeConcurrency,
		Concurrency: n, MaxConns: connections, Warmup: 400 * time.Millisecond, Duration: window, Trials: 1,
		Drain: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Issue 22: a closed loop of C holds C requests in flight at the target,
// for every protocol, well past the old fixed pool of 64 connections.
// Before the pool was sized from the load, 200 workers shared 64
// connections: the rest queued inside perfgate and the queue was reported
// as the server's latency (and as TTFT for streams).
func TestClosedLoopHoldsConcurrency(t *testing.T) {
	if testing.Short() {
		t.Skip("runs load for about 5 s")
	}
	const n = 200
	stub := ssestub.New(ssestub.Timings{TTFT: 100 * time.Millisecond, TPOT: 10 * time.Millisecond, Tokens: 10})
	sse := httptest.NewServer(stub)
	t.Cleanup(sse.Close)
	ks, _ := kserveServer(t, &kserveHandler{delay: 100 * time.Millisecond})
	grpcAddr, _ := startGRPC(t, &grpcServer{delay: 100 * time.Millisecond})
	tests := []struct {
		name string
		o    Options
		// want is the truth: the server's time for one request.
		want time.Duration
	}{
		{"openai stream", Options{Protocol: OpenAI, URL: sse.URL, Model: "stub", MaxTokens: 10}, 190 * time.Millisecond},
		{"kserve-http", Options{Protocol: KServeHTTP, URL: ks.URL, Model: "mlp"}, 100 * time.Millisecond},
		{"kserve-http net/http", Options{Protocol: KServeHTTP, URL: ks.URL, Model: "mlp", StdHTTP: true}, 100 * time.Millisecond},
		// Streams multiplexed over DefaultGRPCConns HTTP/2 connections.
		{"kserve-grpc", Options{Protocol: KServeGRPC, URL: grpcAddr, Model: "mlp"}, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := closedLoop(t, tt.o, n, 0, time.Second)
			s := res.Summary
			if s.Errors != 0 {
				t.Errorf("%d errors %v, want none", s.Errors, s.ErrorsBy)
			}
			if s.InFlightMean < 0.95*n {
				t.Errorf("in-flight mean %.1f, want >= %.0f (0.95 C)", s.InFlightMean, 0.95*n)
			}
			// A pool too small for the load (the old 64 connections for 200
			// in flight) makes requests wait about two thirds of their
			// latency. Dialling 200 connections on a busy host is slow too,
			// so the quiet bound (1%) holds only where the generator ran
			// when due; a busy one gets 10%, still far below a short pool.
			connBound := 0.01
			if s.GeneratorSchedP99Ms > 5 {
				connBound = 0.10
			}
			if s.ConnWaitShare > connBound {
				t.Errorf("requests waited for a connection %.1f%% of their latency, want under %.0f%% with a pool sized from the load (generator sched P99 %.1f ms)", 100*s.ConnWaitShare, 100*connBound, s.GeneratorSchedP99Ms)
			}
			// The median is the server's own time, a queue of 200 for the
			// old 64 connections tripled it. Timings are only checked on
			// a machine quiet enough to keep them: on a shared one the
			// generator's (and the in-process server's) goroutines wait
			// to run, and the generator says so.
			if sched := s.GeneratorSchedP99Ms; sched > 5 {
				t.Logf("timings not checked: the test's goroutines waited %.1f ms at P99 to run (busy machine); latency p50 %.1f ms", sched, s.Latency.P50)
				return
			}
			if p50 := s.Latency.P50; p50 > 1.6*ms(tt.want) {
				t.Errorf("latency p50 %.1f ms, want about %.0f ms (the server's)", p50, ms(tt.want))
			}
			if l := res.LLM; l != nil && l.TTFT.P50 > 1.6*100 {
				t.Errorf("TTFT p50 %.1f ms, want about 100 ms (the server's)", l.TTFT.P50)
			}
		})
	}
}

// A connection cap below the concurrency is a warning, the wait is
// measured apart, and the trial it shaped is invalid.
func TestConnectionCapBelowLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("runs load for about 1.5 s")
	}
	stub := ssestub.New(ssestub.Timings{TTFT: 40 * time.Millisecond, TPOT: 5 * time.Millisecond, Tokens: 5})
	sse := httptest.NewServer(stub)
	t.Cleanup(sse.Close)
	res := closedLoop(t, Options{Protocol: OpenAI, URL: sse.URL, Model: "stub", MaxTokens: 5}, 40, 10, time.Second)
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "connections 10 is below concurrency 40") {
		t.Errorf("warnings %q, want one about the cap below the concurrency", res.Warnings)
	}
	tr := res.Trials[0]
	// 40 workers on 10 connections: three in four wait about three
	// requests' time, most of their latency.
	if tr.ConnWaitShare < 0.3 || tr.ConnWaitP99Ms < 40 {
		t.Errorf("connection wait share %.2f, P99 %.1f ms; want most of the latency", tr.ConnWaitShare, tr.ConnWaitP99Ms)
	}
	if tr.Valid || !strings.Contains(strings.Join(tr.Invalid, "\n"), "waited inside perfgate for a connection") {
		t.Errorf("trial valid %v, invalid %q; want invalid for the connection wait", tr.Valid, tr.Invalid)
	}
	if tr.InFlightMean > 10.5 {
		t.Errorf("in-flight mean at the target %.1f, want at most the 10 connections", tr.InFlightMean)
	}
	if l := res.LLM; l == nil || l.TPOT.P50 > 15 {
		t.Errorf("llm %+v, want TPOT about 5 ms", l)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
