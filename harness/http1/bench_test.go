package http1

import (
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
)

// The benchmarks run http1 and net/http side by side against the same
// in-process servers: an httptest server (net/http's own server, which
// dominates the cost) and the raw replyFast server (whose cost is small,
// so the client's shows). "cpu-µs/op" is the process's CPU per request,
// so for these it includes the server's; with -http1.url pointing at a server
// in another process it is the client's alone:
//
//	taskset -c 0 go test -run XXX -bench . -http1.url http://127.0.0.1:18089/ ./harness/http1

const benchConns = 64

// benchURL adds an external server (nginx, say, started as bench/run.sh
// does) to the targets: then the "cpu-µs/op" figure is the client's alone.
var benchURL = flag.String("http1.url", "", "also benchmark against this external `URL`")

type benchTarget struct {
	name string
	url  func(b *testing.B) string
}

var benchTargets = []benchTarget{
	{"httptest", func(b *testing.B) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "ok")
		}))
		b.Cleanup(srv.Close)
		return srv.URL
	}},
	{"raw", func(b *testing.B) string {
		return newRawServer(b, replyFast("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")).URL
	}},
}

// targets returns the in-process targets, and the external one if given.
func targets() []benchTarget {
	if *benchURL == "" {
		return benchTargets
	}
	return append(benchTargets[:len(benchTargets):len(benchTargets)],
		benchTarget{"external", func(*testing.B) string { return *benchURL }})
}

// reportCPU reports the process's CPU time per operation since cpu0.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if cpu := processCPU() - cpu0; cpu > 0 && b.N > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

// doer is one request of either client.
type doer func(ctx context.Context) error

func newH1Doer(b *testing.B, url string) doer {
	cl := newClient(b, Options{URL: url, MaxConns: benchConns})
	return func(ctx context.Context) error {
		_, err := cl.Do(ctx, nil)
		return err
	}
}

func newNetHTTPDoer(b *testing.B, url string) doer {
	tr := &http.Transport{MaxIdleConnsPerHost: benchConns, MaxConnsPerHost: benchConns, DisableCompression: true}
	b.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
		if err != nil {
			return err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
}

func BenchmarkH1(b *testing.B)      { benchClient(b, newH1Doer) }
func BenchmarkNetHTTP(b *testing.B) { benchClient(b, newNetHTTPDoer) }

// benchClient runs one request at a time ("serial"), then 64 at once
// ("parallel", the load generator's case).
func benchClient(b *testing.B, newDoer func(*testing.B, string) doer) {
	for _, tg := range targets() {
		b.Run(tg.name+"/serial", func(b *testing.B) {
			do := newDoer(b, tg.url(b))
			ctx := context.Background()
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				if err := do(ctx); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
		})
		b.Run(tg.name+"/parallel", func(b *testing.B) {
			do := newDoer(b, tg.url(b))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b.SetParallelism((benchConns + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.ReportAllocs()
			cpu0 := processCPU()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := do(ctx); err != nil {
						b.Error(err)
						return
					}
				}
			})
			reportCPU(b, cpu0)
		})
	}
}
