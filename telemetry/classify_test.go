package telemetry

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/result"
)

// gpuAt returns GPU 0's summary with the given mean SM and memory-bandwidth
// utilization.
func gpuAt(sm, bw float64) []result.GPUStats {
	return []result.GPUStats{{Index: 0, Name: "NVIDIA H200", SMUtilPct: result.Stat{Mean: sm, Max: sm},
		MemBWUtilPct: result.Stat{Mean: bw, Max: bw}, Samples: 50}}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		in   ClassifyInput
		want *result.Bottleneck
	}{
		{
			// Issue 21: a Python http.server without TCP_NODELAY, writing
			// headers and body apart: every request waits for a delayed ACK.
			name: "nagle meets delayed ACK",
			in:   ClassifyInput{NoGPU: true, ClientP50Ms: 40.9, ClientP99Ms: 44.1, AchievedRPS: 40, TargetMeasured: true, TargetCPUCores: 0.02, TargetCores: 2},
			want: &result.Bottleneck{Class: result.IOBound, Next: NextNagle, Evidence: []string{
				"every latency sits near 40 ms (P50 40.9 ms, P99 44.1 ms, inside 36.0 ms–48.0 ms): the signature of Nagle's algorithm meeting delayed ACKs on a server that writes headers and body separately"}},
		},
		{
			// A model that computes 48 ms of CPU per request inside the
			// band (the demo's int8 LLM): its work, not a delayed ACK.
			name: "40 ms of CPU work in the band",
			in:   ClassifyInput{NoGPU: true, ClientP50Ms: 42.5, ClientP99Ms: 47.4, AchievedRPS: 5, TargetMeasured: true, TargetCPUCores: 0.243, TargetCores: 1},
			want: &result.Bottleneck{Class: result.Unknown, Next: NextUnknownCPU, Evidence: []string{
				"no GPU", "target CPU 0.24 of 1 cores: below the 85% that would make it compute-bound on the CPU", "server metrics not scraped"}},
		},
		{
			// A real 40 ms model spreads wider than the band: not Nagle.
			name: "40 ms of work with a tail",
			in:   ClassifyInput{NoGPU: true, ClientP50Ms: 40, ClientP99Ms: 71, TargetMeasured: true, TargetCPUCores: 0.5, TargetCores: 2},
			want: &result.Bottleneck{Class: result.Unknown, Next: NextUnknownCPU, Evidence: []string{
				"no GPU", "target CPU 0.50 of 2 cores: below the 85% that would make it compute-bound on the CPU", "server metrics not scraped"}},
		},
		{
			name: "compute-bound",
			in:   ClassifyInput{GPUs: gpuAt(93, 40), TargetMeasured: true, TargetCPUCores: 1.1, TargetCores: 16},
			want: &result.Bottleneck{Class: result.ComputeBound, Next: NextCompute, Evidence: []string{
				"SM 93% on GPU 0 (NVIDIA H200), memory bandwidth 40%", "threshold: SM ≥ 80%"}},
		},
		{
			name: "bandwidth-bound",
			in:   ClassifyInput{GPUs: gpuAt(31, 88), Server: &result.ServerMs{Queue: 5, Compute: 3}},
			want: &result.Bottleneck{Class: result.BandwidthBound, Next: NextBandwidth, Evidence: []string{
				"memory bandwidth 88%, SM 31% on GPU 0 (NVIDIA H200)",
				"threshold: memory bandwidth ≥ 60% with SM < 50%"}},
		},
		{
			// GPM: a streaming kernel keeps SMs active but its pipes idle.
			name: "bandwidth-bound by pipes",
			in: ClassifyInput{GPUs: []result.GPUStats{{Index: 1, Name: "NVIDIA H200", SMUtilPct: result.Stat{Mean: 97},
				MemBWUtilPct: result.Stat{Mean: 91}, PipeUtilPct: &result.Stat{Mean: 6}}}},
			want: &result.Bottleneck{Class: result.BandwidthBound, Next: NextBandwidth, Evidence: []string{
				"memory bandwidth 91%, SM 97%, pipes 6% on GPU 1 (NVIDIA H200)",
				"threshold: memory bandwidth ≥ 60% with pipes < 50%"}},
		},
		{
			// GPM: a large matrix product also moves memory, but its pipes work.
			name: "compute-bound with busy pipes and memory",
			in: ClassifyInput{GPUs: []result.GPUStats{{Index: 0, Name: "NVIDIA H200", SMUtilPct: result.Stat{Mean: 96},
				MemBWUtilPct: result.Stat{Mean: 64}, PipeUtilPct: &result.Stat{Mean: 72}}}},
			want: &result.Bottleneck{Class: result.ComputeBound, Next: NextCompute, Evidence: []string{
				"SM 96% on GPU 0 (NVIDIA H200), memory bandwidth 64%, pipes 72%", "threshold: SM ≥ 80%"}},
		},
		{
			// Busy memory bus and busy SMs: not bandwidth-bound (SM ≥ 50%),
			// not compute-bound either (SM < 80%).
			name: "bandwidth high but SM middling",
			in:   ClassifyInput{GPUs: gpuAt(65, 75), Server: &result.ServerMs{Queue: 0.2, Compute: 3}},
			want: &result.Bottleneck{Class: result.Unknown, Next: NextUnknown, Evidence: []string{
				"SM 65%, memory bandwidth 75%: below the compute and bandwidth thresholds",
				"target CPU not measured",
				"server queue 0.20 ms, compute 3.00 ms per request; client P50 0.00 ms"}},
		},
		{
			name: "server-side by CPU",
			in:   ClassifyInput{GPUs: gpuAt(20, 10), TargetMeasured: true, TargetCPUCores: 3.5, TargetCores: 4},
			want: &result.Bottleneck{Class: result.ServerSide, Next: NextServer, Evidence: []string{
				"target CPU 3.50 of 4 cores", "threshold: ≥ 85% of its cores"}},
		},
		{
			name: "server-side by queue",
			in: ClassifyInput{NoGPU: true, TargetMeasured: true, TargetCPUCores: 0.4, TargetCores: 4,
				Server: &result.ServerMs{Queue: 2.1, Compute: 1.5, Source: "triton"}, ClientP50Ms: 4},
			want: &result.Bottleneck{Class: result.ServerSide, Next: NextServer, Evidence: []string{
				"server queue 2.10 ms > compute 1.50 ms per request (triton)"}},
		},
		{
			name: "io-bound without GPU",
			in: ClassifyInput{NoGPU: true, TargetMeasured: true, TargetCPUCores: 0.3, TargetCores: 8,
				Server: &result.ServerMs{Queue: 0.1, Compute: 1.9}, ClientP50Ms: 12.5},
			want: &result.Bottleneck{Class: result.IOBound, Next: NextIO, Evidence: []string{
				"client P50 12.5 ms vs server queue+compute 2.00 ms",
				"no GPU, target CPU 0.30 of 8 cores"}},
		},
		{
			name: "io-bound with idle GPU",
			in: ClassifyInput{GPUs: gpuAt(4, 2), TargetMeasured: true, TargetCPUCores: 0.3, TargetCores: 8,
				Server: &result.ServerMs{Queue: 0.1, Compute: 0.9, Source: "vllm"}, ClientP50Ms: 9},
			want: &result.Bottleneck{Class: result.IOBound, Next: NextIO, Evidence: []string{
				"client P50 9.00 ms vs server queue+compute 1.00 ms (vllm)",
				"GPU idle (SM 4%, memory bandwidth 2%), target CPU 0.30 of 8 cores"}},
		},
		{
			// Client time only 1.5× the server's: the time is in the server.
			name: "client close to server time is not io-bound",
			in: ClassifyInput{NoGPU: true, TargetMeasured: true, TargetCPUCores: 0.3, TargetCores: 8,
				Server: &result.ServerMs{Queue: 1, Compute: 3}, ClientP50Ms: 6},
			want: &result.Bottleneck{Class: result.Unknown, Next: NextUnknownCPU, Evidence: []string{
				"no GPU", "target CPU 0.30 of 8 cores: below the 85% that would make it compute-bound on the CPU",
				"server queue 1.00 ms, compute 3.00 ms per request; client P50 6.00 ms"}},
		},
		{
			// No GPU: a CPU model server using its cores is compute-bound
			// on the CPU, whatever its queue, with its cores as evidence.
			name: "compute-bound on CPU",
			in: ClassifyInput{NoGPU: true, TargetMeasured: true, TargetCPUCores: 1.93, TargetCores: 2,
				Server: &result.ServerMs{Queue: 4, Compute: 1.5, Source: "triton"}, ClientP50Ms: 6},
			want: &result.Bottleneck{Class: result.ComputeBound, Next: NextComputeCPU, Evidence: []string{
				"CPU: target CPU 1.93 of its 2 cores, no GPU: the model computes on the CPU",
				"threshold: ≥ 85% of its cores",
				"server queue 4.00 ms, compute 1.50 ms per request (triton)"}},
		},
		{
			// The same CPU figures beside a GPU: CPU work around the model.
			name: "busy CPU beside an idle GPU stays server-side",
			in:   ClassifyInput{GPUs: gpuAt(5, 5), TargetMeasured: true, TargetCPUCores: 1.93, TargetCores: 2},
			want: &result.Bottleneck{Class: result.ServerSide, Next: NextServer, Evidence: []string{
				"target CPU 1.93 of 2 cores", "threshold: ≥ 85% of its cores"}},
		},
		{
			// GPU not sampled (not the same as absent): idle cannot be shown.
			name: "io-bound needs the GPU state",
			in: ClassifyInput{TargetMeasured: true, TargetCPUCores: 0.3, TargetCores: 8,
				Server: &result.ServerMs{Queue: 0.1, Compute: 0.9}, ClientP50Ms: 9},
			want: &result.Bottleneck{Class: result.Unknown, Next: NextUnknown, Evidence: []string{
				"GPU not sampled", "target CPU 0.30 of 8 cores",
				"server queue 0.10 ms, compute 0.90 ms per request; client P50 9.00 ms"}},
		},
		{
			name: "generator-bound by CPU beats compute-bound",
			in:   ClassifyInput{GPUs: gpuAt(95, 20), GeneratorCPUCores: 1.9, GeneratorCores: 2},
			want: &result.Bottleneck{Class: result.GeneratorBound, Next: NextGenerator, Evidence: []string{
				"generator CPU 1.90 of 2 cores (threshold 90%)"}},
		},
		{
			name: "generator-bound by lag",
			in:   ClassifyInput{NoGPU: true, LagP99Ms: 42, ClientP99Ms: 60, GeneratorCPUCores: 0.5, GeneratorCores: 8},
			want: &result.Bottleneck{Class: result.GeneratorBound, Next: NextGenerator, Evidence: []string{
				"schedule lag P99 42.0 ms (threshold 10.0 ms and 50% of the client P99 60.0 ms)"}},
		},
		{
			// The same lag with the generator mostly idle: it was not given
			// a CPU. The machine stalled; perfgate was not the bottleneck.
			name: "lag with an idle generator is a stall, not generator-bound",
			in:   ClassifyInput{NoGPU: true, LagP99Ms: 42, ClientP99Ms: 60, GeneratorCPUCores: 0.5, GeneratorCores: 8, RunQueueMs: 0.07},
			want: &result.Bottleneck{Class: result.Unknown, Next: NextUnknownCPU,
				Evidence: []string{"no GPU", "target CPU not measured", "server metrics not scraped"}},
		},
		{
			// The same lag with the generator idle but its threads queued
			// for a CPU: another process (or the target) crowded it off
			// the cores. It stays generator-bound.
			name: "lag with an idle generator that waited for a CPU",
			in:   ClassifyInput{NoGPU: true, LagP99Ms: 42, ClientP99Ms: 60, GeneratorCPUCores: 0.5, GeneratorCores: 8, RunQueueMs: 2},
			want: &result.Bottleneck{Class: result.GeneratorBound, Next: NextGenerator, Evidence: []string{
				"schedule lag P99 42.0 ms (threshold 10.0 ms and 50% of the client P99 60.0 ms)"}},
		},
		{
			// Lag over the bound but a small part of a long tail: the late
			// sends are timed from their intended time, the figures stand.
			name: "lag small against the tail",
			in:   ClassifyInput{NoGPU: true, LagP99Ms: 12, ClientP99Ms: 300, ClientP50Ms: 100, GeneratorCPUCores: 0.5, GeneratorCores: 8},
			want: &result.Bottleneck{Class: result.Unknown, Next: NextUnknownCPU,
				Evidence: []string{"no GPU", "target CPU not measured", "server metrics not scraped"}},
		},
		{
			// A GPU whose utilization NVML did not report is not evidence.
			name: "unavailable utilization ignored",
			in: ClassifyInput{GPUs: []result.GPUStats{{Index: 0, Name: "A100 MIG", Unavailable: []string{"sm_util_pct", "mem_bw_util_pct"}}},
				TargetMeasured: true, TargetCPUCores: 0.5, TargetCores: 8},
			want: &result.Bottleneck{Class: result.Unknown, Next: NextUnknown, Evidence: []string{
				"GPU not sampled", "target CPU 0.50 of 8 cores", "server metrics not scraped"}},
		},
		{
			name: "nothing measured",
			in:   ClassifyInput{},
			want: &result.Bottleneck{Class: result.Unknown, Next: NextUnknown, Evidence: []string{
				"GPU not sampled", "target CPU not measured", "server metrics not scraped"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classify(tt.in)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Classify(%+v) (-want +got):\n%s", tt.in, d)
			}
		})
	}
}

