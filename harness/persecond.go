package harness

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/perfgate/perfgate/result"
)

// perSecondSigFigs is the precision of the per-second histograms: 2
// significant digits (1%) keeps each near 25 KiB.
const perSecondSigFigs = 2

// openSeconds bounds the memory of a timeline: a second's histogram is
// reduced to its P99 once the newest second scheduled is this many seconds
// past it, so a trial holds at most this many histograms (under 1 MiB)
// however long it runs. A success scheduled in an already reduced second
// (a response later than openSeconds) raises that second's P99 to its own
// latency when it is higher: an upper bound, exact unless more than 1% of
// the second's requests were that late.
const openSeconds = 30

// seconds records one trial's timeline (result.PerSecond). It is owned by
// the recorder, the single consumer of samples, so it needs no locking.
type seconds struct {
	start    time.Time
	end      time.Time // the window's end: the last second may be partial
	n        int       // seconds in the window, the last possibly partial
	achieved []int64
	errors   []int64
	offered  []int64
	hists    []*hdrhistogram.Histogram // allocated on a second's first success
	p99Ms    []float64                 // a reduced second's P99
	reduced  []bool
	// free holds reduced seconds' histograms, reset, for the next seconds:
	// a long trial allocates at most openSeconds+1 of them, instead of one
	// a second that the runtime would have to give back.
	free   []*hdrhistogram.Histogram
	newest int // the newest second a sample was scheduled in
}

func newSeconds(start time.Time, window time.Duration) *seconds {
	n := int((window + time.Second - 1) / time.Second)
	return &seconds{start: start, end: start.Add(window), n: n, achieved: make([]int64, n), errors: make([]int64, n),
		offered: make([]int64, n), hists: make([]*hdrhistogram.Histogram, n), p99Ms: make([]float64, n), reduced: make([]bool, n)}
}

// at returns the second t falls in, or -1 outside the window.
func (s *seconds) at(t time.Time) int {
	if t.Before(s.start) || !t.Before(s.end) {
		return -1
	}
	return int(t.Sub(s.start) / time.Second)
}

// add counts one sample: its response in the second it arrived, its
// latency (or its error) and its send in the second it was scheduled.
func (s *seconds) add(smp *Sample) {
	if i := s.at(smp.End); i >= 0 {
		s.achieved[i]++
	}
	i := s.at(smp.Hit.Intended)
	if i < 0 {
		return
	}
	s.offered[i]++
	if !smp.OK() {
		s.errors[i]++
		return
	}
	if s.reduced[i] {
		s.p99Ms[i] = max(s.p99Ms[i], float64(smp.End.Sub(smp.Hit.Intended).Microseconds())/1000)
		return
	}
	if i > s.newest {
		for j := max(s.newest-openSeconds, 0); j <= i-openSeconds; j++ {
			s.reduce(j)
		}
		s.newest = i
	}
	h := s.hists[i]
	if h == nil {
		if n := len(s.free); n > 0 {
			h, s.free = s.free[n-1], s.free[:n-1]
		} else {
			h = hdrhistogram.New(result.HistMinUs, result.HistMaxUs, perSecondSigFigs)
		}
		s.hists[i] = h
	}
	result.RecordDuration(h, smp.End.Sub(smp.Hit.Intended))
}

// reduce replaces second j's histogram by its P99.
func (s *seconds) reduce(j int) {
	if s.reduced[j] {
		return
	}
	if h := s.hists[j]; h != nil {
		s.p99Ms[j] = float64(h.ValueAtQuantile(99)) / 1000
		s.hists[j] = nil
		h.Reset()
		s.free = append(s.free, h)
	}
	s.reduced[j] = true
}

// series returns the timeline; the histograms are dropped.
func (s *seconds) series() *result.PerSecond {
	for j := range s.hists {
		s.reduce(j)
	}
	return &result.PerSecond{Achieved: s.achieved, Errors: s.errors, P99Ms: s.p99Ms, Offered: s.offered}
}

// perSecond hands a sample to the timelines of the trials it belongs to:
// the one its intended send time falls in (latency, errors) and the one its
// response arrived in (achieved), when they differ.
func (r *recorder) perSecond(smp *Sample) {
	if r.timelines == nil {
		r.timelines = make([]*seconds, len(r.windows))
		for i := range r.timelines {
			r.timelines[i] = newSeconds(r.measureStart.Add(time.Duration(i)*r.trialDur), r.trialDur)
		}
	}
	a, b := r.index(smp.Hit.Intended), r.index(smp.End)
	if a >= 0 && a < len(r.timelines) {
		r.timelines[a].add(smp)
	}
	if b != a && b >= 0 && b < len(r.timelines) {
		r.timelines[b].add(smp)
	}
}

// timeline returns trial i's per-second series, or nil when no sample
// reached the recorder.
func (r *recorder) timeline(i int) *result.PerSecond {
	if i >= len(r.timelines) {
		return nil
	}
	return r.timelines[i].series()
}
