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

// TestItemOverhead: --item-overhead slows every request, batching on or
// off (the unbatched knee moves with it), and a request of n items pays it
// n times: the cost is per item, so no batch amortises it.
func TestItemOverhead(t *testing.T) {
	const overhead = 20 * time.Millisecond
	tests := []struct {
		name     string
		maxBatch int
		items    int
		overhead time.Duration
		atLeast  time.Duration
	}{
		{"batching on", 4, 1, overhead, overhead * 3 / 4},
		{"batching off", 1, 1, overhead, overhead * 3 / 4},
		{"three items", 4, 3, overhead, 3 * overhead * 3 / 4},
		{"none", 1, 1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, hs := newTestServer(t, Options{Model: ModelSim, SimFixed: time.Microsecond, SimPerItem: time.Microsecond,
				MaxBatch: tt.maxBatch, ItemOverhead: tt.overhead})
			c := &http.Client{Timeout: 10 * time.Second}
			best := time.Hour
			for i := range 3 {
				start := time.Now()
				inferHTTP(t, c, hs.URL, "mlp", inferRequest(uint64(i), tt.items, 64))
				best = min(best, time.Since(start))
			}
			if best < tt.atLeast {
				t.Errorf("max batch %d, %d items, overhead %v: fastest request took %v, want at least %v", tt.maxBatch, tt.items, tt.overhead, best, tt.atLeast)
			}
			if tt.overhead == 0 && best >= overhead/2 {
				t.Errorf("no overhead: fastest request took %v, want well under %v", best, overhead/2)
			}
		})
	}
}
