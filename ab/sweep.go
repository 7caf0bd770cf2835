package ab

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/knee"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// pairedProbes probes the two sides of a sweep at the same rates back to
// back. A knee search asks one side for a rate; while the other side's
// search (or its part of a confirmation round) is still to come, the rate
// is measured on both sides (which goes first alternates), the asking
// side gets its point, and the other's is queued for its own search,
// which takes it when it asks for that rate (a repeated rate, as a
// confirmation re-probe is, takes the next queued point or is measured
// again). So each side's knee comes from its own search, the rates the
// first side probed have twins of the other's measured moments apart,
// and the second side's new rates, and a round's steps beyond the rates
// both sides' rounds probe first, are measured on it alone (alone): no
// search would read their twins, or it measures them itself.
type pairedProbes struct {
	ctx context.Context
	cfg *config.Plan
	// name labels the comparison in the log (the scenario, or a declared
	// pair); each side probes its own scenario (sides[k].s).
	name  string
	o     suite.Options
	sides [2]*targetSide
	// queued holds each side's points measured as twins, by rate.
	queued [2]map[float64][]result.Point
	// best keeps each side's passing probe runs by rate, for the
	// latency at the knee.
	runs  [2]map[float64]*result.Result
	order strings.Builder
	pairs int
	// residentOne runs one side's process at a time: a probe of the other
	// side stops this one and starts that one (its warm-up excluded, as
	// every probe's is); active is the side running (-1: none).
	residentOne bool
	active      int
	processes   *[2]int
	// starts counts the times both sides were started together, for
	// startOrder.
	starts int
	// solo marks a side whose probes are measured alone: once the other
	// side's search has ended with no knee to confirm, its twins would
	// serve nothing (and a service slower than the SLO at every rate
	// drains its queue for seconds after each window). windows counts
	// the windows measured, both sides'.
	solo    [2]bool
	windows int
	// reads[k] is whether side k's search, or its part of the round
	// under way, is still to come: only then is a twin measured for it,
	// since a twin is read by its side's own search or round and by
	// nothing else (the queues are emptied every round), and a twin far
	// past its side's knee drains for seconds.
	reads [2]bool
	stage string // "search" or "confirmation", for the log
	// roundRates are the rates every confirmation round probes first on
	// both sides (0: not confirming); a round's steps beyond them are
	// measured alone, since the other side's round reads a twin there
	// only when it steps the same way, and measures it then.
	roundRates [2]float64
	// own marks confirmation rounds that probe each side's own bracket
	// (knees too far apart to share one, knee.Share): a twin at the
	// other side's rates would serve nothing.
	own bool
	// remeasured counts the probe pairs measured again because the host
	// was busy during one of them; logf logs progress (nil: none).
	remeasured int
	// roundBusy is set when a probe of the confirmation round under way
	// (either side's, a twin's included) ran while the host was busy;
	// busyRounds counts the rounds measured again for it, and
	// busyLeftOut the busy rounds left out of the paired test.
	roundBusy   bool
	busyRounds  int
	busyLeftOut int
	// quietOnly is true when the paired test rests on quiet rounds only;
	// quietRounds counts the quiet rounds.
	quietOnly   bool
	quietRounds int
	// alpha is the comparison's level, spent over the confirmation
	// rounds' looks (kneeDesign).
	alpha float64
	logf  func(format string, a ...any)
}

// MinPairedKneeRounds is the fewest interleaved confirmation rounds an
// A/B knee comparison runs, whatever the scenario's load.estimates: max
// QPS is tested over the rounds, paired, on rounds − 1 degrees of
// freedom, and two rounds (estimates: 3) leave one, where Student's t at
// 95% needs a ratio 12.7 standard errors from 1: two rounds that agree
// on a 25% capacity loss stay undecided (TestBusyProbeNoVeto replays
// such a pair).
const MinPairedKneeRounds = 4

// MaxKneeRoundsFactor bounds an A/B knee's confirmation rounds: a
// comparison its planned rounds leave undecided measures more rounds, up
// to this many times the planned number, and looks again at the end
// (kneeDesign). Why: the planned rounds' t-test has few degrees of
// freedom (three at the default), so it needs a mean ratio several
// standard errors from 1, and a change of a fifth, whose rounds' spread
// leaves it near that bound, is decided by the extra rounds' degrees of
// freedom and units (TestSimulatedKneeRounds).
const MaxKneeRoundsFactor = 2

