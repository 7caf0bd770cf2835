package telemetry

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/result"
)

// Next steps the method suggests for each class.
const (
	NextCompute    = "lower precision (fp16/int8/fp8), fuse or compile kernels (TensorRT, torch.compile), or add GPUs"
	NextBandwidth  = "batch requests or quantize"
	NextServer     = "tune batching and concurrency (dynamic batching, more model instances or workers) and take CPU work off the request path"
	NextIO         = "use a binary protocol (gRPC/protobuf), keep connections alive and shrink payloads"
	NextGenerator  = "the run is invalid: give perfgate more cores, lower the offered load or shard the generator"
	NextComputeCPU = "quantize (int8), batch requests so the CPU's vector units stay full, give the server more cores, or move the model to a GPU"
	NextUnknown    = "measure more: expose the server's metrics (metrics: URL) and run where NVML sees the GPU"
	// NextUnknownCPU is NextUnknown for a service NVML found no GPU
	// beside: a CPU-only service is not told to look for a GPU.
	NextUnknownCPU = "measure more: expose the server's metrics (metrics: URL) for its queue and compute time per request, and raise the load until its cores or its queue fill"
)

// ClassifyInput is everything Classify weighs: what the Collector sampled
// and the client-side figures of the same window. A zero count of cores
// means unknown, and a rule that needs it is skipped.
type ClassifyInput struct {
	// GPUs are the window's GPU summaries; NoGPU says NVML found none.
	GPUs  []result.GPUStats
	NoGPU bool
	// TargetCPUCores is the target's CPU use; TargetCores the cores it may
	// use. TargetMeasured says TargetCPUCores was measured (0 is a value).
	TargetCPUCores float64
	TargetCores    int
	TargetMeasured bool
	// Server is the server's own time per request, nil when not scraped.
	Server *result.ServerMs
	// ClientP50Ms is the client-side median latency; ClientP99Ms its P99.
	ClientP50Ms float64
	ClientP99Ms float64
	// AchievedRPS is the window's completed requests per second: with
	// TargetCPUCores it gives the target's CPU time per request.
	AchievedRPS float64
	// GeneratorCPUCores is perfgate's own CPU use; GeneratorCores the cores
	// it may use. LagP99Ms is its schedule lag at P99 (open loop).
	// RunQueueMs is the mean time its threads waited in the kernel's run
	// queue each time they ran (0: not measured).
	GeneratorCPUCores float64
	GeneratorCores    int
	LagP99Ms          float64
	RunQueueMs        float64
}

// Classify names the bottleneck of one window by the rules in the package
// documentation, with the numbers that decided it as evidence. It never
// returns nil.
func Classify(in ClassifyInput) *result.Bottleneck {
	if b := generatorBound(in); b != nil {
		return b
	}
	gpus := usable(in.GPUs)
	for _, g := range gpus {
		busy, what := busyFigure(g)
		if g.MemBWUtilPct.Mean >= BandwidthMemPct && busy < BandwidthMaxSMPct {
			return &result.Bottleneck{Class: result.BandwidthBound, Next: NextBandwidth, Evidence: []string{
				fmt.Sprintf("memory bandwidth %s, SM %s%s on GPU %d (%s)",
					pct(g.MemBWUtilPct.Mean), pct(g.SMUtilPct.Mean), pipes(g), g.Index, g.Name),
				fmt.Sprintf("threshold: memory bandwidth ≥ %s with %s < %s", pct(BandwidthMemPct), what, pct(BandwidthMaxSMPct)),
			}}
		}
	}
	for _, g := range gpus {
		if g.SMUtilPct.Mean >= ComputeSMPct {
			return &result.Bottleneck{Class: result.ComputeBound, Next: NextCompute, Evidence: []string{
				fmt.Sprintf("SM %s on GPU %d (%s), memory bandwidth %s%s",
					pct(g.SMUtilPct.Mean), g.Index, g.Name, pct(g.MemBWUtilPct.Mean), pipes(g)),
				fmt.Sprintf("threshold: SM ≥ %s", pct(ComputeSMPct)),
			}}
		}
	}
	if b := computeBoundOnCPU(in); b != nil {
		return b
	}
	if in.TargetMeasured && in.TargetCores > 0 && in.TargetCPUCores >= ServerCPUFraction*float64(in.TargetCores) {
		return &result.Bottleneck{Class: result.ServerSide, Next: NextServer, Evidence: []string{
			fmt.Sprintf("target CPU %.2f of %d cores", in.TargetCPUCores, in.TargetCores),
			fmt.Sprintf("threshold: ≥ %s of its cores", pct(100*ServerCPUFraction)),
		}}
	}
	if s := in.Server; s != nil && s.Queue > s.Compute {
		return &result.Bottleneck{Class: result.ServerSide, Next: NextServer, Evidence: []string{
			fmt.Sprintf("server queue %s > compute %s per request%s", ms(s.Queue), ms(s.Compute), source(s)),
		}}
	}
	if b := ioBound(in, gpus); b != nil {
		return b
	}
	if b := nagleBound(in); b != nil {
		return b
	}
	return unknown(in, gpus)
}

