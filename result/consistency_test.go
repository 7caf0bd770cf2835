package result

import (
	"math"
	"strings"
	"testing"
	"time"
)

// consistent returns a well-formed result of two trials, each with 100
// successes (1 to 100 ms) and 5 errors, that agrees with itself.
func consistent(t *testing.T) *Result {
	t.Helper()
	r := &Result{Schema: Schema, Scenario: "s", Layer: LayerModel, Valid: true}
	all := NewHistogram()
	for range 2 {
		h := NewHistogram()
		for i := 1; i <= 100; i++ {
			RecordDuration(h, time.Duration(i)*time.Millisecond)
		}
		enc, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		all.Merge(h)
		r.Trials = append(r.Trials, Trial{Requests: 105, Errors: 5, ErrorsBy: map[string]int64{"timeout": 5},
			AchievedRPS: 10, DurationS: 10, Latency: LatencyOf(h), Histogram: enc, Valid: true})
	}
	r.Summary = Summary{Requests: 210, Errors: 10, ErrorRate: 10.0 / 210, AchievedRPS: 10,
		ErrorsBy: map[string]int64{"timeout": 10}, Latency: LatencyOf(all)}
	return r
}

// histogramOf encodes a histogram holding n values of v µs.
func histogramOf(t *testing.T, v, n int64) string {
	t.Helper()
	h := NewHistogram()
	if err := h.RecordValues(v, n); err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// A result that contradicts itself is refused by Check, naming the field;
// each row is one way a forged or corrupted result was seen to pass
// (issue 28) or could.
func TestCheckRefusesInconsistentResults(t *testing.T) {
	if err := consistent(t).Check(); err != nil {
		t.Fatalf("Check(consistent result) = %v, want nil", err)
	}
	tests := []struct {
		name   string
		mutate func(*Result)
		want   string
	}{
		{"requests but an empty histogram", func(r *Result) {
			for i := range r.Trials {
				r.Trials[i].Histogram = histogramOf(t, 1000, 0)
				r.Trials[i].Latency.P99 = 99999
			}
			r.Summary.Latency.P99 = 99999
		}, `trial 1: field "histogram" holds 0 latencies, but requests − errors is 105 − 5 = 100`},
		{"count overflow", func(r *Result) {
			r.Trials[0].Requests, r.Trials[1].Requests = math.MaxInt64, math.MaxInt64
		}, `field "histogram" holds 100 latencies`},
		{"requests overflow over the trials", func(r *Result) {
			for i := range r.Trials {
				r.Trials[i].Requests = math.MaxInt64/2 + 100
				r.Trials[i].Errors = math.MaxInt64/2 + 0
				r.Trials[i].ErrorsBy = nil
			}
		}, `trial 2: field "requests": the trials' sum overflows int64`},
		{"negative requests", func(r *Result) { r.Trials[1].Requests = -1 }, `trial 2: field "requests" is -1`},
		{"negative errors", func(r *Result) { r.Summary.Errors = -3 }, `summary: field "errors" is -3`},
		{"error rate of 2,000%", func(r *Result) { r.Summary.ErrorRate = 20 }, `summary: field "error_rate" is 20`},
		{"error rate that is not errors / requests", func(r *Result) { r.Summary.ErrorRate = 0 }, `summary: field "error_rate" is 0`},
		{"more errors than requests", func(r *Result) { r.Trials[0].Errors = 200 }, `trial 1: field "errors" is 200, more than its 105 requests`},
		{"negative error class", func(r *Result) { r.Trials[0].ErrorsBy["timeout"] = -1 }, `trial 1: field "errors_by_class.timeout" is -1`},
		{"summary not the trials' sum", func(r *Result) { r.Summary.Requests = 1_000_000 }, `summary: fields "requests" and "errors" are 1000000 and 10, but the trials sum to 210 and 10`},
		{"p99 above the histogram", func(r *Result) { r.Trials[0].Latency.P99 = 99999 }, `trial 1: field "latency_ms.p99" is 99999 ms, outside its histogram's range`},
		{"summary p50 below every histogram", func(r *Result) { r.Summary.Latency.P50 = 0.5 }, `summary: field "latency_ms.p50" is 0.5 ms`},
		{"negative mean", func(r *Result) { r.Trials[1].Latency.Mean = -1 }, `trial 2: field "latency_ms.mean" is -1`},
		{"infinite rate", func(r *Result) { r.Trials[0].AchievedRPS = math.Inf(1) }, `trial 1: field "achieved_rps" is +Inf`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := consistent(t)
			tt.mutate(r)
			err := r.Check()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check() = %v, want an error with %q", err, tt.want)
			}
		})
	}
}
