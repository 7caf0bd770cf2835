package ab

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/internal/cpuset"
	"github.com/perfgate/perfgate/result"
)

// Side is one side of an A/B scenario: a target process perfgate starts,
// restarts and measures.
type Side interface {
	// Start starts a fresh process, stopping the earlier one if any.
	Start(ctx context.Context) error
	// Stop stops the process, if one runs.
	Stop()
	// Trial measures one trial, after its warm-up.
	Trial(ctx context.Context) (*result.Trial, error)
}

// Plan is how one scenario is measured (interleaved, or both sides at
// once) and when it stops.
type Plan struct {
	Scenario, Layer string
	Settings        compare.Settings
	// Design decides the looks and their levels; Design.MaxPairs bounds
	// the pairs.
	Design compare.Sequential
	// Budget bounds the scenario's time (0: none).
	Budget time.Duration
	// ResidentOne runs one side's process at a time.
	ResidentOne bool
	// CPUHalves are the CPU sets Duet swaps the sides between (duetCPUs;
	// none: unpinned). Interleave does not read them.
	CPUHalves [2]cpuset.Set
	// Clock returns the time elapsed since the scenario began (nil: the
	// wall clock). The seeded simulation runs on a simulated one.
	Clock func() time.Duration
	// Log receives progress lines (nil: none): each pair's P99s, and
	// each look's running estimate, verdict and time left.
	Log func(line string)
}

// Measured is one scenario's A/B measurement and its paired comparison.
type Measured struct {
	Comparison compare.ScenarioComparison
	Run        compare.ABScenario
	Pairs      compare.Pairs
}

// block is the ABBA order of one block of two pairs: false is A (base).
var block = [4]bool{false, true, true, false}

// Interleave measures base and head in ABBA blocks and looks at the paired
// comparison after each block, until it is decided or the plan's bounds
// are reached. On an error (a side that cannot start, a trial that cannot
// run, an interrupt) it stops both sides and returns what was measured with
// the error.
func Interleave(ctx context.Context, p Plan, base, head Side) (*Measured, error) {
	if err := p.Design.Validate(); err != nil {
		return nil, err
	}
	clock := p.clock()
	sides := [2]Side{base, head}
	out := &Measured{Run: compare.ABScenario{Scenario: p.Scenario, Design: config.DesignInterleaved, FixedTrials: 2 * p.Design.MaxPairs}}
	run := &out.Run
	defer base.Stop()
	defer head.Stop()
	var order strings.Builder
	var aTimes, aP99 []float64 // for the base side's drift
	active := -1               // resident one: the side whose process runs
	start := func(i int) error {
		if err := sides[i].Start(ctx); err != nil {
			return fmt.Errorf("%s side: %w", sideName(i), err)
		}
		run.Processes[i]++
		return nil
	}
	starts := 0 // times both sides were started together, for startOrder
	both := func() error {
		ok, err := startBoth(starts, func(i int) error { return sides[i].Start(ctx) })
		for i := range ok {
			if ok[i] {
				run.Processes[i]++
			}
		}
		return err
	}
	var startCost, blockTime time.Duration // both sides' first start; the first block
	if !p.ResidentOne {
		t0 := clock()
		if err := both(); err != nil {
			return out, err
		}
		startCost = clock() - t0
	}
	looks := looker{p: p}
	var pending [2]*result.Trial
	for b := 0; ; b++ {
		blockStart := clock()
		want := min(2, p.Design.MaxPairs-out.Pairs.Len())
		for k := 0; k < 2*want; k++ {
			i := 0
			if block[k] {
				i = 1
			}
			if p.ResidentOne && active != i {
				if active >= 0 {
					sides[active].Stop()
				}
				if err := start(i); err != nil {
					return out, err
				}
				active = i
			}
			at := clock()
			tr, err := sides[i].Trial(ctx)
			if err != nil {
				return out, fmt.Errorf("%s side, trial %d: %w", sideName(i), run.Trials+1, err)
			}
			order.WriteString("AB"[i : i+1])
			run.Trials++
			if i == 0 && tr.Latency.P99 > 0 {
				aTimes = append(aTimes, at.Seconds())
				aP99 = append(aP99, tr.Latency.P99)
			}
			pending[i] = tr
			if pending[0] != nil && pending[1] != nil {
				out.Pairs.Base = append(out.Pairs.Base, *pending[0])
				out.Pairs.Head = append(out.Pairs.Head, *pending[1])
				pending = [2]*result.Trial{}
				out.Pairs.HeadFirst = append(out.Pairs.HeadFirst, i == 0) // the head ran first when the base completed the pair
				p.logf("a/b: %s: pair %d of at most %d (%s): P99 base %.2f ms, head %.2f ms",
					p.Scenario, out.Pairs.Len(), p.Design.MaxPairs, order.String()[order.Len()-2:],
					out.Pairs.Base[out.Pairs.Len()-1].Latency.P99, out.Pairs.Head[out.Pairs.Len()-1].Latency.P99)
			}
		}
		if looks.after(out, b+1, clock()) {
			break
		}
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if b == 0 {
			blockTime = clock() - blockStart
		}
		if !p.ResidentOne && b%restartEvery(startCost, blockTime) == 0 {
			starts++
			if err := both(); err != nil {
				return out, err
			}
		}
	}
	p.finish(out, order.String(), clock(), aTimes, aP99)
	run.OrderEffect = compare.EstimateOrderEffect(out.Pairs, p.Settings.Confidence)
	compare.FirstTrialNotes(&out.Comparison, out.Pairs, p.Settings.Confidence)
	if oe := run.OrderEffect; oe != nil {
		p.logf("a/b: %s: %s", p.Scenario, orderEffectLine(oe))
	}
	return out, nil
}