func TestLine(t *testing.T) {
	b := Classify(ClassifyInput{GPUs: gpuAt(31, 88)})
	got := Line(b)
	want := "bandwidth-bound: memory bandwidth 88%, SM 31% on GPU 0 (NVIDIA H200): batch requests or quantize"
	if got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	if got := Line(nil); got != "" {
		t.Errorf("Line(nil) = %q, want empty", got)
	}
}

func TestAnnotate(t *testing.T) {
	tests := []struct {
		name      string
		tel       *result.Telemetry
		trial     result.Trial
		cores     int
		wantClass string
		wantValid bool
		wantStall bool // invalid as a stall of the machine, host busy
	}{
		{
			name:  "bandwidth-bound stays valid",
			tel:   &result.Telemetry{GPUs: gpuAt(31, 88), TargetProcs: 1, TargetCPUCores: 1, TargetRSSMiB: 900},
			trial: result.Trial{Valid: true, GeneratorCPU: 0.4, Latency: result.Latency{P50: 4}},
			cores: 16, wantClass: result.BandwidthBound, wantValid: true,
		},
		{
			name:  "generator-bound is marked invalid",
			tel:   &result.Telemetry{GPUs: gpuAt(31, 88)},
			trial: result.Trial{Valid: true, GeneratorCPU: 1.95},
			cores: 2, wantClass: result.GeneratorBound, wantValid: false,
		},
		{
			name:  "io-bound from the trial's client P50",
			tel:   &result.Telemetry{NoGPU: true, TargetProcs: 2, TargetCPUCores: 0.2, ServerMs: &result.ServerMs{Queue: 0.1, Compute: 0.4}},
			trial: result.Trial{Valid: true, Latency: result.Latency{P50: 3}},
			cores: 8, wantClass: result.IOBound, wantValid: true,
		},
		{
			// Without telemetry the generator check still runs.
			name:  "no telemetry, lagging generator",
			trial: result.Trial{Valid: true, LagP99Ms: 25},
			cores: 8, wantClass: result.GeneratorBound, wantValid: false,
		},
		{
			// The quiet run's stall on the project's VM: sends 88.8 ms late
			// at P99 while perfgate used 0.04 of 2 cores. The trial is
			// invalid and its host busy; the run is not generator-bound.
			name:  "a stall with the generator idle",
			tel:   &result.Telemetry{NoGPU: true, TargetProcs: 1, TargetCPUCores: 0.3},
			trial: result.Trial{Valid: true, LagP99Ms: 88.8, GeneratorCPU: 0.036, GeneratorRunQueueMs: 0.073, Latency: result.Latency{P50: 3.9, P99: 94.1}},
			cores: 2, wantClass: result.Unknown, wantValid: false, wantStall: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := tt.trial
			Annotate(tt.tel, &tr, tt.cores)
			if tt.tel != nil {
				if got := tt.tel.Bottleneck.Class; got != tt.wantClass {
					t.Errorf("Bottleneck.Class = %q, want %q (%v)", got, tt.wantClass, tt.tel.Bottleneck.Evidence)
				}
			}
			if tr.Valid != tt.wantValid {
				t.Errorf("Valid = %v, want %v", tr.Valid, tt.wantValid)
			}
			prefix := "generator-bound: "
			if tt.wantStall {
				prefix = "the machine stalled: sends were 88.8 ms late at P99"
			}
			if !tt.wantValid && (len(tr.Invalid) != 1 || !strings.HasPrefix(tr.Invalid[0], prefix)) {
				t.Errorf("Invalid = %q, want one reason starting %q", tr.Invalid, prefix)
			}
			if busy := tr.Host != nil && tr.Host.Busy; busy != tt.wantStall {
				t.Errorf("host busy = %v, want %v (%+v)", busy, tt.wantStall, tr.Host)
			}
		})
	}
}
