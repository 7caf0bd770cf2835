package compare

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/knee"
	"github.com/perfgate/perfgate/result"
)

// simRuns is the number of comparisons per simulated condition.
const simRuns = 40

// simulate compares simRuns pairs of synthetic runs, 5 trials a side with
// 3% trial-to-trial noise, the candidate's latencies scaled by scale, and
// counts the comparisons whose verdict is Fail.
func simulate(t *testing.T, seed uint64, scale float64) (fails int, verdicts map[Verdict]int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	verdicts = map[Verdict]int{}
	for range simRuns {
		spec := comparetest.Spec{Scenario: "sim", Layer: "service", Trials: 5, Requests: 20000,
			MedianMs: 4, Sigma: 0.5, Noise: 0.03}
		base := comparetest.Result(spec, rng)
		spec.Scale = scale
		cand := comparetest.Result(spec, rng)
		c, err := Compare([]*result.Result{base}, []*result.Result{cand}, DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		verdicts[c.Scenarios[0].Verdict]++
		if c.Verdict == Fail {
			fails++
		}
	}
	return fails, verdicts
}

// TestSimulatedRates checks the gate's error rates at the defaults: A/A
// comparisons (no change) fail at most once in 40, and a 15% P99
// regression fails at least 38 times in 40.
func TestSimulatedRates(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped in -short and -race runs (single goroutine, deterministic)")
	}
	// Deterministic (seeded, no clock): the simulations share the cores.
	t.Parallel()
	tests := []struct {
		name    string
		scale   float64
		wantMin int
		wantMax int
		seed    uint64
	}{
		{name: "A/A", scale: 1, wantMin: 0, wantMax: 1, seed: 1},
		{name: "15% regression", scale: 1.15, wantMin: 38, wantMax: simRuns, seed: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fails, verdicts := simulate(t, tt.seed, tt.scale)
			t.Logf("%s: %d/%d fail; scenario verdicts %v", tt.name, fails, simRuns, verdicts)
			if fails < tt.wantMin || fails > tt.wantMax {
				t.Errorf("%s: %d/%d comparisons failed, want %d..%d", tt.name, fails, simRuns, tt.wantMin, tt.wantMax)
			}
		})
	}
}

// simRun is one run of a scenario whose trials are spread over fresh
// target processes (restarts), each process shifted by its own lognormal
// factor of sd shift (run-to-run noise: memory layout, warm state, the
// machine at that time) on top of the trials' own noise (3%).
func simRun(rng *rand.Rand, scale, shift float64, trials, restarts int) *result.Result {
	return simRunShifted(rng, scale, shift, runToRun{trials: trials, restarts: restarts})
}

// simRunShifted is simRun on a runner whose whole run moves too (cfg's
// runShift and tailShift; its trials and restarts): every process of the
// run shares one lognormal factor of sd runShift, which moves every
// quantile alike, and one widening of the latencies' log spread (sd
// tailShift, added to the lognormal's sigma of 0.5), which moves the tail
// and leaves the median: the host's scheduling, which delays the slowest
// requests of a run more than its typical one.
func simRunShifted(rng *rand.Rand, scale, shift float64, cfg runToRun) *result.Result {
	trials, restarts := cfg.trials, cfg.restarts
	sigma := math.Max(0.05, 0.5+cfg.tailShift*rng.NormFloat64())
	var out *result.Result
	run := math.Exp(cfg.runShift * rng.NormFloat64())
	for p := range restarts {
		n := trials / restarts
		if p < trials%restarts {
			n++
		}
		f := scale * run * math.Exp(shift*rng.NormFloat64())
		r := comparetest.Result(comparetest.Spec{Scenario: "sim", Layer: "service", Trials: n, Requests: 5000,
			MedianMs: 4, Sigma: sigma, Noise: 0.03, Scale: f}, rng)
		for i := range r.Trials {
			r.Trials[i].Process = p + 1
		}
		if out == nil {
			out = r
			continue
		}
		out.Trials = append(out.Trials, r.Trials...)
	}
	all, err := result.MergeTrials(out.Trials)
	if err != nil {
		panic(err)
	}
	out.Summary.Latency = result.LatencyOf(all)
	out.Restarts = restarts
	out.Load.Trials = len(out.Trials)
	return out
}

