package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/perfgate/perfgate/kserve"
	"github.com/perfgate/perfgate/kservepb"
)

// mlpMeta is the model both test servers serve: 16 FP32 features in, one
// FP32 score out, the batch dimension variable.
var mlpMeta = kserve.ModelMetadata{Name: "mlp", Versions: []string{"1"}, Platform: "test",
	Inputs:  []kserve.TensorMetadata{{Name: "x", Datatype: "FP32", Shape: []int64{-1, 16}}},
	Outputs: []kserve.TensorMetadata{{Name: "y", Datatype: "FP32", Shape: []int64{-1, 1}}}}

// infer checks a request against mlpMeta and answers the sum of each row.
func infer(req *kserve.InferRequest) (*kserve.InferResponse, error) {
	if len(req.Inputs) != 1 || req.Inputs[0].Name != "x" {
		return nil, fmt.Errorf("want one input named x")
	}
	x := req.Inputs[0]
	if x.Datatype != "FP32" || len(x.Shape) != 2 || x.Shape[1] != 16 {
		return nil, fmt.Errorf("input x: want FP32 [batch, 16], got %s %v", x.Datatype, x.Shape)
	}
	y := kserve.Tensor{Name: "y", Datatype: "FP32", Shape: []int64{x.Shape[0], 1}, Data: kserve.Data{Float: make([]float64, x.Shape[0])}}
	for i, v := range x.Data.Float {
		y.Data.Float[i/16] += v
	}
	return &kserve.InferResponse{ModelName: "mlp", ID: req.ID, Outputs: []kserve.Tensor{y}}, nil
}

// kserveHandler is a real KServe v2 HTTP/JSON server for model mlp. Its
// knobs make it fail in the ways the client must classify.
type kserveHandler struct {
	status  int           // answer infer with this status and an error body
	badBody bool          // answer infer 200 with a body that is not JSON
	delay   time.Duration // before answering infer
	noMeta  bool          // 404 on metadata

	mu    sync.Mutex
	last  *kserve.InferRequest
	count atomic.Int64
}

func (h *kserveHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/v2/health/ready" || r.URL.Path == "/v2/health/live"):
		w.WriteHeader(http.StatusOK)
	case r.Method == http.MethodGet && r.URL.Path == "/v2/models/mlp" && !h.noMeta:
		json.NewEncoder(w).Encode(&mlpMeta)
	case r.Method == http.MethodPost && r.URL.Path == "/v2/models/mlp/infer":
		h.count.Add(1)
		var req kserve.InferRequest
		if err := decodeBody(r, &req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(kserve.ErrorResponse{Error: err.Error()})
			return
		}
		h.mu.Lock()
		h.last = &req
		h.mu.Unlock()
		if h.delay > 0 {
			time.Sleep(h.delay)
		}
		if h.status != 0 {
			w.WriteHeader(h.status)
			json.NewEncoder(w).Encode(kserve.ErrorResponse{Error: "model overloaded"})
			return
		}
		if h.badBody {
			w.Write([]byte(`{"outputs": [`))
			return
		}
		resp, err := infer(&req)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(kserve.ErrorResponse{Error: err.Error()})
			return
		}
		json.NewEncoder(w).Encode(resp)
	default:
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(kserve.ErrorResponse{Error: "no route " + r.URL.Path})
	}
}

func (h *kserveHandler) lastRequest() *kserve.InferRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// kserveServer starts h on 127.0.0.1 and counts the connections opened.
func kserveServer(t *testing.T, h *kserveHandler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// grpcServer is a real kservepb.GRPCInferenceServiceServer for model mlp.
type grpcServer struct {
	kservepb.UnimplementedGRPCInferenceServiceServer
	code      codes.Code    // fail ModelInfer with this code when not OK
	message   string        // ... and this message ("injected failure" when empty)
	delay     time.Duration // before answering ModelInfer
	noOutputs bool          // answer with an empty response

	mu     sync.Mutex
	last   *kserve.InferRequest
	lastMD metadata.MD
	count  atomic.Int64
}

func (s *grpcServer) ServerReady(context.Context, *kservepb.ServerReadyRequest) (*kservepb.ServerReadyResponse, error) {
	return &kservepb.ServerReadyResponse{Ready: true}, nil
}

func (s *grpcServer) ModelMetadata(_ context.Context, r *kservepb.ModelMetadataRequest) (*kservepb.ModelMetadataResponse, error) {
	if r.Name != "mlp" {
		return nil, status.Errorf(codes.NotFound, "no model %q", r.Name)
	}
	return kserve.MetadataToProto(&mlpMeta), nil
}

func (s *grpcServer) ModelInfer(ctx context.Context, p *kservepb.ModelInferRequest) (*kservepb.ModelInferResponse, error) {
	s.count.Add(1)
	if p.ModelName != "mlp" {
		return nil, status.Errorf(codes.NotFound, "no model %q", p.ModelName)
	}
	req, err := kserve.RequestFromProto(p)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	s.mu.Lock()
	s.last = req
	s.lastMD, _ = metadata.FromIncomingContext(ctx)
	s.mu.Unlock()
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if s.code != codes.OK {
		msg := s.message
		if msg == "" {
			msg = "injected failure"
		}
		return nil, status.Error(s.code, msg)
	}
	if s.noOutputs {
		return &kservepb.ModelInferResponse{ModelName: "mlp"}, nil
	}
	resp, err := infer(req)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return kserve.ResponseToProto(resp, true)
}

func (s *grpcServer) lastRequest() *kserve.InferRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// startGRPC serves srv on 127.0.0.1:0 and returns its address and a stop
// function (also registered with t.Cleanup).
func startGRPC(t testing.TB, srv kservepb.GRPCInferenceServiceServer) (addr string, stop func()) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	kservepb.RegisterGRPCInferenceServiceServer(gs, srv)
	go gs.Serve(lis)
	var once sync.Once
	stop = func() { once.Do(gs.Stop) }
	t.Cleanup(stop)
	return lis.Addr().String(), stop
}

// decodeBody reads the whole request body (so the connection stays
// reusable) and decodes it.
func decodeBody(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
