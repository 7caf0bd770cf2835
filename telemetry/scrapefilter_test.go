package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// A large /metrics page is read in bounded memory (issue 43: a scrape
// inflated about 20×, every family parsed): only the families perfgate
// reads reach the parser, so a page of 200,000 other series, 8 MB of
// text, allocates about its own size, and its timing families still
// count.
func TestScrapeMemoryBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("# TYPE nv_inference_request_success counter\nnv_inference_request_success{model=\"m\",version=\"1\"} 10\n")
	b.WriteString("nv_inference_queue_duration_us{model=\"m\",version=\"1\"} 2100\nnv_inference_compute_infer_duration_us{model=\"m\",version=\"1\"} 3000\n")
	b.WriteString("# HELP other_series a family perfgate does not read\n# TYPE other_series gauge\n")
	for i := range 200_000 {
		fmt.Fprintf(&b, "other_series{pod=\"pod-%d\",zone=\"z\"} %d\n", i, i)
	}
	body := b.String()
	url := serveText(t, &body) + "/metrics"
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	found, why := ProbeMetrics(context.Background(), http.DefaultClient, url)
	runtime.ReadMemStats(&m1)
	if !found || why != "" {
		t.Errorf("ProbeMetrics = %v, %q; want the Triton timing found", found, why)
	}
	// Every byte is read (into the HTTP buffers, then a line at a time):
	// a few times the page, never twenty.
	if got, limit := m1.TotalAlloc-m0.TotalAlloc, 4*uint64(len(body)); got > limit {
		t.Errorf("scraping %d MB allocated %d MB, want under %d MB", len(body)>>20, got>>20, limit>>20)
	}
}

// The families perfgate reads are capped in samples, and families are
// counted over the whole page, not only those kept.
func TestFilterScrape(t *testing.T) {
	var many strings.Builder
	for i := range maxScrapeSeries + 1 {
		fmt.Fprintf(&many, "nv_inference_request_success{model=\"m%d\"} 1\n", i)
	}
	tests := []struct {
		name, text   string
		wantFamilies int
		wantKept     string
		wantErr      string
	}{
		{"other families dropped", "# TYPE a counter\na_total 1\nb{x=\"1\"} 2\nb{x=\"2\"} 2\nnv_inference_request_success 3\n", 3, "nv_inference_request_success 3\n", ""},
		{"histogram kept whole", "# TYPE vllm:request_queue_time_seconds histogram\nvllm:request_queue_time_seconds_bucket{le=\"+Inf\"} 2\nvllm:request_queue_time_seconds_sum 1\nvllm:request_queue_time_seconds_count 2\n", 1,
			"# TYPE vllm:request_queue_time_seconds histogram\nvllm:request_queue_time_seconds_bucket{le=\"+Inf\"} 2\nvllm:request_queue_time_seconds_sum 1\nvllm:request_queue_time_seconds_count 2\n", ""},
		// A prefix of a wanted name is another family.
		{"longer name dropped", "nv_inference_request_success_rate 1\n", 1, "", ""},
		{"not the format passed on", "<html>\n", 0, "<html>\n", ""},
		{"too many samples", many.String(), 1, "", fmt.Sprintf("more than %d samples", maxScrapeSeries)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept, n, err := filterScrape(strings.NewReader(tt.text))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("filterScrape = %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || string(kept) != tt.wantKept || n != tt.wantFamilies {
				t.Errorf("filterScrape = %q, %d families, %v; want %q, %d", kept, n, err, tt.wantKept, tt.wantFamilies)
			}
		})
	}
}
