package ab

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/knee"
	"github.com/perfgate/perfgate/result"
)

// TestTestedRounds: a busy round never vetoes a verdict that the quiet
// rounds decide (they are tested alone when two or more), and is kept
// only when too few quiet ones are left to test.
func TestTestedRounds(t *testing.T) {
	tests := []struct {
		name          string
		quiet, busy   [2][]float64
		want          [2][]float64
		wantQuietOnly bool
	}{
		{"all quiet", [2][]float64{{100, 101, 99}, {80, 79, 81}}, [2][]float64{}, [2][]float64{{100, 101, 99}, {80, 79, 81}}, true},
		{"a busy round left out", [2][]float64{{100, 101}, {80, 79}}, [2][]float64{{60}, {90}}, [2][]float64{{100, 101}, {80, 79}}, true},
		{"one quiet round: busy ones kept", [2][]float64{{100}, {80}}, [2][]float64{{60}, {90}}, [2][]float64{{100, 60}, {80, 90}}, false},
		{"all busy", [2][]float64{}, [2][]float64{{60, 61}, {90, 91}}, [2][]float64{{60, 61}, {90, 91}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, quietOnly := testedRounds(tt.quiet, tt.busy)
			if d := cmp.Diff(tt.want, got); d != "" || quietOnly != tt.wantQuietOnly {
				t.Errorf("testedRounds: quiet only %v, want %v (-want +got):\n%s", quietOnly, tt.wantQuietOnly, d)
			}
		})
	}
}

// kneeSide is one side's knee search as a result, its knee at knee
// requests/s, bracketed by a passing probe 10% below (measured on a busy
// host when busy) and a failing one 10% above.
func kneeSide(name string, knee float64, busy bool) *result.Result {
	pts := []result.Point{{OfferedRPS: knee * 0.9, Pass: true}, {OfferedRPS: knee * 1.1, Why: "p99"}}
	if busy {
		pts[0].Host = &result.HostLoad{Busy: true, Why: "other processes used 1.4 cores"}
	}
	// The latency at the knee: one trial, as kneeResult keeps it.
	r := comparetest.Result(comparetest.Spec{Scenario: name, Layer: "service", Trials: 1, Requests: 300, MedianMs: 20, Noise: 0.02},
		rand.New(rand.NewPCG(uint64(knee), 1)))
	r.Load.Mode = harness.ModeSweep
	r.Capacity = &result.Capacity{Found: true, MaxQPS: knee, Bracket: [2]float64{knee * 0.9, knee * 1.1}, Points: pts, SLOP99Ms: 50}
	return r
}

// TestBusyProbeNoVeto is the newcomer's knee: a 25% capacity loss whose
// interleaved rounds read −21.4% and −22.2% (and two more like them),
// with a busy probe on the head's side. Paired rounds decide it whether
// or not the busy probes are part of the test: a neighbour's load fell
// on both sides of each round, back to back in alternating order, and
// the pairing holds it, as it does a fixed-rate pair's (before, a busy
// round in the test made it inconclusive, so that beside a CPU hog,
// where every round is busy, no knee change was ever called:
// bench/decisive-2026-12-07-s10.txt). The same knees compared unpaired, one side's estimates measured while
// the other waited, keep the host-busy guard.
func TestBusyProbeNoVeto(t *testing.T) {
	paired := [2][]float64{{100, 101, 99, 100.5}, {78.6, 77.8, 78.1, 78.9}}
	for _, tt := range []struct {
		name     string
		paired   bool
		want     compare.Verdict
		wantBusy bool
	}{
		{"paired rounds decide", true, compare.Regressed, false},
		{"unpaired estimates keep the guard", false, compare.Inconclusive, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := [2]*result.Result{kneeSide("a", 100, false), kneeSide("b", 78, true)}
			s := compare.DefaultSettings()
			var rounds [2][]float64
			method := compare.MethodKneeEstimates
			if tt.paired {
				rounds, method = paired, compare.MethodPairedKnees
			} else {
				// No run-to-run term: without the guard the estimates
				// would regress.
				s.RunToRun = 0
				for i := range rs {
					rs[i].Capacity.Estimates = paired[i]
				}
			}
			c, err := compareKnees("svc", "service", rs, rounds, s)
			if err != nil {
				t.Fatal(err)
			}
			sc := c.Scenarios[0]
			var qps *compare.Metric
			for i := range sc.Metrics {
				if sc.Metrics[i].Metric == compare.MetricMaxQPS {
					qps = &sc.Metrics[i]
				}
			}
			if qps == nil || qps.Method != method {
				t.Fatalf("max QPS not tested by %s: %+v (%s %s %q)", method, sc.Metrics, sc.Verdict, sc.Reason, sc.Warnings)
			}
			if sc.Verdict != tt.want || sc.HostBusy != tt.wantBusy {
				t.Errorf("max QPS %+.1f%% [%+.1f%%, %+.1f%%], p %v: verdict %s (host busy %v: %s), want %s (host busy %v)",
					qps.DeltaPct, qps.CIPct[0], qps.CIPct[1], qps.PValue, sc.Verdict, sc.HostBusy, sc.Reason, tt.want, tt.wantBusy)
			}
		})
	}
}

