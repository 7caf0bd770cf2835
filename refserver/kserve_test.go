package refserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/perfgate/perfgate/kserve"
	"github.com/perfgate/perfgate/kservepb"
	"github.com/perfgate/perfgate/refserver/mlp"
)

// TestMLPOverHTTPAndGRPC runs the real MLP through both protocols: same
// input, same output; a batch of 3 answers with shape [3, 10].
func TestMLPOverHTTPAndGRPC(t *testing.T) {
	srv, hs := newTestServer(t, Options{Seed: 7})
	gc, _, _ := startGRPC(t, srv)
	req := inferRequest(1, 3, mlp.DefaultIn)
	hr, h := inferHTTP(t, hs.Client(), hs.URL, "mlp", req)
	gr := inferGRPC(t, gc, "mlp", req)
	if got := h.Get(SimulatedHeader); got != "" {
		t.Errorf("real model: %s = %q, want none", SimulatedHeader, got)
	}
	if d := cmp.Diff([]int64{3, mlp.DefaultOut}, hr.Outputs[0].Shape); d != "" {
		t.Errorf("output shape (-want +got):\n%s", d)
	}
	if d := cmp.Diff(hr.Outputs, gr.Outputs, cmpopts.EquateApprox(0, 1e-6)); d != "" {
		t.Errorf("HTTP and gRPC outputs differ (-http +grpc):\n%s", d)
	}
	allZero := true
	for _, v := range hr.Outputs[0].Data.Float {
		allZero = allZero && v == 0
	}
	if allZero {
		t.Errorf("outputs are all zero: the model computed nothing")
	}
}

func TestHealthAndMetadata(t *testing.T) {
	srv, hs := newTestServer(t, Options{Model: ModelSim})
	gc, _, _ := startGRPC(t, srv)
	tests := []struct {
		name string
		path string
		want int
	}{
		{name: "live", path: "/v2/health/live", want: http.StatusOK},
		{name: "ready", path: "/v2/health/ready", want: http.StatusOK},
		{name: "server metadata", path: "/v2", want: http.StatusOK},
		{name: "model by alias", path: "/v2/models/mlp", want: http.StatusOK},
		{name: "model by own name", path: "/v2/models/mlp-sim", want: http.StatusOK},
		{name: "model version", path: "/v2/models/mlp/versions/1", want: http.StatusOK},
		{name: "model ready", path: "/v2/models/mlp/ready", want: http.StatusOK},
		{name: "unknown model", path: "/v2/models/resnet", want: http.StatusNotFound},
		{name: "unknown version", path: "/v2/models/mlp/versions/2", want: http.StatusNotFound},
		{name: "llm models", path: "/v1/models", want: http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := hs.Client().Get(hs.URL + tt.path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("GET %s = %d, want %d", tt.path, resp.StatusCode, tt.want)
			}
		})
	}
	resp, err := hs.Client().Get(hs.URL + "/v2/models/mlp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var md metadataJSON
	if err := json.NewDecoder(resp.Body).Decode(&md); err != nil {
		t.Fatal(err)
	}
	if md.Name != NameSim || md.Parameters["simulated"] != true || resp.Header.Get(SimulatedHeader) != "1" {
		t.Errorf("sim metadata = %+v %v (header %q): want name %s, simulated declared", md.ModelMetadata, md.Parameters,
			resp.Header.Get(SimulatedHeader), NameSim)
	}
	if d := cmp.Diff([]int64{-1, mlp.DefaultIn}, md.Inputs[0].Shape); d != "" {
		t.Errorf("input shape (-want +got):\n%s", d)
	}
	var hdr metadata.MD
	ctx := context.Background()
	gm, err := gc.ModelMetadata(ctx, &kservepb.ModelMetadataRequest{Name: "mlp"}, grpcHeader(&hdr))
	if err != nil {
		t.Fatal(err)
	}
	if gm.Name != NameSim || len(hdr.Get(SimulatedHeader)) == 0 {
		t.Errorf("gRPC metadata = %v, header %v: want %s, simulated declared", gm, hdr, NameSim)
	}
	live, err := gc.ServerLive(ctx, &kservepb.ServerLiveRequest{})
	if err != nil || !live.Live {
		t.Errorf("ServerLive = %v, %v", live, err)
	}
	if _, err := gc.ModelReady(ctx, &kservepb.ModelReadyRequest{Name: "nope"}); status.Code(err) != codes.NotFound {
		t.Errorf("ModelReady(nope) = %v, want NotFound", err)
	}
}

