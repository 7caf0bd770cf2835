package refserver

import (
	"testing"
	"time"
)

// TestSimCPUComputes checks that --sim-cpu spends the sim model's cost on
// the CPU, not asleep: twenty 2 ms batches use at least 80% of 40 ms of
// this process's CPU time, where the sleeping model uses almost none.
func TestSimCPUComputes(t *testing.T) {
	for _, tt := range []struct {
		name    string
		cpu     bool
		atLeast float64 // share of the cost spent on the CPU
		atMost  float64
	}{
		{"computing", true, 0.8, 100},
		{"sleeping", false, 0, 0.5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Model, o.SimCPU, o.SimFixed, o.SimPerItem = ModelSim, tt.cpu, 2*time.Millisecond, 0
			b, err := newBackend(o)
			if err != nil {
				t.Fatal(err)
			}
			in := b.info()
			x, y := make([]float32, in.inSize), make([]float32, in.outSize)
			before, ok := processCPU()
			if !ok {
				t.Skip("no process CPU clock here")
			}
			const n = 20
			for range n {
				if err := b.forward(x, 1, y); err != nil {
					t.Fatal(err)
				}
			}
			after, _ := processCPU()
			share := float64(after-before) / float64(n*2*time.Millisecond)
			t.Logf("%d batches of 2 ms: %.0f%% of the cost on the CPU", n, 100*share)
			if share < tt.atLeast || share > tt.atMost {
				t.Errorf("CPU time %.0f%% of the cost, want between %.0f%% and %.0f%%", 100*share, 100*tt.atLeast, 100*tt.atMost)
			}
		})
	}
}