// The delayed-ACK band: Linux acknowledges a lone segment after 40 ms at
// the least (TCP_DELACK_MIN), so a server that writes a response in two
// pieces with Nagle's algorithm on (no TCP_NODELAY) holds the second piece
// until that ACK, and every request takes about 40 ms whatever its work.
const (
	NagleBandLowMs  = 36.0
	NagleBandHighMs = 48.0
	NextNagle       = "set TCP_NODELAY on the server's sockets, or write each response's headers and body in one write (Python http.server: buffer the response, or set wbufsize)"
)

// nagleBound recognises the signature of Nagle's algorithm meeting delayed
// ACKs: P50 and P99 both inside the 36–48 ms band, so nearly every
// request waited for one delayed acknowledgement. Real work of that size
// spreads wider; a band this narrow at 40 ms is the transport's timer.
//
// A server that computes for most of each request is not waiting on a
// timer: when the target's CPU time per request (its CPU cores over the
// achieved rate) is at least half the median latency, a narrow band near
// 40 ms is its work (the demo's int8 LLM, P50 42 ms at 0.24 cores and
// 5 requests/s), and the rule does not fire.
func nagleBound(in ClassifyInput) *result.Bottleneck {
	if in.ClientP50Ms < NagleBandLowMs || in.ClientP99Ms > NagleBandHighMs || in.ClientP99Ms < in.ClientP50Ms {
		return nil
	}
	if in.TargetMeasured && in.AchievedRPS > 0 && 1000*in.TargetCPUCores/in.AchievedRPS >= 0.5*in.ClientP50Ms {
		return nil
	}
	return &result.Bottleneck{Class: result.IOBound, Next: NextNagle, Evidence: []string{
		fmt.Sprintf("every latency sits near 40 ms (P50 %s, P99 %s, inside %s–%s): the signature of Nagle's algorithm meeting delayed ACKs on a server that writes headers and body separately",
			ms(in.ClientP50Ms), ms(in.ClientP99Ms), ms(NagleBandLowMs), ms(NagleBandHighMs)),
	}}
}

// computeBoundOnCPU applies rule 4a: without a GPU the target's model
// computes on its CPU, so a target using ServerCPUFraction of its cores is
// compute-bound on the CPU; its cores are the evidence.
func computeBoundOnCPU(in ClassifyInput) *result.Bottleneck {
	if !in.NoGPU || !in.TargetMeasured || in.TargetCores <= 0 || in.TargetCPUCores < ServerCPUFraction*float64(in.TargetCores) {
		return nil
	}
	ev := []string{
		fmt.Sprintf("CPU: target CPU %.2f of its %d cores, no GPU: the model computes on the CPU", in.TargetCPUCores, in.TargetCores),
		fmt.Sprintf("threshold: ≥ %s of its cores", pct(100*ServerCPUFraction)),
	}
	if s := in.Server; s != nil {
		ev = append(ev, fmt.Sprintf("server queue %s, compute %s per request%s", ms(s.Queue), ms(s.Compute), source(s)))
	}
	return &result.Bottleneck{Class: result.ComputeBound, Next: NextComputeCPU, Evidence: ev}
}

