package export

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/history"
)

// Format names an export format.
type Format string

// The formats, as --format takes them.
const (
	FormatBMF         Format = "bmf"
	FormatGAB         Format = "github-action-benchmark"
	FormatOpenMetrics Format = "openmetrics"
)

// Formats lists the formats.
var Formats = []Format{FormatBMF, FormatGAB, FormatOpenMetrics}

// github-action-benchmark's custom tools.
const (
	ToolSmaller = "customSmallerIsBetter"
	ToolBigger  = "customBiggerIsBetter"
)

// Options select what Write writes.
type Options struct {
	Format Format
	// Tool is the github-action-benchmark tool the file is for: ToolSmaller
	// (the default) or ToolBigger.
	Tool string
}

// Validate reports an unknown format or tool.
func (o Options) Validate() error {
	switch o.Format {
	case FormatBMF, FormatOpenMetrics:
	case FormatGAB:
		if o.Tool != "" && o.Tool != ToolSmaller && o.Tool != ToolBigger {
			return fmt.Errorf("tool %q: want %s or %s", o.Tool, ToolSmaller, ToolBigger)
		}
	default:
		return fmt.Errorf("format %q: want one of bmf, github-action-benchmark, openmetrics", o.Format)
	}
	return nil
}

// Write writes recs in o's format.
func Write(w io.Writer, recs []history.Record, o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	switch o.Format {
	case FormatBMF:
		return BMF(w, recs)
	case FormatGAB:
		bigger := o.Tool == ToolBigger
		return GitHubActionBenchmark(w, recs, bigger)
	default:
		return OpenMetrics(w, recs)
	}
}