// kneeDesign is an A/B knee's sequential design over its confirmation
// rounds (a round is the design's unit, as a pair is a fixed-rate
// scenario's): the first look after the planned rounds, max(estimates −
// 1, MinPairedKneeRounds), the last after MaxKneeRoundsFactor times as
// many, the levels spent over the looks as compare.Sequential spends
// them, so that looking twice raises no error rate. With one side's
// knee alone to confirm (paired false) no round pairs, and the planned
// rounds are the whole design.
func kneeDesign(estimates int, alpha float64, paired bool) compare.Sequential {
	planned := max(estimates-1, MinPairedKneeRounds)
	most := planned
	if paired {
		most = MaxKneeRoundsFactor * planned
	}
	return compare.Sequential{Alpha: alpha, MaxPairs: most, MinPairs: planned}
}

// maxBusyRounds bounds the confirmation rounds of one sweep measured
// again because a probe of theirs ran while the host was busy: on a host
// busy throughout, more would only lengthen the run.
const maxBusyRounds = 2

// maxBusyRemeasures bounds the probe pairs of one sweep measured again
// because the host was busy with other work (result.HostLoad.Busy) during
// one of their windows: each such pair is measured once more, so that a
// neighbour's burst rarely decides a knee, until this many were; on a host
// busy throughout, measuring again would only double the time. A pair
// still busy is kept, marked, and a max-QPS change resting on it is
// inconclusive (host busy), as against a stored baseline.
const maxBusyRemeasures = 4

// probe returns side i's knee-search probe.
func (p *pairedProbes) probe(i int) knee.Probe {
	return func(ctx context.Context, rate float64) (result.Point, error) {
		if q := p.queued[i][rate]; len(q) > 0 {
			p.queued[i][rate] = q[1:]
			p.roundBusy = p.roundBusy || (q[0].Host != nil && q[0].Host.Busy)
			return q[0], nil
		}
		var pts [2]result.Point
		for try := 0; ; try++ {
			var err error
			if pts, err = p.pair(ctx, i, rate, p.alone(i, rate) != ""); err != nil {
				return result.Point{OfferedRPS: rate}, err
			}
			busy := busyWhy(pts)
			if busy == "" || try >= 1 || p.remeasured >= maxBusyRemeasures {
				break
			}
			p.remeasured++
			if p.logf != nil {
				p.logf("a/b: %s: probe pair at %.4g/s measured again: the host was busy (%s)", p.name, rate, busy)
			}
		}
		why := p.alone(i, rate)
		switch {
		case p.logf == nil:
		case why != "":
			p.logf("a/b: %s: %s side's knee %s, probe at %.4g/s (alone: %s): P99 %.1f ms; errors %.1f%%",
				p.name, sideName(i), p.stage, rate, why, pts[i].Latency.P99, 100*pts[i].ErrorRate)
		default:
			p.logf("a/b: %s: %s side's knee %s, probe pair %d at %.4g/s: P99 base %.1f ms, head %.1f ms; errors base %.1f%%, head %.1f%%",
				p.name, sideName(i), p.stage, p.pairs, rate, pts[0].Latency.P99, pts[1].Latency.P99, 100*pts[0].ErrorRate, 100*pts[1].ErrorRate)
		}
		if why == "" {
			p.queued[1-i][rate] = append(p.queued[1-i][rate], pts[1-i])
		}
		p.roundBusy = p.roundBusy || busyWhy(pts) != ""
		return pts[i], nil
	}
}

// alone says why side i's probe at rate is measured without a twin, or
// "" when it gets one: the other side has no knee (solo), its search or
// its part of the round under way is done (reads), or the rate is a
// round's step beyond the rates both sides' rounds probe first
// (roundRates).
func (p *pairedProbes) alone(i int, rate float64) string {
	switch {
	case p.solo[i]:
		return "the other side has no knee"
	case !p.reads[1-i]:
		return fmt.Sprintf("the %s side's %s is done", sideName(1-i), p.stage)
	case p.roundRates[0] > 0 && rate != p.roundRates[0] && rate != p.roundRates[1]:
		return "a step beyond the rates both sides' rounds probe first"
	case p.own && p.stage == "confirmation":
		return "the knees are too far apart for one bracket: each side's rounds probe their own"
	}
	return ""
}

