package config

import (
	"strings"
	"testing"
	"time"
)

// engine, loop_batch and loop_spin parse within their ranges; a value
// outside is an error naming the file, the key and the value.
func TestEngineKeys(t *testing.T) {
	const scen = "scenarios:\n  - {name: a, layer: model, url: 'http://127.0.0.1:1/', load: {mode: rate, rate: 5}}\n"
	tests := []struct {
		name      string
		keys      string
		wantBatch *time.Duration // nil: left out
		wantSpin  time.Duration
		wantErr   string // "": parses
	}{
		{name: "left out", keys: ""},
		{name: "spin 20us", keys: "loop_spin: 20us\n", wantSpin: 20 * time.Microsecond},
		{name: "spin 0", keys: "loop_spin: 0s\n"},
		{name: "spin at the bound", keys: "loop_spin: 10ms\n", wantSpin: MaxLoopSpin},
		{name: "spin negative", keys: "loop_spin: -5us\n", wantErr: "loop_spin: -5µs is out of range: want from 0s to 10ms"},
		{name: "spin above the bound", keys: "loop_spin: 11ms\n", wantErr: "loop_spin: 11ms is out of range: want from 0s to 10ms"},
		{name: "spin not a duration", keys: "loop_spin: fast\n", wantErr: "loop_spin"},
		{name: "batch 0", keys: "loop_batch: 0s\n", wantBatch: new(time.Duration(0))},
		{name: "batch negative", keys: "loop_batch: -1ms\n", wantErr: "loop_batch: -1ms is out of range: want from 0s to 1s"},
		{name: "batch above the bound", keys: "loop_batch: 2s\n", wantErr: "loop_batch: 2s is out of range: want from 0s to 1s"},
		{name: "unknown engine", keys: "engine: epoll\n", wantErr: `engine: "epoll": want event-loop or workers`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("p.yaml", []byte("version: 1\n"+tt.keys+scen))
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), "p.yaml:") || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Parse = %v, want an error naming p.yaml and containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.LoopSpin.D() != tt.wantSpin {
				t.Errorf("loop_spin = %v, want %v", c.LoopSpin.D(), tt.wantSpin)
			}
			if (c.LoopBatch == nil) != (tt.wantBatch == nil) || (c.LoopBatch != nil && c.LoopBatch.D() != *tt.wantBatch) {
				t.Errorf("loop_batch = %v, want %v", c.LoopBatch, tt.wantBatch)
			}
		})
	}
}
