package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
		{"sweep without knee", &result.Result{Scenario: "s", Layer: "service", Valid: true, Load: result.Load{Mode: "sweep"},
			Capacity: &result.Capacity{SLOP99Ms: 60, Windows: 3}}, "sweep – – – – – – – –"},
		{"nothing completed", &result.Result{Scenario: "s", Layer: "system", Valid: true, Load: result.Load{Mode: "concurrency", Concurrency: 2, Trials: 1}},
			"c=2 ×1 0 0 – – – – – –"},
		{"measured", &result.Result{Scenario: "s", Layer: "model", Valid: true, Load: result.Load{Mode: "rate", Rate: 100, Trials: 5},
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

// An invalid result says so in its own row and in a line after the table
// (issue 43: its row looked like any other, and perfgate run exited 0).
func TestRunTableInvalid(t *testing.T) {
	r := &result.Result{Scenario: "api", Layer: "model", Valid: false, Load: result.Load{Mode: "rate", Rate: 100, Trials: 1},
		Summary:  result.Summary{Requests: 100, AchievedRPS: 60, Latency: result.Latency{P50: 1, P90: 2, P99: 3, P999: 4, Max: 5}},
		Warnings: []string{"trial 1: generator-bound"}}
	var b strings.Builder
	if err := RunTable(&b, []RunRow{{Scenario: "api", Layer: "model", Result: r}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if got := strings.Fields(lines[1]); len(got) < 2 || got[0] != "api" || got[1] != "INVALID" {
		t.Errorf("RunTable row = %q, want it to start \"api INVALID\"", lines[1])
	}
	if !strings.Contains(b.String(), "api: INVALID run: no gate compares it") {
		t.Errorf("RunTable = %q, want a line saying the run is invalid", b.String())
	}
}

// kneeRounds splits a sweep's probes into the search and each
// confirmation round, each by rate: a round starts at the bracket's low
// rate and steps away from the bracket, never back to that rate.
func TestKneeRounds(t *testing.T) {
	p := func(rates ...float64) []result.Point {
		var ps []result.Point
		for _, r := range rates {
			ps = append(ps, result.Point{OfferedRPS: r})
		}
		return ps
	}
	all := append(append(append(p(100, 200, 400, 300), p(300, 400)...), p(300, 400, 440)...), p(300, 400, 270)...)
	c := &result.Capacity{Points: all, Windows: len(all), ConfirmWindows: 8}
	var got [][]float64
	for _, r := range kneeRounds(c) {
		var rates []float64
		for _, q := range r {
			rates = append(rates, q.OfferedRPS)
		}
		got = append(got, rates)
	}
	want := [][]float64{{100, 200, 300, 400}, {300, 400}, {300, 400, 440}, {270, 300, 400}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("kneeRounds (-want +got):\n%s", d)
	}
	if got := kneeRounds(&result.Capacity{Points: p(1, 2), Windows: 2}); len(got) != 1 || len(got[0]) != 2 {
		t.Errorf("kneeRounds without confirmation = %v, want the search alone", got)
	}
}
