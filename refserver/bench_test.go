package refserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/perfgate/perfgate/kserve"
	"github.com/perfgate/perfgate/refserver/mlp"
)

// The benchmarks give each layer's figure end to end through the server
// (model-only figures are in refserver/mlp):
//
//	go test -run '^$' -bench . -benchtime 3s ./refserver/

// BenchmarkPrecisionP50 is latency at concurrency 1, fp32 against int8,
// reported as the median (p50-µs) of every request.
func BenchmarkPrecisionP50(b *testing.B) {
	for _, p := range []string{"fp32", "int8"} {
		b.Run("precision="+p, func(b *testing.B) {
			_, hs := newTestServer(b, Options{Seed: 1, Precision: p})
			req := inferRequest(1, 1, mlp.DefaultIn)
			inferHTTP(b, hs.Client(), hs.URL, "mlp", req)
			ds := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				inferHTTP(b, hs.Client(), hs.URL, "mlp", req)
				ds = append(ds, time.Since(start))
			}
			slices.Sort(ds)
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
		})
	}
}

// BenchmarkBatching is fp32 MLP throughput under 32 concurrent clients
// (RunParallel with 16 goroutines per CPU on 2 CPUs), dynamic batching off
// (max batch 1) against on (max batch 32, 5ms window). req/s is the figure.
func BenchmarkBatching(b *testing.B) {
	for _, mb := range []int{1, 32} {
		b.Run(fmt.Sprintf("max-batch=%d", mb), func(b *testing.B) {
			o := Options{Seed: 1, MaxBatch: mb}
			if mb > 1 {
				o.BatchWindow = 5 * time.Millisecond
			}
			_, hs := newTestServer(b, o)
			tr := &http.Transport{MaxIdleConnsPerHost: 64}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr}
			req := inferRequest(1, 1, mlp.DefaultIn)
			inferHTTP(b, c, hs.URL, "mlp", req)
			b.SetParallelism(max(1, 32/max(1, testingProcs())))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if code, _, body := postJSON(b, c, hs.URL+"/v2/models/mlp/infer", req); code != http.StatusOK {
						b.Errorf("status %d: %s", code, body)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkLargeInput is one request with the 3 × 224 × 224 FP32 input:
// JSON over HTTP against raw protobuf over gRPC, client encoding and
// server decoding included.
func BenchmarkLargeInput(b *testing.B) {
	srv, hs := newTestServer(b, Options{Model: ModelLarge})
	gc, _, _ := startGRPC(b, srv)
	req := inferRequest(1, 1, 3, 224, 224)
	b.Run("codec=json-http", func(b *testing.B) {
		for b.Loop() {
			inferHTTP(b, hs.Client(), hs.URL, NameLarge, req)
		}
	})
	b.Run("codec=protobuf-grpc", func(b *testing.B) {
		for b.Loop() {
			p, err := kserve.RequestToProto(NameLarge, "", req, true)
			if err != nil {
				b.Fatal(err)
			}
			out, err := gc.ModelInfer(context.Background(), p)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := kserve.ResponseFromProto(out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