// runToRun is one simulated configuration of the run-to-run model: the
// trials and target processes (restarts) of every run, and how many
// independent runs the baseline combines (baseline mode: two, each
// folded in with baselines.CombineRuns' numbering and the runs' noise
// floor).
type runToRun struct {
	trials, restarts, baseRuns int
	// runShift is the sd of a shift every process of a run shares, every
	// quantile alike; tailShift the sd of a widening of the run's log
	// spread, which moves its tail alone (0: none; simRunShifted).
	runShift, tailShift float64
	// settings are the gate's (zero: DefaultSettings).
	settings *Settings
}

// simulateRunToRun compares n pairs with shift (sd, lognormal) process-to-
// process shifts on top of 3% trial noise, the candidate's latencies
// scaled by scale, and counts the comparisons whose verdict is Fail.
func simulateRunToRun(t *testing.T, seed uint64, n int, scale, shift float64, cfg runToRun) (fails int, verdicts map[Verdict]int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	verdicts = map[Verdict]int{}
	for range n {
		a := simRunShifted(rng, 1, shift, cfg)
		if cfg.baseRuns > 1 {
			runs := []*result.Result{a}
			for r := 1; r < cfg.baseRuns; r++ {
				runs = append(runs, simRunShifted(rng, 1, shift, cfg))
			}
			floor := NoiseFloor(runs)
			for r, b := range runs[1:] {
				for i := range b.Trials {
					b.Trials[i].Process += (r + 1) * cfg.restarts
				}
				a.Trials = append(a.Trials, b.Trials...)
			}
			a.NoiseFloorPct = floor
		}
		cand := simRunShifted(rng, scale, shift, cfg)
		set := DefaultSettings()
		if cfg.settings != nil {
			set = *cfg.settings
		}
		c, err := Compare([]*result.Result{a}, []*result.Result{cand}, set)
		if err != nil {
			t.Fatal(err)
		}
		verdicts[c.Scenarios[0].Verdict]++
		if c.Verdict == Fail {
			fails++
		}
	}
	return fails, verdicts
}

// TestSimulatedRunToRun checks the gate against run-to-run noise (10%
// per-process shifts on 3% trial noise) in the configuration the product
// uses: 5 trials, each in its own target process (restarts default to 5),
// and a baseline from two runs (baseline mode), through the real decision
// rule (Compare: a pooled t-test over processes). The targets are rates
// per 40 comparisons: A/A failures at most 1 in 40, a 50% P99 regression
// caught at least 36 in 40. The test runs three fixed-seed blocks of 40
// and asserts the rates over all 120, logging each block.
// TestSimulatedRunToRunRates tabulates the other configurations.
//
// Why 50%: the candidate is one run, whose own shift the baseline's two
// runs cannot show, so the assumed run shift for that run is in the test
// (runFloorVar): the tail's gate.run_to_run for P99 and the medians'
// smaller gate.run_to_run_median for P50. This runner's processes shift
// every quantile 10%, more than the medians' assumption, and a 25%
// regression is not decided every time; a history of runs (its learned
// noise) or gate --ab decides it on a runner like this one.
func TestSimulatedRunToRun(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped in -short and -race runs")
	}
	// Deterministic (seeded, no clock): the simulations share the cores.
	t.Parallel()
	def := runToRun{trials: 5, restarts: config.Defaults().Restarts, baseRuns: 2}
	tests := []struct {
		name             string
		scale            float64
		wantMin, wantMax int // per 40
		seeds            []uint64
	}{
		{name: "A/A", scale: 1, wantMin: 0, wantMax: 1, seeds: []uint64{11, 13, 15}},
		{name: "50% regression", scale: 1.5, wantMin: 36, wantMax: simRuns, seeds: []uint64{12, 14, 16}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			total := 0
			for _, seed := range tt.seeds {
				f, vs := simulateRunToRun(t, seed, simRuns, tt.scale, 0.10, def)
				t.Logf("%s, seed %d, %d trials over %d processes a run, baseline from %d runs: %d/%d fail; scenario verdicts %v",
					tt.name, seed, def.trials, def.restarts, def.baseRuns, f, simRuns, vs)
				total += f
			}
			k := len(tt.seeds)
			if total < k*tt.wantMin || total > k*tt.wantMax {
				t.Errorf("%s: %d/%d comparisons failed with %+v, want %d..%d (%d..%d in 40)", tt.name, total, k*simRuns, def, k*tt.wantMin, k*tt.wantMax, tt.wantMin, tt.wantMax)
			}
		})
	}
}

