package protocol

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/refserver"
	"github.com/perfgate/perfgate/telemetry"
)

// Of n hits, exactly floor(n × fraction) repeat an input sent earlier,
// and every other input is new.
func TestRepeatPick(t *testing.T) {
	for _, f := range []float64{0, 0.1, 0.3, 0.5, 0.999} {
		r := &RepeatClient{fraction: f}
		const n = 10000
		seen := map[uint64]bool{}
		reps := 0
		for i := range uint64(n) {
			rep, u := r.Pick(i)
			switch {
			case rep && !seen[u]:
				t.Fatalf("fraction %v: hit %d repeats input %d, never sent", f, i, u)
			case !rep && seen[u]:
				t.Fatalf("fraction %v: hit %d sends input %d again as fresh", f, i, u)
			case rep:
				reps++
			}
			seen[u] = true
		}
		want := int(float64(n) * f)
		if reps != want {
			t.Errorf("fraction %v: %d repeats in %d hits, want %d", f, reps, n, want)
		}
	}
}

// Against the reference server's response cache, which counts hits and
// misses like Triton: 30% repeats give a 30% hit rate, the known answer,
// over HTTP and over gRPC.
func TestRepeatHitsTheCache(t *testing.T) {
	for _, proto := range []string{KServeHTTP, KServeGRPC} {
		t.Run(proto, func(t *testing.T) {
			srv, err := refserver.NewServer(refserver.Options{Model: refserver.ModelSim, Cache: true,
				SimFixed: 1, SimPerItem: 1})
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
			o := Options{Protocol: proto, URL: hs.URL, Model: "mlp"}
			if proto == KServeGRPC {
				o.URL = lis.Addr().String()
			}
			c := newClient(t, o)
			if _, err := NewRepeat(c, o, 1); err == nil {
				t.Error("NewRepeat(1) succeeded; every request repeating is a body file")
			}
			r, err := NewRepeat(c, o, 0.3)
			if err != nil {
				t.Fatal(err)
			}
			const n = 1000
			for i := range uint64(n) {
				if s := r.Do(context.Background(), harness.Hit{Seq: i}); s.Err != "" {
					t.Fatalf("hit %d: %s", i, s.Err)
				}
			}
			cc, err := telemetry.ScrapeCache(context.Background(), http.DefaultClient, hs.URL+"/metrics")
			if err != nil {
				t.Fatal(err)
			}
			got := telemetry.CacheBetween(telemetry.CacheCount{Source: cc.Source}, cc)
			if cc.Source != "triton" || cc.Hits != 300 || cc.Misses != 700 || got.HitRate != 0.3 {
				t.Errorf("cache %+v (hit rate %v) after %d requests at 30%% repeats; want triton, 300 hits, 700 misses, 0.3", cc, got.HitRate, n)
			}
		})
	}
	// A body file is one input: nothing to vary.
	o := Options{Protocol: KServeHTTP, Body: []byte(`{"inputs":[{"name":"x","datatype":"FP32","shape":[1],"data":[1]}]}`)}
	if _, err := NewRepeat(&KServeHTTPClient{body: o.Body}, o, 0.3); err == nil || !strings.Contains(err.Error(), "body file") {
		t.Errorf("repeat with a body: %v", err)
	}
}
