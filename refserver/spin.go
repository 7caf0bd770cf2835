package refserver

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// spinSink keeps the spin loop's result alive so the compiler cannot drop
// the work.
var spinSink atomic.Uint64

// spinWork does n rounds of a xorshift generator: integer work on one core
// that touches no memory, so its cost is CPU time and nothing else.
func spinWork(n int64) {
	x := uint64(88172645463325252)
	for i := int64(0); i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	spinSink.Add(x & 1)
}

var (
	spinOnce    sync.Once
	spinPerNano float64
)

// spinRate is how many spinWork rounds one nanosecond of CPU time holds on
// this machine, measured once: the best of five 10 ms samples of the
// calling thread's CPU time (threadCPU), so a busy host's stalls do not
// shrink the work a request does.
func spinRate() float64 {
	spinOnce.Do(func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		const rounds = 1 << 16
		for range 5 {
			start, ok := threadCPU()
			if !ok {
				break
			}
			var n int64
			for {
				spinWork(rounds)
				n += rounds
				now, _ := threadCPU()
				if d := now - start; d >= 10*time.Millisecond {
					spinPerNano = max(spinPerNano, float64(n)/float64(d))
					break
				}
			}
		}
		if spinPerNano == 0 { // no thread clock: wall time, once
			start := time.Now()
			spinWork(1 << 22)
			spinPerNano = float64(1<<22) / float64(max(1, time.Since(start)))
		}
	})
	return spinPerNano
}

// spinFor spends about d of CPU time computing.
func spinFor(d time.Duration) {
	if d > 0 {
		spinWork(int64(spinRate() * float64(d)))
	}
}