// TestSimulatedRunShift checks a two-run baseline of a one-scenario suite
// on runners whose whole runs move, where the candidate's own run shift
// is in no spread the test over processes sees, so the gate's assumed
// run-to-run noise for that one run (runFloorVar's cand) must hold it.
//
// "alike": every quantile moves 12% sd a run (on 5% process-to-process
// shifts). A threshold raised to the two runs' disagreement (the rule
// before runFloorVar) called a change in 48 of these 120 A/A gates; the
// disagreement as a variance, 30; with the candidate's run shift in the
// test, 5. Its medians move as its tail, so the gate is told so
// (gate.run_to_run_median at gate.run_to_run's 15%).
//
// "tail": the runner this project measured, whose runs move the median
// 3% and the P99 about 12% (a widening of the run's spread). At the
// defaults (the medians' 5%) its A/A gates stay within the level, and a
// 30% slower service is caught where one noise for both (the tail's
// 15% assumed for the median too) leaves it undecided: the stored
// baseline's half of issue 44's newcomer.
func TestSimulatedRunShift(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped in -short and -race runs")
	}
	// Deterministic (seeded, no clock): the simulations share the cores.
	t.Parallel()
	oneNoise := DefaultSettings()
	oneNoise.RunToRunMedian = oneNoise.RunToRun
	restarts := config.Defaults().Restarts
	alike := runToRun{trials: 5, restarts: restarts, baseRuns: 2, runShift: 0.12, settings: &oneNoise}
	tail := runToRun{trials: 5, restarts: restarts, baseRuns: 2, runShift: 0.03, tailShift: 0.05}
	tailOne := tail
	tailOne.settings = &oneNoise
	tests := []struct {
		name             string
		cfg              runToRun
		scale            float64
		seeds            []uint64
		wantMin, wantMax int // over all seeds' runs: changes called (A/A), regressions caught
	}{
		{"alike, A/A", alike, 1, []uint64{21, 23, 25}, 0, 8},
		{"tail, A/A", tail, 1, []uint64{31, 33, 35}, 0, 8},
		{"tail, +30%", tail, 1.3, []uint64{32}, 36, simRuns},
		{"tail, +30%, one noise for both", tailOne, 1.3, []uint64{32}, 0, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, all := 0, map[Verdict]int{}
			for _, seed := range tt.seeds {
				_, vs := simulateRunToRun(t, seed, simRuns, tt.scale, 0.05, tt.cfg)
				t.Logf("%s, seed %d, baseline from 2 runs: scenario verdicts %v", tt.name, seed, vs)
				if tt.scale == 1 {
					got += vs[Regressed] + vs[Improved]
				} else {
					got += vs[Regressed]
				}
				for k, v := range vs {
					all[k] += v
				}
			}
			if got < tt.wantMin || got > tt.wantMax {
				t.Errorf("%s: %d of %d (%v), want %d..%d", tt.name, got, len(tt.seeds)*simRuns, all, tt.wantMin, tt.wantMax)
			}
		})
	}
}

// TestSimulatedRunToRunRates estimates the rates of TestSimulatedRunToRun
// over many more comparisons, for the documentation (PERFGATE_SIM_RUNS,
// e.g. 400; skipped unless set).
func TestSimulatedRunToRunRates(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PERFGATE_SIM_RUNS"))
	if n <= 0 || raceEnabled {
		t.Skip("set PERFGATE_SIM_RUNS to run")
	}
	for _, v := range []runToRun{{trials: 5, restarts: 1, baseRuns: 1}, {trials: 5, restarts: 2, baseRuns: 1}, {trials: 5, restarts: 2, baseRuns: 2}, {trials: 5, restarts: 3, baseRuns: 2}, {trials: 5, restarts: 5, baseRuns: 1}, {trials: 5, restarts: 5, baseRuns: 2}} {
		aa, _ := simulateRunToRun(t, 101, n, 1, 0.10, v)
		reg, _ := simulateRunToRun(t, 102, n, 1.25, 0.10, v)
		t.Logf("%d trials over %d process(es), baseline from %d run(s): A/A fail %d/%d (%.1f%%), 25%% P99 regression caught %d/%d (%.1f%%)",
			v.trials, v.restarts, v.baseRuns, aa, n, 100*float64(aa)/float64(n), reg, n, 100*float64(reg)/float64(n))
	}
}

