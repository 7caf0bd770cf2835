package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/result"
)

// serveText serves body as Prometheus text at /metrics.
func serveText(t *testing.T, body *string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprint(w, *body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestCacheCounters(t *testing.T) {
	tests := []struct {
		name          string
		before, after string
		want          *result.Cache
	}{
		{"triton, summed over models",
			"nv_cache_num_hits_per_model{model=\"a\",version=\"1\"} 10\nnv_cache_num_hits_per_model{model=\"b\",version=\"1\"} 0\nnv_cache_num_misses_per_model{model=\"a\",version=\"1\"} 10\n",
			"nv_cache_num_hits_per_model{model=\"a\",version=\"1\"} 40\nnv_cache_num_hits_per_model{model=\"b\",version=\"1\"} 30\nnv_cache_num_misses_per_model{model=\"a\",version=\"1\"} 150\n",
			&result.Cache{Source: "triton", Unit: "requests", Hits: 60, Misses: 140, HitRate: 0.3}},
		{"vllm V1 counters, in tokens",
			"# TYPE vllm:prefix_cache_queries_total counter\nvllm:prefix_cache_queries_total{model_name=\"m\"} 1000\n# TYPE vllm:prefix_cache_hits_total counter\nvllm:prefix_cache_hits_total{model_name=\"m\"} 100\n",
			"# TYPE vllm:prefix_cache_queries_total counter\nvllm:prefix_cache_queries_total{model_name=\"m\"} 5000\n# TYPE vllm:prefix_cache_hits_total counter\nvllm:prefix_cache_hits_total{model_name=\"m\"} 1300\n",
			&result.Cache{Source: "vllm", Unit: "tokens", Hits: 1200, Misses: 2800, HitRate: 0.3}},
		{"vllm V0 gauge",
			"vllm:gpu_prefix_cache_hit_rate{model_name=\"m\"} 0.1\n",
			"vllm:gpu_prefix_cache_hit_rate{model_name=\"m\"} 0.25\n",
			&result.Cache{Source: "vllm", Unit: "tokens", HitRate: 0.25}},
		// A restart between the scrapes: no figure rather than a wrong one.
		{"counters went backwards",
			"nv_cache_num_hits_per_model 50\nnv_cache_num_misses_per_model 50\n",
			"nv_cache_num_hits_per_model 5\nnv_cache_num_misses_per_model 5\n", nil},
		{"no lookups", "nv_cache_num_hits_per_model 5\nnv_cache_num_misses_per_model 5\n",
			"nv_cache_num_hits_per_model 5\nnv_cache_num_misses_per_model 5\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.before
			url := serveText(t, &body) + "/metrics"
			b, err := ScrapeCache(context.Background(), http.DefaultClient, url)
			if err != nil {
				t.Fatal(err)
			}
			body = tt.after
			a, err := ScrapeCache(context.Background(), http.DefaultClient, url)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, CacheBetween(b, a)); d != "" {
				t.Errorf("CacheBetween (-want +got):\n%s", d)
			}
		})
	}
}

func TestProbeMetrics(t *testing.T) {
	timing := "nv_inference_request_success 1\nnv_inference_queue_duration_us 1\nnv_inference_compute_infer_duration_us 1\n"
	other := "process_cpu_seconds_total 3\n"
	tests := []struct {
		name      string
		body      string
		path      string
		found     bool
		whyPrefix string
	}{
		{"triton timing", timing, "/metrics", true, ""},
		{"metrics without request timing", other, "/metrics", true, "1 metric families, but no Triton or vLLM request timing"},
		{"no endpoint", timing, "/nothing", false, "scraping"},
		{"not prometheus", "{\"json\": true}\n", "/metrics", false, "scraping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			url := serveText(t, &body) + tt.path
			found, why := ProbeMetrics(context.Background(), http.DefaultClient, url)
			if found != tt.found || !strings.HasPrefix(why, tt.whyPrefix) || (tt.whyPrefix == "" && why != "") {
				t.Errorf("ProbeMetrics = %v, %q; want %v, %q…", found, why, tt.found, tt.whyPrefix)
			}
		})
	}
	if _, err := ScrapeCache(context.Background(), http.DefaultClient, serveText(t, &other)+"/metrics"); err == nil ||
		!strings.Contains(err.Error(), "no cache counters") {
		t.Errorf("ScrapeCache without cache counters: %v", err)
	}
}
