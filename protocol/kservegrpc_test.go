package protocol

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"

	"github.com/perfgate/perfgate/harness"
)

func TestKServeGRPCDefaultRequest(t *testing.T) {
	srv := &grpcServer{}
	addr, _ := startGRPC(t, srv)
	c := newClient(t, Options{Protocol: KServeGRPC, URL: addr, Model: "mlp", MaxConns: 8,
		Headers: map[string]string{"Authorization": "Bearer t0ken"}})
	gc := c.(*KServeGRPCClient)
	if got := len(gc.conns); got != DefaultGRPCConns {
		t.Errorf("connection pool = %d, want %d", got, DefaultGRPCConns)
	}
	wantAllOK(t, doN(t, c, 50))
	if got := srv.count.Load(); got != 50 {
		t.Errorf("server saw %d calls, want 50", got)
	}
	x := srv.lastRequest().Inputs[0]
	if x.Name != "x" || x.Datatype != "FP32" || !cmp.Equal(x.Shape, []int64{1, 16}) || len(x.Data.Float) != 16 {
		t.Errorf("random request input = %s %s %v (%d elements), want x FP32 [1 16] from ModelMetadata", x.Name, x.Datatype, x.Shape, len(x.Data.Float))
	}
	srv.mu.Lock()
	md := srv.lastMD
	srv.mu.Unlock()
	if got := md.Get("authorization"); !cmp.Equal(got, []string{"Bearer t0ken"}) {
		t.Errorf("authorization metadata = %q, want the header", got)
	}
	if err := gc.Ready(context.Background()); err != nil {
		t.Errorf("Ready: %v", err)
	}
}

func TestKServeGRPCPayloads(t *testing.T) {
	ones := `[` + strings.Repeat("1,", 31) + `1]`
	tests := []struct {
		name      string
		o         Options
		payload   []byte
		wantShape []int64
		wantSum   float64 // of the first element, -1 when random
	}{
		{"json request converted", Options{Body: []byte(`{"inputs":[{"name":"x","datatype":"FP32","shape":[2,16],"data":` + ones + `}]}`)}, nil, []int64{2, 16}, 1},
		{"bare tensor array", Options{Body: []byte(`[{"name":"x","datatype":"FP32","shape":[2,16],"data":` + ones + `}]`)}, nil, []int64{2, 16}, 1},
		{"shape and datatype", Options{Shape: []int64{4, 16}, Datatype: "FP32"}, nil, []int64{4, 16}, -1},
		{"trace payload", Options{}, []byte(`{"inputs":[{"name":"x","datatype":"FP32","shape":[1,16],"data":[` + strings.Repeat("3,", 15) + `3]}]}`), []int64{1, 16}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &grpcServer{}
			addr, _ := startGRPC(t, srv)
			o := tt.o
			o.Protocol, o.URL, o.Model = KServeGRPC, addr, "mlp"
			c := newClient(t, o)
			if s := c.Do(context.Background(), harness.Hit{Payload: tt.payload}); !s.OK() {
				t.Fatalf("Do: %s: %s", s.Class, s.Err)
			}
			x := srv.lastRequest().Inputs[0]
			if !cmp.Equal(x.Shape, tt.wantShape) {
				t.Errorf("shape = %v, want %v", x.Shape, tt.wantShape)
			}
			if tt.wantSum >= 0 && x.Data.Float[0] != tt.wantSum {
				t.Errorf("first element = %v, want %v", x.Data.Float[0], tt.wantSum)
			}
		})
	}
}

