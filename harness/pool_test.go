package harness

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

func TestPoolSize(t *testing.T) {
	tests := []struct {
		name               string
		mode               string
		concurrency, conns int
		want               int
	}{
		{"closed loop gets one connection per worker", ModeConcurrency, 500, 0, 500},
		{"closed loop past the open-loop default", ModeConcurrency, 10000, 0, 10000},
		{"a user's cap is kept, even below the load", ModeConcurrency, 500, 50, 50},
		{"open loop: the engine's cap, opened lazily", ModeRate, 0, 0, DefaultMaxConns},
		{"sweep probes are open loop", ModeSweep, 0, 0, DefaultMaxConns},
		{"open loop cap", ModeRate, 0, 8, 8},
		// A zero concurrency in closed loop is refused by Validate; the
		// pool still never has zero connections.
		{"closed loop without concurrency", ModeConcurrency, 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PoolSize(tt.mode, tt.concurrency, tt.conns); got != tt.want {
				t.Errorf("PoolSize(%q, %d, %d) = %d, want %d", tt.mode, tt.concurrency, tt.conns, got, tt.want)
			}
		})
	}
}

// TestJudgeGeneratorAndWait checks the verdicts on the generator's
// scheduling delay and on the connection wait, from the trial's figures.
func TestJudgeGeneratorAndWait(t *testing.T) {
	cores := float64(runtime.GOMAXPROCS(0))
	tests := []struct {
		name          string
		st            trialStats
		waitShare     float64
		wantValid     bool
		wantGenerator bool
		wantText      string // in Invalid and the warnings
	}{
		{"quiet", trialStats{cpuCores: 0.1 * cores, schedP99: time.Millisecond, set: true}, 0, true, false, ""},
		{"busy generator whose goroutines queue", trialStats{cpuCores: 0.6 * cores, schedP99: 20 * time.Millisecond, set: true}, 0, false, true, "could not keep up"},
		// The generator was mostly idle: other processes took the cores.
		// The figures are suspect (the trial is flagged), but the
		// generator is not the cause (the result stays valid).
		{"busy host", trialStats{cpuCores: 0.1 * cores, schedP99: 20 * time.Millisecond, set: true}, 0, false, false, "the machine was busy"},
		{"saturated", trialStats{cpuCores: 0.95 * cores, schedP99: time.Millisecond, set: true}, 0, false, true, "saturated"},
		// Go's scheduler was prompt, but the whole process waited for a
		// CPU (the busy host: sched P99 0.5 ms, ITL 1.46× off).
		{"starved process, idle generator", trialStats{cpuCores: 0.1 * cores, schedP99: 500 * time.Microsecond,
			runQueue: 3 * time.Millisecond, runQueueSet: true, set: true}, 0, false, false, "threads waited 3.00 ms on average for a CPU"},
		{"starved process, busy generator", trialStats{cpuCores: 0.6 * cores, schedP99: 500 * time.Microsecond,
			runQueue: 3 * time.Millisecond, runQueueSet: true, set: true}, 0, false, true, "could not keep up: its threads waited"},
		{"run-queue wait at the bound", trialStats{cpuCores: 0.1 * cores, runQueue: MaxRunQueueWait, runQueueSet: true, set: true}, 0, true, false, ""},
		{"connection wait under the limit", trialStats{set: true}, 0.04, true, false, ""},
		{"connection wait over the limit", trialStats{set: true}, 0.2, false, false, "waited inside perfgate for a connection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &Options{Mode: ModeConcurrency, Concurrency: 1}
			r := newRecorder(o, time.Now(), time.Second, 1)
			r.capped = true
			res := &result.Result{Valid: true}
			tr := result.Trial{Valid: true, DurationS: 1, ConnWaitShare: tt.waitShare}
			r.judge(0, &tr, tt.st, res)
			if tr.Valid != tt.wantValid || tr.GeneratorLimited != tt.wantGenerator || res.Valid != !tt.wantGenerator {
				t.Errorf("trial valid %v, generator-limited %v, result valid %v; want %v, %v, %v (invalid %q)",
					tr.Valid, tr.GeneratorLimited, res.Valid, tt.wantValid, tt.wantGenerator, !tt.wantGenerator, tr.Invalid)
			}
			text := strings.Join(append(tr.Invalid, res.Warnings...), "\n")
			if tt.wantText != "" && !strings.Contains(text, tt.wantText) {
				t.Errorf("invalid %q, warnings %q; want %q", tr.Invalid, res.Warnings, tt.wantText)
			}
			if tt.wantText == "" && text != "" {
				t.Errorf("invalid %q, warnings %q; want none", tr.Invalid, res.Warnings)
			}
		})
	}
}
