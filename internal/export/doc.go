// Package export writes perfgate's run-level figures in the formats other
// tools read, so results flow into what teams already use:
//
//   - BMF, Bencher's Metric Format: {"benchmark": {"measure": {"value",
//     "lower_value", "upper_value"}}}, one benchmark per scenario, one
//     measure per metric (p99_ms, max_qps, …), the interval from the
//     spread of processes or trials (history.Value).
//   - github-action-benchmark's custom tools: a JSON array of {"name",
//     "unit", "value", "range", "extra"}; customSmallerIsBetter takes the
//     latencies and the error rate, customBiggerIsBetter the throughputs,
//     so each metric is charted the right way up.
//   - OpenMetrics text (for a Pushgateway, or Grafana through Prometheus):
//     gauges perfgate_latency_seconds{scenario,percentile},
//     perfgate_achieved_requests_per_second, perfgate_error_ratio,
//     perfgate_max_requests_per_second, perfgate_ttft_p99_seconds,
//     perfgate_tpot_p99_seconds and perfgate_output_tokens_per_second,
//     labelled with the scenario, the runner fingerprint and the commit,
//     ending with "# EOF".
//
// Every format is built from history records (history.FromResult), the
// one place that says what a run's figure is; the package computes
// nothing of its own.
package export
