package knee

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

func TestLightLoadWarning(t *testing.T) {
	pt := func(rate, p99 float64, pass bool) result.Point {
		return result.Point{OfferedRPS: rate, Latency: result.Latency{P99: p99}, Pass: pass}
	}
	tests := []struct {
		name string
		c    *result.Capacity
		want string // a substring; "" for no warning
	}{
		// The SLO at the service's light-load tail (the knee and its P99
		// as measured, LightLoadWarning's doc; the failing probe made up).
		{"knee at the light-load tail", &result.Capacity{SLOP99Ms: 10, MaxQPS: 7.9, Found: true,
			Points: []result.Point{pt(10, 12.1, false), pt(7.9, 8.65, true)}}, "(8.65 ms at 7.9 rps, 86% of it)"},
		// A knee well above its light-load P99: the load decides it.
		{"queueing decides", &result.Capacity{SLOP99Ms: 20, MaxQPS: 353, Found: true,
			Points: []result.Point{pt(10, 6.1, true), pt(180, 7.7, true), pt(361, 66.8, false), pt(353, 12, true)}}, ""},
		// The least light-load P99 counts: one slow window is not the floor.
		{"one slow light window", &result.Capacity{SLOP99Ms: 20, MaxQPS: 353, Found: true,
			Points: []result.Point{pt(10, 19.3, true), pt(170, 7.0, true), pt(353, 12, true)}}, ""},
		{"light windows all near the SLO", &result.Capacity{SLOP99Ms: 20, MaxQPS: 353, Found: true,
			Points: []result.Point{pt(10, 19.3, true), pt(170, 11.5, true), pt(353, 19, true)}}, "(11.5 ms at 170 rps"},
		{"no knee: the no-knee warning says it", &result.Capacity{SLOP99Ms: 10, Points: []result.Point{pt(10, 12, false)}}, ""},
		{"no P99 SLO", &result.Capacity{MaxQPS: 50, Found: true, Points: []result.Point{pt(10, 12, true)}}, ""},
		{"nil", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LightLoadWarning(tt.c)
			switch {
			case tt.want == "" && got != "":
				t.Errorf("warned %q, want none", got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("warning %q, want one containing %q", got, tt.want)
			}
		})
	}
}
