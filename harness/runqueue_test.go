package harness

import "testing"

func TestParseSchedstat(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want taskSched
		ok   bool
	}{
		{"kernel line", "6457014 925713 6\n", taskSched{run: 6457014, wait: 925713, slices: 6}, true},
		{"short", "1 2\n", taskSched{}, false},
		{"not a number", "1 x 3\n", taskSched{}, false},
		{"empty", "", taskSched{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseSchedstat([]byte(tt.in))
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseSchedstat(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// since sums per thread; a thread born between the snapshots counts from
// zero, and one whose counters went back (a reused id) counts from zero.
func TestRunQueueSince(t *testing.T) {
	a := runQueueSnapshot{1: {run: 100, wait: 10, slices: 5}, 2: {run: 50, wait: 50, slices: 2}}
	b := runQueueSnapshot{
		1: {run: 300, wait: 30, slices: 9},  // +200, +20, +4
		2: {run: 10, wait: 1, slices: 1},    // reused id: 10, 1, 1
		3: {run: 40, wait: 4000, slices: 5}, // new thread
	}
	got := since(a, b)
	want := runQueueDelta{run: 250, wait: 4021, slices: 10}
	if got != want {
		t.Errorf("since = %+v, want %+v", got, want)
	}
	if m := want.meanWait(); m != 402 {
		t.Errorf("meanWait = %v, want 402ns", m)
	}
	if m := (runQueueDelta{}).meanWait(); m != 0 {
		t.Errorf("meanWait of nothing = %v, want 0", m)
	}
}
