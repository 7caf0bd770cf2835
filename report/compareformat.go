package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/internal/textfmt"
)

// RenderComparison writes c in format f.
func RenderComparison(w io.Writer, c *compare.Comparison, f Format) error {
	switch f {
	case FormatText:
		return ComparisonText(w, c)
	case FormatMarkdown:
		return ComparisonMarkdown(w, c)
	case FormatJSON:
		return ComparisonJSON(w, c)
	}
	return f.unknown()
}

// ComparisonJSON writes c as indented perfgate.comparison/v1 JSON.
func ComparisonJSON(w io.Writer, c *compare.Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(spoken(c))
}

// DecodeComparison reads a perfgate.comparison/v1 document written by
// ComparisonJSON. Its warnings that are its notes' words are left to the
// notes (the reports compose them again), so that nothing is said twice.
func DecodeComparison(rd io.Reader) (*compare.Comparison, error) {
	var c compare.Comparison
	if err := json.NewDecoder(rd).Decode(&c); err != nil {
		return nil, fmt.Errorf("decoding comparison JSON: %w", err)
	}
	unspoken(&c)
	return &c, nil
}

// values formats a metric's two values, the censored side's (a knee
// search that met the SLO at no rate, compare.Metric.Censored) as the
// bound it is: "< 12.5".
func values(m *compare.Metric, f func(float64) string) (base, cand string) {
	base, cand = f(m.Baseline), f(m.Candidate)
	switch m.Censored {
	case "baseline":
		base = "< " + base
	case "candidate":
		cand = "< " + cand
	}
	return base, cand
}

// metricValues is values with each value formatted as value does.
func metricValues(m *compare.Metric) (base, cand string) {
	return values(m, func(v float64) string { return value(m.Metric, v) })
}

// delta formats a metric's change; a censored one is a bound: "≤ -88.8%"
// when the candidate's value is (the change is at least that large a
// loss), "≥ +300.0%" when the baseline's is.
func delta(m *compare.Metric) string {
	return bound(m.Censored) + pct(m.DeltaPct, m.Absolute)
}

// bound is the prefix of a change that rests on a censored side: "≤ "
// when the candidate's value is a bound, "≥ " when the baseline's is.
func bound(censored string) string {
	switch censored {
	case "baseline":
		return "≥ "
	case "candidate":
		return "≤ "
	}
	return ""
}

// value formats a metric's value for reading: error rates as percent,
// other values with about four significant digits, never in exponent form.
func value(metric string, v float64) string {
	if metric == compare.MetricErrorRate {
		return fmt.Sprintf("%.2f%%", 100*v)
	}
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	case a >= 1 || a == 0:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}

// unit is "%" for relative changes and " pp" for percentage points.
func unit(abs bool) string {
	if abs {
		return textfmt.Points
	}
	return "%"
}

// interval formats a change's interval: "[+12.1%, +23.5%]", or with an
// open top "[+5.0%, ∞)". A relative end beyond ±CapPct is written "over
// +1000%": such an end says the data cannot bound the change, and a
// figure like +46501% would read as a measurement.
func ciText(ci [2]float64, abs, openHigh bool) string {
	end := func(v float64) string {
		if abs {
			return fmt.Sprintf("%+.2f", v) + unit(abs)
		}
		if math.Abs(v) > CapPct {
			return fmt.Sprintf("over %+d%%", int(math.Copysign(CapPct, v)))
		}
		return fmt.Sprintf("%+.1f", v) + unit(abs)
	}
	if openHigh {
		return "[" + end(ci[0]) + ", ∞)"
	}
	return "[" + end(ci[0]) + ", " + end(ci[1]) + "]"
}

// pValue shows the p-value the verdict used (Holm-adjusted for gated
// metrics), or "–" when the method has none.
func pValue(m compare.Metric) string {
	p := m.PValue
	if m.PHolm != nil {
		p = m.PHolm
	}
	if p == nil {
		return "–"
	}
	if *p < 0.001 {
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", *p)
}

// name marks gated metrics with "*".
func name(m compare.Metric) string {
	if m.Gated {
		return m.Metric + " *"
	}
	return m.Metric
}

// change formats an attributed change (a layer's or a ladder step's) with
// its interval and verdict: "×1.225 (log +0.203) +22.5% [+16.0%, +27.3%]
// regressed", "–" when there is none.
func change(c *compare.Change, abs bool) string {
	if c == nil {
		return "–"
	}
	v := c.Verdict
	if c.Descriptive {
		v = "(descriptive)"
	}
	s := bound(c.Censored) + pct(c.DeltaPct, abs) + " " + ciText(c.CIPct, abs, c.CIOpenHigh) + " " + string(v)
	if c.Ratio > 0 {
		s = fmt.Sprintf("×%.3f (log %+.3f) ", c.Ratio, c.LogRatio) + s
	}
	return s
}

// ladderNote says how a ladder's steps add up: their log ratios sum to
// the whole's; no interaction is estimated without a factorial design.
func ladderNote(la *compare.LadderAttribution) string {
	var sum float64
	for _, st := range la.Steps {
		sum += st.P99.LogRatio
	}
	return fmt.Sprintf("p99: the steps' log ratios add up to %+.3f = the whole's %+.3f (×%.3f); no interaction is estimated (that needs a factorial set of rungs)",
		sum, la.Whole.P99.LogRatio, la.Whole.P99.Ratio)
}

// headline is the verdict line every format starts with.
func headline(c *compare.Comparison) string {
	return fmt.Sprintf("perfgate compare: %s: %s", strings.ToUpper(string(c.Verdict)), reasonWithAdvice(c))
}

// settingsLine states the thresholds and the method.
func settingsLine(c *compare.Comparison) string {
	s := c.Settings
	return fmt.Sprintf("thresholds: latency %.3g%%%s%s, max QPS %.3g%%, error rate %.3g pp; confidence %.3g%%; %d bootstrap resamples (seed %d)",
		100*s.P99Regression, latencyThresholdDetail(s), serverComputeThreshold(c), 100*s.MaxQPSRegression, 100*s.ErrorRateIncrease, 100*s.Confidence, s.Resamples, s.Seed)
}

// legend explains the columns.
const legend = "* gated: can fail the gate. p: the metric's test (its method in the JSON: over target processes, trials, A/B pairs or knee estimates; none for a knee bracket), Holm-adjusted for gated metrics; interval: that test's interval of the change; max_qps < x: a knee search that met the SLO at no rate, its lowest failing rate a bound."
