package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/perfgate/perfgate/result"
)

// Server metric families perfgate understands. Triton exports cumulative
// microsecond counters per model and version; vLLM exports histograms in
// seconds, whose _sum and _count give the total and the number of requests.
const (
	tritonSuccess = "nv_inference_request_success"
	tritonQueue   = "nv_inference_queue_duration_us"
	tritonCompute = "nv_inference_compute_infer_duration_us"

	vllmQueue      = "vllm:request_queue_time_seconds"
	vllmQueueV0    = "vllm:time_in_queue_requests" // older vLLM (V0 engine)
	vllmInference  = "vllm:request_inference_time_seconds"
	vllmPrefill    = "vllm:request_prefill_time_seconds"
	vllmDecode     = "vllm:request_decode_time_seconds"
	sourceTriton   = "triton"
	sourceVLLM     = "vllm"
	maxScrapeBytes = 16 << 20
)

// ErrNoServerMetrics is returned when a scrape holds neither Triton's nor
// vLLM's request timing families.
var ErrNoServerMetrics = errors.New("no Triton or vLLM request timing metrics")

// counters is one scrape's cumulative request timing: total queue and
// compute time in milliseconds over the requests counted in n (queue and
// compute may count their requests separately, as vLLM's histograms do).
type counters struct {
	source              string
	queueMs, queueN     float64
	computeMs, computeN float64
}

// parseMetrics parses the Prometheus text exposition format, keeping only
// the families perfgate reads (filterScrape).
func parseMetrics(r io.Reader) (map[string]*dto.MetricFamily, error) {
	fams, _, err := parseScrape(r)
	return fams, err
}

// parseScrape is parseMetrics also returning how many families r held in
// all.
func parseScrape(r io.Reader) (map[string]*dto.MetricFamily, int, error) {
	kept, n, err := filterScrape(r)
	if err != nil {
		return nil, n, err
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(kept))
	return fams, n, err
}

// total sums a family over all its label sets: the value of a counter,
// gauge or untyped metric, or the sum and count of a histogram or summary.
// ok is false when the family is absent.
func total(fams map[string]*dto.MetricFamily, name string) (sum, count float64, ok bool) {
	f := fams[name]
	if f == nil {
		return 0, 0, false
	}
	for _, m := range f.GetMetric() {
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Untyped != nil:
			sum += m.GetUntyped().GetValue()
		case m.Histogram != nil:
			sum += m.GetHistogram().GetSampleSum()
			count += float64(m.GetHistogram().GetSampleCount())
		case m.Summary != nil:
			sum += m.GetSummary().GetSampleSum()
			count += float64(m.GetSummary().GetSampleCount())
		}
	}
	return sum, count, true
}

// countersOf picks the server's timing counters out of a scrape: Triton's
// and vLLM's, in that order, each when present (a server may export both,
// as perfgate's reference server does for its KServe and LLM models).
//
// Triton: queue = Σ nv_inference_queue_duration_us, compute =
// Σ nv_inference_compute_infer_duration_us, both over
// Σ nv_inference_request_success.
//
// vLLM: queue from vllm:request_queue_time_seconds (or the older
// vllm:time_in_queue_requests), compute from
// vllm:request_inference_time_seconds, or prefill + decode time when that
// histogram is absent, each over its own histogram count.
func countersOf(fams map[string]*dto.MetricFamily) ([]counters, error) {
	var out []counters
	if n, _, ok := total(fams, tritonSuccess); ok {
		q, _, okq := total(fams, tritonQueue)
		c, _, okc := total(fams, tritonCompute)
		if !okq || !okc {
			return nil, fmt.Errorf("%s without %s and %s", tritonSuccess, tritonQueue, tritonCompute)
		}
		out = append(out, counters{source: sourceTriton, queueMs: q / 1000, queueN: n, computeMs: c / 1000, computeN: n})
	}
	q, qn, okq := total(fams, vllmQueue)
	if !okq {
		q, qn, okq = total(fams, vllmQueueV0)
	}
	c, cn, okc := total(fams, vllmInference)
	if !okc {
		p, pn, okp := total(fams, vllmPrefill)
		d, _, okd := total(fams, vllmDecode)
		c, cn, okc = p+d, pn, okp && okd
	}
	if okq && okc {
		out = append(out, counters{source: sourceVLLM, queueMs: q * 1000, queueN: qn, computeMs: c * 1000, computeN: cn})
	}
	if len(out) == 0 {
		return nil, ErrNoServerMetrics
	}
	return out, nil
}

// serverMsBetween is the mean queue and compute time per request completed
// between two scrapes, Δ total time / Δ requests, from the first source
// that counted requests in between.
func serverMsBetween(before, after []counters) (*result.ServerMs, error) {
	var first error
	for _, b := range after {
		for _, a := range before {
			if a.source != b.source {
				continue
			}
			ms, err := between(a, b)
			if err == nil {
				return ms, nil
			}
			if first == nil {
				first = err
			}
		}
	}
	if first == nil {
		first = fmt.Errorf("no metrics family in both scrapes (%s before, %s after)", sources(before), sources(after))
	}
	return nil, first
}

func sources(cs []counters) string {
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += "+"
		}
		s += c.source
	}
	if s == "" {
		return "none"
	}
	return s
}

// between is serverMsBetween for one source.
func between(a, b counters) (*result.ServerMs, error) {
	dq, dqn := b.queueMs-a.queueMs, b.queueN-a.queueN
	dc, dcn := b.computeMs-a.computeMs, b.computeN-a.computeN
	for _, v := range []float64{dq, dqn, dc, dcn} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s counters are not finite numbers", b.source)
		}
	}
	if dq < 0 || dqn < 0 || dc < 0 || dcn < 0 {
		return nil, fmt.Errorf("%s counters went backwards between scrapes (server restarted?)", b.source)
	}
	if dqn == 0 || dcn == 0 {
		return nil, fmt.Errorf("%s counted no completed request between scrapes", b.source)
	}
	return &result.ServerMs{Queue: round3(dq / dqn), Compute: round3(dc / dcn), Source: b.source}, nil
}

func round3(v float64) float64 {
	const k = 1000
	return float64(int64(v*k+0.5)) / k
}

// scrape fetches url and returns its timing counters, one per source.
func scrape(ctx context.Context, client *http.Client, url string) ([]counters, error) {
	fams, _, err := scrapeFamilies(ctx, client, url)
	if err != nil {
		return nil, err
	}
	c, err := countersOf(fams)
	if err != nil {
		return nil, fmt.Errorf("scraping %s: %w", url, err)
	}
	return c, nil
}
