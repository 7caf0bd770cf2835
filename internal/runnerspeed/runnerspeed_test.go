package runnerspeed

import (
	"runtime"
	"testing"
)

func TestMeasure(t *testing.T) {
	s := Measure()
	if s.CPUs < 1 || s.CPUs > runtime.NumCPU() {
		t.Errorf("probed %d CPUs, want 1..%d", s.CPUs, runtime.NumCPU())
	}
	// A dependent multiply-shift step takes a few cycles: well under
	// 100 ns, and more than a tenth of a nanosecond on any real core.
	if s.ComputeNs < 0.1 || s.ComputeNs > 100 {
		t.Errorf("compute %.3f ns per step, want 0.1..100", s.ComputeNs)
	}
	// A chase through a 32 MiB random cycle misses the L1 and L2 on every
	// step: slower than a register-only step.
	if s.MemoryNs <= s.ComputeNs {
		t.Errorf("memory %.2f ns per step not above compute %.3f: the chase is not missing the caches", s.MemoryNs, s.ComputeNs)
	}
	if s.At.IsZero() {
		t.Error("sample has no time")
	}
}

// The table is one cycle through every entry: a chase from any entry
// visits them all before it returns.
func TestChaseTableIsOneCycle(t *testing.T) {
	tb := chaseTable()
	if len(tb) != tableEntries {
		t.Fatalf("table has %d entries, want %d", len(tb), tableEntries)
	}
	i, n := uint32(0), 0
	for {
		i = tb[i]
		n++
		if i == 0 || n > len(tb) {
			break
		}
	}
	if n != len(tb) {
		t.Errorf("cycle from 0 has length %d, want %d", n, len(tb))
	}
}

func BenchmarkMeasure(b *testing.B) {
	chaseTable()
	for b.Loop() {
		Measure()
	}
}
