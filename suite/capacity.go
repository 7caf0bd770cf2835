package suite

import (
	"context"
	"fmt"
	"github.com/perfgate/perfgate/internal/sameorigin"
	"net/http"
	"strings"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/protocol"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/telemetry"
)

// probeTimeout bounds the default /metrics probe and each cache scrape.
const probeTimeout = 2 * time.Second

// probeMetrics settles where the target's metrics are read from. A
// configured metrics: URL is used as given; a target perfgate started
// without one is probed at /metrics on its port, and used when it answers
// with Prometheus text. The result says which, and whether it was found.
// It returns the probe (nil when there is nothing to say: a running URL
// without metrics:) and the URL to scrape for cache counters.
func probeMetrics(ctx context.Context, tg *running, started bool) (*result.MetricsProbe, string) {
	client := sameorigin.Client(&http.Client{Timeout: probeTimeout})
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	switch {
	case tg.metrics != "":
		found, why := telemetry.ProbeMetrics(ctx, client, tg.metrics)
		return &result.MetricsProbe{URL: tg.metrics, Origin: "config", Found: found, Why: why}, tg.metrics
	case !started || tg.httpBase == "":
		return nil, ""
	}
	url := strings.TrimSuffix(tg.httpBase, "/") + "/metrics"
	found, why := telemetry.ProbeMetrics(ctx, client, url)
	mp := &result.MetricsProbe{URL: url, Origin: "default", Found: found, Why: why}
	if !found {
		return mp, ""
	}
	if why == "" {
		tg.metrics = url // request timing is there: the observer scrapes it
	}
	return mp, url
}

// cacheScrape reads the cache counters at url; ok is false when there are
// none (or no url).
func cacheScrape(ctx context.Context, url string) (telemetry.CacheCount, bool) {
	if url == "" {
		return telemetry.CacheCount{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	c, err := telemetry.ScrapeCache(ctx, sameorigin.Client(&http.Client{Timeout: probeTimeout}), url)
	return c, err == nil
}

// planFacts records on res what sizing needs of the scenario: the cache's
// hit rate over the run (before and after scrapes) with the repeat
// fraction, and the partition the target ran on.
func planFacts(ctx context.Context, res *result.Result, s *config.Scenario, url string, before telemetry.CacheCount, ok bool) {
	if ok {
		if after, ok2 := cacheScrape(ctx, url); ok2 {
			if c := telemetry.CacheBetween(before, after); c != nil {
				c.Repeat = float64(s.Repeat)
				res.Cache = c
			}
		}
	}
	if p := s.Partition; p != nil {
		res.Partition = &result.Partition{Name: p.Name, PerDevice: p.PerDevice}
	}
}

// withRepeat wraps c to repeat fraction of its inputs (repeat:).
func withRepeat(c harness.Client, po protocol.Options, fraction float64) (harness.Client, error) {
	r, err := protocol.NewRepeat(c, po, fraction)
	if err != nil {
		if cl, ok := c.(harness.Closer); ok {
			cl.Close()
		}
		return nil, fmt.Errorf("repeat: %w", err)
	}
	return r, nil
}