// pair measures one probe pair at rate, the side asking (i) first or
// second as the pairs alternate; alone, side i's probe only.
func (p *pairedProbes) pair(ctx context.Context, i int, rate float64, alone bool) ([2]result.Point, error) {
	first := i
	if p.pairs%2 == 1 {
		first = 1 - i
	}
	var pts [2]result.Point
	order := []int{first, 1 - first}
	if alone {
		order = []int{i}
	}
	for _, k := range order {
		if p.residentOne && p.active != k {
			if p.active >= 0 {
				p.sides[p.active].Stop()
			}
			if err := p.sides[k].Start(ctx); err != nil {
				return pts, fmt.Errorf("%s side: %w", sideName(k), err)
			}
			p.processes[k]++
			p.active = k
		}
		r, pt, err := suite.Probe(ctx, p.cfg, p.sides[k].s, p.sides[k].client, p.sides[k].cur.PGID, rate, p.o)
		if err != nil {
			return pts, fmt.Errorf("%s side at %.4g/s: %w", sideName(k), rate, err)
		}
		if _, seen := p.runs[k][rate]; !seen && r != nil {
			p.runs[k][rate] = r
		}
		pts[k] = pt
		if alone {
			p.order.WriteString([2]string{"a", "b"}[k])
		} else {
			p.order.WriteString([2]string{"A", "B"}[k])
		}
		p.windows++
	}
	if len(order) == 2 {
		p.pairs++
	}
	return pts, nil
}

// busyWhy says why either point of a pair ran on a busy host, or "".
func busyWhy(pts [2]result.Point) string {
	for k, pt := range pts {
		if pt.Host != nil && pt.Host.Busy {
			return sideName(k) + " side: " + pt.Host.Why
		}
	}
	return ""
}

// startBoth gives both sides fresh processes at once (startBoth), at
// the p.starts-th start, and counts them.
func (p *pairedProbes) startBoth(ctx context.Context) error {
	ok, err := startBoth(p.starts, func(k int) error { return p.sides[k].Start(ctx) })
	for k := range ok {
		if ok[k] {
			p.processes[k]++
		}
	}
	return err
}

// fresh starts fresh processes before a confirmation round: both sides'
// when both are resident, else none (the next probe starts its side's).
func (p *pairedProbes) fresh(run *compare.ABScenario) func(context.Context) error {
	return func(ctx context.Context) error {
		if p.residentOne {
			if p.active >= 0 {
				p.sides[p.active].Stop()
			}
			p.active = -1
			return nil
		}
		err := p.startBoth(ctx)
		p.starts++
		return err
	}
}

