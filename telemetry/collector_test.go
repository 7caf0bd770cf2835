package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/telemetry/gpu"
)

// fakeGPU is a gpuSource with fixed readings: one device, SM 31%, memory
// bandwidth 88%.
type fakeGPU struct {
	mu              sync.Mutex
	samples, resets int
	closed          bool
}

func (f *fakeGPU) Devices() []gpu.Info { return []gpu.Info{{Index: 0, Name: "fake H200"}} }
func (f *fakeGPU) Reset()              { f.mu.Lock(); f.resets++; f.mu.Unlock() }
func (f *fakeGPU) Close() error        { f.mu.Lock(); f.closed = true; f.mu.Unlock(); return nil }
func (f *fakeGPU) Sample() []gpu.Sample {
	f.mu.Lock()
	f.samples++
	f.mu.Unlock()
	s := gpu.Unknown(0)
	s.SMUtilPct, s.MemBWUtilPct, s.Source = 31, 88, gpu.SourceGPM
	s.MemUsedMiB, s.PowerW = 40211, 412
	return []gpu.Sample{s}
}

// The harness's TrialObserver, as the engine declares it.
var _ interface {
	BeginTrial(i int)
	EndTrial(i int) *result.Telemetry
} = (*Collector)(nil)

func openFake(f *fakeGPU) func() (gpuSource, error) {
	return func() (gpuSource, error) { return f, nil }
}

func noGPU() (gpuSource, error) {
	return nil, fmt.Errorf("%w: initializing NVML: ERROR_LIBRARY_NOT_FOUND", gpu.ErrNoGPU)
}

func TestCollectorGPUWindows(t *testing.T) {
	f := &fakeGPU{}
	c, err := newCollector(context.Background(), Options{GPU: true, Interval: 10 * time.Millisecond}, openFake(f))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		c.BeginTrial(i)
		time.Sleep(200 * time.Millisecond)
		tel := c.EndTrial(i)
		if len(tel.GPUs) != 1 {
			t.Fatalf("trial %d: GPUs = %+v, want one", i, tel.GPUs)
		}
		g := tel.GPUs[0]
		// 200 ms at 10 ms: about 20 samples; a loaded machine delays ticks,
		// so only bound it loosely, but a window never keeps another's.
		if g.Samples < 2 || g.Samples > 22 {
			t.Errorf("trial %d: %d samples in 200 ms at 10 ms, want 2..22", i, g.Samples)
		}
		want := result.GPUStats{Index: 0, Name: "fake H200", Samples: g.Samples,
			SMUtilPct: result.Stat{Mean: 31, Max: 31}, MemBWUtilPct: result.Stat{Mean: 88, Max: 88},
			MemUsedMiB: 40211, PowerW: result.Stat{Mean: 412, Max: 412}, UtilSource: gpu.SourceGPM}
		if d := cmp.Diff(want, g); d != "" {
			t.Errorf("trial %d GPU (-want +got):\n%s", i, d)
		}
		if tel.NoGPU || len(tel.Warnings) != 0 {
			t.Errorf("trial %d: NoGPU %v, warnings %q; want neither", i, tel.NoGPU, tel.Warnings)
		}
		t.Logf("trial %d: %d samples, sampler CPU %.3f%% of a core", i, g.Samples, tel.SamplerCPUPct)
		if p := tel.SamplerCPUPct; math.IsNaN(p) || p < 0 || p > 25 {
			t.Errorf("trial %d: sampler CPU %.3f%%, want 0..25%%", i, p)
		}
		got := Line(Classify(ClassifyInput{GPUs: tel.GPUs}))
		if !strings.HasPrefix(got, "bandwidth-bound: memory bandwidth 88%, SM 31%") {
			t.Errorf("trial %d classified %q, want bandwidth-bound", i, got)
		}
	}
	// Between windows nothing is sampled.
	f.mu.Lock()
	n := f.samples
	f.mu.Unlock()
	time.Sleep(60 * time.Millisecond)
	f.mu.Lock()
	idle, resets := f.samples-n, f.resets
	f.mu.Unlock()
	if idle > 1 { // one tick may have been in flight at EndTrial
		t.Errorf("%d samples taken between windows, want none", idle)
	}
	if resets != 2 {
		t.Errorf("GPU Reset %d times, want once per window (2)", resets)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if !f.closed {
		t.Error("Close did not close the GPU sampler")
	}
}

func TestCollectorNoGPU(t *testing.T) {
	c, err := newCollector(context.Background(), Options{GPU: true}, noGPU)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var warnings []string
	for i := range 3 {
		c.BeginTrial(i)
		tel := c.EndTrial(i)
		if !tel.NoGPU || tel.GPUs != nil || tel.SamplerCPUPct != 0 {
			t.Errorf("trial %d: NoGPU %v, GPUs %v, sampler %v; want NoGPU and no numbers", i, tel.NoGPU, tel.GPUs, tel.SamplerCPUPct)
		}
		warnings = append(warnings, tel.Warnings...)
	}
	want := []string{"no GPU: initializing NVML: ERROR_LIBRARY_NOT_FOUND"}
	if d := cmp.Diff(want, warnings); d != "" {
		t.Errorf("warnings over three trials (-want +got):\n%s", d)
	}
}

