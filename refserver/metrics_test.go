package refserver

import (
	"net/http"
	"slices"
	"testing"
	"time"
)

// TestMetricsCountRequests sends known traffic and reads /metrics back
// through the Prometheus text parser: every counter matches what was sent.
func TestMetricsCountRequests(t *testing.T) {
	_, hs := newTestServer(t, Options{Model: ModelSim, SimFixed: time.Millisecond, SimPerItem: time.Millisecond,
		LLMStep: time.Millisecond})
	c := hs.Client()
	const ok, items = 4, 2 // four requests of batch 2
	for i := 0; i < ok; i++ {
		inferHTTP(t, c, hs.URL, "mlp", inferRequest(uint64(i), items, 64))
	}
	if code, _, _ := postJSON(t, c, hs.URL+"/v2/models/mlp/infer", map[string]any{"inputs": []any{}}); code != http.StatusBadRequest {
		t.Fatalf("bad request: status %d", code)
	}
	const llmReqs, tokens = 3, 4
	for i := 0; i < llmReqs; i++ {
		streamCompletion(t, c, hs.URL, "/v1/completions",
			map[string]any{"model": NameSimLLM, "prompt": "five words in this prompt", "max_tokens": tokens})
	}
	mf := scrape(t, hs.URL)
	l := []string{"model", NameSim, "version", "1"}
	sim := []string{"model_name", NameSimLLM}
	tests := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"nv_inference_request_success", l, ok},
		{"nv_inference_request_failure", append(l, "reason", reasonOther), 1},
		{"nv_inference_count", l, ok * items},
		{"nv_inference_exec_count", l, ok}, // sequential: one batch each
		{"nv_inference_batch_size", l, ok},
		{"nv_inference_pending_request_count", l, 0},
		{"vllm:generation_tokens_total", sim, llmReqs * tokens},
		{"vllm:prompt_tokens_total", sim, llmReqs * 5},
		{"vllm:time_to_first_token_seconds", sim, llmReqs},
		{"vllm:e2e_request_latency_seconds", sim, llmReqs},
		{"vllm:request_success_total", append(sim, "finished_reason", "length"), llmReqs},
		{"vllm:num_requests_running", sim, 0},
		{"vllm:num_requests_waiting", sim, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := metricValue(t, mf, tt.name, tt.labels...); got != tt.want {
				t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
			}
		})
	}
	// Each sim batch of 2 computes for 1ms + 2 × 1ms: at least 3ms each.
	if got := metricValue(t, mf, "nv_inference_compute_infer_duration_us", l...); got < ok*3000 {
		t.Errorf("nv_inference_compute_infer_duration_us = %v, want ≥ %d", got, ok*3000)
	}
	req := metricValue(t, mf, "nv_inference_request_duration_us", l...)
	comp := metricValue(t, mf, "nv_inference_compute_infer_duration_us", l...)
	queue := metricValue(t, mf, "nv_inference_queue_duration_us", l...)
	if req < comp+queue {
		t.Errorf("request duration %vµs < queue %vµs + compute %vµs", req, queue, comp)
	}
}