// sweepAB searches both sides' knees with paired probes: the base side's
// search first, then, after fresh processes for both, the head's (which
// reads the twins measured during the first and measures itself alone at
// any rate it needs anew). The knee confirmations then run interleaved
// (confirm): each round in fresh processes for both, the base side's round
// and the head's back to back. Max QPS is tested over those rounds,
// paired: the log ratio of the head's estimate to the base's per round,
// Student's paired t-test, no run-to-run term (compare's
// Settings.PairedKnees) — both sides ran every round on the runner as it
// was then, so nothing between runs is left to assume. With fewer than
// two rounds a side has an estimate for, it is compared as compare does a
// stored knee: over every estimate, unpaired, with gate.run_to_run.
//
// Why not the searches' own estimates in the pairing: one side's search
// runs while the other waits, so a drift of the runner between them would
// read as a change (an earlier design that tested every estimate unpaired
// without the run-to-run term called a loopback A/A a −6% regression).
//
// Budget: each side's search gets as many windows of its own as a
// `perfgate run` sweep would have: the base side's, whose every probe
// costs two windows (one a side), twice the scenario's sweep budget in
// wall time, and the head side's, measured alone, the budget itself. A side
// whose search ends without a bracket (no probe failed, or none passed)
// has no knee and is never sized; one where no probe failed (or that the
// budget stopped) is invalid, never compared, while one where no probe
// passed is compared as a bound: its max QPS is below its lowest failing
// rate (compare.MethodCensoredKnee), so a head that meets the SLO at no
// rate is a regression, not an invalid run.
func sweepAB(ctx context.Context, cfg *config.Plan, name, layer string, base, head *targetSide, o Options) (*compare.ScenarioComparison, compare.ABScenario, *result.Result, *result.Result, error) {
	s := base.s // the sides' loads are the same (config.Pair's rule)
	run := compare.ABScenario{Scenario: name, Design: config.DesignInterleaved, Stopped: "knee", Looks: 1, Level: 1 - o.Settings.Confidence}
	begin := time.Now()
	defer base.Stop()
	defer head.Stop()
	p := &pairedProbes{ctx: ctx, cfg: cfg, name: name, o: o.Suite, sides: [2]*targetSide{base, head},
		queued: [2]map[float64][]result.Point{{}, {}}, runs: [2]map[float64]*result.Result{{}, {}},
		residentOne: cfg.AB.Resident == "one", active: -1, processes: &run.Processes, alpha: 1 - o.Settings.Confidence}
	if o.Suite.Log != nil {
		p.logf = func(format string, a ...any) { fmt.Fprintf(o.Suite.Log, format+"\n", a...) }
	}
	ko := suite.KneeOptions(cfg, s, o.Suite)
	var caps [2]*result.Capacity
	for i := range 2 {
		// Fresh processes for each side's search (with one resident,
		// started probe by probe).
		if !p.residentOne {
			if err := p.startBoth(ctx); err != nil {
				return nil, run, nil, nil, err
			}
		}
		p.starts++
		p.reads, p.stage = [2]bool{false, i == 0}, "search"
		so := ko
		if i == 0 && so.Budget > 0 {
			so.Budget *= 2 // each of its probes costs two windows
		}
		c, err := knee.Search(ctx, p.probe(i), so)
		if c == nil || err != nil {
			return nil, run, nil, nil, fmt.Errorf("%s side's knee search: %w", sideName(i), err)
		}
		caps[i] = c
		if p.logf != nil {
			p.logf("a/b: %s: %s side's knee search: %s (%d windows of its own, %d probe pairs so far, %s elapsed)",
				name, sideName(i), kneeText(c), c.Windows, p.pairs, time.Since(begin).Round(time.Second))
		}
	}
	look := func(tested [2][]float64, level, eqLevel float64) *compare.ScenarioComparison {
		return kneeAtLook(name, layer, [2]*config.Scenario{p.sides[0].s, p.sides[1].s}, caps, p.runs, ko, tested, atLook(o.Settings, level, eqLevel))
	}
	kr, err := p.confirm(ctx, &run, caps, ko, s.Load.Estimates, begin, look)
	if err != nil {
		return nil, run, nil, nil, err
	}
	paired := kr.paired
	for i := range 2 {
		knee.CompleteBracket(caps[i], ko) // its result's warnings say so (Stopped)
	}
	for i := range 2 {
		if p.logf != nil {
			p.logf("a/b: %s: %s side's knee: %s, %d estimate(s)", name, sideName(i), kneeText(caps[i]), len(caps[i].Estimates))
		}
	}
	run.Order = p.order.String()
	run.Pairs, run.Trials = p.pairs, p.windows
	run.RunnerS = time.Since(begin).Seconds()
	// The fixed design measures every round the sequential one may:
	// the rounds not measured at the rate of those that were.
	run.FixedTrials, run.FixedRunnerS = run.Trials, run.RunnerS
	if left := kr.most - kr.counted; left > 0 && kr.measured > 0 {
		run.FixedTrials += int(math.Round(float64(left*kr.windows) / float64(kr.measured)))
		run.FixedRunnerS += float64(left) * kr.seconds / float64(kr.measured)
	}
	var rs [2]*result.Result
	for i := range 2 {
		rs[i] = kneeResult(p.sides[i].s, caps[i], p.runs[i])
	}
	settings := o.Settings
	if kr.level > 0 {
		settings = atLook(o.Settings, kr.level, kr.eqLevel)
	}
	c, err := compareKnees(name, layer, rs, paired, settings)
	if err != nil {
		return nil, run, rs[0], rs[1], err
	}
	sc := c.Scenarios[0]
	switch run.Stopped {
	case "futile":
		sc.Notes = append(sc.Notes, kr.futile)
	case "max_rounds":
		morePairs(&sc, kr.counted, kr.level, 1-o.Settings.Confidence)
	}
	sc.Warnings = append(sc.Warnings, fmt.Sprintf("max QPS: both sides probed at the same rates back to back (%d pairs of probes)", p.pairs))
	if p.remeasured > 0 {
		sc.Warnings = append(sc.Warnings, fmt.Sprintf("max QPS: %d probe pair(s) measured again because the host was busy with other work during them", p.remeasured))
	}
	if p.busyRounds > 0 || p.busyLeftOut > 0 {
		w := fmt.Sprintf("max QPS: %d confirmation round(s) measured again because a probe of theirs ran while the host was busy; %d busy round(s) left out of the test, which rests on %d round(s), %d of them quiet",
			p.busyRounds, p.busyLeftOut, len(paired[0]), p.quietRounds)
		if !p.quietOnly && len(paired[0]) >= 2 {
			w += ": the other work loaded both sides of each busy round, measured back to back, and the paired test holds it; the knees are this busy runner's, not a quiet one's"
		}
		sc.Warnings = append(sc.Warnings, w)
	}
	return &sc, run, rs[0], rs[1], nil
}

