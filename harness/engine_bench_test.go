package harness

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// noop is a client that does nothing: what is left is the engine's own
// cost per request (scheduling, dispatch, recording).
var noop = ClientFunc(func(ctx context.Context, h Hit) Sample {
	now := time.Now()
	return Sample{Start: now, End: now}
})

func benchRun(b *testing.B, o Options) {
	b.Helper()
	for range b.N {
		cpu0 := cpuTime()
		res, err := Run(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		cpu := cpuTime() - cpu0
		n := res.Summary.Requests
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/req")
		b.ReportMetric(res.Summary.AchievedRPS, "req/s")
		b.ReportMetric(res.Summary.LagP99Ms*1000, "lag-p99-µs")
	}
}

// BenchmarkEngineOpenLoop measures the engine's own CPU per request at a
// fixed open-loop rate with a client that does nothing.
func BenchmarkEngineOpenLoop(b *testing.B) {
	benchRun(b, Options{Client: noop, Mode: ModeRate, Rate: 20000, Duration: time.Second, Trials: 1})
}

// BenchmarkEngineClosedLoop measures the highest closed-loop rate of the
// engine alone, 64 workers.
func BenchmarkEngineClosedLoop(b *testing.B) {
	benchRun(b, Options{Client: noop, Mode: ModeConcurrency, Concurrency: 64, Duration: time.Second, Trials: 1})
}

// BenchmarkHTTPOpenLoop20k: the whole generator (engine + net/http client)
// against an in-process server at 20,000 req/s. The server's CPU is counted
// too; bench/run.sh measures the generator alone against nginx.
func BenchmarkHTTPOpenLoop20k(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	c, err := NewHTTPClient(HTTPOptions{URL: srv.URL, MaxConns: 64})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	benchRun(b, Options{Client: c, Mode: ModeRate, Rate: 20000, Duration: time.Second, Trials: 1, MaxConns: 64})
}
