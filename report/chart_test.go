package report

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

func TestCurveAt(t *testing.T) {
	r := &result.Result{Capacity: &result.Capacity{Points: []result.Point{
		// Out of order and with a repeated probe, as a knee search leaves them.
		{OfferedRPS: 400, Latency: result.Latency{P99: 30}},
		{OfferedRPS: 100, Latency: result.Latency{P99: 10}},
		{OfferedRPS: 200, Latency: result.Latency{P99: 99}},
		{OfferedRPS: 200, Latency: result.Latency{P99: 20}},
	}}}
	c := curveOf(r)
	tests := []struct {
		name string
		x    float64
		want float64
	}{
		{name: "below the first probe holds it", x: 50, want: 10},
		{name: "at a probe", x: 100, want: 10},
		{name: "repeated probe keeps the later", x: 200, want: 20},
		{name: "between probes is linear", x: 300, want: 25},
		{name: "beyond the last probe holds it", x: 1000, want: 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.at(tt.x); got != tt.want {
				t.Errorf("at(%v) = %v, want %v", tt.x, got, tt.want)
			}
		})
	}
}

func TestChartNeedsASweep(t *testing.T) {
	one := &result.Result{Capacity: &result.Capacity{Points: []result.Point{{OfferedRPS: 1}}}}
	if got := chart("x", nil, one); got != "" {
		t.Errorf("chart of a one-point sweep = %q, want none", got)
	}
	got := chart("a\"b`c```", nil, sweep("s", "service", 100, 5, "H200"))
	if !strings.Contains(got, `title "a-b-c---"`) || strings.Count(got, "```") != 2 {
		t.Errorf("chart title not sanitized:\n%s", got)
	}
	if !strings.Contains(got, "grey: PR") {
		t.Errorf("a PR-only chart's legend does not say its line is the PR's:\n%s", got)
	}
}

func TestNiceCeil(t *testing.T) {
	for v, want := range map[float64]float64{0: 1, 0.7: 0.8, 1: 1, 11: 15, 220: 250, 260: 300, 8100: 10000} {
		if got := niceCeil(v); got != want {
			t.Errorf("niceCeil(%v) = %v, want %v", v, got, want)
		}
	}
}
