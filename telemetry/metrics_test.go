package telemetry

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/perfgate/perfgate/result"
)

// readCounters parses metrics captures from testdata ("a.txt+b.txt" joins
// two, as one server exporting both), dropping the families named in drop
// (to exercise fallbacks).
func readCounters(t *testing.T, name string, drop ...string) []counters {
	t.Helper()
	var b []byte
	for _, n := range strings.Split(name, "+") {
		part, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, part...)
	}
	fams, err := parseMetrics(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("parsing %s: %v", name, err)
	}
	for _, d := range drop {
		if fams[d] == nil {
			t.Fatalf("%s has no family %s to drop", name, d)
		}
		delete(fams, d)
	}
	c, err := countersOf(fams)
	if err != nil {
		t.Fatalf("countersOf(%s): %v", name, err)
	}
	return c
}

func TestServerMsFromCaptures(t *testing.T) {
	tests := []struct {
		name          string
		before, after string
		drop          []string
		want          *result.ServerMs
	}{
		{
			// Two models: 6,500 requests in the window, 13.65 s queued and
			// 19.5 s computing in all.
			name: "triton", before: "triton_before.txt", after: "triton_after.txt",
			want: &result.ServerMs{Queue: 2.1, Compute: 3.0, Source: "triton"},
		},
		{
			// 600 requests: 18 s queued, 720 s running.
			name: "vllm", before: "vllm_before.txt", after: "vllm_after.txt",
			want: &result.ServerMs{Queue: 30, Compute: 1200, Source: "vllm"},
		},
		{
			// One server exporting both families: the LLM took the requests.
			name:   "triton idle, vllm busy",
			before: "triton_after.txt+vllm_before.txt", after: "triton_after.txt+vllm_after.txt",
			want: &result.ServerMs{Queue: 30, Compute: 1200, Source: "vllm"},
		},
		{
			// Without the inference-time histogram, prefill + decode.
			name: "vllm without inference time", before: "vllm_before.txt", after: "vllm_after.txt",
			drop: []string{vllmInference},
			want: &result.ServerMs{Queue: 30, Compute: 1200, Source: "vllm"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := readCounters(t, tt.before, tt.drop...)
			b := readCounters(t, tt.after, tt.drop...)
			got, err := serverMsBetween(a, b)
			if err != nil {
				t.Fatalf("serverMsBetween: %v", err)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 0.001)); d != "" {
				t.Errorf("serverMsBetween (-want +got):\n%s", d)
			}
		})
	}
}

func TestServerMsErrors(t *testing.T) {
	triton0 := readCounters(t, "triton_before.txt")
	triton1 := readCounters(t, "triton_after.txt")
	vllm0 := readCounters(t, "vllm_before.txt")
	tests := []struct {
		name string
		a, b []counters
		want string
	}{
		{"no request in the window", triton1, triton1, "counted no completed request"},
		{"server restarted", triton1, triton0, "went backwards"},
		{"different servers", vllm0, triton1, "no metrics family in both scrapes (vllm before, triton after)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := serverMsBetween(tt.a, tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("serverMsBetween = %v, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
}

func TestCountersOfUnknownServer(t *testing.T) {
	tests := []struct {
		name, text string
	}{
		{"generic process metrics", "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 12.5\n"},
		{"vllm queue only", "# TYPE vllm:request_queue_time_seconds histogram\nvllm:request_queue_time_seconds_sum 1\nvllm:request_queue_time_seconds_count 2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fams, err := parseMetrics(strings.NewReader(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := countersOf(fams); !errors.Is(err, ErrNoServerMetrics) {
				t.Errorf("countersOf = %v, want ErrNoServerMetrics", err)
			}
		})
	}
	fams, err := parseMetrics(strings.NewReader("# TYPE nv_inference_request_success counter\nnv_inference_request_success 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := countersOf(fams); err == nil || !strings.Contains(err.Error(), tritonQueue) {
		t.Errorf("countersOf(Triton without durations) = %v, want an error naming %s", err, tritonQueue)
	}
}

// FuzzCounters feeds arbitrary text to the parser and the counter
// extraction: no panic, and a scrape compared with itself never yields
// server times.
func FuzzCounters(f *testing.F) {
	// Small seeds: the fuzzer minimizes every new input, and whole captures
	// make that take minutes.
	f.Add([]byte("# TYPE nv_inference_request_success counter\n" +
		"nv_inference_request_success{model=\"m\",version=\"1\"} 10\n" +
		"nv_inference_queue_duration_us{model=\"m\",version=\"1\"} 2100\n" +
		"nv_inference_compute_infer_duration_us{model=\"m\",version=\"1\"} 3000\n"))
	f.Add([]byte("# TYPE vllm:request_queue_time_seconds histogram\n" +
		"vllm:request_queue_time_seconds_bucket{le=\"+Inf\"} 2\n" +
		"vllm:request_queue_time_seconds_sum 0.5\nvllm:request_queue_time_seconds_count 2\n" +
		"# TYPE vllm:request_inference_time_seconds histogram\n" +
		"vllm:request_inference_time_seconds_sum 3\nvllm:request_inference_time_seconds_count 2\n"))
	f.Add([]byte("nv_inference_request_success 1\nnv_inference_queue_duration_us NaN\nnv_inference_compute_infer_duration_us -1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fams, err := parseMetrics(bytes.NewReader(b))
		if err != nil {
			return
		}
		c, err := countersOf(fams)
		if err != nil {
			return
		}
		if got, err := serverMsBetween(c, c); err == nil {
			t.Errorf("serverMsBetween(c, c) = %+v, want an error (no requests between)", got)
		}
		// A later scrape with more of everything gives finite, non-negative
		// times that encode as JSON.
		d := append([]counters(nil), c...)
		for i := range d {
			d[i].queueMs, d[i].queueN, d[i].computeMs, d[i].computeN = 2*c[i].queueMs+1, c[i].queueN+1, c[i].computeMs+1, c[i].computeN+3
		}
		got, err := serverMsBetween(c, d)
		if err != nil {
			return
		}
		if _, err := json.Marshal(got); err != nil || got.Queue < 0 || got.Compute < 0 {
			t.Errorf("serverMsBetween = %+v (JSON error %v), want finite non-negative times", got, err)
		}
	})
}
