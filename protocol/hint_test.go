package protocol

import (
	"context"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/refserver"
)

// A client built without a body reads the model's metadata first; when
// that fails, the error names the likely cause: nothing listening at the
// address (a wrong host or port, or a started target without {port}), or
// a wrong model name with the models the server serves. Against the
// reference server over HTTP and gRPC, and a port nothing listens on.
func TestMetadataHints(t *testing.T) {
	srv, err := refserver.NewServer(refserver.Options{Model: refserver.ModelSim, SimFixed: 1, SimPerItem: 1})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeGRPC(lis)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	// A port that was free a moment ago: nothing listens there now.
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := closed.Addr().String()
	closed.Close()

	tests := []struct {
		name  string
		o     Options
		want  []string
		avoid string
	}{
		{"http refused", Options{Protocol: KServeHTTP, URL: "http://" + dead, Model: "mlp"},
			[]string{"connection refused", "nothing listens at that address", "{port}"}, "give a body"},
		{"grpc refused", Options{Protocol: KServeGRPC, URL: dead, Model: "mlp"},
			[]string{"nothing listens at that address", "{port}"}, "give a body"},
		{"http wrong model", Options{Protocol: KServeHTTP, URL: hs.URL, Model: "mymodel"},
			[]string{"status 404", `serves no model named "mymodel"`, "it serves: mlp"}, "give a body"},
		// KServe v2 over gRPC has no model list: the name alone.
		{"grpc wrong model", Options{Protocol: KServeGRPC, URL: lis.Addr().String(), Model: "mymodel"},
			[]string{"NotFound", `serves no model named "mymodel"`}, "give a body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var err error
			if tt.o.Protocol == KServeHTTP {
				_, err = NewKServeHTTP(ctx, tt.o)
			} else {
				var c *KServeGRPCClient
				if c, err = NewKServeGRPC(ctx, tt.o); c != nil {
					c.Close()
				}
			}
			if err == nil {
				t.Fatalf("New %s client of %s (model %s) succeeded, want a metadata error", tt.o.Protocol, tt.o.URL, tt.o.Model)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q, want it to contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), tt.avoid) {
				t.Errorf("error %q points at the payload (%q), not at the address or the model", err, tt.avoid)
			}
		})
	}
}