// compareKnees compares the sides' knee results rs (named name in layer
// for the comparison; the results keep their own names) over the paired
// rounds' estimates. Max QPS is tested over the interleaved rounds,
// paired, when there are two or more: each side's estimates are then the
// rounds' only (the searches', measured one side after the other, are
// left out), in the comparison and in the results written and sized, so
// that the capacity line rests on the estimates the gate tested. Else
// every estimate, unpaired, with the run-to-run term.
//
// A busy host vetoes no paired test of the rounds (TestBusyProbeNoVeto):
// the rounds tested are the quiet ones when two or more are (the
// searches' busy probes and the busy rounds then have no say), and
// otherwise nearly every round ran beside the neighbour, which then
// loaded both sides of each round, measured back to back in alternating
// order, so that the pairing cancels it as it cancels a drift, and the
// paired test's false-alarm rate holds, as for fixed-rate trials (step 7
// of ab.md). A knee compared unpaired keeps the guard.
func compareKnees(name, layer string, rs [2]*result.Result, paired [2][]float64, settings compare.Settings) (*compare.Comparison, error) {
	if len(paired[0]) >= 2 {
		for i := range 2 {
			rs[i].Capacity.Estimates = paired[i]
		}
		settings.PairedKnees = true
		settings.IgnoreHostLoad = true
	}
	named := [2]result.Result{*rs[0], *rs[1]}
	for i := range named {
		named[i].Scenario, named[i].Layer = name, layer
	}
	return compare.Compare([]*result.Result{&named[0]}, []*result.Result{&named[1]}, settings)
}

// atLook is s for a comparison at a sequential look of an A/B knee's
// rounds: max QPS's test at level, each one-sided test of its
// equivalence at eqLevel (Settings.KneeEquivLevel).
func atLook(s compare.Settings, level, eqLevel float64) compare.Settings {
	s.Confidence, s.KneeEquivLevel = 1-level, eqLevel
	return s
}

// kneeRounds is what an A/B knee's confirmation rounds measured: the
// rounds' paired estimates that max QPS is tested over; the last look's
// levels (0: no look, nothing confirmed); the rounds the design counted
// (a busy round measured again counts once), the most it allows and the
// rounds counted at the last look; the rounds measured, and their windows
// and seconds, for the fixed design's cost; and the note of a futile stop.
type kneeRounds struct {
	paired            [2][]float64
	level, eqLevel    float64
	counted, most     int
	lastLook          int
	measured, windows int
	seconds           float64
	futile            compare.Note
}