// TestCollectorRealNVML opens the real library: on a machine without a
// GPU it must say "no GPU"; with one it must sample it.
func TestCollectorRealNVML(t *testing.T) {
	c, err := New(context.Background(), Options{GPU: true, Interval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.BeginTrial(0)
	time.Sleep(100 * time.Millisecond)
	tel := c.EndTrial(0)
	if tel.NoGPU {
		if tel.GPUs != nil || len(tel.Warnings) != 1 || !strings.HasPrefix(tel.Warnings[0], "no GPU") {
			t.Errorf("no-GPU telemetry = %+v, want no GPU figures and one \"no GPU\" warning", tel)
		}
		return
	}
	if len(tel.GPUs) == 0 {
		t.Errorf("GPU machine: telemetry = %+v, want GPU figures", tel)
	}
}

// metricsServer serves the named captures in turn, then the last one again.
func metricsServer(t *testing.T, files ...string) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		name := files[min(n, len(files)-1)]
		n++
		mu.Unlock()
		if name == "500" {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCollectorServerMetrics(t *testing.T) {
	tests := []struct {
		name        string
		files       []string
		want        *result.ServerMs
		wantWarning string
	}{
		{name: "triton", files: []string{"triton_before.txt", "triton_after.txt"},
			want: &result.ServerMs{Queue: 2.1, Compute: 3, Source: "triton"}},
		{name: "vllm", files: []string{"vllm_before.txt", "vllm_after.txt"},
			want: &result.ServerMs{Queue: 30, Compute: 1200, Source: "vllm"}},
		{name: "error before", files: []string{"500", "triton_after.txt"},
			wantWarning: "server metrics: scraping http://"},
		{name: "error after", files: []string{"triton_before.txt", "500"},
			wantWarning: "500 Internal Server Error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := metricsServer(t, tt.files...)
			c, err := New(context.Background(), Options{MetricsURL: srv.URL + "/metrics", HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.BeginTrial(0)
			tel := c.EndTrial(0)
			if d := cmp.Diff(tt.want, tel.ServerMs); d != "" {
				t.Errorf("ServerMs (-want +got):\n%s", d)
			}
			if tt.wantWarning == "" && len(tel.Warnings) != 0 {
				t.Errorf("warnings %q, want none", tel.Warnings)
			}
			if tt.wantWarning != "" && (len(tel.Warnings) != 1 || !strings.Contains(tel.Warnings[0], tt.wantWarning)) {
				t.Errorf("warnings %q, want one containing %q", tel.Warnings, tt.wantWarning)
			}
		})
	}
}

func TestCollectorUnreachableMetrics(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/metrics"
	srv.Close() // nothing listens there now
	c, err := New(context.Background(), Options{MetricsURL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.BeginTrial(0)
	tel := c.EndTrial(0)
	if tel.ServerMs != nil || len(tel.Warnings) != 1 || !strings.Contains(tel.Warnings[0], url) {
		t.Errorf("telemetry = %+v, want no server time and one warning naming %s", tel, url)
	}
}

func TestCollectorMisuse(t *testing.T) {
	c, err := New(context.Background(), Options{PGID: 1<<22 + 17})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tel := c.EndTrial(3)
	want := []string{
		"telemetry: EndTrial(3) without BeginTrial(3)",
		fmt.Sprintf("target CPU: process group %d: no process left", 1<<22+17),
	}
	if d := cmp.Diff(want, tel.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"zero", Options{}, ""},
		{"all", Options{GPU: true, PGID: 42, MetricsURL: "http://127.0.0.1:8002/metrics", Interval: time.Second}, ""},
		{"negative pgid", Options{PGID: -1}, "process group -1"},
		{"negative interval", Options{Interval: -time.Second}, "interval -1s"},
		{"bad scheme", Options{MetricsURL: "ftp://x/metrics"}, `metrics URL "ftp://x/metrics"`},
		{"unparsable URL", Options{MetricsURL: "http://[::1"}, `metrics URL "http://[::1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Validate() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestSampleFor(t *testing.T) {
	var buf bytes.Buffer
	if err := SampleFor(context.Background(), 150*time.Millisecond, 20*time.Millisecond, &buf); err != nil {
		t.Fatal(err)
	}
	var tel result.Telemetry
	if err := json.Unmarshal(buf.Bytes(), &tel); err != nil {
		t.Fatalf("SampleFor wrote %q: %v", buf.String(), err)
	}
	if tel.NoGPU == (len(tel.GPUs) > 0) {
		t.Errorf("SampleFor wrote %s: want either no_gpu or GPU figures", buf.String())
	}
	if err := SampleFor(context.Background(), 0, time.Millisecond, &buf); err == nil {
		t.Error("SampleFor(duration 0) = nil error, want one")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SampleFor(ctx, time.Hour, time.Millisecond, &buf); !errors.Is(err, context.Canceled) {
		t.Errorf("SampleFor(cancelled) = %v, want context.Canceled", err)
	}
}
