package suite

import (
	"context"
	"testing"
	"time"

	"github.com/perfgate/perfgate/harness"
)

// A generator's share: closed loop, its part of the concurrency (the first
// C mod N generators one more); open loop, R/N of the requests. Either way
// the result records the whole load, which share it sent, and when it
// started; --start-at is kept to the instant.
func TestGeneratorShare(t *testing.T) {
	url := simServer(t)
	tests := []struct {
		name     string
		load     string
		gen      Generator
		wantConc int
		wantReqs [2]int64 // bounds of the measured requests
		startIn  time.Duration
	}{
		{"closed loop, first of two", "{mode: concurrency, concurrency: 3, duration: 300ms, warmup: 100ms, trials: 1}", Generator{Index: 1, Count: 2}, 2, [2]int64{1, 1 << 40}, 0},
		{"closed loop, second of two", "{mode: concurrency, concurrency: 3, duration: 300ms, warmup: 100ms, trials: 1}", Generator{Index: 2, Count: 2}, 1, [2]int64{1, 1 << 40}, 0},
		// 120 rps over 4 generators: 30 rps each, 15 in a 500 ms window.
		{"open loop, poisson", "{mode: rate, rate: 120, arrival: poisson, seed: 7, duration: 500ms, warmup: 100ms, trials: 1}", Generator{Index: 3, Count: 4}, 0, [2]int64{3, 40}, 0},
		{"open loop, start at", "{mode: rate, rate: 100, duration: 500ms, warmup: 100ms, trials: 1}", Generator{Index: 2, Count: 2}, 0, [2]int64{24, 26}, 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := parse(t, "version: 1\nscenarios:\n  - {name: fleet, layer: system, url: "+url+", protocol: kserve-http, model: mlp, load: "+tt.load+"}\n")
			g := tt.gen
			if tt.startIn > 0 {
				g.StartAt = time.Now().Add(tt.startIn)
			}
			outs, err := Run(context.Background(), compiled(t, cfg), Options{Generator: &g})
			if err != nil {
				t.Fatal(err)
			}
			r := outs[0].Result
			if r == nil || r.Generator == nil {
				t.Fatalf("no generator record: %v", outs[0].Err)
			}
			l := cfg.Scenarios[0].Load
			if r.Load.Rate != l.Rate || r.Load.Concurrency != l.Concurrency {
				t.Errorf("load rate %v concurrency %d, want the whole load's %v and %d", r.Load.Rate, r.Load.Concurrency, l.Rate, l.Concurrency)
			}
			if l.Arrival == harness.ArrivalPoisson && (r.Load.Arrival != harness.ArrivalPoisson || r.Load.Seed != l.Seed) {
				t.Errorf("arrival %q seed %d, want poisson and seed %d: every generator draws the same schedule", r.Load.Arrival, r.Load.Seed, l.Seed)
			}
			if gr := r.Generator; gr.Index != g.Index || gr.Count != g.Count || gr.Concurrency != tt.wantConc || gr.ConfigHash != cfg.Hash {
				t.Errorf("generator record %+v, want %d/%d, concurrency %d, config %s", gr, g.Index, g.Count, tt.wantConc, cfg.Hash)
			}
			if n := r.Summary.Requests; n < tt.wantReqs[0] || n > tt.wantReqs[1] {
				t.Errorf("%d requests measured, want %d to %d", n, tt.wantReqs[0], tt.wantReqs[1])
			}
			if !g.StartAt.IsZero() {
				if r.Generator.StartAt == nil || !r.Generator.StartAt.Equal(g.StartAt) || !r.StartedAt.Equal(g.StartAt.UTC()) {
					t.Errorf("start_at %v, result started_at %v; want both %v", r.Generator.StartAt, r.StartedAt, g.StartAt)
				}
				if r.Generator.StartedAt.Before(g.StartAt) {
					t.Errorf("started %v, before the agreed instant %v", r.Generator.StartedAt, g.StartAt)
				}
			}
		})
	}
}