// TestKneeDesign: an A/B knee looks after its planned rounds and after
// twice as many, spending no more than the comparison's level over the
// two; with one side's knee alone to confirm, the planned rounds are the
// design (one look, the whole level).
func TestKneeDesign(t *testing.T) {
	for _, tt := range []struct {
		estimates int
		paired    bool
		looks     []int
	}{
		{5, true, []int{4, 8}},
		{3, true, []int{4, 8}}, // MinPairedKneeRounds
		{7, true, []int{6, 12}},
		{11, true, []int{10, 20}},
		{5, false, []int{4}},
	} {
		d := kneeDesign(tt.estimates, 0.05, tt.paired)
		var looks []int
		last := 0
		for n := 1; n <= d.MaxPairs; n++ {
			if d.LookAt(n, last) {
				looks, last = append(looks, n), n
			}
		}
		if diff := cmp.Diff(tt.looks, looks); diff != "" {
			t.Errorf("estimates %d, paired %v: looks after rounds (-want +got):\n%s", tt.estimates, tt.paired, diff)
		}
		if got := d.Spent(d.Fraction(d.MaxPairs, 0)); math.Abs(got-0.05) > 1e-12 {
			t.Errorf("estimates %d: level spent over the looks %g, want 0.05", tt.estimates, got)
		}
	}
}

