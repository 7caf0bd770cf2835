package refserver

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Failure reasons, as Triton labels nv_inference_request_failure.
const (
	reasonRejected = "REJECTED" // the queue was full
	reasonCanceled = "CANCELED" // the client went away first
	reasonBackend  = "BACKEND"  // the model failed
	reasonOther    = "OTHER"    // a bad request
)

// tritonMetrics are the KServe model's metrics under Triton's names, so
// dashboards and perfgate's telemetry read the fixture like a Triton
// server. Durations are cumulative microseconds, as Triton exports them:
// the mean over an interval is Δduration / Δsuccess.
type tritonMetrics struct {
	success   *prometheus.CounterVec   // nv_inference_request_success
	failure   *prometheus.CounterVec   // nv_inference_request_failure{reason}
	count     *prometheus.CounterVec   // nv_inference_count: items inferred
	execCount *prometheus.CounterVec   // nv_inference_exec_count: batches run
	requestUS *prometheus.CounterVec   // nv_inference_request_duration_us
	queueUS   *prometheus.CounterVec   // nv_inference_queue_duration_us
	computeUS *prometheus.CounterVec   // nv_inference_compute_infer_duration_us
	inputUS   *prometheus.CounterVec   // nv_inference_compute_input_duration_us
	outputUS  *prometheus.CounterVec   // nv_inference_compute_output_duration_us
	batchSize *prometheus.HistogramVec // nv_inference_batch_size (perfgate's addition)
	cacheHits *prometheus.CounterVec   // nv_cache_num_hits_per_model
	cacheMiss *prometheus.CounterVec   // nv_cache_num_misses_per_model
}

func newTritonMetrics(reg prometheus.Registerer) *tritonMetrics {
	labels := []string{"model", "version"}
	counter := func(name, help string, extra ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, append(labels, extra...))
		reg.MustRegister(c)
		return c
	}
	m := &tritonMetrics{
		success:   counter("nv_inference_request_success", "Number of successful inference requests, all batch sizes"),
		failure:   counter("nv_inference_request_failure", "Number of failed inference requests, all batch sizes", "reason"),
		count:     counter("nv_inference_count", "Number of inferences performed (a request of batch n counts n)"),
		execCount: counter("nv_inference_exec_count", "Number of model executions performed (one per batch)"),
		requestUS: counter("nv_inference_request_duration_us", "Cumulative inference request duration in microseconds"),
		queueUS:   counter("nv_inference_queue_duration_us", "Cumulative inference queuing duration in microseconds"),
		computeUS: counter("nv_inference_compute_infer_duration_us", "Cumulative compute inference duration in microseconds"),
		inputUS:   counter("nv_inference_compute_input_duration_us", "Cumulative input decoding duration in microseconds"),
		outputUS:  counter("nv_inference_compute_output_duration_us", "Cumulative output encoding duration in microseconds"),
		cacheHits: counter("nv_cache_num_hits_per_model", "Number of response cache hits per model"),
		cacheMiss: counter("nv_cache_num_misses_per_model", "Number of response cache misses per model"),
	}
	m.batchSize = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "nv_inference_batch_size",
		Help:    "Items per model execution (dynamic batching)",
		Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128},
	}, labels)
	reg.MustRegister(m.batchSize)
	return m
}

// vllmMetrics are the LLM's metrics under vLLM's names, labelled
// model_name as vLLM does.
type vllmMetrics struct {
	running    prometheus.Gauge       // vllm:num_requests_running
	waiting    prometheus.Gauge       // vllm:num_requests_waiting
	ttft       prometheus.Observer    // vllm:time_to_first_token_seconds
	tpot       prometheus.Observer    // vllm:time_per_output_token_seconds
	e2e        prometheus.Observer    // vllm:e2e_request_latency_seconds
	genTokens  prometheus.Counter     // vllm:generation_tokens_total
	promptToks prometheus.Counter     // vllm:prompt_tokens_total
	success    *prometheus.CounterVec // vllm:request_success_total{finished_reason}
	iterTokens prometheus.Observer    // vllm:iteration_tokens_total: tokens per engine step
}

func newVLLMMetrics(reg prometheus.Registerer, model string) *vllmMetrics {
	cl := prometheus.Labels{"model_name": model}
	gauge := func(name, help string) prometheus.Gauge {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: cl})
		reg.MustRegister(g)
		return g
	}
	counter := func(name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: cl})
		reg.MustRegister(c)
		return c
	}
	hist := func(name, help string, buckets []float64) prometheus.Observer {
		h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, ConstLabels: cl, Buckets: buckets})
		reg.MustRegister(h)
		return h
	}
	lat := []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}
	m := &vllmMetrics{
		running:    gauge("vllm:num_requests_running", "Number of requests currently running (decoding)"),
		waiting:    gauge("vllm:num_requests_waiting", "Number of requests waiting to be scheduled"),
		ttft:       hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds", lat),
		tpot:       hist("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds", lat),
		e2e:        hist("vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds", lat),
		genTokens:  counter("vllm:generation_tokens_total", "Number of generation tokens processed"),
		promptToks: counter("vllm:prompt_tokens_total", "Number of prefill tokens processed"),
		iterTokens: hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step",
			[]float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}),
	}
	m.success = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vllm:request_success_total",
		Help: "Count of successfully processed requests", ConstLabels: cl}, []string{"finished_reason"})
	reg.MustRegister(m.success)
	return m
}
