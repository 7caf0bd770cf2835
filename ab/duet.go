package ab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/internal/cpuset"
	"github.com/perfgate/perfgate/result"
)

// DuetSide is a side the concurrent design can drive: its processes start
// on given CPUs, and its trials begin at a given instant.
type DuetSide interface {
	Side
	// StartOn starts a fresh process on cpus (nil: where Start would),
	// stopping the earlier one if any.
	StartOn(ctx context.Context, cpus cpuset.Set) error
	// TrialAt measures one trial whose warm-up begins at the instant at,
	// the origin of its open-loop schedule.
	TrialAt(ctx context.Context, at time.Time) (*result.Trial, error)
}

// duetLead is how far ahead of now a duet block's shared instant is set:
// time for both sides' generators to reach it, so that neither sends the
// schedule's first hits late in a burst.
const duetLead = 50 * time.Millisecond

// Duet measures base and head at once ("duet benchmarking", Bulej et
// al., ICPE 2020): each block gives both sides fresh processes (on the
// halves p.CPUHalves when set, swapped at every start), then drives both
// with one generator each, the same open-loop schedule from the same
// instant, so that whatever the host does during the block (a
// neighbour's burst, a clock change) it does to both sides. The block's
// two trials are its pair; the looks, the levels and the paired test are
// Interleave's (compare.ComparePaired), so a verdict means the same under
// either design.
//
// The sides share the runner's CPUs while they run, so each slows the
// other; the pair's ratio cancels what is common, but the contention
// adds noise of its own. Which design decides sooner on a given runner is
// measured by bench/duet.sh.
//
// Processes are fresh every block, or every second block when a start
// costs more than a tenth of a block (restartEvery's rule); which side
// starts first alternates. On an error it stops both sides and returns
// what was measured with the error.
func Duet(ctx context.Context, p Plan, base, head DuetSide) (*Measured, error) {
	if err := p.Design.Validate(); err != nil {
		return nil, err
	}
	clock := p.clock()
	sides := [2]DuetSide{base, head}
	out := &Measured{Run: compare.ABScenario{Scenario: p.Scenario, Design: config.DesignConcurrent,
		FixedTrials: 2 * p.Design.MaxPairs}}
	run := &out.Run
	if p.CPUHalves[0] != nil && p.CPUHalves[1] != nil {
		run.CPUHalves = []string{p.CPUHalves[0].String(), p.CPUHalves[1].String()}
	}
	defer base.Stop()
	defer head.Stop()
	starts := 0
	// both gives both sides fresh processes at once (startBoth): at the
	// k-th start the base side on half k mod 2 and the head on the other.
	both := func() (time.Duration, error) {
		t0 := clock()
		ok, err := startBoth(starts, func(i int) error { return sides[i].StartOn(ctx, p.CPUHalves[(i+starts)%2]) })
		for i := range ok {
			if ok[i] {
				run.Processes[i]++
			}
		}
		starts++
		return clock() - t0, err
	}
	startCost, err := both()
	if err != nil {
		return out, err
	}
	var order strings.Builder
	var aTimes, aP99 []float64 // for the base side's drift
	var blockTime time.Duration
	looks := looker{p: p}
	for b := 0; ; b++ {
		blockStart := clock()
		at := time.Now().Add(duetLead)
		var trs [2]*result.Trial
		var errs [2]error
		var wg sync.WaitGroup
		for i := range sides {
			wg.Go(func() { trs[i], errs[i] = sides[i].TrialAt(ctx, at) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return out, fmt.Errorf("%s side, trial %d: %w", sideName(i), run.Trials/2+1, err)
			}
		}
		run.Trials += 2
		order.WriteString("=")
		if trs[0].Latency.P99 > 0 {
			aTimes = append(aTimes, blockStart.Seconds())
			aP99 = append(aP99, trs[0].Latency.P99)
		}
		out.Pairs.Base = append(out.Pairs.Base, *trs[0])
		out.Pairs.Head = append(out.Pairs.Head, *trs[1])
		p.logf("a/b: %s: pair %d of at most %d (both at once): P99 base %.2f ms, head %.2f ms",
			p.Scenario, out.Pairs.Len(), p.Design.MaxPairs, trs[0].Latency.P99, trs[1].Latency.P99)
		if looks.after(out, b+1, clock()) {
			break
		}
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		if b == 0 {
			blockTime = clock() - blockStart
		}
		if b%restartEvery(startCost, blockTime) == 0 {
			if _, err := both(); err != nil {
				return out, err
			}
		}
	}
	p.finish(out, order.String(), clock(), aTimes, aP99)
	return out, nil
}

// duetCPUs is the two CPU sets the concurrent design swaps the sides
// between, halves of one pool: the CPUs the sides' targets ask for
// (their cpus, together; targets holds the lists, "" for none), else,
// when perfgate pinned itself to generator (generator_cpus), the CPUs
// host outside it. Each half has the same number of CPUs (an odd pool's
// last CPU is left out), so that the swap moves no capacity from one
// side to the other. With no pool of two CPUs or more it returns none and
// says why: the sides then run where the scheduler puts them.
func duetCPUs(targets [2]string, generator, host cpuset.Set) ([2]cpuset.Set, string) {
	var pool cpuset.Set
	for _, list := range targets {
		if list == "" {
			continue
		}
		set, err := cpuset.Parse(list) // checked by config
		if err != nil {
			return [2]cpuset.Set{}, fmt.Sprintf("cpus %q: %v", list, err)
		}
		pool = append(pool, set...)
	}
	switch {
	case len(pool) > 0:
		if len(host) == 0 {
			return [2]cpuset.Set{}, "CPU sets are applied on Linux only: the sides run unpinned"
		}
		if miss := pool.Missing(host); len(miss) > 0 {
			return [2]cpuset.Set{}, fmt.Sprintf("this host lets perfgate use CPUs %s only (no %s): the sides run unpinned", host, miss)
		}
	case len(generator) > 0:
		for _, c := range host {
			if !slices.Contains(generator, c) {
				pool = append(pool, c)
			}
		}
	default:
		return [2]cpuset.Set{}, "no cpus or generator_cpus: the sides run unpinned, where the scheduler puts them"
	}
	slices.Sort(pool)
	pool = slices.Compact(pool)
	if len(pool) < 2 {
		return [2]cpuset.Set{}, fmt.Sprintf("one CPU (%s) for both sides: nothing to swap", pool)
	}
	h := len(pool) / 2
	return [2]cpuset.Set{slices.Clone(pool[:h]), slices.Clone(pool[h : 2*h])}, ""
}

// errNoDuet marks why a scenario is measured interleaved under the
// concurrent design.
var errNoDuet = errors.New("measured interleaved")

// duetFits reports whether the concurrent design can measure scenario
// s, and if not why: it needs an open-loop fixed rate (one schedule to
// send to both sides) with a fixed warm-up (both sides' windows then
// begin together; an automatic warm-up ends when each side's own P99 is
// steady). A knee search stays interleaved: two searches at once would
// each see the other's load, and read the host both make busy as its
// own side's limit.
func duetFits(s *config.Scenario) error {
	switch {
	case s.Load.Mode == harness.ModeSweep:
		return fmt.Errorf("%w: a knee search (mode sweep) beside another would see the other's load as its own limit", errNoDuet)
	case s.Load.Mode != harness.ModeRate:
		return fmt.Errorf("%w: mode %s has no open-loop schedule to share (the concurrent design needs mode rate)", errNoDuet, s.Load.Mode)
	case s.Load.Warmup == config.Auto:
		return fmt.Errorf("%w: warmup: auto ends when each side's own P99 is steady, so the sides' windows would not begin together (give a fixed warmup)", errNoDuet)
	}
	return nil
}