// TestSimulatedKneeRounds drives the confirmation rounds' real loop
// (runRounds, kneeLook, compareKnees) with seeded rounds: the base's
// knee about 300/s moving 8% round to round, the head's ratio to it
// moving 10% (bench/decisive-2026-12-07-s10.txt has real rounds), 400
// runs a row at estimates: 5. The sequential rounds must keep an A/A's
// false decisions at the level, catch a change the four planned rounds
// leave undecided about half the time (−15%), and stop a clear one at
// the first look.
func TestSimulatedKneeRounds(t *testing.T) {
	const runs = 400
	type row struct {
		decided, regressed, improved, unchanged int
		rounds                                  []int
	}
	sim := func(ratio float64, paired bool, seed uint64) row {
		rng := rand.New(rand.NewPCG(seed, 7))
		sides := [2]*result.Result{kneeSide("a", 300, false), kneeSide("b", 300*ratio, false)}
		var out row
		for range runs {
			p := &pairedProbes{name: "sim", alpha: 0.05}
			run := &compare.ABScenario{}
			measure := func(int) ([2]float64, [2]bool, bool, error) {
				b := 300 * math.Exp(0.08*rng.NormFloat64())
				return [2]float64{b, b * ratio * math.Exp(0.10*rng.NormFloat64())}, [2]bool{true, true}, false, nil
			}
			var last *compare.ScenarioComparison
			look := func(tested [2][]float64, level, eqLevel float64) *compare.ScenarioComparison {
				// Copies: compareKnees gives each side's capacity the rounds.
				var rs [2]*result.Result
				for i, r := range sides {
					rc, cc := *r, *r.Capacity
					rc.Capacity = &cc
					rs[i] = &rc
				}
				c, err := compareKnees("svc", "service", rs, tested, atLook(compare.DefaultSettings(), level, eqLevel))
				if err != nil {
					t.Fatal(err)
				}
				last = &c.Scenarios[0]
				return last
			}
			kr, err := p.runRounds(run, kneeDesign(5, 0.05, paired), time.Now(), measure, look)
			if err != nil {
				t.Fatal(err)
			}
			out.rounds = append(out.rounds, kr.counted)
			switch last.Verdict {
			case compare.Regressed:
				out.regressed++
			case compare.Improved:
				out.improved++
			case compare.Unchanged:
				out.unchanged++
			}
		}
		out.decided = out.regressed + out.improved + out.unchanged
		slices.Sort(out.rounds)
		return out
	}
	aa := sim(1, true, 1)
	aaFixed := sim(1, false, 1)
	r15 := sim(0.85, true, 2)
	r15Fixed := sim(0.85, false, 2)
	r45 := sim(0.55, true, 3)
	for _, c := range []struct {
		name string
		r    row
	}{{"A/A, up to 8 rounds", aa}, {"A/A, 4 rounds", aaFixed}, {"-15%, up to 8 rounds", r15}, {"-15%, 4 rounds", r15Fixed}, {"-45%, up to 8 rounds", r45}} {
		t.Logf("%s: regressed %d, improved %d, unchanged %d of %d; median rounds %d", c.name, c.r.regressed, c.r.improved, c.r.unchanged, runs, c.r.rounds[runs/2])
	}
	// A false change at most at the level (5%, two-sided), with a little
	// room for the sample.
	for _, r := range []row{aa, aaFixed} {
		if false_ := r.regressed + r.improved; false_ > runs*6/100 {
			t.Errorf("A/A: %d of %d runs called a change, want at most 6%%", false_, runs)
		}
	}
	if r15.regressed < runs*85/100 || r15.regressed < r15Fixed.regressed+runs/5 {
		t.Errorf("-15%%: regressed in %d of %d runs with up to 8 rounds and %d with 4: want at least 85%% and 20 points more", r15.regressed, runs, r15Fixed.regressed)
	}
	if r15.improved+r15.unchanged > 0 {
		t.Errorf("-15%%: %d improved, %d unchanged: want none", r15.improved, r15.unchanged)
	}
	if r45.regressed < runs*99/100 || r45.rounds[runs*9/10] != 4 {
		t.Errorf("-45%%: regressed in %d of %d runs, 90th percentile of rounds %d: want every run, at the first look (4 rounds)", r45.regressed, runs, r45.rounds[runs*9/10])
	}
}

// TestKneeLookCompletes: a look compares the rounds so far as the final
// comparison does. The clean batched server's search ran out of budget
// before any probe failed (800/s, nothing above), and its rounds stepped
// up and bracketed its knee at [1800, 2000]; the slowed head's rounds
// read −84%. Judged as never found, the base knee left the look
// inconclusive and the rounds ran to their most; completed from the
// rounds, the first look decides (bench/RESULTS-rules.md#abkneeatlook).
func TestKneeLookCompletes(t *testing.T) {
	base := kneeSide("a", 1800, false)
	base.Capacity.MaxQPS, base.Capacity.Bracket = 800, [2]float64{800, 0}
	base.Capacity.Points = []result.Point{{OfferedRPS: 400, Pass: true}, {OfferedRPS: 800, Pass: true},
		{OfferedRPS: 1800, Pass: true}, {OfferedRPS: 2000, Why: "p99"}}
	head := kneeSide("b", 290, false)
	scen := [2]*config.Scenario{{Name: "a", Layer: "service"}, {Name: "b", Layer: "service"}}
	scen[0].Load.Mode, scen[1].Load.Mode = harness.ModeSweep, harness.ModeSweep
	runs := [2]map[float64]*result.Result{{1800: base, 800: base}, {290: head}}
	caps := [2]*result.Capacity{base.Capacity, head.Capacity}
	tested := [2][]float64{{1850, 1830, 1857, 1847}, {285, 295, 292, 294}}
	sc := kneeAtLook("svc", "service", scen, caps, runs, knee.DefaultOptions(50*time.Millisecond), tested, atLook(compare.DefaultSettings(), 0.031, 0.0056))
	if sc == nil {
		t.Fatal("no comparison at the look")
	}
	if sc.Verdict != compare.Regressed {
		t.Errorf("look: %s (%s, %q), want regressed", sc.Verdict, sc.Reason, sc.Warnings)
	}
	if caps[0].Bracket != [2]float64{800, 0} || caps[0].MaxQPS != 800 {
		t.Errorf("the look changed the search's own capacity: max QPS %v, bracket %v", caps[0].MaxQPS, caps[0].Bracket)
	}
}
