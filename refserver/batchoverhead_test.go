package refserver

import (
	"net/http"
	"testing"
	"time"
)

// TestBatchOverhead: --batch-overhead slows the dynamic batcher only, so
// that `perfgate demo` plants a regression in one layer: with batching on
// every request waits for the overhead; with batching off (the model
// layer's variants) none does.
func TestBatchOverhead(t *testing.T) {
	const overhead = 40 * time.Millisecond
	tests := []struct {
		name     string
		maxBatch int
		slowed   bool
	}{
		{"batching on", 4, true},
		{"batching off", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, hs := newTestServer(t, Options{Model: ModelSim, SimFixed: time.Microsecond, SimPerItem: time.Microsecond,
				MaxBatch: tt.maxBatch, BatchOverhead: overhead})
			c := &http.Client{Timeout: 10 * time.Second}
			// The fastest of three requests: a scheduler's hiccup can only
			// slow one, never speed it up.
			best := time.Hour
			for i := range 3 {
				start := time.Now()
				inferHTTP(t, c, hs.URL, "mlp", inferRequest(uint64(i), 1, 64))
				best = min(best, time.Since(start))
			}
			// spinFor spends about the overhead (its rate is calibrated on
			// the fastest of five samples, so it may run a little short):
			// slowed is most of it, where an unslowed request takes
			// microseconds.
			if got := best >= overhead*3/4; got != tt.slowed {
				t.Errorf("max batch %d, overhead %v: fastest request took %v; slowed %v, want %v", tt.maxBatch, overhead, best, got, tt.slowed)
			}
		})
	}
}

// TestItemOverhead: --item-overhead slows the dynamic batcher only, as
// --batch-overhead does, but per item batched: a request of n items pays
// it n times, so no batch amortises it; with batching off (the model
// layer's variants) none pays it.
func TestItemOverhead(t *testing.T) {
	const overhead = 20 * time.Millisecond
	tests := []struct {
		name     string
		maxBatch int
		items    int
		atLeast  time.Duration // 0: unslowed
	}{
		{"batching on", 4, 1, overhead * 3 / 4},
		{"three items", 4, 3, 3 * overhead * 3 / 4},
		{"batching off", 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, hs := newTestServer(t, Options{Model: ModelSim, SimFixed: time.Microsecond, SimPerItem: time.Microsecond,
				MaxBatch: tt.maxBatch, ItemOverhead: overhead})
			c := &http.Client{Timeout: 10 * time.Second}
			best := time.Hour
			for i := range 3 {
				start := time.Now()
				inferHTTP(t, c, hs.URL, "mlp", inferRequest(uint64(i), tt.items, 64))
				best = min(best, time.Since(start))
			}
			if tt.atLeast > 0 && best < tt.atLeast {
				t.Errorf("max batch %d, %d items: fastest request took %v, want at least %v", tt.maxBatch, tt.items, best, tt.atLeast)
			}
			if tt.atLeast == 0 && best >= overhead/2 {
				t.Errorf("batching off: fastest request took %v, want well under %v (the knob inert)", best, overhead/2)
			}
		})
	}
}
