package refserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/perfgate/perfgate/kserve"
	"github.com/perfgate/perfgate/kservepb"
)

// newTestServer starts a Server behind an httptest server, both closed at
// the end of the test.
func newTestServer(t testing.TB, o Options) (*Server, *httptest.Server) {
	t.Helper()
	srv, err := NewServer(o)
	if err != nil {
		t.Fatalf("NewServer(%+v): %v", o, err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return srv, hs
}

// startGRPC serves srv's gRPC service on 127.0.0.1:0 and returns a client
// and a stop function (also run at cleanup).
func startGRPC(t testing.TB, srv *Server) (kservepb.GRPCInferenceServiceClient, string, func()) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(grpc.MaxRecvMsgSize(64 << 20))
	srv.RegisterGRPC(g)
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.Serve(lis)
	}()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		conn.Close()
		g.Stop()
		<-done
	}
	t.Cleanup(stop)
	return kservepb.NewGRPCInferenceServiceClient(conn), lis.Addr().String(), stop
}

// inferRequest is a request for batch items of size per item, from seed.
func inferRequest(seed uint64, batch int, itemShape ...int64) *kserve.InferRequest {
	r := rand.New(rand.NewPCG(seed, 1))
	shape := append([]int64{int64(batch)}, itemShape...)
	t, err := kserve.Random("input", "FP32", shape, r)
	if err != nil {
		panic(err)
	}
	return &kserve.InferRequest{Inputs: []kserve.Tensor{t}}
}

// postJSON posts v to url and returns the status, headers and body.
func postJSON(t testing.TB, c *http.Client, url string, v any) (int, http.Header, []byte) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("POST %s: reading body: %v", url, err)
	}
	return resp.StatusCode, resp.Header, body
}

// inferHTTP runs one KServe JSON request and decodes the response.
func inferHTTP(t testing.TB, c *http.Client, base, model string, req *kserve.InferRequest) (*kserve.InferResponse, http.Header) {
	t.Helper()
	code, h, body := postJSON(t, c, base+"/v2/models/"+model+"/infer", req)
	if code != http.StatusOK {
		t.Fatalf("infer %s: status %d: %s", model, code, body)
	}
	var resp kserve.InferResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("infer %s: decoding response: %v", model, err)
	}
	return &resp, h
}

// inferGRPC runs one KServe request over gRPC with raw input contents.
func inferGRPC(t testing.TB, c kservepb.GRPCInferenceServiceClient, model string, req *kserve.InferRequest) *kserve.InferResponse {
	t.Helper()
	p, err := kserve.RequestToProto(model, "", req, true)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := c.ModelInfer(ctx, p)
	if err != nil {
		t.Fatalf("ModelInfer %s: %v", model, err)
	}
	resp, err := kserve.ResponseFromProto(out)
	if err != nil {
		t.Fatalf("ModelInfer %s: decoding response: %v", model, err)
	}
	return resp
}

// scrape reads base/metrics back through the Prometheus text parser.
func scrape(t testing.TB, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mf, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return mf
}

// metricValue returns the counter, gauge or histogram count of the series
// of family name whose labels include want (name=value pairs).
func metricValue(t testing.TB, mf map[string]*dto.MetricFamily, name string, want ...string) float64 {
	t.Helper()
	f := mf[name]
	if f == nil {
		t.Fatalf("metric %s missing", name)
	}
next:
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(want); i += 2 {
			if labels[want[i]] != want[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	t.Fatalf("metric %s{%s} missing", name, strings.Join(want, ","))
	return 0
}

// grpcHeader captures a call's response header into md.
func grpcHeader(md *metadata.MD) grpc.CallOption { return grpc.Header(md) }

// testingProcs is GOMAXPROCS, for sizing RunParallel.
func testingProcs() int { return runtime.GOMAXPROCS(0) }
