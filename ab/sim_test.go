package ab

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/result"
)

// The seeded simulation of issue 12's targets: a runner whose every
// process gets slower by 40% of its starting latency per minute (linear
// drift) and 5% trial-to-trial noise, the sides' trials drawn as real HDR
// histograms (comparetest) so each trial's P99 carries its sampling noise
// too. The simulated clock advances by each trial's warm-up and window and
// by each restart, so the drift a trial sees is the one at its time.
const (
	simRuns     = 40
	simDrift    = 0.40 // per minute, of the starting latency
	simNoise    = 0.05
	simWarmup   = 2 * time.Second
	simWindow   = 10 * time.Second
	simRestart  = 3 * time.Second
	simMaxPairs = 20
)

// simClock is the simulated time shared by both sides of one run.
type simClock struct{ now time.Duration }

// drift is the runner's slowdown factor at t.
func drift(t time.Duration) float64 { return 1 + simDrift*t.Minutes() }

// simSide is one simulated side: its latency is the runner's drift times
// scale (1.15: the head is 15% slower).
type simSide struct {
	clock *simClock
	rng   *rand.Rand
	scale float64
}

func (s *simSide) Start(context.Context) error { s.clock.now += simRestart; return nil }
func (s *simSide) Stop()                       {}
func (s *simSide) Trial(context.Context) (*result.Trial, error) {
	s.clock.now += simWarmup
	mid := s.clock.now + simWindow/2
	s.clock.now += simWindow
	r := comparetest.Result(comparetest.Spec{Scenario: "sim", Layer: "service", Trials: 1, Requests: 2000,
		MedianMs: 4, Sigma: 0.3, Scale: s.scale * drift(mid), Noise: simNoise}, s.rng)
	return &r.Trials[0], nil
}

// simAB runs one seeded A/B scenario with the head scale given.
func simAB(t *testing.T, seed uint64, scale float64) *Measured {
	t.Helper()
	clock := &simClock{}
	rng := rand.New(rand.NewPCG(seed, 0xab))
	p := Plan{Scenario: "sim", Layer: "service", Settings: compare.DefaultSettings(),
		Design: compare.Sequential{Alpha: 0.05, MaxPairs: simMaxPairs},
		Clock:  func() time.Duration { return clock.now }}
	out, err := Interleave(context.Background(), p, &simSide{clock, rng, 1}, &simSide{clock, rng, scale})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// simStored compares, without pairing, the head measured now (5 trials)
// with a baseline of 5 trials stored from the same runner one minute
// earlier, both on the drifting runner: what gate does without --ab.
func simStored(t *testing.T, seed uint64, scale float64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0xba5e))
	side := func(start time.Duration, scale float64) *result.Result {
		var r *result.Result
		now := start
		for range 5 {
			now += simWarmup
			one := comparetest.Result(comparetest.Spec{Scenario: "sim", Layer: "service", Trials: 1, Requests: 2000,
				MedianMs: 4, Sigma: 0.3, Scale: scale * drift(now+simWindow/2), Noise: simNoise}, rng)
			now += simWindow
			if r == nil {
				r = one
				continue
			}
			r.Trials = append(r.Trials, one.Trials...)
		}
		r.Load.Trials = len(r.Trials)
		return r
	}
	base := side(0, 1)
	head := side(time.Minute, scale)
	c, err := compare.Compare([]*result.Result{base}, []*result.Result{head}, compare.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	return c.Verdict
}

// TestSimulatedAB checks issue 12's targets on the seeded simulation: A/A
// false alarms at most 1 in 40; a 15% P99 regression detected at least 38
// times in 40; a 40% regression decided with at most half the fixed
// design's trials (median). It logs the unpaired rates beside them: the
// same drift read against a stored baseline.
func TestSimulatedAB(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped in -short and -race runs (single goroutine, deterministic)")
	}
	tests := []struct {
		name         string
		scale        float64
		seed         uint64
		wantMinFails int
		wantMaxFails int
		// maxMedianTrials bounds the median trials to a decision (0: not checked).
		maxMedianTrials int
	}{
		{name: "A/A", scale: 1, seed: 1, wantMinFails: 0, wantMaxFails: 1},
		{name: "15% regression", scale: 1.15, seed: 2, wantMinFails: 38, wantMaxFails: simRuns},
		// Half the fixed design: simMaxPairs pairs are 2·simMaxPairs trials.
		{name: "40% regression", scale: 1.40, seed: 3, wantMinFails: 38, wantMaxFails: simRuns, maxMedianTrials: simMaxPairs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fails, storedFails := 0, 0
			var trials []int
			var drifts []float64
			stopped := map[string]int{}
			for i := range simRuns {
				out := simAB(t, tt.seed*1000+uint64(i), tt.scale)
				if out.Comparison.Verdict == compare.Regressed {
					fails++
				}
				trials = append(trials, out.Run.Trials)
				drifts = append(drifts, out.Run.BaseDriftPct)
				stopped[out.Run.Stopped]++
				if simStored(t, tt.seed*1000+uint64(i), tt.scale) == compare.Fail {
					storedFails++
				}
			}
			slices.Sort(trials)
			slices.Sort(drifts)
			med := trials[len(trials)/2]
			t.Logf("%s: paired A/B %d/%d fail (median %d trials of a fixed %d; stopped %v; base drift during the run median %+.0f%%); unpaired against a stored baseline %d/%d fail",
				tt.name, fails, simRuns, med, 2*simMaxPairs, stopped, drifts[len(drifts)/2], storedFails, simRuns)
			if fails < tt.wantMinFails || fails > tt.wantMaxFails {
				t.Errorf("%s: %d/%d A/B runs failed, want %d..%d", tt.name, fails, simRuns, tt.wantMinFails, tt.wantMaxFails)
			}
			if tt.maxMedianTrials > 0 && med > tt.maxMedianTrials {
				t.Errorf("%s: median %d trials to a decision, want at most %d (half the fixed design)", tt.name, med, tt.maxMedianTrials)
			}
		})
	}
}
