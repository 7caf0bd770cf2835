package protocol

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/kserve"
)

// doN sends n hits one after another and returns the samples.
func doN(t *testing.T, c harness.Client, n int) []harness.Sample {
	t.Helper()
	out := make([]harness.Sample, n)
	for i := range out {
		out[i] = c.Do(context.Background(), harness.Hit{Seq: uint64(i), Intended: time.Now()})
	}
	return out
}

func newClient(t *testing.T, o Options) harness.Client {
	t.Helper()
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	if cl, ok := c.(harness.Closer); ok {
		t.Cleanup(func() { cl.Close() })
	}
	return c
}

func wantAllOK(t *testing.T, samples []harness.Sample) {
	t.Helper()
	for i, s := range samples {
		if !s.OK() {
			t.Fatalf("request %d failed: %s: %s", i, s.Class, s.Err)
		}
		if s.End.Before(s.Start) {
			t.Fatalf("request %d ends before it starts", i)
		}
	}
}

func TestKServeHTTPDefaultRequest(t *testing.T) {
	h := &kserveHandler{}
	srv, conns := kserveServer(t, h)
	c := newClient(t, Options{Protocol: KServeHTTP, URL: srv.URL + "/", Model: "mlp", MaxConns: 2})
	wantAllOK(t, doN(t, c, 50))
	if got := h.count.Load(); got != 50 {
		t.Errorf("server saw %d infer requests, want 50", got)
	}
	// Keep-alive: 50 requests over at most MaxConns connections, plus the
	// one that read the metadata.
	if got := conns.Load(); got > 1+2 {
		t.Errorf("connections opened = %d, want at most 3 (keep-alive reuse)", got)
	}
	x := h.lastRequest().Inputs[0]
	if x.Name != "x" || x.Datatype != "FP32" || !cmp.Equal(x.Shape, []int64{1, 16}) {
		t.Errorf("random request input = %s %s %v, want x FP32 [1 16] from the metadata", x.Name, x.Datatype, x.Shape)
	}
	kc := c.(*KServeHTTPClient)
	if err := kc.Ready(context.Background()); err != nil {
		t.Errorf("Ready: %v", err)
	}
	if err := kc.Live(context.Background()); err != nil {
		t.Errorf("Live: %v", err)
	}
}

func TestKServeHTTPPayloads(t *testing.T) {
	body := `{"inputs":[{"name":"x","datatype":"FP32","shape":[2,16],"data":[` + strings.Repeat("1,", 31) + `1]}]}`
	tests := []struct {
		name      string
		o         Options
		payload   []byte
		wantShape []int64
		wantFirst float64 // first element, when fixed
	}{
		{"body file sent as is", Options{Body: []byte(body)}, nil, []int64{2, 16}, 1},
		{"shape overrides metadata", Options{Shape: []int64{3, 16}}, nil, []int64{3, 16}, -2},
		// A hit's payload (a trace line) replaces the body.
		{"hit payload wins", Options{Body: []byte(body)},
			[]byte(`{"inputs":[{"name":"x","datatype":"FP32","shape":[1,16],"data":[` + strings.Repeat("2,", 15) + `2]}]}`),
			[]int64{1, 16}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &kserveHandler{}
			srv, _ := kserveServer(t, h)
			o := tt.o
			o.Protocol, o.URL, o.Model = KServeHTTP, srv.URL, "mlp"
			c := newClient(t, o)
			s := c.Do(context.Background(), harness.Hit{Payload: tt.payload})
			if !s.OK() {
				t.Fatalf("Do: %s: %s", s.Class, s.Err)
			}
			x := h.lastRequest().Inputs[0]
			if !cmp.Equal(x.Shape, tt.wantShape) {
				t.Errorf("shape sent = %v, want %v", x.Shape, tt.wantShape)
			}
			if tt.wantFirst != -2 && x.Data.Float[0] != tt.wantFirst {
				t.Errorf("first element = %v, want %v", x.Data.Float[0], tt.wantFirst)
			}
		})
	}
}

func TestKServeHTTPErrors(t *testing.T) {
	tests := []struct {
		name      string
		h         *kserveHandler
		timeout   time.Duration
		closed    bool
		wantClass string
		wantErr   string
	}{
		{"server error status", &kserveHandler{status: http.StatusServiceUnavailable}, 0, false, "http_503", "model overloaded"},
		{"rate limited", &kserveHandler{status: http.StatusTooManyRequests}, 0, false, "http_429", "model overloaded"},
		{"200 with broken json", &kserveHandler{badBody: true}, 0, false, harness.ErrProtocol, "not an infer response"},
		{"slower than the timeout", &kserveHandler{delay: 300 * time.Millisecond}, 50 * time.Millisecond, false, harness.ErrTimeout, ""},
		{"server gone", &kserveHandler{}, 0, true, harness.ErrConnection, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := kserveServer(t, tt.h)
			c := newClient(t, Options{Protocol: KServeHTTP, URL: srv.URL, Model: "mlp", Timeout: tt.timeout})
			if tt.closed {
				srv.Close()
			}
			for _, s := range doN(t, c, 3) {
				if s.Class != tt.wantClass || !strings.Contains(s.Err, tt.wantErr) {
					t.Errorf("Do = class %q err %q, want class %q err containing %q", s.Class, s.Err, tt.wantClass, tt.wantErr)
				}
			}
		})
	}
}

