package suite

import (
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
)

// buildPerfgate builds the perfgate command: the reference server is
// `perfgate fixture serve`, started as a real target.
func buildPerfgate(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "perfgate")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/perfgate").CombinedOutput(); err != nil {
		t.Fatalf("building perfgate: %v\n%s", err, out)
	}
	return bin
}

// TestReferenceServer runs the capacity checks against the reference
// server started as a target, one build of perfgate for all.
func TestReferenceServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the reference server four times, two knee searches")
	}
	// Beside TestAutoWarmupAndWindow, which waits at 10 requests a second:
	// nothing here asserts a figure its load could move.
	t.Parallel()
	bin := buildPerfgate(t)
	t.Run("cpu, metrics, cache", func(t *testing.T) { testCPUMetricsCache(t, bin) })
	t.Run("partition", func(t *testing.T) { testPartitionOnCPU(t, bin) })
}

// A started target that serves no /metrics: the result says the default
// probe found nothing, and why.
func TestMetricsNotFound(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "target")
	if out, err := exec.Command("go", "build", "-o", bin, "../targetproc/testdata/target").CombinedOutput(); err != nil {
		t.Fatalf("building the test target: %v\n%s", err, out)
	}
	cfg := parse(t, `version: 1
targets:
  svc:
    command: ["{perfgate}", "--port", "{port}"]
    ready: "http://127.0.0.1:{port}/ready"
    ready_timeout: 20s
scenarios:
  - name: plain
    layer: system
    target: svc
    path: /env?name=X
    load: {mode: concurrency, concurrency: 1, duration: 200ms, warmup: 0s, trials: 1}
`)
	outs, err := Run(context.Background(), compiled(t, cfg), Options{Self: bin})
	if err != nil || outs[0].Err != nil {
		t.Fatalf("run: %v, %v", err, outs[0].Err)
	}
	m := outs[0].Result.Metrics
	if m == nil || m.Origin != "default" || m.Found || !strings.Contains(m.Why, "404") {
		t.Errorf("metrics probe %+v; want default, not found, with the 404 as the reason", m)
	}
}

// refTarget is the reference server as a started target, without a
// metrics: key (so /metrics is probed by default).
const refTarget = `version: 1
slo: {p99: 250ms, max_error_rate: 1%}
targets:
  ref:
    command: ["{perfgate}", "fixture", "serve", "--addr", "127.0.0.1:{port}"]
    ready: "http://127.0.0.1:{port}/v2/health/ready"
    ready_timeout: 60s
scenarios:
`