func TestKServeGRPCErrors(t *testing.T) {
	tests := []struct {
		name      string
		srv       *grpcServer
		timeout   time.Duration
		stop      bool
		payload   []byte
		wantClass string
		wantCode  codes.Code
	}{
		{"resource exhausted", &grpcServer{code: codes.ResourceExhausted}, 0, false, nil, "grpc_ResourceExhausted", codes.ResourceExhausted},
		{"internal", &grpcServer{code: codes.Internal}, 0, false, nil, "grpc_Internal", codes.Internal},
		{"unavailable is a connection error", &grpcServer{code: codes.Unavailable}, 0, false, nil, harness.ErrConnection, codes.Unavailable},
		{"deadline is a timeout", &grpcServer{delay: time.Second}, 50 * time.Millisecond, false, nil, harness.ErrTimeout, codes.DeadlineExceeded},
		{"response without outputs", &grpcServer{noOutputs: true}, 0, false, nil, harness.ErrProtocol, codes.Internal},
		{"server stopped", &grpcServer{}, 0, true, nil, harness.ErrConnection, codes.Unavailable},
		{"server rejects the tensor", &grpcServer{}, 0, false,
			[]byte(`{"inputs":[{"name":"x","datatype":"FP32","shape":[1,3],"data":[1,2,3]}]}`), "grpc_InvalidArgument", codes.InvalidArgument},
		{"bad trace payload", &grpcServer{}, 0, false, []byte(`{"inputs":[{"name":"x"`), harness.ErrProtocol, codes.OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr, stop := startGRPC(t, tt.srv)
			c := newClient(t, Options{Protocol: KServeGRPC, URL: addr, Model: "mlp", Timeout: tt.timeout})
			if tt.stop {
				stop()
			}
			for range 3 {
				s := c.Do(context.Background(), harness.Hit{Payload: tt.payload})
				if s.Class != tt.wantClass || codes.Code(s.Code) != tt.wantCode {
					t.Errorf("Do = class %q code %v (%s), want %q %v", s.Class, codes.Code(s.Code), s.Err, tt.wantClass, tt.wantCode)
				}
			}
		})
	}
}

func TestKServeGRPCSetupErrors(t *testing.T) {
	addr, _ := startGRPC(t, &grpcServer{})
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"scheme in url", Options{Protocol: KServeGRPC, URL: "http://" + addr, Model: "mlp"}, "want host:port"},
		{"unknown model", Options{Protocol: KServeGRPC, URL: addr, Model: "nope"}, `ModelMetadata "nope"`},
		{"int8 out of range", Options{Protocol: KServeGRPC, URL: addr, Model: "mlp", BodyPath: "t.json",
			Body: []byte(`[{"name":"x","datatype":"INT8","shape":[1],"data":[900]}]`)}, "payload t.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(context.Background(), tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want error containing %q", err, tt.want)
			}
		})
	}
}

// BenchmarkKServeGRPCDo measures the client's cost per call against a
// local server (the server's cost is in the figure too).
func BenchmarkKServeGRPCDo(b *testing.B) {
	srv := &grpcServer{}
	addr, _ := startGRPC(b, srv)
	c, err := NewKServeGRPC(context.Background(), Options{URL: addr, Model: "mlp"})
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

// A server's 8 MB status message is cut to harness.MaxErrBytes in the
// sample (and so in the result file and every printout), saying how long
// it was.
func TestKServeGRPCHugeErrorMessageCut(t *testing.T) {
	huge := "a" + strings.Repeat("ü", 1<<10) + strings.Repeat("x", 8<<20-2<<10-1) // 8 MiB; byte 1024 is inside a "ü"
	addr, _ := startGRPC(t, &grpcServer{code: codes.Internal, message: huge})
	c := newClient(t, Options{Protocol: KServeGRPC, URL: addr, Model: "mlp"})
	s := c.Do(context.Background(), harness.Hit{})
	if s.Class != "grpc_Internal" {
		t.Fatalf("Do = class %q (%.100s), want grpc_Internal", s.Class, s.Err)
	}
	if len(s.Err) > harness.MaxErrBytes+64 || !utf8.ValidString(s.Err) || !strings.Contains(s.Err, "8388608 bytes in all") {
		t.Errorf("Err is %d bytes (%q…), want at most %d + a note of the 8388608 bytes, valid UTF-8", len(s.Err), s.Err[:min(len(s.Err), 40)], harness.MaxErrBytes)
	}
}
