package ab

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
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

// simClock is the simulated time shared by both sides of one run. The
// sides' starts may run at once (startBoth): starts with no trial between
// them overlap, so the clock moves to the longest one's end, not the sum.
type simClock struct {
	mu  sync.Mutex
	now time.Duration
	// from is when the current run of starts began; measured, whether a
	// trial ran since the last start.
	from     time.Duration
	measured bool
}

// start advances the clock for a start taking d.
func (c *simClock) start(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.measured {
		c.from, c.measured = c.now, false
	}
	c.now = max(c.now, c.from+d)
}

// trial marks that a trial ran (trials are measured one at a time, and
// advance now themselves).
func (c *simClock) trial() { c.measured = true }

// drift is the runner's slowdown factor at t.
func drift(t time.Duration) float64 { return 1 + simDrift*t.Minutes() }

// simSide is one simulated side: its latency is the runner's drift times
// scale (1.15: the head is 15% slower).
type simSide struct {
	clock *simClock
	rng   *rand.Rand
	scale float64
}

func (s *simSide) Start(context.Context) error { s.clock.start(simRestart); return nil }
func (s *simSide) Stop()                       {}
func (s *simSide) Trial(context.Context) (*result.Trial, error) {
	s.clock.trial()
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
func simStored(t *testing.T, seed uint64, scale float64) compare.Verdict {
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
// false alarms at most 2 in 40 (the level's 1 a side on average); a 15% P99 regression detected at least 38
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
		// The design's level is α = 5% two-sided: a false regression in 1
		// of 40 runs on average. A scenario stops at its first regression,
		// as the levels spent over the looks assume; 2 allows for the
		// seeded sample, where a design that spent no α (every look at 5%)
		// fails more.
		{name: "A/A", scale: 1, seed: 1, wantMinFails: 0, wantMaxFails: 2},
		{name: "15% regression", scale: 1.15, seed: 2, wantMinFails: 38, wantMaxFails: simRuns},
		// Half the fixed design: simMaxPairs pairs are 2·simMaxPairs trials.
		{name: "40% regression", scale: 1.40, seed: 3, wantMinFails: 38, wantMaxFails: simRuns, maxMedianTrials: simMaxPairs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each row draws from its own seeded generator: the rows
			// share nothing and run on the host's cores at once.
			t.Parallel()
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

// cpuSide is issue 27's CPU-bound service on a quiet machine, simulated:
// about 2 ms of CPU a request at 20% utilisation, so latency is lognormal
// around 2.4 ms with a modest queueing tail (σ 0.3 of log latency), 3 s
// trials at 100 requests/s (300 requests, a P99 resting on 3 of them), 2%
// process-to-process and trial-to-trial noise. The clock advances by each
// trial's 1 s warm-up and 3 s window and each restart's 1 s.
type cpuSide struct {
	clock *simClock
	rng   *rand.Rand
	scale float64
	// proc is the running process's own speed factor.
	proc float64
	// measured, shared by both sides, counts the trials measured; the
	// first trial of each pair (an even count) has firstSigma added to
	// its σ: a first-measured side whose tail is slower (its P50 is not).
	measured   *int
	firstSigma float64
	// tailSigma, when set, adds tailSigma·|N(0,1)| to each trial's σ: a
	// host whose scheduling stalls move each trial's tail, not its median.
	tailSigma float64
}

// Start starts a process whose speed factor its first trial draws: the
// sides start at once, and the draws from the shared rng stay in trial
// order.
func (s *cpuSide) Start(context.Context) error {
	s.clock.start(time.Second)
	s.proc = 0
	return nil
}
func (s *cpuSide) Stop() {}
func (s *cpuSide) Trial(context.Context) (*result.Trial, error) {
	s.clock.trial()
	if s.proc == 0 {
		s.proc = 1 + 0.02*s.rng.NormFloat64()
	}
	s.clock.now += 4 * time.Second
	sigma := 0.15
	if s.tailSigma > 0 {
		sigma += s.tailSigma * math.Abs(s.rng.NormFloat64())
	}
	if s.measured != nil {
		if *s.measured%2 == 0 {
			sigma += s.firstSigma
		}
		*s.measured++
	}
	r := comparetest.Result(comparetest.Spec{Scenario: "cpu", Layer: "service", Trials: 1, Requests: 300,
		MedianMs: 2.4, Sigma: sigma, Scale: s.scale * s.proc, Noise: 0.02}, s.rng)
	return &r.Trials[0], nil
}

// TestSimulatedABDecides checks the A/B mode's decisiveness on the seeded
// simulation of a CPU-bound service, through the real Interleave and
// ComparePaired: a +10% P99 regression is called in at least 90% of runs
// (issue 27's target); an A/A run decides unchanged in at least 90%
// (the issue asks 80%: this model reaches 37 of 40, 39 in the sample
// drawn before the sides' starts overlapped, since unchanged spends
// its own α as O'Brien and Fleming's function does, Sequential.EquivSpent,
// and fresh processes start every block, restartEvery; 38 with processes
// for two blocks, 36 when the base also always started first, 33 with the
// regressions' Pocock-type levels too, 30
// when unchanged needed the reported interval inside the threshold), a
// change of exactly the threshold is called unchanged in about α of runs
// (1 of 40, 3 in the earlier sample; 6 with processes for two blocks, whose pairs are not
// independent), and calls a regression or an improvement at most once in 40 (the test's
// level is 5%, two-sided: 1 in 40 a side is its allowance). It logs the rates, the median pairs and the
// simulated runner time per decided verdict beside the fixed design's
// (ab.max_trials pairs, one look).
func TestSimulatedABDecides(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped in -short and -race runs (single goroutine, deterministic)")
	}
	const runs = 40
	tests := []struct {
		name  string
		scale float64
		seed  uint64
		want  compare.Verdict // the verdict wanted in at least min runs
		min   int
		// atMost bounds other verdicts' counts.
		atMost map[compare.Verdict]int
	}{
		{name: "A/A", scale: 1, seed: 27, want: compare.Unchanged, min: 36, atMost: map[compare.Verdict]int{compare.Regressed: 1, compare.Improved: 1}},
		{name: "+10% P99", scale: 1.10, seed: 28, want: compare.Regressed, min: 36, atMost: map[compare.Verdict]int{compare.Improved: 0, compare.Unchanged: 0}},
		// A change of exactly the threshold is called unchanged in at most
		// α of runs (5%: 2 in 40) whatever the looks (EquivSpent's budget);
		// 4 allows for the seeded sample.
		{name: "+5% P99 (the threshold)", scale: 1.05, seed: 29, atMost: map[compare.Verdict]int{compare.Unchanged: 4, compare.Improved: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // as TestSimulatedAB's rows
			got := map[compare.Verdict]int{}
			var pairs []int
			var runner, fixed float64
			decided := 0
			for i := range runs {
				clock := &simClock{}
				rng := rand.New(rand.NewPCG(tt.seed*1000+uint64(i), 0x27))
				p := Plan{Scenario: "cpu", Layer: "service", Settings: compare.DefaultSettings(),
					Design: compare.Sequential{Alpha: 0.05, MaxPairs: simMaxPairs},
					Clock:  func() time.Duration { return clock.now }}
				out, err := Interleave(context.Background(), p, &cpuSide{clock: clock, rng: rng, scale: 1},
					&cpuSide{clock: clock, rng: rng, scale: tt.scale})
				if err != nil {
					t.Fatal(err)
				}
				v := scenarioVerdict(out.Comparison)
				got[v]++
				pairs = append(pairs, out.Run.Pairs)
				runner += out.Run.RunnerS
				fixed += out.Run.FixedRunnerS
				if v != compare.Inconclusive {
					decided++
				}
			}
			slices.Sort(pairs)
			perDecided := math.Inf(1)
			if decided > 0 {
				perDecided = runner / float64(decided)
			}
			t.Logf("%s: verdicts %v of %d; median %d pairs of %d; runner time per decided verdict %.0f s (sequential) vs %.0f s per run of the fixed design (%d pairs)",
				tt.name, got, runs, pairs[len(pairs)/2], simMaxPairs, perDecided, fixed/runs, simMaxPairs)
			if tt.want != "" && got[tt.want] < tt.min {
				t.Errorf("%s: %s in %d of %d runs, want at least %d", tt.name, tt.want, got[tt.want], runs, tt.min)
			}
			for v, most := range tt.atMost {
				if got[v] > most {
					t.Errorf("%s: %s in %d of %d runs, want at most %d", tt.name, v, got[v], runs, most)
				}
			}
		})
	}
}

// TestSimulatedABFutility runs the seeded CPU-bound service on a runner
// as noisy as this project's 2-core VM (each trial's tail moved by the
// host, tailSigma: one pair's P99 log ratio spreads about 0.14, where
// 20 pairs cannot call an A/A P99 unchanged within ±5%), each seed twice:
// stopping at a look that finds the scenario futile (compare.Futile) and
// measuring to max_trials. Futility must cost no verdict a run to the end
// would reach beyond one in 40 per case, call at most one A/A run regressed or
// improved, and stop the A/A runs, which mostly cannot decide, earlier:
// at least 5% less runner time in all. It logs each case's verdicts, median
// pairs and runner time per decided verdict both ways.
func TestSimulatedABFutility(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped in -short and -race runs (single goroutine, deterministic)")
	}
	const runs = 40
	tests := []struct {
		name  string
		scale float64
		seed  uint64
	}{
		{"A/A", 1, 61},
		{"+6%", 1.06, 62},
		{"+10%", 1.10, 63},
	}
	type tally struct {
		got     map[compare.Verdict]int
		pairs   []int
		runner  float64
		decided int
	}
	run := func(seed uint64, i int, scale float64, noFutility bool) *Measured {
		clock := &simClock{}
		rng := rand.New(rand.NewPCG(seed*1000+uint64(i), 0x61))
		p := Plan{Scenario: "cpu", Layer: "service", Settings: compare.DefaultSettings(),
			Design: compare.Sequential{Alpha: 0.05, MaxPairs: simMaxPairs, NoFutility: noFutility},
			Clock:  func() time.Duration { return clock.now }}
		out, err := Interleave(context.Background(), p, &cpuSide{clock: clock, rng: rng, scale: 1, tailSigma: 0.06},
			&cpuSide{clock: clock, rng: rng, scale: scale, tailSigma: 0.06})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	var spread []float64
	advised := 0 // A/A runs measured to max_trials, undecided, with a more-pairs note
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var with, without tally
			with.got, without.got = map[compare.Verdict]int{}, map[compare.Verdict]int{}
			lost := 0
			for i := range runs {
				var vs [2]compare.Verdict
				for k, tl := range []*tally{&with, &without} {
					out := run(tt.seed, i, tt.scale, k == 1)
					v := scenarioVerdict(out.Comparison)
					vs[k] = v
					for _, n := range out.Comparison.Notes {
						if n.Code != compare.NoteMorePairs {
							continue
						}
						if v != compare.Inconclusive || out.Run.Stopped != "max_trials" || n.Count != out.Run.Pairs || (n.Need != 0 && n.Need <= n.Count) {
							t.Errorf("%s: a more-pairs note %+v on a run %s, stopped %s after %d pairs", tt.name, n, v, out.Run.Stopped, out.Run.Pairs)
						}
						if k == 1 && tt.scale == 1 {
							advised++
						}
					}
					tl.got[v]++
					tl.pairs = append(tl.pairs, out.Run.Pairs)
					tl.runner += out.Run.RunnerS
					if v != compare.Inconclusive {
						tl.decided++
					}
					if k == 1 && tt.scale == 1 {
						spread = append(spread, p99PairSpread(out.Pairs))
					}
				}
				if vs[1] != compare.Inconclusive && vs[0] != vs[1] {
					lost++
				}
			}
			for k, tl := range []*tally{&with, &without} {
				slices.Sort(tl.pairs)
				per := math.Inf(1)
				if tl.decided > 0 {
					per = tl.runner / float64(tl.decided)
				}
				t.Logf("%s, %s: verdicts %v of %d; median %d pairs of %d; runner time %.0f s a run, %.0f s per decided verdict",
					tt.name, [2]string{"futile runs stopped", "measured to max_trials"}[k], tl.got, runs, tl.pairs[len(tl.pairs)/2], simMaxPairs, tl.runner/runs, per)
			}
			if lost > 1 {
				t.Errorf("%s: stopping futile runs lost %d verdicts of %d that measuring on reached", tt.name, lost, runs)
			}
			if tt.scale == 1 {
				if n := with.got[compare.Regressed] + with.got[compare.Improved]; n > 1 {
					t.Errorf("A/A: %d false regressions or improvements in %d runs", n, runs)
				}
				if with.runner >= without.runner*0.95 {
					t.Errorf("A/A: runner time %.0f s with futility against %.0f s without: want at least 5%% less", with.runner, without.runner)
				}
			}
		})
	}
	// Most A/A runs end undecided at max_trials (their P99 cannot be
	// called unchanged within ±5% in 20 pairs): each says how many pairs
	// would decide it.
	if advised < runs/2 {
		t.Errorf("A/A measured to max_trials: %d of %d runs carry a more-pairs note, want at least half", advised, runs)
	}
	if len(spread) > 0 {
		slices.Sort(spread)
		t.Logf("A/A: one pair's P99 log ratio spread %.3f (median over runs)", spread[len(spread)/2])
	}
}