// The reference server limited to one core and kept busy: no GPU here, so
// the bottleneck is compute-bound on the CPU with its one core as
// evidence; its /metrics was found without a metrics: key; and its
// response cache, with 30% of the inputs repeated, reports a 30% hit rate.
func testCPUMetricsCache(t *testing.T, bin string) {
	cfg := parse(t, refTarget+`
  - name: cpu
    layer: model
    target: ref
    env: {GOMAXPROCS: "1"}
    protocol: kserve-http
    model: mlp
    load: {mode: concurrency, concurrency: 4, duration: 2s, warmup: 500ms, trials: 1}
  - name: cache
    layer: service
    target: ref
    args: ["--cache"]
    protocol: kserve-http
    model: mlp
    repeat: 30%
    load: {mode: rate, rate: 100, duration: 2s, warmup: 500ms, trials: 1}
`)
	outs, err := Run(context.Background(), compiled(t, cfg), Options{Self: bin, GPU: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.Err != nil || o.Result == nil {
			t.Fatalf("scenario %s: %v", o.Scenario.Name, o.Err)
		}
		m := o.Result.Metrics
		if m == nil || m.Origin != "default" || !m.Found || m.Why != "" || !strings.HasSuffix(m.URL, "/metrics") {
			t.Errorf("scenario %s: metrics probe %+v; want /metrics found by default, with request timing", o.Scenario.Name, m)
		}
	}

	cpu := outs[0].Result
	tel := cpu.Telemetry
	if tel == nil || tel.Bottleneck == nil {
		t.Fatalf("cpu: no telemetry")
	}
	t.Logf("cpu: target CPU %.2f of 1 core, server %+v, bottleneck %s %q", tel.TargetCPUCores, tel.ServerMs, tel.Bottleneck.Class, tel.Bottleneck.Evidence)
	switch {
	case !tel.NoGPU:
		t.Log("a GPU is present: the CPU rule does not apply")
	case tel.TargetCPUCores < 0.85:
		t.Logf("the target used %.2f of its core (a loaded machine): not CPU-saturated, class %s", tel.TargetCPUCores, tel.Bottleneck.Class)
		if tel.Bottleneck.Class == result.ComputeBound {
			t.Errorf("compute-bound on CPU below the threshold: %q", tel.Bottleneck.Evidence)
		}
	default:
		b := tel.Bottleneck
		if b.Class != result.ComputeBound || !strings.Contains(b.Evidence[0], "of its 1 cores, no GPU") {
			t.Errorf("bottleneck %s %q; want compute-bound on the CPU with its 1 core as evidence", b.Class, b.Evidence)
		}
	}

	c := outs[1].Result.Cache
	if c == nil {
		t.Fatal("cache: no hit rate in the result")
	}
	t.Logf("cache: %+v", c)
	// The repeats are exact (floor(n × 0.3) of n); a repeat of an input
	// still being answered would miss, hence the small tolerance.
	if c.Source != "triton" || c.Unit != "requests" || c.Repeat != 0.3 || math.Abs(c.HitRate-0.3) > 0.01 {
		t.Errorf("cache %+v; want triton requests, repeat 0.3, hit rate 0.30 ± 0.01", c)
	}
	s, err := sizing.Plan(withKnee(outs[1].Result), sizing.Input{PeakQPS: 1000, Headroom: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Cache == nil || !s.Cache.Applied || s.Cache.MissQPSAtPeak != math.Round(1000*(1-c.HitRate)*100)/100 {
		t.Errorf("sizing on the measured miss load: %+v; want %v misses/s at 1000 rps", s.Cache, 1000*(1-c.HitRate))
	}
}

// withKnee gives a fixed-load result a knee at its achieved rate (and a
// failing rate above it: a knee without a bracket is never sized), so the
// measured cache figures can be sized.
func withKnee(r *result.Result) *result.Result {
	k := *r
	q := r.Summary.AchievedRPS
	k.Capacity = &result.Capacity{SLOP99Ms: 250, MaxQPS: q, Bracket: [2]float64{q, 1.1 * q}, Found: true,
		Points: []result.Point{{OfferedRPS: q, AchievedRPS: q, Pass: true, Latency: r.Summary.Latency}}}
	return &k
}

// Partitions on the CPU: one reference server with 2 cores and 2 model
// workers (the whole device) against one with 1 core and 1 worker, two of
// which fit on the device. Sizing compares the knees with the same
// arithmetic a MIG slice gets: devices = ceil(P × H / (K_slice × 2)) vs
// ceil(P × H / K_whole), and recommends the fewer. One knee estimate a
// side, short probes and a coarse resolution (25%): the test checks the
// plan's arithmetic from the knees measured, not the knees' precision.
func testPartitionOnCPU(t *testing.T, bin string) {
	cfg := parse(t, refTarget+`
  - name: whole
    layer: service
    target: ref
    env: {GOMAXPROCS: "2"}
    args: ["--instances", "2"]
    protocol: kserve-http
    model: mlp
    load: {mode: sweep, start: 50, duration: 300ms, warmup: 100ms, resolution: 25%, budget: 10s, estimates: 1}
  - name: slice
    layer: service
    target: ref
    env: {GOMAXPROCS: "1"}
    args: ["--instances", "1"]
    protocol: kserve-http
    model: mlp
    partition: {name: 1core, per_device: 2}
    load: {mode: sweep, start: 50, duration: 300ms, warmup: 100ms, resolution: 25%, budget: 10s, estimates: 1}
`)
	outs, err := Run(context.Background(), compiled(t, cfg), Options{Self: bin})
	if err != nil {
		t.Fatal(err)
	}
	whole, slice := outs[0].Result, outs[1].Result
	for _, o := range outs {
		if o.Result == nil || o.Result.Capacity == nil || !o.Result.Capacity.Found {
			t.Fatalf("scenario %s found no knee: %v", o.Scenario.Name, o.Err)
		}
	}
	if slice.Partition == nil || slice.Partition.PerDevice != 2 || whole.Partition != nil {
		t.Fatalf("partition recorded: slice %+v, whole %+v", slice.Partition, whole.Partition)
	}
	kw, ks := whole.Capacity.MaxQPS, slice.Capacity.MaxQPS
	const peak, h = 5000.0, 1.3
	s, err := sizing.Plan(slice, sizing.Input{PeakQPS: peak, Headroom: h, CostPerInstanceHour: 3, Whole: whole})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Partition
	t.Logf("measured: whole device (2 cores, 2 workers) %.1f rps; slice (1 core, 1 worker) %.1f rps × 2 = %.1f rps; %s → %s",
		kw, ks, 2*ks, p.Formula, p.Recommend)
	wantP := int(math.Ceil(peak * h / (ks * 2)))
	wantW := int(math.Ceil(peak * h / kw))
	want := "whole"
	if wantP < wantW {
		want = "partitioned"
	}
	if p.DevicesPartitioned != wantP || p.DevicesWhole != wantW || p.Recommend != want || p.WholeScenario != "whole" ||
		*p.CostPerMonthPartitioned != float64(wantP)*3*730 {
		t.Errorf("partition plan %+v; want %d partitioned vs %d whole devices, %s", p, wantP, wantW, want)
	}
}
