package harness

import (
	"bufio"
	"bytes"
	"strconv"
	"time"
)

// MaxRunQueueWait is the mean time the generator's threads may wait
// runnable in the kernel's run queue, per time they were put on a CPU,
// over a trial, before the trial is invalid. Go's scheduling latency
// (MaxSchedP99) does not see a process whose every thread waits for a
// CPU: the goroutines are ready, but no thread of the process runs. A
// thread that waits 1 ms on average to run stamps each token it reads
// that late, and two tokens the server wrote a millisecond apart are then
// read together (docs/streaming.md). Judged as MaxSchedP99 is: with the
// generator busy the trial is generator-bound, otherwise the machine was
// busy.
const MaxRunQueueWait = time.Millisecond

// taskSched is one thread's cumulative figures from
// /proc/self/task/<tid>/schedstat: time on a CPU, time runnable but
// waiting for one, and how many times it was put on a CPU.
type taskSched struct {
	run, wait time.Duration
	slices    uint64
}

// runQueueSnapshot holds every thread's figures at one moment; nil when
// the platform has none.
type runQueueSnapshot map[int]taskSched

// runQueueDelta is what the threads did between two snapshots.
type runQueueDelta struct {
	run, wait time.Duration
	slices    uint64
}

// meanWait is the mean run-queue wait per time a thread was put on a CPU
// (0 when none was).
func (d runQueueDelta) meanWait() time.Duration {
	if d.slices == 0 {
		return 0
	}
	return d.wait / time.Duration(d.slices)
}

// since returns what the threads did from a to b: per thread b − a (a
// thread born in between counts from zero; one that ended is lost, which
// Go's threads, which rarely end, make negligible).
func since(a, b runQueueSnapshot) runQueueDelta {
	var d runQueueDelta
	for tid, tb := range b {
		ta := a[tid]
		if tb.run < ta.run || tb.wait < ta.wait || tb.slices < ta.slices {
			ta = taskSched{} // a new thread with a reused id
		}
		d.run += tb.run - ta.run
		d.wait += tb.wait - ta.wait
		d.slices += tb.slices - ta.slices
	}
	return d
}

// parseSchedstat parses a schedstat line: "run_ns wait_ns slices".
func parseSchedstat(b []byte) (taskSched, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Split(bufio.ScanWords)
	var v [3]uint64
	for i := range v {
		if !sc.Scan() {
			return taskSched{}, false
		}
		n, err := strconv.ParseUint(sc.Text(), 10, 64)
		if err != nil {
			return taskSched{}, false
		}
		v[i] = n
	}
	return taskSched{run: time.Duration(v[0]), wait: time.Duration(v[1]), slices: v[2]}, true
}
