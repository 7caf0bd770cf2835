package refserver

import (
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
	"github.com/perfgate/perfgate/kserve"
	"github.com/perfgate/perfgate/refserver/mlp"
)

// Each test here checks the direction of one layer's effect with a loose
// bound; the figures themselves come from the benchmarks (bench_test.go).

// closedLoop runs workers that call do back to back for d and returns the
// completed calls per second. Every loop is bounded by d.
func closedLoop(workers int, d time.Duration, do func() error) float64 {
	var n atomic.Int64
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if do() == nil {
					n.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return float64(n.Load()) / d.Seconds()
}

// throughput measures a server's completed KServe requests per second
// under a closed loop of workers clients.
func throughput(t *testing.T, o Options, workers int, d time.Duration) float64 {
	t.Helper()
	return throughputCPU(t, o, workers, d, new(time.Duration))
}

// throughputCPU is throughput that also sets *cpu to the CPU time the
// process spent in the closed loop (after the server is built and warm).
func throughputCPU(t *testing.T, o Options, workers int, d time.Duration, cpu *time.Duration) float64 {
	t.Helper()
	_, hs := newTestServer(t, o)
	tr := &http.Transport{MaxIdleConnsPerHost: workers}
	t.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	req := inferRequest(1, 1, mlp.DefaultIn)
	inferHTTP(t, c, hs.URL, "mlp", req) // warm up
	before, _ := processCPU()
	rate := closedLoop(workers, d, func() error {
		code, _, _ := postJSON(t, c, hs.URL+"/v2/models/mlp/infer", req)
		if code != http.StatusOK {
			return http.ErrAbortHandler
		}
		return nil
	})
	after, _ := processCPU()
	*cpu = after - before
	return rate
}

// TestBatchingRaisesThroughputSim: with the cost model (fixed 10ms per
// batch) batching must multiply throughput under 16 clients, by nearly 16
// in theory; want 3.
//
// The two are measured one after the other, so a neighbour's burst can
// land in one of them: up to three attempts, and the best ratio counts
// (a server that does not batch fails every one).
func TestBatchingRaisesThroughputSim(t *testing.T) {
	var tries []string
	for attempt := 1; attempt <= 3; attempt++ {
		o := Options{Model: ModelSim, SimFixed: 10 * time.Millisecond, SimPerItem: 100 * time.Microsecond}
		off := throughput(t, o, 16, 500*time.Millisecond)
		o.MaxBatch, o.BatchWindow = 16, 5*time.Millisecond
		on := throughput(t, o, 16, 500*time.Millisecond)
		if on >= 3*off {
			return
		}
		tries = append(tries, fmt.Sprintf("off %.0f/s, on %.0f/s", off, on))
	}
	t.Errorf("sim throughput with batching off and on, in 3 attempts: %s: want ≥ 3×", strings.Join(tries, "; "))
}

// TestInstancesRunInParallel: two model workers serve two batches at once,
// so with the cost model (20ms a batch) and 4 clients throughput doubles;
// want 1.5×.
func TestInstancesRunInParallel(t *testing.T) {
	o := Options{Model: ModelSim, SimFixed: 20 * time.Millisecond, SimPerItem: time.Microsecond}
	one := throughput(t, o, 4, 500*time.Millisecond)
	o.Instances = 2
	two := throughput(t, o, 4, 500*time.Millisecond)
	if two < 1.5*one {
		t.Errorf("sim throughput with 1 instance %.0f/s, 2 instances %.0f/s: want ≥ 1.5×", one, two)
	}
}

// TestBatchingRaisesThroughputMLP: with the real fp32 MLP a batch is one
// Gemm that reads each weight once for every row, so batching must cut the
// CPU time per request under 32 clients, and so raise the throughput of a
// CPU-bound server (BenchmarkBatching: about 1.8× on 2 cores, part of it
// because gonum's Gemm also splits a batch across both cores). The
// test compares CPU time per request (the process's, clients included),
// not wall-clock throughput, because on a shared machine other processes
// decide the latter, and stall a two-thread Gemm more than a one-thread
// Gemv; it accepts a clear throughput gain instead when Gemm's second
// thread keeps the CPU per request level.
func TestBatchingRaisesThroughputMLP(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("times real computation: not in -short or -race")
	}
	if _, ok := processCPU(); !ok {
		t.Skip("no process CPU time on this system")
	}
	const d = 1500 * time.Millisecond
	perRequest := func(o Options) (time.Duration, float64) {
		var cpu time.Duration
		rate := throughputCPU(t, o, 32, d, &cpu)
		return cpu / time.Duration(max(1, rate*d.Seconds())), rate
	}
	var offCPU, onCPU time.Duration
	var offRate, onRate float64
	// Either effect shows the batch computed as one product: less CPU per
	// request, or (when Gemm spreads a batch over both cores and CPU per
	// request barely moves) more requests per second; either is enough.
	// A neighbour's burst can hide both in one pair of runs (1.08× and
	// 1.14× seen beside CI's other packages; and 0.89×, 0.80× and 1.04×,
	// three pairs in a row, while CI's other test binaries shared the two
	// cores): up to five pairs, and only a pair measured while other
	// processes left the cores to this one counts against batching.
	shown := func() bool { return float64(offCPU) >= 1.1*float64(onCPU) || onRate >= 1.2*offRate }
	quiet := 0
	for attempt := 0; attempt < 5; attempt++ {
		o := Options{Seed: 1}
		// The host's load as a trial's is judged (harness.HostSampler:
		// other processes' CPU beside this one, the same busy threshold).
		hs := harness.NewHostSampler(nil, 0)
		hs.BeginTrial(0)
		offCPU, offRate = perRequest(o)
		o.MaxBatch, o.BatchWindow = 32, 5*time.Millisecond
		onCPU, onRate = perRequest(o)
		hs.EndTrial(0)
		load := hs.Load(0)
		other := 0.0
		if load != nil {
			other = load.OtherCPUCores
		}
		t.Logf("fp32 MLP, 32 clients: batching off %v CPU/request (%.0f/s), on %v (%.0f/s): %.2f× less CPU; other processes %.2f cores",
			offCPU, offRate, onCPU, onRate, float64(offCPU)/float64(onCPU), other)
		if shown() {
			return
		}
		if load == nil || !load.Busy {
			quiet++
		}
		if quiet >= 3 {
			break
		}
	}
	if quiet == 0 {
		t.Skipf("every pair ran while the host was busy with other processes (harness's threshold): too busy to time batching; rerun on a quieter one")
	}
	t.Errorf("batching off %v CPU/request at %.0f/s, on %v at %.0f/s (%d pairs on a quiet host): want on ≥ 1.1× cheaper or ≥ 1.2× faster", offCPU, offRate, onCPU, onRate, quiet)
}

