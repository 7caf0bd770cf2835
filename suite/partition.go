package suite

import (
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/perfgate/perfgate/config"
)

// TargetStartCost is what Partition adds to a scenario's expected duration
// for starting and stopping its target: a rough figure, the same for every
// scenario with a target, so that many short scenarios are not all piled
// into one part.
const TargetStartCost = 2 * time.Second

// ExpectedDuration is how long s is expected to take: PlannedDuration
// with TargetStartCost for each start of its target.
func ExpectedDuration(s *config.Scenario) time.Duration {
	return PlannedDuration(s, TargetStartCost)
}

// confirmProbes is about how many probes one knee confirmation round
// takes: its bracket's two, and a step on in about half the rounds.
const confirmProbes = 2.5

// PlannedDuration is how long s is planned to take when one start (and
// stop) of its target costs start: for a fixed load, one warm-up and one
// start per target process (restarts) plus the trials' windows; for a knee
// search, its time budget (the scenario's, else DefaultSweepBudget) and
// one start, plus its confirmation, which the budget does not bound:
// estimates−1 rounds, each a fresh start and about confirmProbes probes of
// a warm-up, a window and the drain between probes. A target given by
// url: is not started, so costs no start. A replay without a duration
// counts one warm-up and one window, its trace's length being unknown
// until read.
func PlannedDuration(s *config.Scenario, start time.Duration) time.Duration {
	l := s.Load
	if s.Target == "" {
		start = 0
	}
	var d time.Duration
	switch l.Mode {
	case "sweep":
		d = DefaultSweepBudget
		if l.Budget > 0 {
			d = l.Budget.D()
		}
		d += start
		if l.Estimates > 1 {
			probe := l.Warmup.D() + l.Duration.D() + sweepDrain
			d += time.Duration(l.Estimates-1) * (start + time.Duration(confirmProbes*float64(probe)))
		}
	default:
		trials := max(l.Trials, 1)
		procs := time.Duration(restartsOf(s.Restarts, s.Target != "", trials, false))
		d = procs*(l.Warmup.D()+start) + time.Duration(trials)*l.Duration.D()
	}
	return d
}

// Group is a set of scenarios that must run in the same part: variants
// compared with one another.
type Group struct {
	// Scenarios are in config order.
	Scenarios []*config.Scenario
	// Expected is the sum of their expected durations.
	Expected time.Duration
}

// Groups splits cfg's scenarios into the groups Partition keeps whole:
// the ladder's rungs are one group; scenarios with the same `group:` are
// one group; scenarios without one are grouped by layer and load (a layer's
// variants under the same load, as the demo's pairs are). Groups that share
// a scenario are joined. Groups are in the config order of their first
// scenario.
func Groups(cfg *config.Config) []Group {
	n := len(cfg.Scenarios)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	union := func(a, b int) {
		ra, rb := find(a), find(b)
		if ra == rb {
			return
		}
		// The lower index is the root, so roots are first scenarios.
		if rb < ra {
			ra, rb = rb, ra
		}
		parent[rb] = ra
	}
	index := map[string]int{}
	for i, s := range cfg.Scenarios {
		index[s.Name] = i
	}
	first := map[string]int{} // grouping key → first scenario index
	for i, s := range cfg.Scenarios {
		key := "group\x00" + s.Group
		if s.Group == "" {
			key = fmt.Sprintf("auto\x00%s\x00%+v", s.Layer, s.Load)
		}
		if j, ok := first[key]; ok {
			union(j, i)
		} else {
			first[key] = i
		}
	}
	rungs := []int{}
	for _, name := range cfg.Ladder {
		if i, ok := index[name]; ok {
			rungs = append(rungs, i)
		}
	}
	for _, i := range rungs[min(1, len(rungs)):] {
		union(rungs[0], i)
	}
	byRoot := map[int]int{} // root → position in groups
	var groups []Group
	for i, s := range cfg.Scenarios {
		r := find(i)
		k, ok := byRoot[r]
		if !ok {
			k = len(groups)
			byRoot[r] = k
			groups = append(groups, Group{})
		}
		groups[k].Scenarios = append(groups[k].Scenarios, s)
		groups[k].Expected += ExpectedDuration(s)
	}
	return groups
}

// Partition splits cfg's scenarios into n parts balanced by expected
// duration, keeping each Group whole. It is deterministic: the longest
// group first (ties: config order) goes to the part with the least work
// so far (ties: the lowest part), the longest-processing-time rule, whose
// longest part is at most 4/3 of the best possible. Each part lists its
// scenarios in config order; a part may be empty when there are fewer
// groups than parts. Every scenario is in exactly one part.
func Partition(cfg *config.Config, n int) ([][]*config.Scenario, error) {
	if n < 1 {
		return nil, fmt.Errorf("partition into %d parts: want at least 1", n)
	}
	groups := Groups(cfg)
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return groups[order[a]].Expected > groups[order[b]].Expected })
	load := make([]time.Duration, n)
	assigned := make([][]*config.Scenario, n)
	for _, g := range order {
		p := 0
		for k := 1; k < n; k++ {
			if load[k] < load[p] {
				p = k
			}
		}
		load[p] += groups[g].Expected
		assigned[p] = append(assigned[p], groups[g].Scenarios...)
	}
	pos := map[*config.Scenario]int{}
	for i, s := range cfg.Scenarios {
		pos[s] = i
	}
	for _, part := range assigned {
		slices.SortFunc(part, func(a, b *config.Scenario) int { return pos[a] - pos[b] })
	}
	return assigned, nil
}

// PartNames returns the names of the scenarios in part i (1-based) of n.
func PartNames(cfg *config.Config, i, n int) ([]string, error) {
	if i < 1 || i > n {
		return nil, fmt.Errorf("part %d/%d: want 1 ≤ I ≤ N", i, n)
	}
	parts, err := Partition(cfg, n)
	if err != nil {
		return nil, err
	}
	names := []string{}
	for _, s := range parts[i-1] {
		names = append(names, s.Name)
	}
	return names, nil
}
