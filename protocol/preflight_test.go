package protocol

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/perfgate/perfgate/refserver"
)

// referenceServer serves the reference server over HTTP and gRPC on
// loopback and counts the requests that are not model lookups (loads).
func referenceServer(t *testing.T) (httpURL, grpcAddr string, loads *atomic.Int64) {
	t.Helper()
	srv, err := refserver.NewServer(refserver.Options{Model: refserver.ModelSim})
	if err != nil {
		t.Fatal(err)
	}
	loads = &atomic.Int64{}
	h := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !strings.HasSuffix(r.URL.Path, "/repository/index") {
			loads.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeGRPC(lis)
	t.Cleanup(func() { hs.Close(); lis.Close(); srv.Close() })
	return hs.URL, lis.Addr().String(), loads
}

// CheckModel answers at once, before any load: a model the server serves
// passes; one it does not is a *ModelError naming the model and, where
// the protocol lists them, the names offered.
func TestCheckModel(t *testing.T) {
	httpURL, grpcAddr, loads := referenceServer(t)
	tests := []struct {
		name     string
		o        Options
		wantErr  []string // all in the error; nil: served
		wantNote bool
	}{
		{"openai served", Options{Protocol: OpenAI, URL: httpURL, Model: "tiny-llm"}, nil, false},
		{"openai wrong model", Options{Protocol: OpenAI, URL: httpURL, Model: "wrong-model"},
			[]string{`model "wrong-model" is not served`, `"tiny-llm", "sim-llm"`}, false},
		{"kserve-http served", Options{Protocol: KServeHTTP, URL: httpURL, Model: "mlp"}, nil, false},
		{"kserve-http wrong model", Options{Protocol: KServeHTTP, URL: httpURL, Model: "resnet"},
			[]string{`model "resnet" is not served`, "answered 404"}, false},
		{"kserve-grpc served", Options{Protocol: KServeGRPC, URL: grpcAddr, Model: "mlp"}, nil, false},
		{"kserve-grpc wrong model", Options{Protocol: KServeGRPC, URL: grpcAddr, Model: "resnet"},
			[]string{`model "resnet" is not served`, "NotFound"}, false},
		// Nothing listening: not checked (the load reports it), with a note.
		{"openai unreachable", Options{Protocol: OpenAI, URL: "http://127.0.0.1:1", Model: "x"}, nil, true},
		{"http has no model", Options{Protocol: HTTP, URL: httpURL}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			note, err := CheckModel(context.Background(), tt.o)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("CheckModel = %v, want nil", err)
				}
			} else {
				if !errors.Is(err, ErrModelNotServed) {
					t.Fatalf("CheckModel = %v, want ErrModelNotServed", err)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("CheckModel = %q, want it to contain %q", err, w)
					}
				}
			}
			if (note != "") != tt.wantNote {
				t.Errorf("note = %q, want a note: %v", note, tt.wantNote)
			}
		})
	}
	if n := loads.Load(); n != 0 {
		t.Errorf("the checks sent %d load requests, want none", n)
	}
}

// Triton answers an unknown model with 400 "Request for unknown model"
// and lists its repository at POST /v2/repository/index.
func TestCheckModelTritonStyle(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/v2/repository/index":
			w.Write([]byte(`[{"name":"densenet_onnx","version":"1","state":"READY"},{"name":"simple"}]`))
		case r.URL.Path == "/v2/models/resnet":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":"Request for unknown model: 'resnet' is not found"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	_, err := CheckModel(context.Background(), Options{Protocol: KServeHTTP, URL: srv.URL, Model: "resnet"})
	if !errors.Is(err, ErrModelNotServed) || !strings.Contains(err.Error(), `the server offers "densenet_onnx", "simple"`) {
		t.Errorf("CheckModel = %v, want not served, offering densenet_onnx and simple", err)
	}
}
