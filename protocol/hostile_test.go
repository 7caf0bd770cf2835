package protocol

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/kservepb"
)

// hugeBody is how much a hostile server answers with: far more than any
// bound a client keeps, so a client that read it all into memory would
// allocate at least this much.
const hugeBody = 192 << 20

// allocatedBy is how many bytes the process allocated while f ran.
func allocatedBy(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// writeHuge writes hugeBody bytes of a JSON-looking body in 64 KiB writes.
func writeHuge(w io.Writer) {
	chunk := []byte(strings.Repeat("1,", 32<<10))
	io.WriteString(w, `{"model_name":"m","outputs":[{"name":"o","datatype":"FP32","shape":[1],"data":[`)
	for n := 0; n < hugeBody; n += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return
		}
	}
	io.WriteString(w, `1]}]}`)
}

// Every protocol's memory per request is bounded against a server that
// answers with 192 MiB: http and kserve-http keep at most http1.MaxKeptBody
// (16 MiB) or discard (net/http), kserve-grpc refuses a message over
// gRPC's 4 MiB default; the SSE bounds of openai are in
// TestOpenAIHostileStreams. What is asserted is the bytes allocated for
// the one request (runtime.MemStats.TotalAlloc: garbage included, so a
// 16 MiB buffer grown by 1.25× steps costs about 80 MiB): under 128 MiB,
// where a client that kept the whole answer would allocate 192 MiB or
// more.
func TestHostileServerMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 192 MiB per protocol over loopback")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		writeHuge(w)
	}))
	t.Cleanup(srv.Close)
	grpcAddr := hostileGRPC(t)
	tests := []struct {
		name string
		o    Options
	}{
		{"http fast", Options{Protocol: HTTP, URL: srv.URL}},
		{"http std", Options{Protocol: HTTP, URL: srv.URL, StdHTTP: true}},
		{"kserve-http", Options{Protocol: KServeHTTP, URL: srv.URL, Model: "m", Shape: []int64{1, 4}, Body: []byte(`{"inputs":[{"name":"i","datatype":"FP32","shape":[1],"data":[1]}]}`)}},
		{"kserve-grpc", Options{Protocol: KServeGRPC, URL: grpcAddr, Model: "m", Shape: []int64{1, 4}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Timeout = 30 * time.Second
			c := newClient(t, tt.o)
			var s harness.Sample
			n := allocatedBy(func() { s = c.Do(context.Background(), harness.Hit{Intended: time.Now()}) })
			t.Logf("class %q (%s): %d MiB allocated for a %d MiB answer", s.Class, s.Err, n>>20, hugeBody>>20)
			if n > 128<<20 {
				t.Errorf("one request allocated %d MiB against a %d MiB answer: not bounded", n>>20, hugeBody>>20)
			}
		})
	}
}

// hostileService answers every inference with a message over gRPC's
// default receive limit.
type hostileService struct {
	kservepb.UnimplementedGRPCInferenceServiceServer
}

func (hostileService) ModelMetadata(context.Context, *kservepb.ModelMetadataRequest) (*kservepb.ModelMetadataResponse, error) {
	return &kservepb.ModelMetadataResponse{Name: "m", Inputs: []*kservepb.ModelMetadataResponse_TensorMetadata{
		{Name: "i", Datatype: "FP32", Shape: []int64{1, 4}}}}, nil
}

func (hostileService) ModelInfer(context.Context, *kservepb.ModelInferRequest) (*kservepb.ModelInferResponse, error) {
	return &kservepb.ModelInferResponse{ModelName: "m", RawOutputContents: [][]byte{make([]byte, 8<<20)}}, nil
}

func hostileGRPC(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.MaxSendMsgSize(64 << 20))
	kservepb.RegisterGRPCInferenceServiceServer(gs, hostileService{})
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	return lis.Addr().String()
}