// simKnee runs a real knee search and its confirmation (knee.Search,
// knee.Confirm: the default 5 estimates, each confirmation round in a fresh
// process) against a simulated server: one worker of 10 ms service time,
// P99 = 10 ms + 23 ms·ρ/(1−ρ) under a 50 ms objective (knee at 63.5% of
// capacity), capacity shifted by capNoise (sd, lognormal) in every fresh
// process and each probe's P99 by p99Noise.
func simKnee(t *testing.T, rng *rand.Rand, scale, capNoise, p99Noise float64, estimates int) *result.Capacity {
	t.Helper()
	mu := 0.0
	fresh := func(context.Context) error {
		mu = 100 * scale * math.Exp(capNoise*rng.NormFloat64())
		return nil
	}
	_ = fresh(context.Background())
	probe := func(ctx context.Context, rate float64) (result.Point, error) {
		rho := rate / mu
		p := result.Point{AchievedRPS: rate}
		if rho >= 1 {
			p.AchievedRPS = mu
			p.Latency = result.Latency{P50: 1000, P99: 5000, Mean: 1000}
			return p, nil
		}
		g := rho / (1 - rho)
		p.Latency = result.Latency{P50: 10 + 5*g, P99: (10 + 23*g) * math.Exp(p99Noise*rng.NormFloat64()), Mean: 10 + 5*g}
		return p, nil
	}
	o := knee.DefaultOptions(50 * time.Millisecond)
	o.Drain, o.Start = 0, 10
	c, err := knee.Search(context.Background(), probe, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := knee.Confirm(context.Background(), c, probe, fresh, o, estimates); err != nil {
		t.Fatal(err)
	}
	return c
}

// simulateMaxQPS compares simRuns pairs of simulated sweeps and counts the
// comparisons whose max QPS regressed, with the windows the confirmation
// cost.
func simulateMaxQPS(t *testing.T, seed uint64, scale float64, s Settings) (regressed, confirmWindows, searchWindows int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x9ee))
	for range simRuns {
		var rs [2]*result.Result
		for i, sc := range []float64{1, scale} {
			r := comparetest.Result(comparetest.Spec{Scenario: "sweep", Layer: "service", Trials: 1, Requests: 2000, MedianMs: 4}, rng)
			r.Load.Mode = "sweep"
			r.Capacity = simKnee(t, rng, sc, 0.05, 0.10, config.Defaults().Estimates)
			confirmWindows += r.Capacity.ConfirmWindows
			searchWindows += r.Capacity.Windows - r.Capacity.ConfirmWindows
			rs[i] = r
		}
		c, err := Compare([]*result.Result{rs[0]}, []*result.Result{rs[1]}, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range c.Scenarios[0].Metrics {
			if m.Metric == MetricMaxQPS && m.Verdict == Regressed {
				regressed++
			}
		}
	}
	return regressed, confirmWindows, searchWindows
}

// TestSimulatedMaxQPS checks max QPS against its real noise (5%
// run-to-run capacity noise, 10% P99 noise per probe): A/A false
// regressions at most 1 in 40, a 15% capacity loss caught at least 36
// times in 40.
func TestSimulatedMaxQPS(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped in -short and -race runs")
	}
	// Deterministic (seeded, no clock): the simulations share the cores.
	t.Parallel()
	tests := []struct {
		name             string
		scale            float64
		wantMin, wantMax int
		seed             uint64
	}{
		{name: "A/A", scale: 1, wantMin: 0, wantMax: 1, seed: 21},
		{name: "15% capacity loss", scale: 0.85, wantMin: 36, wantMax: simRuns, seed: 22},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The simulation's capacity noise is per knee estimate (each in
			// its own process), with no run-level component: no run-to-run
			// noise is assumed (withinRun). With a one-run baseline the
			// gate assumes 10% (Settings.RunToRun); what that costs is
			// logged beside, not asserted.
			got, cw, sw := simulateMaxQPS(t, tt.seed, tt.scale, withinRun())
			t.Logf("%s: max QPS regressed in %d/%d; the search used %.1f windows a side on average, the confirmation %.1f more", tt.name, got, simRuns,
				float64(sw)/float64(2*simRuns), float64(cw)/float64(2*simRuns))
			if got < tt.wantMin || got > tt.wantMax {
				t.Errorf("%s: max QPS regressed in %d/%d comparisons, want %d..%d", tt.name, got, simRuns, tt.wantMin, tt.wantMax)
			}
			assumed, _, _ := simulateMaxQPS(t, tt.seed, tt.scale, DefaultSettings())
			t.Logf("%s, one-run baseline with the default %.0f%% run-to-run noise assumed: regressed in %d/%d", tt.name, 100*DefaultRunToRun, assumed, simRuns)
			if assumed > got {
				t.Errorf("assuming run-to-run noise called more regressions (%d) than not (%d)", assumed, got)
			}
		})
	}
}
