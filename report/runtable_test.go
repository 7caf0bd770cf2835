package report

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// A row with nothing measured shows dashes, not zeros: a knee search with
// no passing probe has no summary, and a run with no completed request
// has no latency.
func TestRunTableDashes(t *testing.T) {
	tests := []struct {
		name string
		r    *result.Result
		want string // the row's fields after the load
	}{
		{"sweep without knee", &result.Result{Scenario: "s", Layer: "service", Load: result.Load{Mode: "sweep"},
			Capacity: &result.Capacity{SLOP99Ms: 60, Windows: 3}}, "sweep – – – – – – – –"},
		{"nothing completed", &result.Result{Scenario: "s", Layer: "system", Load: result.Load{Mode: "concurrency", Concurrency: 2, Trials: 1}},
			"c=2 ×1 0 0 – – – – – –"},
		{"measured", &result.Result{Scenario: "s", Layer: "model", Load: result.Load{Mode: "rate", Rate: 100, Trials: 5},
			Summary: result.Summary{Requests: 500, AchievedRPS: 99.8, Latency: result.Latency{P50: 1, P90: 2, P99: 3, P999: 4, Max: 5}}},
			"100/s ×5 500 0 99.8 1.00 2.00 3.00 4.00 5.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := RunTable(&b, []RunRow{{Scenario: "s", Layer: tt.r.Layer, Result: tt.r}}); err != nil {
				t.Fatal(err)
			}
			row := strings.Fields(strings.Split(b.String(), "\n")[1])
			if got := strings.Join(row[2:], " "); got != tt.want {
				t.Errorf("RunTable row = %q, want %q", got, tt.want)
			}
		})
	}
}