// TestInt8FasterThanFP32 compares median latency at concurrency 1 through
// the server (about 5× measured; want int8 below fp32).
func TestInt8FasterThanFP32(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("times real computation: not in -short or -race")
	}
	// Both servers are timed in turns, request by request, so that a
	// neighbour's burst lands on both alike and the medians compare the
	// models, not the moments.
	_, h32 := newTestServer(t, Options{Seed: 1, Precision: "fp32"})
	_, h8 := newTestServer(t, Options{Seed: 1, Precision: "int8"})
	req := inferRequest(1, 1, mlp.DefaultIn)
	var d32, d8 []time.Duration
	for range 21 {
		for _, x := range []struct {
			hs *httptest.Server
			ds *[]time.Duration
		}{{h32, &d32}, {h8, &d8}} {
			start := time.Now()
			inferHTTP(t, x.hs.Client(), x.hs.URL, "mlp", req)
			*x.ds = append(*x.ds, time.Since(start))
		}
	}
	median := func(ds []time.Duration) time.Duration { slices.Sort(ds); return ds[len(ds)/2] }
	fp32, int8 := median(d32), median(d8)
	t.Logf("P50 at concurrency 1: fp32 %v, int8 %v (%.0f%% lower)", fp32, int8, 100*(1-float64(int8)/float64(fp32)))
	if int8 >= fp32 {
		t.Errorf("P50 fp32 %v, int8 %v: want int8 lower", fp32, int8)
	}
}

// TestProtobufFasterThanJSON sends the large model's 3 × 224 × 224 input
// as JSON over HTTP and as raw protobuf over gRPC, timing client encoding,
// transfer, server decoding and the model (negligible) together.
func TestProtobufFasterThanJSON(t *testing.T) {
	srv, hs := newTestServer(t, Options{Model: ModelLarge})
	gc, _, _ := startGRPC(t, srv)
	req := inferRequest(1, 1, 3, 224, 224)
	const n = 6
	timeIt := func(do func()) time.Duration {
		do() // warm up
		start := time.Now()
		for i := 0; i < n; i++ {
			do()
		}
		return time.Since(start) / n
	}
	var hr, gr *kserve.InferResponse
	js := timeIt(func() { hr, _ = inferHTTP(t, hs.Client(), hs.URL, NameLarge, req) })
	pb := timeIt(func() { gr = inferGRPC(t, gc, NameLarge, req) })
	t.Logf("large input per request: JSON/HTTP %v, protobuf/gRPC %v (%.1f×)", js, pb, float64(js)/float64(pb))
	if float64(js) < 1.2*float64(pb) {
		t.Errorf("large input: JSON %v, protobuf %v: want JSON ≥ 1.2× slower", js, pb)
	}
	// JSON carries FP32 in its shortest decimal form: equal as float32.
	if float32(hr.Outputs[0].Data.Float[0]) != float32(gr.Outputs[0].Data.Float[0]) {
		t.Errorf("outputs differ: JSON %v, protobuf %v", hr.Outputs[0].Data.Float, gr.Outputs[0].Data.Float)
	}
}
