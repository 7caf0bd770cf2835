package suite

import (
	"testing"
	"time"
)

// A knee search never probes a rate at which its window would hold fewer
// than minProbeRequests requests (a window with none is an error that ends
// the sweep), and never above the max rate.
func TestMinProbeRate(t *testing.T) {
	tests := []struct {
		name       string
		floor, max float64
		window     time.Duration
		want       float64
	}{
		{"1 s windows: 5 rps", 0.1, 0, time.Second, 5},
		{"30 s windows: a sixth", 0.1, 0, 30 * time.Second, 5.0 / 30},
		{"100 s windows: the knee's own floor", 0.1, 0, 100 * time.Second, 0.1},
		{"a max rate below it wins", 0.1, 2, time.Second, 2},
		{"no window: the floor", 0.1, 0, 0, 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := minProbeRate(tt.floor, tt.max, tt.window); got != tt.want {
				t.Errorf("minProbeRate(%v, %v, %v) = %v, want %v", tt.floor, tt.max, tt.window, got, tt.want)
			}
		})
	}
}