// generatorBound applies rule 1.
func generatorBound(in ClassifyInput) *result.Bottleneck {
	var ev []string
	if in.GeneratorCores > 0 && in.GeneratorCPUCores >= GeneratorCPUFraction*float64(in.GeneratorCores) {
		ev = append(ev, fmt.Sprintf("generator CPU %.2f of %d cores (threshold %s)",
			in.GeneratorCPUCores, in.GeneratorCores, pct(100*GeneratorCPUFraction)))
	}
	// Late sends are timed from their intended time, so lag alone does not
	// falsify the figures; it does when it makes up much of the measured
	// tail (or the tail is unknown), and it is the generator's doing unless
	// the machine stalled (Stalled: the generator idle and not queued for
	// a CPU; where its cores or its run-queue wait are unknown, it is).
	if lagged(in) && !Stalled(in) {
		ev = append(ev, fmt.Sprintf("schedule lag P99 %s (threshold %s and %s of the client P99 %s)",
			ms(in.LagP99Ms), ms(MaxScheduleLagP99Ms), pct(100*MaxLagShareOfP99), ms(in.ClientP99Ms)))
	}
	if ev == nil {
		return nil
	}
	return &result.Bottleneck{Class: result.GeneratorBound, Next: NextGenerator, Evidence: ev}
}

// lagged reports whether the sends' lateness makes up much of the tail.
func lagged(in ClassifyInput) bool {
	return in.LagP99Ms > MaxScheduleLagP99Ms && (in.ClientP99Ms <= 0 || in.LagP99Ms > MaxLagShareOfP99*in.ClientP99Ms)
}

// Stalled reports whether a trial's sends were late (as generatorBound
// reads lag) while the generator used less than LagBusyFraction of its
// cores: it was ready but not given a CPU, so the machine stalled, and
// perfgate was not the bottleneck: a hypervisor pause, which, read as
// generator-bound, would throw away the whole run
// (bench/RESULTS-rules.md#telemetrystalled).
//
// The generator's threads must also have waited next to nothing in the
// kernel's run queue (RunQueueMs, measured: above 0 and under
// StallRunQueueMs a time they ran): a pause of the whole machine stops
// the guest's clock for everyone and leaves no queue, as in quiet
// trials, whereas a generator crowded off the cores by
// another process, or by the target itself, waits in the queue, and
// that lag stays generator-bound.
func Stalled(in ClassifyInput) bool {
	if !lagged(in) || in.GeneratorCores <= 0 || !(in.RunQueueMs > 0 && in.RunQueueMs < StallRunQueueMs) {
		return false
	}
	return in.GeneratorCPUCores < LagBusyFraction*float64(in.GeneratorCores)
}

// ioBound applies rule 5.
func ioBound(in ClassifyInput, gpus []result.GPUStats) *result.Bottleneck {
	s := in.Server
	if s == nil || in.ClientP50Ms <= 0 || !in.TargetMeasured || in.TargetCores <= 0 {
		return nil
	}
	if !in.NoGPU && len(gpus) == 0 {
		return nil // GPU state unknown: cannot call it idle
	}
	for _, g := range gpus {
		if g.SMUtilPct.Mean >= IdleGPUPct || g.MemBWUtilPct.Mean >= IdleGPUPct {
			return nil
		}
	}
	if in.TargetCPUCores >= IdleCPUFraction*float64(in.TargetCores) {
		return nil
	}
	server := s.Queue + s.Compute
	if in.ClientP50Ms <= IOClientFactor*server {
		return nil
	}
	gpu := "no GPU"
	if len(gpus) > 0 {
		gpu = fmt.Sprintf("GPU idle (SM %s, memory bandwidth %s)", pct(maxSM(gpus)), pct(maxBW(gpus)))
	}
	return &result.Bottleneck{Class: result.IOBound, Next: NextIO, Evidence: []string{
		fmt.Sprintf("client P50 %s vs server queue+compute %s%s", ms(in.ClientP50Ms), ms(server), source(s)),
		fmt.Sprintf("%s, target CPU %.2f of %d cores", gpu, in.TargetCPUCores, in.TargetCores),
	}}
}

