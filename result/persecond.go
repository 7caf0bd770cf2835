package result

import "fmt"

// PerSecond is a trial's compact timeline: one entry per second of the
// measurement window, so that a stall, a warm-up that was too short or a
// slow drift is visible where the trial's totals hide it.
//
// Entry i covers [i s, (i+1) s) from the window's start. The arrays have the
// same length (the window's length rounded up to whole seconds; a final
// partial second is included and shorter than the others).
//
//   - Achieved[i] is the number of responses (successes and errors) that
//     arrived in second i: the achieved rate in requests per second.
//   - Errors[i] is how many of the requests scheduled in second i failed.
//   - P99Ms[i] is the P99 latency (ms, from the intended send time) of the
//     successful requests scheduled in second i, from a histogram of 2
//     significant digits (1% resolution); 0 when none succeeded there.
//   - Offered[i] is how many requests were scheduled in second i (answered
//     or failed): where a dip in Achieved is the schedule's own (a Poisson
//     schedule's quiet second) rather than a stall.
//     Optional: results written before it existed omit it.
//
// The field is optional: results written before it existed, or by tools
// that do not record it, omit it and stay valid perfgate.result/v1.
type PerSecond struct {
	Achieved []int64   `json:"achieved"`
	Errors   []int64   `json:"errors"`
	P99Ms    []float64 `json:"p99_ms"`
	Offered  []int64   `json:"offered,omitempty"`
}

// Len is the number of seconds in the series.
func (p *PerSecond) Len() int {
	if p == nil {
		return 0
	}
	return len(p.Achieved)
}

// Check reports a series whose arrays disagree in length or hold negative
// values, naming the field.
func (p *PerSecond) Check() error {
	if p == nil {
		return nil
	}
	n := len(p.Achieved)
	if len(p.Errors) != n || len(p.P99Ms) != n {
		return fmt.Errorf("per_second: achieved, errors and p99_ms have %d, %d and %d entries, want the same", n, len(p.Errors), len(p.P99Ms))
	}
	if p.Offered != nil && len(p.Offered) != n {
		return fmt.Errorf("per_second: offered has %d entries where achieved has %d, want the same", len(p.Offered), n)
	}
	for i := range n {
		if p.Achieved[i] < 0 || p.Errors[i] < 0 || p.P99Ms[i] < 0 || (p.Offered != nil && p.Offered[i] < 0) {
			return fmt.Errorf("per_second: second %d has a negative value", i)
		}
	}
	return nil
}
