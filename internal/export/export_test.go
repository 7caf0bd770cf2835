package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/history"
)

// records are two scenarios' records: one with a knee, one streaming, and
// a scenario name OpenMetrics must escape.
func records(t *testing.T) []history.Record {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	var out []history.Record
	for _, sp := range []comparetest.Spec{
		{Scenario: "chat", Trials: 4, Requests: 500, MedianMs: 20, Noise: 0.02, MaxQPS: 800, Bracket: [2]float64{780, 820}},
		{Scenario: `odd "name"\ with` + "\nnewline", Trials: 3, Requests: 300, MedianMs: 5, Streaming: true},
	} {
		r := comparetest.Result(sp, rng)
		rec, err := history.FromResult(r, history.Meta{Commit: "0123456789abcdef0123456789abcdef01234567"})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// TestOpenMetricsParses reads the export back with Prometheus's own
// OpenMetrics 1.0 parser (github.com/prometheus/common/expfmt) and checks
// every sample against the records.
func TestOpenMetricsParses(t *testing.T) {
	recs := records(t)
	var buf bytes.Buffer
	if err := OpenMetrics(&buf, recs); err != nil {
		t.Fatal(err)
	}
	dec := expfmt.NewDecoder(bytes.NewReader(buf.Bytes()), expfmt.NewFormat(expfmt.TypeOpenMetrics))
	got := map[string]float64{}
	fams := 0
	for {
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the OpenMetrics parser refused the export: %v\n%s", err, buf.String())
		}
		fams++
		if mf.GetType() != dto.MetricType_GAUGE {
			t.Errorf("%s: type %v, want gauge", mf.GetName(), mf.GetType())
		}
		for _, m := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range m.GetLabel() {
				if l.GetName() == "scenario" || l.GetName() == "percentile" {
					key += "|" + l.GetValue()
				}
			}
			got[key] = m.GetGauge().GetValue()
		}
	}
	// The parser is strict enough to be a check: without the final
	// "# EOF" it refuses the same text.
	cut := strings.TrimSuffix(buf.String(), "# EOF\n")
	bad := expfmt.NewDecoder(strings.NewReader(cut), expfmt.NewFormat(expfmt.TypeOpenMetrics))
	var berr error
	for berr == nil {
		var mf dto.MetricFamily
		berr = bad.Decode(&mf)
	}
	if errors.Is(berr, io.EOF) {
		t.Errorf("the parser took the export without its # EOF: not a check")
	}
	if fams < 5 {
		t.Errorf("parsed %d families, want at least 5:\n%s", fams, buf.String())
	}
	for _, tt := range []struct {
		key    string
		metric string
		rec    int
		factor float64
	}{
		{"perfgate_latency_seconds|chat|99", history.MetricP99, 0, 1e-3},
		{"perfgate_max_requests_per_second|chat", history.MetricMaxQPS, 0, 1},
		{"perfgate_ttft_p99_seconds|" + recs[1].Scenario, history.MetricTTFTP99, 1, 1e-3},
		{"perfgate_error_ratio|chat", history.MetricErrorRate, 0, 1},
	} {
		want := recs[tt.rec].Metrics[tt.metric].Value * tt.factor
		if g, ok := got[tt.key]; !ok || math.Abs(g-want) > 1e-9*math.Max(1, want) {
			t.Errorf("sample %q = %v (found %v), want %v", tt.key, g, ok, want)
		}
	}
}

// TestBMFSchema checks the export against Bencher's published BMF JSON
// Schema (https://bencher.dev/bmf.json, draft-07): an object of benchmarks
// (any non-empty name), each an object of measures (any non-empty name),
// each an object whose "value" is a required number and whose
// "lower_value" and "upper_value", when present, are numbers. Measure
// slugs are at most 64 characters (the reference's order of precedence).
func TestBMFSchema(t *testing.T) {
	recs := records(t)
	var buf bytes.Buffer
	if err := BMF(&buf, recs); err != nil {
		t.Fatal(err)
	}
	var doc map[string]map[string]map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not an object of objects of objects: %v\n%s", err, buf.String())
	}
	if len(doc) != 2 {
		t.Errorf("%d benchmarks, want 2", len(doc))
	}
	for bench, measures := range doc {
		if bench == "" || len(measures) == 0 {
			t.Errorf("benchmark %q with %d measures", bench, len(measures))
		}
		for slug, m := range measures {
			if slug == "" || len(slug) > 64 {
				t.Errorf("%s: measure slug %q: want 1 to 64 characters", bench, slug)
			}
			if _, ok := m["value"].(float64); !ok {
				t.Errorf("%s %s: value %v is not a number (required)", bench, slug, m["value"])
			}
			for k, v := range m {
				switch k {
				case "value", "lower_value", "upper_value":
					if _, ok := v.(float64); !ok {
						t.Errorf("%s %s: %s %v is not a number", bench, slug, k, v)
					}
				default:
					t.Errorf("%s %s: unknown key %q", bench, slug, k)
				}
			}
		}
	}
	p99 := doc["chat"]["p99_ms"]
	if !(p99["lower_value"].(float64) < p99["value"].(float64) && p99["value"].(float64) < p99["upper_value"].(float64)) {
		t.Errorf("chat p99_ms: %v: the interval does not hold the value", p99)
	}
}

// TestGitHubActionBenchmark checks the export against the entry type
// github-action-benchmark reads for its custom tools (BenchmarkResult in
// its src/extract.ts: name string, value number, unit string, range and
// extra optional strings; the file is a JSON array of them) and that each
// tool gets the metrics of its direction.
func TestGitHubActionBenchmark(t *testing.T) {
	recs := records(t)
	for _, tt := range []struct {
		tool      string
		want, not string
	}{
		{ToolSmaller, "chat p99_ms", "chat max_qps"},
		{ToolBigger, "chat max_qps", "chat p99_ms"},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, recs, Options{Format: FormatGAB, Tool: tt.tool}); err != nil {
				t.Fatal(err)
			}
			var entries []map[string]any
			if err := json.Unmarshal(buf.Bytes(), &entries); err != nil {
				t.Fatalf("not a JSON array of objects: %v", err)
			}
			names := map[string]bool{}
			for _, e := range entries {
				for _, k := range []string{"name", "unit"} {
					if s, ok := e[k].(string); !ok || s == "" {
						t.Errorf("entry %v: %s is not a non-empty string", e, k)
					}
				}
				if _, ok := e["value"].(float64); !ok {
					t.Errorf("entry %v: value is not a number", e)
				}
				for k, v := range e {
					switch k {
					case "name", "unit", "value":
					case "range", "extra":
						if _, ok := v.(string); !ok {
							t.Errorf("entry %v: %s is not a string", e, k)
						}
					default:
						t.Errorf("entry %v: unknown key %q", e, k)
					}
				}
				names[e["name"].(string)] = true
			}
			if !names[tt.want] || names[tt.not] {
				t.Errorf("%s names %v: want %q and not %q", tt.tool, names, tt.want, tt.not)
			}
		})
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    Options
		want string
	}{
		{"unknown format", Options{Format: "csv"}, `format "csv"`},
		{"unknown tool", Options{Format: FormatGAB, Tool: "cargo"}, `tool "cargo"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.o.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want an error with %q", err, tt.want)
			}
		})
	}
}
