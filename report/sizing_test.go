package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
	"github.com/perfgate/perfgate/sizing/sizingtest"
)

// dayCurve reads the working day that package sizing's schedule tests
// plan from (sizing/testdata/day.csv).
func dayCurve(t *testing.T) *sizing.Curve {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "sizing", "testdata", "day.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := sizing.ReadTraffic("day.csv", f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The sizing plan in its three formats, against testdata/sizing/.
func TestSizingGolden(t *testing.T) {
	closed := sizingtest.Sweep(1234.5, 1260, 8.42)
	closed.Capacity.Points[1].InFlightMean = 10.4
	closed.Capacity.Points[1].AchievedRPS = 1234.5
	// A search that stopped on its budget after bracketing the knee, on a
	// simulated target. (One that stopped without a bracket is not sized:
	// sizing.TestPlanRefusesNoBracket.)
	stopped := sizingtest.Sweep(800, 880, 5)
	stopped.Simulated = true
	stopped.Capacity.Stopped = "time budget 2m0s spent"
	tests := []struct {
		name string
		res  *result.Result
		in   sizing.Input
		json bool // day's JSON is package sizing's TestScheduleJSON
	}{
		{"design", closed, sizing.Input{PeakQPS: 5000, Headroom: 1.3, CostPerInstanceHour: 2.5}, true},
		{"wide-bracket", sizingtest.Sweep(500, 1000, 2), sizing.Input{PeakQPS: 5000, Headroom: 1}, true},
		{"stopped-simulated", stopped, sizing.Input{PeakQPS: 4000}, true},
		// A traffic curve: the schedule, the hour-by-hour plan and the
		// daily cost.
		{"day", sizingtest.Knee(1000), sizing.Input{Headroom: 1, CostPerInstanceHour: 2.5, Traffic: dayCurve(t)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := sizing.Plan(tt.res, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct {
				ext    string
				render func(*bytes.Buffer, *sizing.Sizing) error
			}{
				{"txt", func(b *bytes.Buffer, s *sizing.Sizing) error { return SizingText(b, s) }},
				{"md", func(b *bytes.Buffer, s *sizing.Sizing) error { return SizingMarkdown(b, s) }},
				{"json", func(b *bytes.Buffer, s *sizing.Sizing) error { return SizingJSON(b, s) }},
			} {
				if f.ext == "json" && !tt.json {
					continue
				}
				var b bytes.Buffer
				if err := f.render(&b, s); err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join("sizing", tt.name+"."+f.ext), b.Bytes())
				if f.ext != "json" {
					continue
				}
				var back sizing.Sizing
				if err := json.Unmarshal(b.Bytes(), &back); err != nil {
					t.Fatalf("decoding SizingJSON output: %v", err)
				}
				if d := cmp.Diff(*s, back); d != "" {
					t.Errorf("JSON round trip (-want +got):\n%s", d)
				}
			}
		})
	}
}

// RenderSizing dispatches every format ParseFormat accepts to its
// renderer, and refuses another.
func TestRenderSizing(t *testing.T) {
	s, err := sizing.Plan(sizingtest.Sweep(1234.5, 1260, 8.42), sizing.Input{PeakQPS: 5000})
	if err != nil {
		t.Fatal(err)
	}
	want := map[Format]string{FormatText: "sizing: kserve-int8\n", FormatMarkdown: "### Sizing: kserve-int8\n", FormatJSON: "{\n  \"schema\": \"" + sizing.Schema + "\""}
	for _, name := range Formats {
		f, err := ParseFormat(name)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := RenderSizing(&b, s, f); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(b.String(), want[f]) {
			t.Errorf("RenderSizing(%s) starts %q, want %q", f, b.String()[:min(b.Len(), 40)], want[f])
		}
	}
	if err := RenderSizing(&bytes.Buffer{}, s, Format("html")); err == nil {
		t.Error("RenderSizing(html) = nil, want an error")
	}
}

func TestSizingJSONFields(t *testing.T) {
	// The keys docs/formats.md fixes for perfgate.sizing/v1.
	s, err := sizing.Plan(sizingtest.Sweep(1234.5, 1260, 8.42), sizing.Input{PeakQPS: 5000, CostPerInstanceHour: 2.5})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := SizingJSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "scenario", "slo_p99_ms", "per_instance_max_qps", "per_instance_max_qps_bracket",
		"peak_qps", "headroom", "instances", "instances_range", "concurrency_at_peak", "autoscaler", "cost_per_month"} {
		if _, ok := m[k]; !ok {
			t.Errorf("sizing JSON lacks %q", k)
		}
	}
	if a, _ := m["autoscaler"].(map[string]any); a["target_qps_per_instance"] == nil {
		t.Errorf("autoscaler lacks target_qps_per_instance: %v", a)
	}
	s.CostPerMonth = nil
	buf.Reset()
	if err := SizingJSON(&buf, s); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("cost_per_month")) {
		t.Errorf("cost_per_month present without a price:\n%s", buf.String())
	}
}

