package telemetry

import (
	"context"
	"fmt"
	"io"
	"net/http"

	dto "github.com/prometheus/client_model/go"

	"github.com/perfgate/perfgate/result"
)

// Cache counter families. Triton counts response-cache lookups per model
// (whole requests); vLLM counts prefix-cache lookups in prompt tokens
// (V1: queries and hits counters; V0 exported only a hit-rate gauge).
const (
	tritonCacheHits   = "nv_cache_num_hits_per_model"
	tritonCacheMisses = "nv_cache_num_misses_per_model"
	vllmPrefixQueries = "vllm:prefix_cache_queries"
	vllmPrefixHits    = "vllm:prefix_cache_hits"
	vllmPrefixRateV0  = "vllm:gpu_prefix_cache_hit_rate"
)

// CacheCount is one scrape's cumulative cache counters.
type CacheCount struct {
	// Source is "triton" or "vllm"; Unit "requests" or "tokens".
	Source, Unit string
	Hits, Misses float64
	// Rate is a server-computed hit rate (vLLM V0's gauge), used only when
	// the server exports no counters (OnlyRate).
	Rate     float64
	OnlyRate bool
}

// cacheOf picks the cache counters out of a scrape: Triton's response
// cache, else vLLM's prefix cache. ok is false when the server exports
// neither.
func cacheOf(fams map[string]*dto.MetricFamily) (CacheCount, bool) {
	if h, _, okh := total(fams, tritonCacheHits); okh {
		if m, _, okm := total(fams, tritonCacheMisses); okm {
			return CacheCount{Source: sourceTriton, Unit: "requests", Hits: h, Misses: m}, true
		}
	}
	q, _, okq := totalAny(fams, vllmPrefixQueries+"_total", vllmPrefixQueries)
	h, _, okh := totalAny(fams, vllmPrefixHits+"_total", vllmPrefixHits)
	if okq && okh {
		return CacheCount{Source: sourceVLLM, Unit: "tokens", Hits: h, Misses: q - h}, true
	}
	if r, _, ok := total(fams, vllmPrefixRateV0); ok {
		return CacheCount{Source: sourceVLLM, Unit: "tokens", Rate: r, OnlyRate: true}, true
	}
	return CacheCount{}, false
}

// totalAny is total of the first family present among names (a counter's
// family is named with or without _total, by exporter).
func totalAny(fams map[string]*dto.MetricFamily, names ...string) (float64, float64, bool) {
	for _, n := range names {
		if s, c, ok := total(fams, n); ok {
			return s, c, true
		}
	}
	return 0, 0, false
}

// ScrapeCache fetches url and returns its cache counters. The error says
// what was wrong: the endpoint, its format, or no cache counters in it.
func ScrapeCache(ctx context.Context, client *http.Client, url string) (CacheCount, error) {
	fams, _, err := scrapeFamilies(ctx, client, url)
	if err != nil {
		return CacheCount{}, err
	}
	c, ok := cacheOf(fams)
	if !ok {
		return CacheCount{}, fmt.Errorf("scraping %s: no cache counters (%s/%s or %s_total/%s_total)",
			url, tritonCacheHits, tritonCacheMisses, vllmPrefixQueries, vllmPrefixHits)
	}
	return c, nil
}

// CacheBetween is the cache's hit rate between two scrapes: Δhits /
// (Δhits + Δmisses). It returns nil when nothing was looked up in between
// or the counters went backwards (a restart).
func CacheBetween(before, after CacheCount) *result.Cache {
	if before.Source != after.Source {
		return nil
	}
	if after.OnlyRate {
		return &result.Cache{Source: after.Source, Unit: after.Unit, HitRate: round3(after.Rate)}
	}
	h, m := after.Hits-before.Hits, after.Misses-before.Misses
	if h < 0 || m < 0 || h+m <= 0 {
		return nil
	}
	return &result.Cache{Source: after.Source, Unit: after.Unit, Hits: h, Misses: m, HitRate: round4(h / (h + m))}
}

func round4(v float64) float64 {
	const k = 10000
	return float64(int64(v*k+0.5)) / k
}

// scrapeFamilies fetches and parses a Prometheus text exposition: at most
// maxScrapeBytes of it, and of that only the families perfgate reads
// (parseScrape). n is how many families the page held in all.
func scrapeFamilies(ctx context.Context, client *http.Client, url string) (fams map[string]*dto.MetricFamily, n int, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("scraping %s: %w", url, err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("scraping %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, 0, fmt.Errorf("scraping %s: %s", url, resp.Status)
	}
	fams, n, err = parseScrape(io.LimitReader(resp.Body, maxScrapeBytes))
	if err != nil {
		return nil, n, fmt.Errorf("scraping %s: not Prometheus text: %w", url, err)
	}
	return fams, n, nil
}

// ProbeMetrics says whether url serves Prometheus metrics perfgate can
// use: found when it answers 200 with the text format. why says what it
// saw otherwise, or which families it lacks (no request timing: the
// server-time figures stay unknown).
func ProbeMetrics(ctx context.Context, client *http.Client, url string) (found bool, why string) {
	fams, n, err := scrapeFamilies(ctx, client, url)
	if err != nil {
		return false, err.Error()
	}
	if _, err := countersOf(fams); err != nil {
		return true, fmt.Sprintf("%d metric families, but %v: server queue and compute time stay unknown", n, err)
	}
	return true, ""
}