// confirm runs both sides' knee confirmations interleaved: before each
// round fresh processes for both (p.fresh), then the base side's round and
// the head side's (which goes first alternates), so that a round's two
// estimates were measured moments apart on the runner as it was then, and
// from the same first rates: both sides' rounds start at one bracket that
// holds both knees. A round uses only the probes and twins measured in
// it. It returns the rounds' estimates where both sides had one, paired
// by index; the searches' own estimates (each side's search ran while the
// other waited) are not paired. With estimates < 2
// nothing is confirmed, as a suite sweep does. When one side's search
// ended with no knee, the other's rounds probe it alone (pairedProbes.solo).
//
// The rounds are a sequential design (kneeDesign): at each look, look
// compares the rounds so far at the look's levels, and the rounds stop
// once max QPS is decided, or the rounds left could hardly decide it
// (compare.Futile), else at the design's most rounds. run records the
// looks, the last look's levels and why the rounds stopped.
func (p *pairedProbes) confirm(ctx context.Context, run *compare.ABScenario, caps [2]*result.Capacity, ko knee.Options, estimates int, begin time.Time,
	look func(tested [2][]float64, level, eqLevel float64) *compare.ScenarioComparison) (kneeRounds, error) {
	var kr kneeRounds
	if estimates < 2 {
		return kr, nil
	}
	var conf [2]*knee.Confirmer
	for i := range 2 {
		conf[i] = knee.NewConfirmer(caps[i], p.probe(i), ko)
	}
	if conf[0] == nil && conf[1] == nil {
		return kr, nil
	}
	for i := range 2 {
		p.solo[i] = conf[1-i] == nil
	}
	if conf[0] != nil && conf[1] != nil {
		// One bracket holding both knees and one step beyond it: each
		// round's two estimates are read from the same rates
		// (knee.Share), unless the knees are too far apart for one.
		bl, bh := conf[0].Bracket()
		hl, hh := conf[1].Bracket()
		lo, hi, shared := knee.Share(conf[0], conf[1])
		msg := fmt.Sprintf("both sides' rounds probe [%.4g, %.4g] first", lo, hi)
		if shared {
			p.roundRates = [2]float64{lo, hi}
		} else {
			p.own = true
			msg = fmt.Sprintf("the knees are more than %g times apart: each side's rounds probe their own bracket, alone", knee.ShareApart)
		}
		if p.logf != nil {
			p.logf("a/b: %s: knee confirmation: %s (base bracket [%.4g, %.4g], head [%.4g, %.4g])", p.name, msg, bl, bh, hl, hh)
		}
	}
	design := kneeDesign(estimates, p.alpha, conf[0] != nil && conf[1] != nil)
	var spent [2]time.Duration
	fresh := p.fresh(run)
	windows0 := p.windows
	measure := func(r int) (est [2]float64, ok [2]bool, busy bool, err error) {
		if err := fresh(ctx); err != nil {
			return est, ok, false, fmt.Errorf("knee confirmation %d: %w", r, err)
		}
		p.queued = [2]map[float64][]result.Point{{}, {}}
		p.roundBusy = false
		first := (r + 1) % 2
		p.stage = "confirmation"
		for j, i := range []int{first, 1 - first} {
			if conf[i] == nil {
				continue
			}
			p.reads[i], p.reads[1-i] = false, j == 0
			t0 := time.Now()
			e, has, err := conf[i].Round(ctx)
			spent[i] += time.Since(t0)
			if err != nil {
				return est, ok, false, fmt.Errorf("%s side's knee search: %w", sideName(i), err)
			}
			est[i], ok[i] = e, has
		}
		return est, ok, p.roundBusy, nil
	}
	kr, err := p.runRounds(run, design, begin, measure, look)
	kr.windows = p.windows - windows0
	for i := range 2 {
		kr.seconds += spent[i].Seconds()
		if caps[i] != nil {
			caps[i].ConfirmS = math.Round(spent[i].Seconds()*10) / 10
		}
	}
	return kr, err
}

