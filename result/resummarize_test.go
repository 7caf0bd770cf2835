package result

import (
	"math"
	"testing"
	"time"
)

// trialOf is a trial of n requests of latency lat over secs seconds,
// inflight on average, its service-time histogram kept.
func trialOf(t *testing.T, n int, lat time.Duration, secs, inflight float64) Trial {
	t.Helper()
	h := NewHistogram()
	for range n {
		RecordDuration(h, lat)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return Trial{Requests: int64(n), DurationS: secs, AchievedRPS: float64(n) / secs, OfferedRPS: float64(n) / secs,
		InFlightMean: inflight, Histogram: enc, ServiceHistogram: enc, LagP99Ms: inflight}
}

func TestSummaryOf(t *testing.T) {
	// Two processes whose automatic windows differ: 10 s at 2 in flight,
	// 30 s at 6 in flight. The time average is (2·10+6·30)/40 = 5, not
	// the mean of the trials' 4.
	trials := []Trial{trialOf(t, 100, 10*time.Millisecond, 10, 2), trialOf(t, 300, 20*time.Millisecond, 30, 6)}
	trials[1].Errors, trials[1].ErrorsBy = 3, map[string]int64{"timeout": 3}
	wait := 1.5
	tests := []struct {
		name        string
		prev        Summary
		wantOffered float64
	}{
		{"open loop", Summary{OfferedRPS: 1, ConnWaitP99Ms: wait}, 10},
		{"closed loop: no offered rate", Summary{ConnWaitP99Ms: wait}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := SummaryOf(trials, tt.prev)
			if err != nil {
				t.Fatal(err)
			}
			if s.Requests != 400 || s.Errors != 3 || s.ErrorsBy["timeout"] != 3 || math.Abs(s.ErrorRate-3.0/400) > 1e-12 {
				t.Errorf("counts: %d requests %d errors %v rate %v", s.Requests, s.Errors, s.ErrorsBy, s.ErrorRate)
			}
			if math.Abs(s.InFlightMean-5) > 1e-9 {
				t.Errorf("in flight = %v, want the time average 5 (weighted by window)", s.InFlightMean)
			}
			if math.Abs(s.AchievedRPS-10) > 1e-9 || math.Abs(s.OfferedRPS-tt.wantOffered) > 1e-9 {
				t.Errorf("achieved %v offered %v, want 10 and %v", s.AchievedRPS, s.OfferedRPS, tt.wantOffered)
			}
			if s.Latency.P50 < 15 || s.Service == nil || s.Service.P50 < 15 {
				t.Errorf("latency %+v service %+v: want the merged histograms (P50 near 20 ms)", s.Latency, s.Service)
			}
			if s.LagP99Ms != 6 || s.ConnWaitP99Ms != wait {
				t.Errorf("lag %v (want the worst trial's 6), connection wait %v (want prev's %v)", s.LagP99Ms, s.ConnWaitP99Ms, wait)
			}
		})
	}
}