// unknown explains what was seen when no rule held.
func unknown(in ClassifyInput, gpus []result.GPUStats) *result.Bottleneck {
	var ev []string
	switch {
	case len(gpus) > 0:
		ev = append(ev, fmt.Sprintf("SM %s, memory bandwidth %s: below the compute and bandwidth thresholds",
			pct(maxSM(gpus)), pct(maxBW(gpus))))
	case in.NoGPU:
		ev = append(ev, "no GPU")
	default:
		ev = append(ev, "GPU not sampled")
	}
	if in.TargetMeasured {
		cores := "unknown cores"
		if in.TargetCores > 0 {
			cores = fmt.Sprintf("%d cores", in.TargetCores)
		}
		line := fmt.Sprintf("target CPU %.2f of %s", in.TargetCPUCores, cores)
		if in.NoGPU && in.TargetCores > 0 {
			line += fmt.Sprintf(": below the %s that would make it compute-bound on the CPU", pct(100*ServerCPUFraction))
		}
		ev = append(ev, line)
	} else {
		ev = append(ev, "target CPU not measured")
	}
	if s := in.Server; s != nil {
		ev = append(ev, fmt.Sprintf("server queue %s, compute %s per request%s; client P50 %s",
			ms(s.Queue), ms(s.Compute), source(s), ms(in.ClientP50Ms)))
	} else {
		ev = append(ev, "server metrics not scraped")
	}
	next := NextUnknown
	if in.NoGPU {
		next = NextUnknownCPU
	}
	return &result.Bottleneck{Class: result.Unknown, Next: next, Evidence: ev}
}

// busyFigure is what the bandwidth rule compares with BandwidthMaxSMPct:
// the busiest arithmetic pipe where GPM measured it (a streaming kernel
// keeps its SMs active while its pipes idle), else SM utilization.
func busyFigure(g result.GPUStats) (float64, string) {
	if g.PipeUtilPct != nil {
		return g.PipeUtilPct.Mean, "pipes"
	}
	return g.SMUtilPct.Mean, "SM"
}

// pipes renders the pipe utilization when there is one.
func pipes(g result.GPUStats) string {
	if g.PipeUtilPct == nil {
		return ""
	}
	return ", pipes " + pct(g.PipeUtilPct.Mean)
}

// usable keeps the GPUs whose utilization figures were measured.
func usable(gpus []result.GPUStats) []result.GPUStats {
	var out []result.GPUStats
	for _, g := range gpus {
		if !missing(g, "sm_util_pct") && !missing(g, "mem_bw_util_pct") {
			out = append(out, g)
		}
	}
	return out
}

func missing(g result.GPUStats, field string) bool {
	for _, u := range g.Unavailable {
		if u == field {
			return true
		}
	}
	return false
}

func maxSM(gpus []result.GPUStats) float64 {
	m := 0.0
	for _, g := range gpus {
		m = max(m, g.SMUtilPct.Mean)
	}
	return m
}

func maxBW(gpus []result.GPUStats) float64 {
	m := 0.0
	for _, g := range gpus {
		m = max(m, g.MemBWUtilPct.Mean)
	}
	return m
}

func pct(v float64) string { return fmt.Sprintf("%.0f%%", v) }

func ms(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.2f ms", v)
	}
	return fmt.Sprintf("%.1f ms", v)
}

