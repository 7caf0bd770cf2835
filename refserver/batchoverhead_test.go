package refserver

import (
	"net/http"
	"testing"
	"time"
)

// TestBatcherOverheads: --batch-overhead and --item-overhead slow the
// dynamic batcher only, so that `perfgate demo` plants a regression in
// one layer: with batching on every request waits for the overhead, once
// a batch for the one, once an item for the other (a request of three
// items pays it three times: no batch amortises it); with batching off
// (the model layer's variants) none does.
func TestBatcherOverheads(t *testing.T) {
	const overhead = 20 * time.Millisecond
	perBatch := func(o *Options) { o.BatchOverhead = overhead }
	perItem := func(o *Options) { o.ItemOverhead = overhead }
	tests := []struct {
		name     string
		knob     func(*Options)
		maxBatch int
		items    int
		// atLeast is the least the fastest request takes; 0: unslowed.
		atLeast time.Duration
	}{
		{"per batch, batching on", perBatch, 4, 1, overhead * 3 / 4},
		{"per batch, three items", perBatch, 4, 3, overhead * 3 / 4},
		{"per batch, batching off", perBatch, 1, 1, 0},
		{"per item, batching on", perItem, 4, 1, overhead * 3 / 4},
		{"per item, three items", perItem, 4, 3, 3 * overhead * 3 / 4},
		{"per item, batching off", perItem, 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Model: ModelSim, SimFixed: time.Microsecond, SimPerItem: time.Microsecond, MaxBatch: tt.maxBatch}
			tt.knob(&o)
			_, hs := newTestServer(t, o)
			c := &http.Client{Timeout: 10 * time.Second}
			// The fastest of three requests: a scheduler's hiccup can only
			// slow one, never speed it up. spinFor spends about the
			// overhead (its rate is calibrated on the fastest of five
			// samples, so it may run a little short): slowed is most of
			// it, where an unslowed request takes microseconds.
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
