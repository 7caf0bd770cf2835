package refserver

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/perfgate/perfgate/kservepb"
)

// TestServeShutsDownCleanly runs Serve on real listeners with traffic on
// every endpoint, cancels its context, and checks that Serve returns, the
// listeners are closed and no goroutine is left behind.
func TestServeShutsDownCleanly(t *testing.T) {
	before := runtime.NumGoroutine()
	srv, err := NewServer(Options{Model: ModelSim, SimFixed: time.Millisecond, LLMStep: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, hl, gl) }()

	base := "http://" + hl.Addr().String()
	tr := &http.Transport{}
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	inferHTTP(t, c, base, "mlp", inferRequest(1, 1, 64))
	streamCompletion(t, c, base, "/v1/chat/completions", map[string]any{"model": NameSimLLM, "max_tokens": 2,
		"messages": []map[string]any{{"role": "user", "content": "hi"}}})
	conn, err := grpc.NewClient(gl.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	inferGRPC(t, kservepb.NewGRPCInferenceServiceClient(conn), "mlp", inferRequest(1, 1, 64))

	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve = %v, want nil after cancel", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return within 10s of cancel")
	}
	conn.Close()
	tr.CloseIdleConnections()
	for _, l := range []net.Listener{hl, gl} {
		if c, err := net.DialTimeout("tcp", l.Addr().String(), time.Second); err == nil {
			c.Close()
			t.Errorf("listener %s still accepts after shutdown", l.Addr())
		}
	}
	if resp, err := c.Get(base + "/v2/health/ready"); err == nil {
		resp.Body.Close()
		t.Errorf("HTTP still answers after shutdown")
	}
	// Goroutines wind down asynchronously (connection readers): poll.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("%d goroutines after shutdown, %d before:\n%s", n, before, leakReport(string(buf)))
	}
}

// leakReport keeps the stacks that mention this module or its servers.
func leakReport(stacks string) string {
	var keep []string
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "perfgate") || strings.Contains(g, "net/http") || strings.Contains(g, "grpc") {
			keep = append(keep, g)
		}
	}
	return strings.Join(keep, "\n\n")
}

// TestCloseFailsQueued checks that Close answers requests still waiting
// instead of leaving them hanging, and that readiness turns false.
func TestCloseFailsQueued(t *testing.T) {
	srv, hs := newTestServer(t, Options{Model: ModelSim, SimFixed: 200 * time.Millisecond})
	codes := make(chan int, 3)
	for i := 0; i < 3; i++ {
		go func() {
			code, _, _ := postJSON(t, hs.Client(), hs.URL+"/v2/models/mlp/infer", inferRequest(1, 1, 64))
			codes <- code
		}()
	}
	time.Sleep(50 * time.Millisecond)
	srv.Close()
	got := map[int]int{}
	for i := 0; i < 3; i++ {
		select {
		case c := <-codes:
			got[c]++
		case <-time.After(5 * time.Second):
			t.Fatalf("a request still hangs 5s after Close (so far %v)", got)
		}
	}
	if got[http.StatusServiceUnavailable] == 0 {
		t.Errorf("status counts %v after Close: want the queued requests answered 503", got)
	}
	resp, err := hs.Client().Get(hs.URL + "/v2/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("ready after Close = %d, want 503", resp.StatusCode)
	}
}