// orderEffectLine says how much slower the side measured first in a pair
// was, over the blocks measured, and that the ABBA order cancelled it.
func orderEffectLine(oe *compare.OrderEffect) string {
	return fmt.Sprintf("order effect (first-measured side against second, over %d ABBA blocks; cancelled in the paired estimate): P50 %+.1f%% [%+.1f%%, %+.1f%%], P99 %+.1f%% [%+.1f%%, %+.1f%%]",
		oe.Blocks, oe.P50Pct, oe.P50CIPct[0], oe.P50CIPct[1], oe.P99Pct, oe.P99CIPct[0], oe.P99CIPct[1])
}

// looker is a scenario's sequential looks: when to look at the paired
// comparison, at which levels, and why measuring stops.
type looker struct {
	p     Plan
	tPrev float64 // the last look's fraction of the design
	last  int     // the pairs at the last look (0: none yet)
}

// after looks at out's pairs after the blocks-th block (1-based),
// elapsed into the scenario, when the design says to or the plan's
// bounds are reached. It sets out.Run.Stopped, and reports true, once
// measuring stops.
func (l *looker) after(out *Measured, blocks int, elapsed time.Duration) bool {
	p, run := l.p, &out.Run
	n := out.Pairs.Len()
	var ofBudget float64
	if p.Budget > 0 {
		// Looking ahead one block: stop now when the next would overrun.
		perBlock := elapsed / time.Duration(blocks)
		ofBudget = float64(elapsed+perBlock) / float64(p.Budget)
	}
	t := p.Design.Fraction(n, ofBudget)
	final := t >= 1
	if p.Design.LookAt(n, l.last) || final {
		level := p.Design.Spent(t) - p.Design.Spent(l.tPrev)
		eqLevel := p.Design.EquivSpent(t) - p.Design.EquivSpent(l.tPrev)
		l.tPrev, l.last = t, n
		out.Comparison = compare.ComparePaired(p.Scenario, p.Layer, out.Pairs, p.Settings, level, eqLevel)
		run.Looks++
		run.Level, run.EquivLevel = level, eqLevel
		switch {
		case compare.Decided(out.Comparison):
			run.Stopped = "decided"
		case n >= p.Design.MaxPairs:
			run.Stopped = "max_trials"
			morePairs(&out.Comparison, n, level, p.Design.Alpha)
			compare.TailSampling(&out.Comparison, out.Pairs, p.Settings)
		case final:
			run.Stopped = "budget"
			morePairs(&out.Comparison, n, level, p.Design.Alpha)
			compare.TailSampling(&out.Comparison, out.Pairs, p.Settings)
		case !p.Design.NoFutility:
			look := compare.Look{Pairs: n, EndPairs: int(math.Round(float64(n) / t)), Level: level,
				AlphaLeft: p.Design.Spent(1) - p.Design.Spent(t), EqAlphaLeft: p.Design.EquivSpent(1) - p.Design.EquivSpent(t)}
			if f, ok := compare.Futile(out.Comparison, look); ok {
				run.Stopped = "futile"
				out.Comparison.Notes = append(out.Comparison.Notes, compare.Note{Code: compare.NoteFutile,
					Metric: f.Metric, Count: f.Pairs, Need: f.PairsNeeded, Pct: 100 * f.Power})
				compare.TailSampling(&out.Comparison, out.Pairs, p.Settings)
			}
		}
		p.logLook(out.Comparison, run.Looks, n, level, eqLevel, elapsed, run.Stopped)
	}
	return run.Stopped != ""
}