func source(s *result.ServerMs) string {
	if s.Source == "" {
		return ""
	}
	return " (" + s.Source + ")"
}

// Line renders a bottleneck as the one line reports print:
// "bandwidth-bound: memory bandwidth 88%, SM 31% on GPU 0 (…): batch
// requests or quantize". It returns "" for nil.
func Line(b *result.Bottleneck) string {
	if b == nil {
		return ""
	}
	s := b.Class
	if len(b.Evidence) > 0 {
		s += ": " + b.Evidence[0]
	}
	if b.Next != "" {
		s += ": " + b.Next
	}
	return s
}

// Annotate classifies one trial: it runs Classify with t's samples and the
// trial's client P50, generator CPU and schedule lag, and stores the class
// in t.Bottleneck. cores is the number of cores on the host, taken as
// available to both the generator and the target. A generator-bound trial
// is marked invalid (tr.Valid false, the reason appended to tr.Invalid):
// it measured perfgate, not the target. t may be nil (nothing sampled);
// the generator check still applies.
func Annotate(t *result.Telemetry, tr *result.Trial, cores int) {
	AnnotateCores(t, tr, cores, cores)
}

// AnnotateCores is Annotate with the cores available to the generator and
// to the target given apart (a target limited by GOMAXPROCS or a CPU set
// saturates at its own count, not the host's).
func AnnotateCores(t *result.Telemetry, tr *result.Trial, generatorCores, targetCores int) {
	if tr == nil {
		return
	}
	in := ClassifyInput{
		ClientP50Ms:       tr.Latency.P50,
		ClientP99Ms:       tr.Latency.P99,
		AchievedRPS:       tr.AchievedRPS,
		GeneratorCPUCores: tr.GeneratorCPU,
		GeneratorCores:    generatorCores,
		LagP99Ms:          tr.LagP99Ms,
		RunQueueMs:        tr.GeneratorRunQueueMs,
		TargetCores:       targetCores,
	}
	if t != nil {
		in.GPUs, in.NoGPU, in.Server = t.GPUs, t.NoGPU, t.ServerMs
		in.TargetCPUCores, in.TargetMeasured = t.TargetCPUCores, t.TargetProcs > 0
	}
	b := Classify(in)
	if t != nil {
		t.Bottleneck = b
	}
	if b.Class == result.GeneratorBound {
		tr.Valid = false
		tr.Invalid = append(tr.Invalid, Line(b))
	} else if why, ok := StallOf(tr, generatorCores); ok {
		tr.Valid = false
		tr.Invalid = append(tr.Invalid, why+": this trial's figures hold the stall; the others stand")
		tr.Host = WithBusy(tr.Host, why)
	}
}

// StallOf reports whether trial tr's sends were late while the generator,
// with generatorCores cores, sat mostly idle (Stalled), and says so.
func StallOf(tr *result.Trial, generatorCores int) (why string, ok bool) {
	in := ClassifyInput{ClientP99Ms: tr.Latency.P99, LagP99Ms: tr.LagP99Ms,
		GeneratorCPUCores: tr.GeneratorCPU, GeneratorCores: generatorCores, RunQueueMs: tr.GeneratorRunQueueMs}
	if !Stalled(in) {
		return "", false
	}
	return fmt.Sprintf("the machine stalled: sends were %s late at P99 (client P99 %s) while the generator used only %.2f of %d cores, so it was not given a CPU",
		ms(in.LagP99Ms), ms(in.ClientP99Ms), in.GeneratorCPUCores, in.GeneratorCores), true
}

// WithBusy returns a copy of h (nil: an empty load) marked busy, why
// added to its reasons.
func WithBusy(h *result.HostLoad, why string) *result.HostLoad {
	out := result.HostLoad{}
	if h != nil {
		out = *h
	}
	out.Busy = true
	out.Why = strings.TrimPrefix(out.Why+"; "+why, "; ")
	return &out
}