// TestBadRequests checks each malformed request gets 400 and is counted as
// a failure, not a success.
func TestBadRequests(t *testing.T) {
	_, hs := newTestServer(t, Options{Model: ModelSim, SimFixed: time.Microsecond, SimPerItem: time.Microsecond})
	tests := []struct {
		name string
		body any
	}{
		{name: "no inputs", body: map[string]any{"inputs": []any{}}},
		{name: "wrong size", body: inferRequest(1, 1, 63)},
		{name: "integer datatype", body: map[string]any{"inputs": []any{map[string]any{
			"name": "input", "datatype": "INT32", "shape": []int{1, 64}, "data": make([]int, 64)}}}},
		{name: "shape disagrees with data", body: map[string]any{"inputs": []any{map[string]any{
			"name": "input", "datatype": "FP32", "shape": []int{2, 64}, "data": make([]float32, 64)}}}},
		{name: "unknown output", body: &kserve.InferRequest{Inputs: inferRequest(1, 1, 64).Inputs,
			Outputs: []kserve.RequestedOutput{{Name: "logits"}}}},
		{name: "not json", body: json.RawMessage(`"x"`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := postJSON(t, hs.Client(), hs.URL+"/v2/models/mlp/infer", tt.body)
			if code != http.StatusBadRequest {
				t.Errorf("status %d (%s), want 400", code, body)
			}
		})
	}
	mf := scrape(t, hs.URL)
	if got := metricValue(t, mf, "nv_inference_request_failure", "reason", reasonOther); got != float64(len(tests)) {
		t.Errorf("nv_inference_request_failure{reason=OTHER} = %v, want %d", got, len(tests))
	}
	if got := metricValue(t, mf, "nv_inference_request_success"); got != 0 {
		t.Errorf("nv_inference_request_success = %v, want 0", got)
	}
}

// TestQueueRejection overloads a one-instance server whose queue holds 2:
// one request computes, two wait, and the rest are rejected at once with
// 429 (HTTP) and RESOURCE_EXHAUSTED (gRPC), and counted as REJECTED.
func TestQueueRejection(t *testing.T) {
	srv, hs := newTestServer(t, Options{Model: ModelSim, SimFixed: 400 * time.Millisecond, Queue: 2})
	gc, _, _ := startGRPC(t, srv)
	const n = 10
	codesSeen := make([]int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, _ := postJSON(t, hs.Client(), hs.URL+"/v2/models/mlp/infer", inferRequest(uint64(i), 1, 64))
			codesSeen[i] = code
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, c := range codesSeen {
		count[c]++
	}
	if count[http.StatusOK] < 2 || count[http.StatusTooManyRequests] < 5 || count[http.StatusOK]+count[http.StatusTooManyRequests] != n {
		t.Errorf("status counts %v: want 2 or 3 OK, the rest 429", count)
	}
	mf := scrape(t, hs.URL)
	if got := metricValue(t, mf, "nv_inference_request_failure", "reason", reasonRejected); got != float64(count[429]) {
		t.Errorf("nv_inference_request_failure{reason=REJECTED} = %v, want %d", got, count[429])
	}
	// gRPC: fill the worker and the queue, then one more.
	p, err := kserve.RequestToProto("mlp", "", inferRequest(1, 1, 64), true)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		go func() {
			_, err := gc.ModelInfer(context.Background(), p)
			errs <- err
		}()
	}
	exhausted := 0
	for i := 0; i < 4; i++ {
		if err := <-errs; status.Code(err) == codes.ResourceExhausted {
			exhausted++
		}
	}
	if exhausted == 0 {
		t.Errorf("4 concurrent gRPC calls on a queue of 2: none RESOURCE_EXHAUSTED")
	}
}

// TestCache checks that a repeated request is answered from the cache,
// counted as a hit, and that a different one misses.
func TestCache(t *testing.T) {
	_, hs := newTestServer(t, Options{Model: ModelSim, Cache: true, SimFixed: time.Millisecond})
	a, b := inferRequest(1, 1, 64), inferRequest(2, 1, 64)
	first, _ := inferHTTP(t, hs.Client(), hs.URL, "mlp", a)
	again, _ := inferHTTP(t, hs.Client(), hs.URL, "mlp", a)
	inferHTTP(t, hs.Client(), hs.URL, "mlp", b)
	if again.Parameters["cached"] != true || first.Parameters["cached"] != nil {
		t.Errorf("parameters first %v, again %v: want only the repeat cached", first.Parameters, again.Parameters)
	}
	if d := cmp.Diff(first.Outputs, again.Outputs); d != "" {
		t.Errorf("cached output differs (-computed +cached):\n%s", d)
	}
	mf := scrape(t, hs.URL)
	for _, c := range []struct {
		name string
		want float64
	}{{"nv_cache_num_hits_per_model", 1}, {"nv_cache_num_misses_per_model", 2},
		{"nv_inference_request_success", 3}, {"nv_inference_exec_count", 2}} {
		if got := metricValue(t, mf, c.name, "model", NameSim); got != c.want {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestHTTPProtobufCodec posts a serialized ModelInferRequest: chosen by
// Content-Type, or by Options.Codec when the request names none.
func TestHTTPProtobufCodec(t *testing.T) {
	_, hs := newTestServer(t, Options{Model: ModelSim, SimFixed: time.Millisecond, Codec: CodecProtobuf})
	p, err := kserve.RequestToProto("mlp", "", inferRequest(3, 2, 64), true)
	if err != nil {
		t.Fatal(err)
	}
	body, err := proto.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range []string{"application/x-protobuf", ""} {
		t.Run("content type "+ct, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, hs.URL+"/v2/models/mlp/infer", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			resp, err := hs.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, %v: %s", resp.StatusCode, err, b)
			}
			var out kservepb.ModelInferResponse
			if err := proto.Unmarshal(b, &out); err != nil {
				t.Fatalf("response is not a ModelInferResponse: %v", err)
			}
			r, err := kserve.ResponseFromProto(&out)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]int64{2, 10}, r.Outputs[0].Shape); d != "" || r.Parameters["simulated"] != true {
				t.Errorf("shape (-want +got):\n%s\nparameters %v", d, r.Parameters)
			}
		})
	}
}
