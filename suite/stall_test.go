package suite

import (
	"runtime"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// A knee probe whose window stalled (sends late while perfgate sat idle,
// its threads not queued for a CPU) is marked as run on a busy host, so
// gate --ab measures the pair again and a stored comparison calls a change
// resting on it host busy; a probe that failed on the service's own
// latency, or whose generator waited for a CPU, is not.
func TestStallMarked(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	trial := func(lag, p99, runQueue float64) *result.Result {
		return &result.Result{Trials: []result.Trial{{LagP99Ms: lag, GeneratorCPU: 0.05,
			GeneratorRunQueueMs: runQueue, Latency: result.Latency{P50: 4, P99: p99}}}}
	}
	quiet := &result.HostLoad{OtherCPUCores: 0.01}
	tests := []struct {
		name string
		host *result.HostLoad
		run  *result.Result
		busy bool
	}{
		{"a stall far below the knee (the VM's 88.8 ms pause)", quiet, trial(88.8, 94.1, 0.07), true},
		{"no host reading: still marked", nil, trial(40, 60, 0.07), true},
		{"over the knee: the tail is the queue, not lateness", quiet, trial(12, 480, 0.07), false},
		{"late while waiting for a CPU: not a stall", quiet, trial(88.8, 94.1, 2), false},
		{"a quiet probe", quiet, trial(0.2, 6, 0.07), false},
		{"no result", quiet, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := stallMarked(tt.host, tt.run)
			busy := got != nil && got.Busy
			if busy != tt.busy {
				t.Fatalf("busy %v, want %v (%+v, %d cores)", busy, tt.busy, got, cores)
			}
			if busy && !strings.HasPrefix(got.Why, "the machine stalled: sends were") {
				t.Errorf("why %q, want the stall named", got.Why)
			}
			if busy && tt.host != nil && (tt.host.Busy || got.OtherCPUCores != tt.host.OtherCPUCores) {
				t.Errorf("the probe's own reading changed: %+v → %+v", tt.host, got)
			}
		})
	}
}