// runRounds measures confirmation rounds (measure, round r from 1) under
// design, looking at them where it says (kneeLook), until a look stops
// them. A round with a busy probe (busy) is measured once more, up to
// maxBusyRounds a sweep, and the design counts the two as one. It
// returns the rounds' paired estimates that max QPS is tested over: the
// quiet rounds when two or more are left, else every round, busy ones
// included (testedRounds).
func (p *pairedProbes) runRounds(run *compare.ABScenario, design compare.Sequential, begin time.Time,
	measure func(r int) (est [2]float64, ok [2]bool, busy bool, err error),
	look func(tested [2][]float64, level, eqLevel float64) *compare.ScenarioComparison) (kneeRounds, error) {
	kr := kneeRounds{most: design.MaxPairs}
	run.Looks = 0
	var quiet, busy [2][]float64 // the rounds' paired estimates, by the host's state
	var tPrev float64
	for r := 1; ; r++ {
		est, ok, roundBusy, err := measure(r)
		if err != nil {
			return kr, err
		}
		kr.measured = r
		if ok[0] && ok[1] {
			to := &quiet
			if roundBusy {
				to = &busy
			}
			to[0], to[1] = append(to[0], est[0]), append(to[1], est[1])
		}
		again := ""
		if roundBusy && ok[0] && ok[1] && p.busyRounds < maxBusyRounds {
			p.busyRounds++
			again = "; a probe ran while the host was busy: one more round"
		}
		kr.counted = r - p.busyRounds
		if p.logf != nil {
			p.logf("a/b: %s: knee confirmation round %d (%d counted; looks after %d and at most %d): %s; %d probe pairs so far, %s elapsed%s",
				p.name, r, kr.counted, design.FirstLook(), design.MaxPairs, roundText(est, ok), p.pairs, time.Since(begin).Round(time.Second), again)
		}
		if again != "" || !design.LookAt(kr.counted, kr.lastLook) {
			continue
		}
		if p.kneeLook(run, &kr, design, &tPrev, quiet, busy, look) {
			break
		}
	}
	kr.paired, p.quietOnly = testedRounds(quiet, busy)
	p.quietRounds = len(quiet[0])
	if p.quietOnly {
		p.busyLeftOut = len(busy[0])
	}
	return kr, nil
}

// kneeLook is a look at an A/B knee's rounds after kr.counted of them,
// when the design says to: it spends the look's levels, compares the
// rounds at them (look) and reports whether the rounds stop there:
// max QPS decided, the design's last round, or the rounds left futile.
func (p *pairedProbes) kneeLook(run *compare.ABScenario, kr *kneeRounds, design compare.Sequential, tPrev *float64, quiet, busy [2][]float64,
	look func(tested [2][]float64, level, eqLevel float64) *compare.ScenarioComparison) bool {
	n := kr.counted
	kr.lastLook = n
	t := design.Fraction(n, 0)
	kr.level = design.Spent(t) - design.Spent(*tPrev)
	kr.eqLevel = design.EquivSpent(t) - design.EquivSpent(*tPrev)
	*tPrev = t
	run.Looks++
	run.Level, run.EquivLevel = kr.level, kr.eqLevel
	var sc *compare.ScenarioComparison
	if tested, _ := testedRounds(quiet, busy); len(tested[0]) >= 2 {
		sc = look(tested, kr.level, kr.eqLevel)
	}
	switch {
	case sc != nil && compare.Decided(*sc):
		run.Stopped = "decided"
	case n >= design.MaxPairs:
		run.Stopped = "max_rounds"
	case sc != nil:
		l := compare.Look{Pairs: n, EndPairs: design.MaxPairs, Level: kr.level,
			AlphaLeft: design.Spent(1) - design.Spent(t), EqAlphaLeft: design.EquivSpent(1) - design.EquivSpent(t)}
		if f, ok := compare.Futile(*sc, l); ok {
			run.Stopped = "futile"
			kr.futile = compare.Note{Code: compare.NoteFutile, Metric: f.Metric, Count: f.Pairs, Need: f.PairsNeeded, Pct: 100 * f.Power}
		}
	}
	stop := run.Stopped == "decided" || run.Stopped == "max_rounds" || run.Stopped == "futile"
	if p.logf != nil {
		verdict, then := "too few rounds to compare", "; more rounds"
		if sc != nil {
			verdict = string(sc.Verdict)
		}
		if stop {
			then = "; stopped: " + run.Stopped
		}
		p.logf("a/b: %s: knee look %d after %d round(s) at level %.3g (unchanged: %.3g): max QPS %s%s", p.name, run.Looks, n, kr.level, kr.eqLevel, verdict, then)
	}
	return stop
}

// testedRounds picks the confirmation rounds max QPS is tested over,
// from the rounds' paired estimates (base, head) split by whether a probe
// of the round ran on a busy host: the quiet rounds when there are two or
// more (quietOnly), else every round, busy ones included: the other work
// then ran beside nearly every round, on both of its sides, and the
// paired test holds it (compareKnees).
func testedRounds(quiet, busy [2][]float64) (tested [2][]float64, quietOnly bool) {
	if len(quiet[0]) >= 2 {
		return quiet, true
	}
	for i := range 2 {
		tested[i] = append(slices.Clone(quiet[i]), busy[i]...)
	}
	return tested, false
}