// morePairs notes, on a scenario left undecided at the end of its design
// after n pairs, the metric that held it and about how many pairs would
// decide it (compare.PairsToDecide): what the user can buy with runner
// time.
func morePairs(sc *compare.ScenarioComparison, n int, level, alpha float64) {
	if m, need, ok := compare.PairsToDecide(*sc, compare.Look{Pairs: n, Level: level}, alpha); ok {
		sc.Notes = append(sc.Notes, compare.Note{Code: compare.NoteMorePairs, Metric: m, Count: n, Need: need})
	}
}

// finish records a finished scenario's order, pairs, runner time (and
// the fixed design's), the base side's drift over the times aTimes of its
// P99s aP99, the unpaired reading, and a warning when a side ran in fewer
// than two processes.
func (p Plan) finish(out *Measured, order string, elapsed time.Duration, aTimes, aP99 []float64) {
	run := &out.Run
	run.Order = order
	run.Pairs = out.Pairs.Len()
	run.RunnerS = elapsed.Seconds()
	if run.Pairs > 0 {
		run.FixedRunnerS = run.RunnerS / float64(run.Pairs) * float64(p.Design.MaxPairs)
	}
	run.BaseDriftPct = compare.DriftPct(aTimes, aP99)
	run.UnpairedDeltaPct = compare.UnpairedDeltaPct(p99s(out.Pairs))
	if run.Processes[0] < 2 || run.Processes[1] < 2 {
		out.Comparison.Warnings = append(out.Comparison.Warnings, fmt.Sprintf(
			"each side ran in fewer than two processes (base %d, head %d): one unlucky process could read as the change; raise ab.max_trials",
			run.Processes[0], run.Processes[1]))
	}
}

// clock is the plan's clock, or the wall clock from now.
func (p Plan) clock() func() time.Duration {
	if p.Clock != nil {
		return p.Clock
	}
	start := time.Now()
	return func() time.Duration { return time.Since(start) }
}

func sideName(i int) string { return [2]string{"base", "head"}[i] }

