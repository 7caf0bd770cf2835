package harness

import (
	"runtime/metrics"
	"time"
)

// schedLatencyMetric is the Go runtime's distribution of the time
// goroutines spent runnable before they ran.
const schedLatencyMetric = "/sched/latencies:seconds"

// schedSnapshot is the cumulative scheduling-latency histogram at one
// moment; the difference of two is the distribution between them.
type schedSnapshot struct {
	counts  []uint64
	buckets []float64
}

// readSched reads the runtime's scheduling-latency histogram.
func readSched() schedSnapshot {
	s := []metrics.Sample{{Name: schedLatencyMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return schedSnapshot{}
	}
	h := s[0].Value.Float64Histogram()
	return schedSnapshot{counts: append([]uint64(nil), h.Counts...), buckets: h.Buckets}
}

// schedP99Since returns the 99th percentile of the scheduling latency of
// the goroutines that ran between snapshot a and now (the upper bound of
// the bucket holding it), and how many scheduling events there were.
//
// Every token a stream receives, every response and every timer wakes a
// goroutine: when the generator's cores are busy, those goroutines wait
// in its run queues and the times they record are late by that wait. The
// P99 of this wait is therefore a direct measure of how late the
// generator's own timestamps may be.
func schedP99Since(a schedSnapshot) (time.Duration, uint64) {
	b := readSched()
	if len(a.counts) == 0 || len(a.counts) != len(b.counts) {
		return 0, 0
	}
	var total uint64
	d := make([]uint64, len(b.counts))
	for i := range d {
		d[i] = b.counts[i] - a.counts[i]
		total += d[i]
	}
	if total == 0 {
		return 0, 0
	}
	want := (total*99 + 99) / 100
	var cum uint64
	for i, n := range d {
		cum += n
		if cum >= want {
			hi := b.buckets[i+1]
			if hi > 3600 { // the last bucket is unbounded
				hi = b.buckets[i]
			}
			return time.Duration(hi * float64(time.Second)), total
		}
	}
	return 0, total
}
