package harness

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/perfgate/perfgate/result"
)

// perSecondSigFigs is the precision of the per-second histograms: 2
// significant digits (1%) keeps each near 25 KiB, so a five-minute trial's
// timeline costs a few MiB while it is recorded and nothing after.
const perSecondSigFigs = 2

// seconds records one trial's timeline (result.PerSecond). It is owned by
// the recorder, the single consumer of samples, so it needs no locking.
type seconds struct {
	start    time.Time
	end      time.Time // the window's end: the last second may be partial
	n        int       // seconds in the window, the last possibly partial
	achieved []int64
	errors   []int64
	hists    []*hdrhistogram.Histogram // allocated on a second's first success
}

func newSeconds(start time.Time, window time.Duration) *seconds {
	n := int((window + time.Second - 1) / time.Second)
	return &seconds{start: start, end: start.Add(window), n: n, achieved: make([]int64, n), errors: make([]int64, n),
		hists: make([]*hdrhistogram.Histogram, n)}
}

// at returns the second t falls in, or -1 outside the window.
func (s *seconds) at(t time.Time) int {
	if t.Before(s.start) || !t.Before(s.end) {
		return -1
	}
	return int(t.Sub(s.start) / time.Second)
}

// add counts one sample: its response in the second it arrived, its
// latency (or its error) in the second it was scheduled.
func (s *seconds) add(smp *Sample) {
	if i := s.at(smp.End); i >= 0 {
		s.achieved[i]++
	}
	i := s.at(smp.Hit.Intended)
	if i < 0 {
		return
	}
	if !smp.OK() {
		s.errors[i]++
		return
	}
	h := s.hists[i]
	if h == nil {
		h = hdrhistogram.New(result.HistMinUs, result.HistMaxUs, perSecondSigFigs)
		s.hists[i] = h
	}
	result.RecordDuration(h, smp.End.Sub(smp.Hit.Intended))
}

// series returns the timeline; the histograms are dropped.
func (s *seconds) series() *result.PerSecond {
	p := &result.PerSecond{Achieved: s.achieved, Errors: s.errors, P99Ms: make([]float64, s.n)}
	for i, h := range s.hists {
		if h != nil {
			p.P99Ms[i] = float64(h.ValueAtQuantile(99)) / 1000
		}
	}
	s.hists = nil
	return p
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