// scenarioVerdict is a paired comparison's verdict.
func scenarioVerdict(sc compare.ScenarioComparison) compare.Verdict {
	if sc.Verdict == "" {
		return compare.Inconclusive
	}
	return sc.Verdict
}

// p99PairSpread is the standard deviation of the pairs' P99 log ratios.
func p99PairSpread(p compare.Pairs) float64 {
	var d []float64
	for i := range p.Len() {
		d = append(d, math.Log(p.Head[i].Latency.P99/p.Base[i].Latency.P99))
	}
	var m, v float64
	for _, x := range d {
		m += x
	}
	m /= float64(len(d))
	for _, x := range d {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(d)-1))
}

// p99Verdict is the P99 metric's verdict of a paired comparison.
func p99Verdict(sc compare.ScenarioComparison) compare.Verdict {
	for _, m := range sc.Metrics {
		if m.Metric == compare.MetricP99 {
			return m.Verdict
		}
	}
	return compare.Inconclusive
}

// TestInterleaveProgress checks the progress lines: each pair's P99s with
// its order, and each look's pairs, running estimate, verdict and time
// left.
func TestInterleaveProgress(t *testing.T) {
	clock := &simClock{}
	rng := rand.New(rand.NewPCG(5, 5))
	var lines []string
	p := Plan{Scenario: "cpu", Layer: "service", Settings: compare.DefaultSettings(),
		Design: compare.Sequential{Alpha: 0.05, MaxPairs: 20},
		Clock:  func() time.Duration { return clock.now },
		Log:    func(l string) { lines = append(lines, l) }}
	out, err := Interleave(context.Background(), p, &cpuSide{clock: clock, rng: rng, scale: 1},
		&cpuSide{clock: clock, rng: rng, scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{
		"a/b: cpu: pair 1 of at most 20 (AB): P99 base ",
		"a/b: cpu: pair 2 of at most 20 (BA): P99 base ",
		"a/b: cpu: look 1 after 6 pairs (level 0.0208, for unchanged 0.000346): p50_ms ",
		"; p99_ms ",
		"at most 1m59s more (14 pairs left, 8.5 s a pair)", // 4 trials of 4 s and one overlapped 1 s start a block
	} {
		if !strings.Contains(all, want) {
			t.Errorf("progress lacks %q:\n%s", want, all)
		}
	}
	if got := strings.Count(all, ": look "); got != out.Run.Looks {
		t.Errorf("%d look lines, %d looks", got, out.Run.Looks)
	}
}

// TestSimulatedOrderEffect plants a first-measured penalty in the seeded
// simulation of a CPU-bound service: in each pair the trial measured
// first has its P99 11% higher (σ of log latency raised so that its P50
// is unchanged), the order effect measured on a real runner. Over 40 A/A
// runs the paired estimate stays unbiased (ABBA gives the penalty to each
// side equally: a regression or an improvement at most once in 40 each,
// the mean P99 change within ±2%), while the recorded order effect finds
// the penalty: its mean P99 within 8%..14%, its P50 within ±2%, and each
// run's P99 interval above zero in most runs. And the paired test takes
// the penalty out of its variance (the order as a covariate,
// compare.orderAdjustedT), so the A/A runs still decide: unchanged in at
// least 30 of 40, where the plain paired test, which carries ±θ in its
// variance, decided 4.
func TestSimulatedOrderEffect(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped in -short and -race runs (single goroutine, deterministic)")
	}
	const runs = 40
	// P99 of a lognormal is median·exp(2.326σ): +11% is σ + ln(1.11)/2.326.
	penalty := math.Log(1.11) / 2.326
	got := map[compare.Verdict]int{}
	var delta, oe50, oe99 float64
	found, recorded := 0, 0
	for i := range runs {
		clock := &simClock{}
		rng := rand.New(rand.NewPCG(44*1000+uint64(i), 0x44))
		var measured int
		p := Plan{Scenario: "cpu", Layer: "service", Settings: compare.DefaultSettings(),
			Design: compare.Sequential{Alpha: 0.05, MaxPairs: simMaxPairs},
			Clock:  func() time.Duration { return clock.now }}
		side := func() *cpuSide {
			return &cpuSide{clock: clock, rng: rng, scale: 1, measured: &measured, firstSigma: penalty}
		}
		out, err := Interleave(context.Background(), p, side(), side())
		if err != nil {
			t.Fatal(err)
		}
		got[p99Verdict(out.Comparison)]++
		for _, m := range out.Comparison.Metrics {
			if m.Metric == compare.MetricP99 {
				delta += m.DeltaPct
			}
		}
		oe := out.Run.OrderEffect
		if oe == nil {
			t.Errorf("run %d (%d pairs, order %s): no order effect recorded", i, out.Run.Pairs, out.Run.Order)
			continue
		}
		recorded++
		oe50 += oe.P50Pct
		oe99 += oe.P99Pct
		if oe.P99CIPct[0] > 0 {
			found++
		}
	}
	if recorded == 0 {
		t.Fatal("no run recorded an order effect")
	}
	delta /= runs
	oe50 /= float64(recorded)
	oe99 /= float64(recorded)
	t.Logf("A/A with an 11%% first-measured P99 penalty: P99 verdicts %v of %d, mean paired P99 change %+.2f%%; order effect recorded: mean P50 %+.2f%%, P99 %+.2f%%, P99 interval above zero in %d of %d",
		got, runs, delta, oe50, oe99, found, recorded)
	if got[compare.Regressed] > 1 || got[compare.Improved] > 1 {
		t.Errorf("P99 verdicts %v: want regressed and improved at most once each in %d (α)", got, runs)
	}
	if math.Abs(delta) > 2 {
		t.Errorf("mean paired P99 change %+.2f%%: want within ±2%% (the order effect cancelled)", delta)
	}
	if got[compare.Unchanged] < 30 {
		t.Errorf("P99 unchanged in %d of %d A/A runs: want at least 30 (the order effect taken out of the paired test's variance)", got[compare.Unchanged], runs)
	}
	if oe99 < 8 || oe99 > 14 {
		t.Errorf("mean recorded P99 order effect %+.2f%%: want the planted +11%% (8..14)", oe99)
	}
	if math.Abs(oe50) > 2 {
		t.Errorf("mean recorded P50 order effect %+.2f%%: want about 0 (the penalty is in the tail)", oe50)
	}
	if found < recorded/2 {
		t.Errorf("P99 order effect's interval above zero in %d of %d runs: want most", found, recorded)
	}
}

// histSide serves trials of 300 requests from one lognormal with real
// histograms (comparetest), so that sampling is a trial's only noise.
type histSide struct {
	rng *rand.Rand
}

func (s *histSide) Start(context.Context) error { return nil }
func (s *histSide) Stop()                       {}
func (s *histSide) Trial(context.Context) (*result.Trial, error) {
	r := comparetest.Result(comparetest.Spec{Scenario: "svc", Trials: 1, Requests: 300, MedianMs: 3, Sigma: 0.5}, s.rng)
	return &r.Trials[0], nil
}

// An A/A run whose P99 the sampling of 300 requests a unit leaves
// undecided where it stopped carries the note tail-sampling for P99, its
// floor about its spread.
func TestTailSamplingWhereStopped(t *testing.T) {
	p := Plan{Scenario: "svc", Layer: "service", Settings: compare.DefaultSettings(),
		Design: compare.Sequential{Alpha: 0.05, MaxPairs: 12}}
	out, err := Interleave(context.Background(), p, &histSide{rand.New(rand.NewPCG(7, 1))}, &histSide{rand.New(rand.NewPCG(8, 1))})
	if err != nil {
		t.Fatal(err)
	}
	var p99 *compare.Note
	for i, n := range out.Comparison.Notes {
		if n.Code == compare.NoteTailSampling && n.Metric == compare.MetricP99 {
			p99 = &out.Comparison.Notes[i]
		}
	}
	if out.Run.Stopped != "max_trials" && out.Run.Stopped != "futile" {
		t.Fatalf("stopped %s (%s): want an A/A whose P99 the pairs leave undecided", out.Run.Stopped, out.Comparison.Verdict)
	}
	if p99 == nil {
		t.Fatalf("stopped %s after %d pairs, %s: no tail-sampling note for p99_ms in %+v", out.Run.Stopped, out.Run.Pairs, out.Comparison.Verdict, out.Comparison.Notes)
	}
	t.Logf("stopped %s after %d pairs: P99 spread %.1f%%, sampling %.1f%%, %d requests", out.Run.Stopped, out.Run.Pairs, p99.Pct, p99.FloorPct, p99.Need)
	if p99.Need != 300 || p99.FloorPct < 0.6*p99.Pct || p99.FloorPct > 1.6*p99.Pct {
		t.Errorf("p99_ms: spread %.1f%%, sampling %.1f%%, %d requests: want 300 requests, the floor about the spread", p99.Pct, p99.FloorPct, p99.Need)
	}
}

// warmingSide is a target whose every fresh process serves its first
// trial slower by slow (a fraction) than its later ones, with a little
// noise; it numbers its processes as a real side does.
type warmingSide struct {
	rng        *rand.Rand
	slow       float64
	gen, count int
}

func (s *warmingSide) Start(context.Context) error { s.gen++; s.count = 0; return nil }
func (s *warmingSide) Stop()                       {}
func (s *warmingSide) Trial(context.Context) (*result.Trial, error) {
	s.count++
	p50 := 10 * math.Exp(0.03*s.rng.NormFloat64())
	if s.count == 1 {
		p50 *= 1 + s.slow
	}
	return &result.Trial{Process: s.gen, Requests: 300, Valid: true, OfferedRPS: 100, AchievedRPS: 100,
		Latency: result.Latency{P50: p50, P99: 2 * p50, P999: 3 * p50, Mean: p50}}, nil
}

// A side whose processes run their first trial slow (a warm-up too short)
// gets the note first-trial when the run ends; the steady side does not.
func TestFirstTrialNoteWhereStopped(t *testing.T) {
	p := Plan{Scenario: "svc", Layer: "service", Settings: compare.DefaultSettings(),
		Design: compare.Sequential{Alpha: 0.05, MaxPairs: 12}}
	out, err := Interleave(context.Background(), p, &warmingSide{rng: rand.New(rand.NewPCG(5, 1)), slow: 0.25},
		&warmingSide{rng: rand.New(rand.NewPCG(6, 1))})
	if err != nil {
		t.Fatal(err)
	}
	var sides []string
	for _, n := range out.Comparison.Notes {
		if n.Code == compare.NoteFirstTrial {
			sides = append(sides, n.Side)
			t.Logf("%s: %+.1f%% [%+.1f%%, %+.1f%%] over %d processes", n.Side, n.Pct, n.CIPct[0], n.CIPct[1], n.Count)
		}
	}
	if len(sides) != 1 || sides[0] != "base" {
		t.Errorf("first-trial notes on %q after %d pairs (%s), want the base side's alone", sides, out.Run.Pairs, out.Run.Stopped)
	}
}
