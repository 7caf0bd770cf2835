package runnerspeed

import (
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/perfgate/perfgate/result"
)

// The probe's fixed work. A probe takes about Reps × (ComputeSteps × 1 ns
// + MemorySteps × 100 ns) ≈ 4 ms per CPU on a current server core.
const (
	ComputeSteps = 200_000
	MemorySteps  = 4_000
	Reps         = 5
	tableEntries = 8 << 20 // uint32 entries: a 32 MiB table, beyond most L2s and many L3 slices
)

// sink keeps the loops' results alive so the compiler cannot drop them.
var sink uint64

var (
	tableOnce sync.Once
	table     []uint32
)

// chaseTable returns the memory loop's table: one random cycle through
// every entry (Sattolo's algorithm), built once per process.
func chaseTable() []uint32 {
	tableOnce.Do(func() {
		t := make([]uint32, tableEntries)
		for i := range t {
			t[i] = uint32(i)
		}
		x := uint64(0x9e3779b97f4a7c15)
		for i := len(t) - 1; i > 0; i-- {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			j := int(x % uint64(i)) // j < i: a single cycle
			t[i], t[j] = t[j], t[i]
		}
		table = t
	})
	return table
}

// compute runs the dependent multiply chain and returns ns per step.
func compute(seed uint64) float64 {
	x := seed | 1
	start := time.Now()
	for range ComputeSteps {
		x = x*6364136223846793005 + 1442695040888963407
		x ^= x >> 29
	}
	d := time.Since(start)
	sink += x
	return float64(d.Nanoseconds()) / ComputeSteps
}

// memory runs the pointer chase from start and returns ns per step.
func memory(t []uint32, start uint32) float64 {
	i := start % uint32(len(t))
	t0 := time.Now()
	for range MemorySteps {
		i = t[i]
	}
	d := time.Since(t0)
	sink += uint64(i)
	return float64(d.Nanoseconds()) / MemorySteps
}

// onCPU runs the two loops Reps times on the current CPU and returns each
// loop's median ns per step. rep0 varies the memory loop's starting point
// so that successive reps do not walk the cache lines the last one warmed.
func onCPU(t []uint32, rep0 uint32) (cpuNs, memNs float64) {
	cs := make([]float64, Reps)
	ms := make([]float64, Reps)
	compute(1) // the first call pays for the page and branch state
	for r := range Reps {
		cs[r] = compute(uint64(r + 2))
		ms[r] = memory(t, rep0+uint32(r)*2_654_435_761)
	}
	return median(cs), median(ms)
}

func median(x []float64) float64 {
	slices.Sort(x)
	n := len(x)
	if n%2 == 1 {
		return x[n/2]
	}
	return (x[n/2-1] + x[n/2]) / 2
}

// Measure takes one sample: both loops on every CPU this process may run
// on, each CPU in turn with the calling goroutine pinned to it (where the
// platform allows pinning; elsewhere on whichever CPU the goroutine runs).
// It allocates the 32 MiB table on first use and takes a few milliseconds
// per CPU.
func Measure() result.SpeedSample {
	t := chaseTable()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var sumC, sumM float64
	n := 0
	forEachCPU(func(cpu int) {
		c, m := onCPU(t, uint32(cpu)*97_531)
		sumC += c
		sumM += m
		n++
	})
	if n == 0 {
		c, m := onCPU(t, 0)
		sumC, sumM, n = c, m, 1
	}
	return result.SpeedSample{
		At:        time.Now().UTC(),
		ComputeNs: sumC / float64(n),
		MemoryNs:  sumM / float64(n),
		CPUs:      n,
	}
}
