package harness

import (
	"slices"
	"testing"
	"time"
)

// The shares of N generators are disjoint and their union is the whole
// schedule, hit for hit, for constant and Poisson arrivals and a trace;
// a constant rate's share is rate R/N phase-shifted by i/R.
func TestShardScheduleUnion(t *testing.T) {
	trace := func() Schedule {
		return &TraceSchedule{Speed: 1, offsets: []float64{0, 5, 7, 30, 31, 32, 90}, payloads: make([][]byte, 7)}
	}
	tests := []struct {
		name string
		make func() Schedule
		hits int
	}{
		{"constant", func() Schedule { return &ConstantSchedule{Rate: 300} }, 3000},
		{"poisson", func() Schedule { return NewPoissonSchedule(300, 42) }, 3000},
		{"trace", trace, 7},
	}
	for _, tt := range tests {
		for _, n := range []int{1, 2, 3, 7} {
			whole := take(tt.make(), tt.hits)
			var union []time.Duration
			for i := range n {
				share := take(&ShardSchedule{Inner: tt.make(), Index: i, Count: n}, (tt.hits+n-1-i)/n)
				union = append(union, share...)
			}
			slices.Sort(union)
			if !slices.Equal(union, whole) {
				t.Errorf("%s over %d generators: union of shares differs from the whole schedule (%d vs %d hits)", tt.name, n, len(union), len(whole))
			}
		}
	}
	// Constant: generator i of 3 at 300 rps sends at (3k+i)/300 s.
	s := &ShardSchedule{Inner: &ConstantSchedule{Rate: 300}, Index: 2, Count: 3}
	for k := range 5 {
		off, _, _ := s.Next()
		if want := time.Duration(float64(3*k+2) / 300 * float64(time.Second)); off != want {
			t.Errorf("hit %d at %v, want %v", k, off, want)
		}
	}
}

// take returns up to n offsets of s.
func take(s Schedule, n int) []time.Duration {
	var out []time.Duration
	for range n {
		off, _, ok := s.Next()
		if !ok {
			break
		}
		out = append(out, off)
	}
	return out
}