// roundText is a confirmation round's two estimates, for the progress log.
func roundText(est [2]float64, ok [2]bool) string {
	side := func(i int) string {
		if !ok[i] {
			return sideName(i) + " no estimate"
		}
		return fmt.Sprintf("%s %.4g/s", sideName(i), est[i])
	}
	out := side(0) + ", " + side(1)
	if ok[0] && ok[1] {
		out += fmt.Sprintf(" (%+.1f%%)", 100*(est[1]/est[0]-1))
	}
	return out
}

// kneeAtLook compares the confirmation rounds so far (tested) at a
// look's settings, as the final comparison does: on copies of the
// capacities, a search that never failed completed from the rounds so far
// (knee.CompleteBracket), so that a look does not judge a knee the rounds
// have bracketed as never found (bench/RESULTS-rules.md#abkneeatlook).
// It returns nil when nothing compares.
func kneeAtLook(name, layer string, scen [2]*config.Scenario, caps [2]*result.Capacity, runs [2]map[float64]*result.Result, ko knee.Options,
	tested [2][]float64, settings compare.Settings) *compare.ScenarioComparison {
	var rs [2]*result.Result
	for i := range 2 {
		c := *caps[i]
		knee.CompleteBracket(&c, ko)
		rs[i] = kneeResult(scen[i], &c, runs[i])
	}
	c, err := compareKnees(name, layer, rs, tested, settings)
	if err != nil || len(c.Scenarios) == 0 {
		return nil
	}
	return &c.Scenarios[0]
}

// kneeResult is a side's sweep as a result, as the suite writes one: the
// capacity, and the summary and trial of the highest passing probe.
func kneeResult(s *config.Scenario, c *result.Capacity, runs map[float64]*result.Result) *result.Result {
	l := s.Load
	r := &result.Result{Schema: result.Schema, Scenario: s.Name, Layer: s.Layer, Protocol: s.Protocol, Target: s.Target,
		StartedAt: time.Now().UTC(), Valid: true, Capacity: c}
	if best := runs[c.MaxQPS]; best != nil && c.Found {
		r.Summary, r.Trials, r.LLM, r.StartedAt = best.Summary, best.Trials, best.LLM, best.StartedAt
	}
	r.Load = result.Load{Mode: harness.ModeSweep, Arrival: l.Arrival, DurationS: l.Duration.D().Seconds(),
		WarmupS: l.Warmup.D().Seconds(), Trials: c.Windows}
	if !c.Found {
		// No knee, but a bound: its max QPS is below its lowest failing
		// rate, which the comparison tests against the other side's
		// estimates (compare.MethodCensoredKnee). It is never sized.
		r.Warnings = append(r.Warnings, "no probe met the SLO: the service cannot meet it at the lowest rate tried; its max QPS is compared as below that rate, and not sized")
	}
	if c.Stopped != "" {
		r.Warnings = append(r.Warnings, "knee search stopped early: "+c.Stopped)
	}
	if w := knee.LightLoadWarning(c); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	if c.Found && !bracketed(c) {
		r.Valid = false
		r.Warnings = append(r.Warnings, fmt.Sprintf("the knee search ended without a bracket (%s): there is no knee to compare or size; raise load.budget, or max_rate when every probe passed", kneeText(c)))
	}
	return r
}

// bracketed reports whether a knee search bracketed its knee: a passing
// probe below a failing one. Without a bracket the "max QPS" is only the
// highest rate tried (or nothing): not a capacity.
func bracketed(c *result.Capacity) bool {
	return c != nil && c.Found && c.Bracket[1] > c.Bracket[0] && c.Bracket[0] > 0
}

// kneeText is a capacity in a few words, for the progress log.
func kneeText(c *result.Capacity) string {
	switch {
	case !c.Found:
		return "no probe passed"
	case c.Bracket[1] <= 0:
		return fmt.Sprintf("every probe passed, up to %.4g/s", c.MaxQPS)
	}
	return fmt.Sprintf("max QPS %.4g/s, bracket [%.4g, %.4g]", c.MaxQPS, c.Bracket[0], c.Bracket[1])
}