// TestSimTiming checks the cost model's exact expectation, loosely bounded
// above for a busy machine: a batch of n takes fixed + n × per item, halved
// in int8.
func TestSimTiming(t *testing.T) {
	tests := []struct {
		name      string
		precision string
		batch     int
		want      time.Duration
	}{
		{name: "fp32 batch 1", precision: "fp32", batch: 1, want: 50 * time.Millisecond},
		{name: "fp32 batch 4", precision: "fp32", batch: 4, want: 80 * time.Millisecond},
		{name: "int8 batch 4", precision: "int8", batch: 4, want: 40 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, hs := newTestServer(t, Options{Model: ModelSim, Precision: tt.precision,
				SimFixed: 40 * time.Millisecond, SimPerItem: 10 * time.Millisecond})
			start := time.Now()
			resp, h := inferHTTP(t, hs.Client(), hs.URL, "mlp", inferRequest(1, tt.batch, 64))
			took := time.Since(start)
			if took < tt.want || took > tt.want+150*time.Millisecond {
				t.Errorf("request took %v, want %v (+ up to 150ms)", took, tt.want)
			}
			if resp.Parameters["simulated"] != true || h.Get(SimulatedHeader) != "1" {
				t.Errorf("parameters %v, header %q: want simulated declared", resp.Parameters, h.Get(SimulatedHeader))
			}
			// Outputs are the item's input sum plus the output index.
			var sum float32
			for _, v := range inferRequest(1, tt.batch, 64).Inputs[0].Data.Float[:64] {
				sum += float32(v)
			}
			if got := resp.Outputs[0].Data.Float[3]; float32(got) != sum+3 {
				t.Errorf("output[0][3] = %v, want %v", got, sum+3)
			}
			mf := scrape(t, hs.URL)
			comp := time.Duration(metricValue(t, mf, "nv_inference_compute_infer_duration_us")) * time.Microsecond
			if comp < tt.want || comp > tt.want+100*time.Millisecond {
				t.Errorf("compute duration %v, want %v (+ up to 100ms)", comp, tt.want)
			}
		})
	}
}

// TestComputeCountersFollowCPU: with --sim-cpu the Triton compute counter
// (nv_inference_compute_infer_duration_us over nv_inference_request_success,
// as perfgate's telemetry reads it into server_ms.compute) is the time the
// server really spent computing: a model of twice the CPU a request shows
// about twice the compute time per request, neither less than the CPU it
// burned nor counted twice. The counter is wall time, as Triton's is: a
// request preempted by the host's other work (a CI's other packages)
// reads its wait too, so each request's increment is read and the
// least of eleven, the one that ran unpreempted, is what follows the CPU.
// The costs fit in one scheduler slice, so that beside CPU hogs some
// request still runs unpreempted; a longer one waits for its next slice
// every time.
func TestComputeCountersFollowCPU(t *testing.T) {
	costs := []time.Duration{time.Millisecond, 2 * time.Millisecond}
	var urls []string
	for _, c := range costs {
		_, hs := newTestServer(t, Options{Model: ModelSim, SimCPU: true, SimFixed: c, SimPerItem: time.Microsecond})
		urls = append(urls, hs.URL)
	}
	c := http.DefaultClient
	l := []string{"model", NameSim, "version", "1"}
	const n = 11
	prev := make([]float64, len(urls))   // the counter's last value, µs
	each := make([][]float64, len(urls)) // each request's increment, ms
	for i := range n {
		for k, u := range urls {
			inferHTTP(t, c, u, "mlp", inferRequest(uint64(i), 1, 64))
			v := metricValue(t, scrape(t, u), "nv_inference_compute_infer_duration_us", l...)
			each[k] = append(each[k], (v-prev[k])/1000)
			prev[k] = v
		}
	}
	perReq := make([]float64, len(urls)) // the least request's compute, ms
	for k, u := range urls {
		if ok := metricValue(t, scrape(t, u), "nv_inference_request_success", l...); ok != n {
			t.Fatalf("%v model: %v successes, want %d", costs[k], ok, n)
		}
		perReq[k] = slices.Min(each[k])
		if want := 0.8 * float64(costs[k]) / float64(time.Millisecond); perReq[k] < want {
			t.Errorf("%v model: compute %.3g ms the least request (%.3g), want at least %.3g", costs[k], perReq[k], each[k], want)
		}
	}
	ratio := perReq[1] / perReq[0]
	t.Logf("compute per request (least of %d): %.3g ms and %.3g ms (×%.2f)", n, perReq[0], perReq[1], ratio)
	if ratio < 1.4 || ratio > 3 {
		t.Errorf("twice the CPU a request moved the compute counter ×%.2f (%.3g → %.3g ms; each request: %.3g and %.3g), want about ×2",
			ratio, perReq[0], perReq[1], each[0], each[1])
	}
}
