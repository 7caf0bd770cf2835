package knee

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

func TestNoKneeWarning(t *testing.T) {
	o := DefaultOptions(time.Millisecond)
	pt := func(rate, p99, errRate float64) result.Point {
		return result.Point{OfferedRPS: rate, AchievedRPS: rate, ErrorRate: errRate, Latency: result.Latency{P99: p99}}
	}
	tests := []struct {
		name   string
		points []result.Point
		want   string
	}{
		{"one rate", []result.Point{pt(5, 3.21, 0)},
			"no rate met P99 ≤ 1 ms; the P99 reached at each rate tried: 3.21 ms at 5 req/s; an SLO of 3.3 ms would have been met at 5 req/s"},
		// Probed high first, then halved: listed by rate; the lowest P99
		// of a rate probed twice counts.
		{"several rates", []result.Point{pt(50, 5.8, 0), pt(25, 4.1, 0), pt(12.5, 3.2, 0), pt(25, 4.4, 0)},
			"no rate met P99 ≤ 1 ms; the P99 reached at each rate tried: 3.2 ms at 12.5 req/s, 4.1 ms at 25 req/s, 5.8 ms at 50 req/s; " +
				"an SLO of 3.2 ms would have been met at 12.5 req/s, one of 5.8 ms up to 50 req/s"},
		// A rate that also failed on its errors would not pass with any
		// P99 SLO: it names no SLO.
		{"errors too", []result.Point{pt(10, 2.5, 0.5), pt(20, 4.5, 0)},
			"no rate met P99 ≤ 1 ms; the P99 reached at each rate tried: 2.5 ms at 10 req/s (it failed on more than its P99), 4.5 ms at 20 req/s; an SLO of 4.5 ms would have been met at 20 req/s"},
		{"only errors", []result.Point{pt(10, 2.5, 0.5)},
			"no rate met P99 ≤ 1 ms; the P99 reached at each rate tried: 2.5 ms at 10 req/s (it failed on more than its P99); no P99 SLO would have been met: every rate failed on more than its P99"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NoKneeWarning(&result.Capacity{SLOP99Ms: 1, Points: tt.points}, o)
			if got != tt.want {
				t.Errorf("NoKneeWarning =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
	if got := NoKneeWarning(&result.Capacity{Found: true, Points: []result.Point{pt(5, 0.5, 0)}}, o); got != "" {
		t.Errorf("NoKneeWarning of a found knee = %q, want none", got)
	}
}