// metricNames are a record's metrics, sorted.
func metricNames(r history.Record) []string {
	names := make([]string, 0, len(r.Metrics))
	for n := range r.Metrics {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// BMFMetric is one measure of a BMF benchmark.
type BMFMetric struct {
	Value      float64  `json:"value"`
	LowerValue *float64 `json:"lower_value,omitempty"`
	UpperValue *float64 `json:"upper_value,omitempty"`
}

// BMF writes Bencher Metric Format JSON: a benchmark per scenario (a
// scenario recorded twice keeps its last record), a measure per metric.
func BMF(w io.Writer, recs []history.Record) error {
	out := map[string]map[string]BMFMetric{}
	for _, r := range recs {
		m := map[string]BMFMetric{}
		for _, n := range metricNames(r) {
			v := r.Metrics[n]
			b := BMFMetric{Value: v.Value}
			if v.Hi > 0 {
				lo, hi := v.Lo, v.Hi
				b.LowerValue, b.UpperValue = &lo, &hi
			}
			m[n] = b
		}
		out[r.Scenario] = m
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// GABEntry is one entry of github-action-benchmark's custom JSON.
type GABEntry struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Range string  `json:"range,omitempty"`
	Extra string  `json:"extra,omitempty"`
}

// GitHubActionBenchmark writes the custom JSON of github-action-benchmark:
// the metrics smaller is better for (latencies, error rate), or with
// bigger those bigger is better for (throughputs). Names are "scenario
// metric"; the range is the interval's half-width.
func GitHubActionBenchmark(w io.Writer, recs []history.Record, bigger bool) error {
	out := []GABEntry{}
	for _, r := range recs {
		for _, n := range metricNames(r) {
			if history.HigherIsBetter(n) != bigger {
				continue
			}
			v := r.Metrics[n]
			e := GABEntry{Name: r.Scenario + " " + n, Unit: unitOf(n), Value: v.Value,
				Extra: fmt.Sprintf("commit %s\nrunner %s\nperfgate %s", orUnknown(r.Commit), r.Runner, orUnknown(r.Perfgate))}
			if v.Hi > 0 {
				e.Range = fmt.Sprintf("± %.4g", (v.Hi-v.Lo)/2)
			}
			out = append(out, e)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// unitOf is a metric's unit as github-action-benchmark shows it.
func unitOf(metric string) string {
	switch {
	case strings.HasSuffix(metric, "_ms"):
		return "ms"
	case metric == history.MetricErrorRate:
		return "ratio"
	case metric == history.MetricTokensPS:
		return "tokens/s"
	}
	return "req/s"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// omFamily is one OpenMetrics gauge family and how a metric feeds it.
type omFamily struct {
	name, unit, help string
}

// omOf maps a metric to its family, a percentile label ("" for none) and
// the factor to the family's unit.
func omOf(metric string) (omFamily, string, float64, bool) {
	lat := omFamily{"perfgate_latency_seconds", "seconds", "Request latency of the run (merged trials), from the intended send time."}
	switch metric {
	case history.MetricP50:
		return lat, "50", 1e-3, true
	case history.MetricP99:
		return lat, "99", 1e-3, true
	case history.MetricP999:
		return lat, "99.9", 1e-3, true
	case history.MetricRPS:
		return omFamily{"perfgate_achieved_requests_per_second", "", "Requests per second achieved."}, "", 1, true
	case history.MetricErrorRate:
		return omFamily{"perfgate_error_ratio", "", "Share of requests that failed."}, "", 1, true
	case history.MetricMaxQPS:
		return omFamily{"perfgate_max_requests_per_second", "", "Highest rate meeting the SLO (the knee)."}, "", 1, true
	case history.MetricTTFTP99:
		return omFamily{"perfgate_ttft_p99_seconds", "seconds", "P99 time to first token."}, "", 1e-3, true
	case history.MetricTPOTP99:
		return omFamily{"perfgate_tpot_p99_seconds", "seconds", "P99 time per output token."}, "", 1e-3, true
	case history.MetricTokensPS:
		return omFamily{"perfgate_output_tokens_per_second", "", "Output tokens per second."}, "", 1, true
	}
	return omFamily{}, "", 0, false
}

// OpenMetrics writes the records as OpenMetrics text: one gauge family per
// figure, a sample per scenario (and percentile), ending with "# EOF".
func OpenMetrics(w io.Writer, recs []history.Record) error {
	type sample struct{ labels, value string }
	fams := map[string]omFamily{}
	samples := map[string][]sample{}
	for _, r := range recs {
		for _, n := range metricNames(r) {
			f, pct, k, ok := omOf(n)
			if !ok {
				continue
			}
			fams[f.name] = f
			labels := []string{"scenario", r.Scenario, "runner", r.Runner}
			if r.Commit != "" {
				labels = append(labels, "commit", r.Commit)
			}
			if pct != "" {
				labels = append(labels, "percentile", pct)
			}
			samples[f.name] = append(samples[f.name], sample{omLabels(labels), omFloat(r.Metrics[n].Value * k)})
		}
	}
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		f := fams[n]
		fmt.Fprintf(&b, "# TYPE %s gauge\n", n)
		if f.unit != "" {
			fmt.Fprintf(&b, "# UNIT %s %s\n", n, f.unit)
		}
		fmt.Fprintf(&b, "# HELP %s %s\n", n, f.help)
		seen := map[string]bool{}
		for _, s := range samples[n] {
			if seen[s.labels] {
				continue // one sample per label set: the first record's
			}
			seen[s.labels] = true
			fmt.Fprintf(&b, "%s%s %s\n", n, s.labels, s.value)
		}
	}
	b.WriteString("# EOF\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// omLabels formats name/value pairs as {a="x",b="y"}, escaping values as
// OpenMetrics requires (backslash, double quote, line feed).
func omLabels(kv []string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, fmt.Sprintf(`%s="%s"`, kv[i], r.Replace(kv[i+1])))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// omFloat formats a sample value (NaN and infinities as OpenMetrics
// spells them).
func omFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return fmt.Sprintf("%g", v)
}
