package harness

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRunQueueStarved starves this process for real: two threads, each
// locked to its goroutine, pinned to one and the same CPU, both spinning
// for 300 ms. Each can run only while the other waits, so between them
// they wait about 300 ms in the run queue (more on a busy machine, never
// less), which readRunQueue must see.
func TestRunQueueStarved(t *testing.T) {
	a := readRunQueue()
	if a == nil {
		t.Skip("no /proc/self/task/*/schedstat on this kernel")
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Skip(err)
	}
	cpu := -1
	for i := range 1024 {
		if set.IsSet(i) {
			cpu = i
			break
		}
	}
	var one unix.CPUSet
	one.Set(cpu)
	const spin = 300 * time.Millisecond
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			runtime.LockOSThread() // the thread ends with the goroutine: its affinity dies with it
			if err := unix.SchedSetaffinity(0, &one); err != nil {
				t.Error(err)
				return
			}
			for end := time.Now().Add(spin); time.Now().Before(end); {
			}
		})
	}
	// Sample before the spinning threads end (an ended thread's figures
	// are gone from /proc).
	time.Sleep(spin - 50*time.Millisecond)
	d := since(a, readRunQueue())
	wg.Wait()
	// Two threads sharing one CPU for ~250 ms: together they waited
	// ~250 ms. Half of that is a bound no scheduler can beat.
	if d.wait < 100*time.Millisecond {
		t.Errorf("run-queue wait over 250 ms of two threads on one CPU = %v (run %v, %d slices), want at least 100 ms", d.wait, d.run, d.slices)
	}
	t.Logf("two threads on one CPU: run %v, run-queue wait %v over %d slices (mean %v)", d.run, d.wait, d.slices, d.meanWait())
	if d.meanWait() <= 0 {
		t.Errorf("mean wait = %v, want > 0", d.meanWait())
	}
}
