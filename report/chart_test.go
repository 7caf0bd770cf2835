package report

import (
	"math"
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
	if !strings.Contains(got, "blue: PR") || strings.Contains(got, "grey: PR") {
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

func TestRateGrid(t *testing.T) {
	tests := []struct {
		name     string
		lo, hi   float64
		wantStep float64
		wantN    int
	}{
		// The probes: 121, 125, 139, 152 rps.
		{name: "close probes", lo: 121, hi: 152, wantStep: 2, wantN: 17},
		{name: "a wide sweep", lo: 250, hi: 1500, wantStep: 100, wantN: 14},
		{name: "one rate", lo: 100, hi: 100, wantN: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xs := rateGrid(tt.lo, tt.hi)
			if len(xs) != tt.wantN {
				t.Fatalf("rateGrid(%v, %v) = %v: %d rates, want %d", tt.lo, tt.hi, xs, len(xs), tt.wantN)
			}
			if xs[0] > tt.lo || xs[len(xs)-1] < tt.hi {
				t.Errorf("rateGrid(%v, %v) = %v does not cover the range", tt.lo, tt.hi, xs)
			}
			for i := 1; i < len(xs); i++ {
				if d := xs[i] - xs[i-1]; math.Abs(d-tt.wantStep) > 1e-9 {
					t.Errorf("rateGrid(%v, %v) step %d is %v, want %v (uniform)", tt.lo, tt.hi, i, d, tt.wantStep)
				}
			}
		})
	}
}

func TestChartMarksKnees(t *testing.T) {
	base, cand := sweep("s", "service", 1000, 8, "H200"), sweep("s", "service", 800, 8, "H200")
	got := chart("s", base, cand)
	// The grid runs from 200 to 1200 in steps of 100 (0.25·800 to 1.2·1000),
	// so the knees fall on the categories "1k" (△) and "800" (▲).
	if !strings.Contains(got, `x-axis "offered load (rps) · ▲ PR knee · △ baseline knee" ["200", "300", "400", "500", "600", "700", "▲800", "900", "△1k", "1.1k", "1.2k"]`) {
		t.Errorf("the rate axis is not a uniform grid with the knees marked:\n%s", got)
	}
	for _, want := range []string{
		"△ baseline knee 1,000 rps (bracket 1,000–1,050)",
		"▲ PR knee 800 rps",
		`plotColorPalette: "#8c8c8c, #1f6feb, #2da44e"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("chart lacks %q:\n%s", want, got)
		}
	}
}
