package harness

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/perfgate/perfgate/result"
)

func TestRecorderPerSecond(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	o := &Options{}
	// Two trials of 2.5 s each: three seconds per timeline, the last half.
	rec := newRecorder(o, t0, 2500*time.Millisecond, 2)
	samples := []Sample{
		// Warm-up: scheduled before the window, arrives in trial 1's second 0.
		{Hit: Hit{Intended: at(-100)}, End: at(50)},
		{Hit: Hit{Intended: at(100)}, End: at(110)},
		{Hit: Hit{Intended: at(200)}, End: at(230)},
		{Hit: Hit{Intended: at(1100)}, End: at(1400), Class: "timeout"},
		// Scheduled in trial 1's last second, arrives in trial 2's first.
		{Hit: Hit{Intended: at(2400)}, End: at(2600)},
		{Hit: Hit{Intended: at(4000)}, End: at(4005)},
	}
	for i := range samples {
		samples[i].Start = samples[i].Hit.Intended
		rec.add(&samples[i])
	}
	res := rec.result()
	// P99 per second comes from 2-significant-digit histograms: within 1%.
	// A send counts in the second it was scheduled, answered or failed,
	// and not before the window (the warm-up's).
	want := []*result.PerSecond{
		{Achieved: []int64{3, 1, 0}, Errors: []int64{0, 1, 0}, P99Ms: []float64{30, 0, 200}, Offered: []int64{2, 1, 1}},
		{Achieved: []int64{1, 1, 0}, Errors: []int64{0, 0, 0}, P99Ms: []float64{0, 5, 0}, Offered: []int64{0, 1, 0}},
	}
	for i, w := range want {
		got := res.Trials[i].PerSecond
		if d := cmp.Diff(w, got, cmpopts.EquateApprox(0.01, 0)); d != "" {
			t.Errorf("trial %d per-second series (-want +got):\n%s", i+1, d)
		}
		if err := got.Check(); err != nil {
			t.Errorf("trial %d: %v", i+1, err)
		}
	}
}

func TestRecorderPerSecondEmpty(t *testing.T) {
	rec := newRecorder(&Options{}, time.Now(), time.Second, 1)
	if got := rec.result().Trials[0].PerSecond; got != nil {
		t.Errorf("per-second series without samples = %+v, want nil", got)
	}
}

// BenchmarkRecorderAdd measures the recorder's cost per sample, whole and
// the per-second timeline's part of it (its share is what the timeline
// costs the generator).
func BenchmarkRecorderAdd(b *testing.B) {
	t0 := time.Now()
	samples := make([]Sample, 4096)
	for i := range samples {
		in := t0.Add(time.Duration(i) * 250 * time.Microsecond) // 4,000/s: 1 s per 4,096
		samples[i] = Sample{Hit: Hit{Intended: in}, Start: in, End: in.Add(time.Duration(1000+i%977) * time.Microsecond)}
	}
	b.Run("recorder.add", func(b *testing.B) {
		rec := newRecorder(&Options{}, t0, 2*time.Second, 1)
		b.ResetTimer()
		for i := range b.N {
			rec.add(&samples[i%len(samples)])
		}
	})
	b.Run("per-second part", func(b *testing.B) {
		s := newSeconds(t0, 2*time.Second)
		b.ResetTimer()
		for i := range b.N {
			s.add(&samples[i%len(samples)])
		}
	})
}

// A long trial's timeline holds at most openSeconds histograms at once
// (memory stays flat: issue 13's soak grew 1.5 MB a minute before), the
// reduced seconds keep their P99, and a success later than openSeconds
// raises its second's P99.
func TestPerSecondMemoryBounded(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	const n = 600
	s := newSeconds(t0, n*time.Second)
	live := func() int {
		c := 0
		for _, h := range s.hists {
			if h != nil {
				c++
			}
		}
		return c
	}
	most := 0
	seen := map[*hdrhistogram.Histogram]bool{}
	for i := range n {
		for k := range 10 {
			intended := t0.Add(time.Duration(i)*time.Second + time.Duration(k)*100*time.Millisecond)
			lat := time.Duration(1+i%7) * time.Millisecond
			s.add(&Sample{Hit: Hit{Intended: intended}, Start: intended, End: intended.Add(lat)})
		}
		most = max(most, live())
		for _, h := range s.hists {
			if h != nil {
				seen[h] = true
			}
		}
	}
	// Reduced seconds' histograms are reused: a 600-second trial allocates
	// no more than it holds at once.
	if len(seen) > openSeconds+2 {
		t.Errorf("%d histograms allocated over %d seconds, want at most %d (reused)", len(seen), n, openSeconds+2)
	}
	if most > openSeconds+1 {
		t.Errorf("%d histograms alive at once, want at most %d", most, openSeconds+1)
	}
	late := t0.Add(3 * time.Second)
	s.add(&Sample{Hit: Hit{Intended: late}, Start: late, End: late.Add(130 * time.Second)})
	p := s.series()
	for i := range n {
		want := float64(1 + i%7)
		if i == 3 {
			want = 130000 // the late success: an upper bound
		}
		if got := p.P99Ms[i]; got < want*0.99 || got > want*1.01 {
			t.Fatalf("second %d: P99 %.3f ms, want %.3f", i, got, want)
		}
	}
}