// restartEvery is how many ABBA blocks both sides' processes serve: one
// (fresh processes after every block) when starting both (at once:
// startBoth) costs at most a tenth of a block's time, else two.
//
// Pairs measured in the same two processes share those processes' own
// offsets, so their log ratios are not independent, and the paired t-test,
// which takes them to be, is too sure: with processes kept for two
// blocks it called a true change of the threshold unchanged more often
// than α allows (TestSimulatedABDecides; the figures are in
// bench/RESULTS-rules.md#abrestartevery). Fresh processes every block
// cost a start per block. A target that takes long to start (a model
// server loading weights) keeps its processes for two blocks: the starts
// would cost more than the independence buys.
func restartEvery(startCost, blockTime time.Duration) int {
	if blockTime > 0 && startCost*10 <= blockTime {
		return 1
	}
	return 2
}

// startBoth gives both sides fresh processes at once, at the k-th start
// of a scenario: launch(i) starts side i, each in its own goroutine, so
// that a block waits for the slower side's start rather than for both
// one after the other (a model server loading weights for a minute makes
// that a minute a block). The side startOrder(k) names first enters
// launch first: the second goroutine is let go once the first runs. It
// waits for both and returns which started and the first error met
// (named by side); the caller stops both sides on an error.
func startBoth(k int, launch func(i int) error) (started [2]bool, err error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, i := range startOrder(k) {
		running := make(chan struct{})
		wg.Go(func() {
			close(running)
			e := launch(i)
			mu.Lock()
			defer mu.Unlock()
			started[i] = e == nil
			if e != nil && err == nil {
				err = fmt.Errorf("%s side: %w", sideName(i), e)
			}
		})
		<-running
	}
	wg.Wait()
	return started, err
}

// startOrder is the order in which both sides' processes start at the
// k-th start of a scenario: base first, then head first, alternating.
// Where the second process lands (which CPU, beside which of perfgate's
// threads) can differ from where the first did, and a fixed order would
// give one side that place every time, a bias of its own
// (bench/RESULTS-rules.md#abstartorder).
func startOrder(k int) [2]int {
	if k%2 == 1 {
		return [2]int{1, 0}
	}
	return [2]int{0, 1}
}

// logf logs one progress line, if the plan has a log.
func (p Plan) logf(format string, a ...any) {
	if p.Log != nil {
		p.Log(fmt.Sprintf(format, a...))
	}
}

// logLook logs a look: the pairs, the level, each gated metric's running
// estimate and verdict, and the time left at most (to max_trials or the
// budget, whichever comes first, at this run's pace).
func (p Plan) logLook(sc compare.ScenarioComparison, look, pairs int, level, eqLevel float64, elapsed time.Duration, stopped string) {
	if p.Log == nil {
		return
	}
	var ms []string
	for _, m := range sc.Metrics {
		if m.Gated && !(m.Absolute && m.DeltaPct == 0 && m.CIPct == [2]float64{}) {
			ms = append(ms, fmt.Sprintf("%s %+.1f%% [%+.1f%%, %+.1f%%] %s", m.Metric, m.DeltaPct, m.CIPct[0], m.CIPct[1], m.Verdict))
		}
	}
	eta := "done"
	if stopped == "futile" {
		eta = "stopped: the pairs left could hardly decide it"
	} else if !compare.Decided(sc) && pairs < p.Design.MaxPairs {
		left := time.Duration(float64(elapsed) / float64(pairs) * float64(p.Design.MaxPairs-pairs))
		if p.Budget > 0 {
			left = min(left, max(p.Budget-elapsed, 0))
		}
		eta = fmt.Sprintf("at most %s more (%d pairs left, %.1f s a pair)", left.Round(time.Second), p.Design.MaxPairs-pairs, elapsed.Seconds()/float64(pairs))
	}
	p.logf("a/b: %s: look %d after %d pairs (level %.3g, for unchanged %.3g): %s; %s", p.Scenario, look, pairs, level, eqLevel, strings.Join(ms, "; "), eta)
}

// p99s are the pairs' P99s, base and head, for compare.UnpairedDeltaPct.
func p99s(p compare.Pairs) (base, head []float64) {
	for i := range p.Len() {
		base = append(base, p.Base[i].Latency.P99)
		head = append(head, p.Head[i].Latency.P99)
	}
	return base, head
}