// The change of plan in one line, as the text report prints it.
func TestSizingDiff(t *testing.T) {
	plan := func(t *testing.T, r *result.Result, in sizing.Input) *sizing.Sizing {
		t.Helper()
		s, err := sizing.Plan(r, in)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	in := sizing.Input{PeakQPS: 5000, Headroom: 1.3, CostPerInstanceHour: 2.5}
	day := sizing.Input{Headroom: 1, CostPerInstanceHour: 2.5, Traffic: dayCurve(t)}
	tests := []struct {
		name       string
		base, cand *sizing.Sizing
		want       string
	}{
		{"priced", plan(t, sizingtest.Sweep(600, 620, 8), in), plan(t, sizingtest.Sweep(470, 485, 10), in),
			"instances 11 → 14 (+3) for 5000 peak QPS; max QPS per instance 600 → 470 (-21.7%); cost +$5,475.00/month"},
		{"unpriced", plan(t, sizingtest.Sweep(600, 620, 8), sizing.Input{PeakQPS: 5000}), plan(t, sizingtest.Sweep(600, 620, 8), sizing.Input{PeakQPS: 5000}),
			"instances 11 → 11 (±0) for 5000 peak QPS; max QPS per instance 600 → 600 (±0.0%); cost not priced (set capacity.cost_per_instance_hour)"},
		// A traffic curve adds the scheduled fleet's daily cost. At 800 rps
		// per instance the day's 08–19 step needs 5 instances, not 4: 11
		// instance-hours more than the 62 of 1000 rps, at $2.50 = $27.50.
		{"scheduled", plan(t, sizingtest.Knee(1000), day), plan(t, sizingtest.Knee(800), day),
			"instances 4 → 5 (+1) for 3500 peak QPS; max QPS per instance 1000 → 800 (-20.0%); cost +$1,825.00/month; scheduled cost +$27.50/day"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sizingDiff(sizing.Compare(tt.base, tt.cand)); got != tt.want {
				t.Errorf("sizingDiff() = %q, want %q", got, tt.want)
			}
		})
	}
}

// Names and sources from perfgate.yaml inside a plan's rows and warnings
// are escaped with the one escaper: no mention, no extra cell.
func TestSizingMarkdownEscapes(t *testing.T) {
	s, err := sizing.Plan(sizingtest.Knee(1000), sizing.Input{Headroom: 1, Traffic: dayCurve(t)})
	if err != nil {
		t.Fatal(err)
	}
	s.Traffic.Source = "curve@team|x.csv"
	s.Warnings = []string{"scenario @team|x: [a](b)"}
	var b bytes.Buffer
	if err := SizingMarkdown(&b, s); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{"| traffic | curve@\u200dteam\\|x.csv (+01:00, daily", "- :warning: scenario @\u200dteam\\|x: \\[a\\]\\(b\\)\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("markdown lacks %q:\n%s", want, got)
		}
	}
}