func TestKServeHTTPSetupErrors(t *testing.T) {
	h := &kserveHandler{noMeta: true}
	srv, _ := kserveServer(t, h)
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"no model", Options{Protocol: KServeHTTP, URL: srv.URL}, "no model name"},
		{"full path given", Options{Protocol: KServeHTTP, URL: srv.URL + "/v2/models/mlp/infer", Model: "mlp"}, "give the base address"},
		// A 404 from a server without a model list: the model name, or
		// no metadata at all, so the payload hint too.
		{"no metadata, no shape", Options{Protocol: KServeHTTP, URL: srv.URL, Model: "mlp"}, `check the model name (--model, or model: in the scenario); or, if it serves no KServe metadata, give a body, or a shape and datatype`},
		{"bad body", Options{Protocol: KServeHTTP, URL: srv.URL, Model: "mlp", BodyPath: "payloads/x.json",
			Body: []byte(`{"inputs":[{"name":"x","datatype":"FP32","shape":[2],"data":[1]}]}`)},
			`payload payloads/x.json: tensor "x": shape [2] holds 2 elements, data has 1`},
		{"misspelt key", Options{Protocol: KServeHTTP, URL: srv.URL, Model: "mlp", BodyPath: "p.json",
			Body: []byte(`{"input":[]}`)}, `payload p.json: json: unknown field "input"`},
		{"bad protocol", Options{Protocol: "kserve", URL: srv.URL}, `protocol "kserve"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(context.Background(), tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want error containing %q", err, tt.want)
			}
		})
	}
	// With a shape the missing metadata is not needed: input0 is used.
	c := newClient(t, Options{Protocol: KServeHTTP, URL: srv.URL, Model: "mlp", Shape: []int64{1, 16}, Datatype: "FP32"})
	var req kserve.InferRequest
	if err := json.Unmarshal(c.(*KServeHTTPClient).Body(), &req); err != nil || req.Inputs[0].Name != "input0" {
		t.Errorf("request without metadata = %+v, %v; want one input named input0", req, err)
	}
}

func TestHTTPDelegates(t *testing.T) {
	h := &kserveHandler{}
	srv, _ := kserveServer(t, h)
	c := newClient(t, Options{URL: srv.URL + "/v2/health/ready"})
	if _, ok := c.(*harness.HTTPClient); !ok {
		t.Fatalf("New(http) = %T, want *harness.HTTPClient", c)
	}
	wantAllOK(t, doN(t, c, 3))
}

// TestNetPoster drives the net/http sender (the https path) against the
// plain test server: same framing, same classification.
func TestNetPoster(t *testing.T) {
	h := &kserveHandler{}
	srv, _ := kserveServer(t, h)
	body := []byte(`{"inputs":[{"name":"x","datatype":"FP32","shape":[1,16],"data":[` + strings.Repeat("1,", 15) + `1]}]}`)
	p := newNetPoster(srv.URL+"/v2/models/mlp/infer", map[string]string{"Content-Type": "application/json"}, body, time.Second, 2, nil)
	defer p.Close()
	status, out, _, err := p.DoAppendWait(context.Background(), body, nil)
	if err != nil || status != http.StatusOK || !isInferResponse(out) {
		t.Fatalf("DoAppendWait = %d, %q, %v; want 200 and an infer response", status, out, err)
	}
	bad, _ := kserveServer(t, &kserveHandler{status: http.StatusBadGateway})
	p = newNetPoster(bad.URL+"/v2/models/mlp/infer", nil, body, time.Second, 2, nil)
	defer p.Close()
	if status, out, _, _ = p.DoAppendWait(context.Background(), body, nil); status != http.StatusBadGateway || errorMessage(out) != "model overloaded" {
		t.Errorf("DoAppendWait = %d, %q; want 502 with the error message", status, out)
	}
}

// BenchmarkKServeHTTPDo measures a KServe HTTP call against a local server
// (the server's own cost is in the figure).
func BenchmarkKServeHTTPDo(b *testing.B) {
	srv := httptest.NewServer(&kserveHandler{})
	defer srv.Close()
	c, err := NewKServeHTTP(context.Background(), Options{URL: srv.URL, Model: "mlp"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if s := c.Do(ctx, harness.Hit{}); !s.OK() {
				b.Error(s.Err)
				return
			}
		}
	})
}
