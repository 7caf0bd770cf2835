// Command kneereplay judges kept A/B knee comparisons again as a fixed
// design of N confirmation rounds: for each run folder (a `gate --ab
// --out DIR` folder: comparison.json, base-results/ and results/) and
// each of its sweep scenarios, max QPS's paired test over the first N of
// the rounds it tested, at the comparison's whole level (one look), beside
// what the run itself said after its sequential rounds.
//
// It is the side-by-side reference for the sequential rounds (ab's
// kneeDesign): the four rounds an A/B knee measured before them are the
// first four of the rounds a run measures now, so the same run says what
// the fixed four-round design would have said on the same rounds. (A
// round measured again because a probe ran on a busy host is one the
// fixed design measured again too; the results keep the rounds tested.)
//
// Usage:
//
//	go run ./bench/kneereplay [-rounds 4] DIR...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
)

func main() {
	rounds := flag.Int("rounds", 4, "the fixed design's confirmation rounds")
	flag.Parse()
	if flag.NArg() == 0 || *rounds < 2 {
		fmt.Fprintln(os.Stderr, "usage: kneereplay [-rounds N (at least 2)] DIR...")
		os.Exit(2)
	}
	tally := map[string]map[compare.Verdict]int{}
	for _, dir := range flag.Args() {
		lines, err := replay(dir, *rounds, tally)
		if err != nil {
			fmt.Fprintln(os.Stderr, "kneereplay:", err)
			os.Exit(1)
		}
		for _, l := range lines {
			fmt.Println(l)
		}
	}
	for _, design := range []string{"sequential", fmt.Sprintf("fixed %d", *rounds)} {
		c := tally[design]
		fmt.Printf("# %s: regressed %d, improved %d, unchanged %d, inconclusive %d\n", design,
			c[compare.Regressed], c[compare.Improved], c[compare.Unchanged], c[compare.Inconclusive])
	}
}

// replay judges dir's sweep scenarios at n rounds, counting both designs'
// max QPS verdicts in tally.
func replay(dir string, n int, tally map[string]map[compare.Verdict]int) ([]string, error) {
	var c compare.Comparison
	b, err := os.ReadFile(filepath.Join(dir, "comparison.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if c.AB == nil {
		return nil, fmt.Errorf("%s: comparison.json is not an A/B run's", dir)
	}
	var lines []string
	runs := map[string]compare.ABScenario{}
	for _, r := range c.AB.Scenarios {
		runs[r.Scenario] = r
	}
	for _, sc := range c.Scenarios {
		live, ok := maxQPS(sc)
		run, measured := runs[sc.Scenario]
		if !ok || !measured || live.Method != compare.MethodPairedKnees {
			continue
		}
		var rs [2]*result.Result
		for k, sub := range []string{"base-results", "results"} {
			if rs[k], err = result.ReadFile(filepath.Join(dir, sub, sc.Scenario+".json")); err != nil {
				return nil, err
			}
			if rs[k].Capacity == nil || len(rs[k].Capacity.Estimates) < n {
				return nil, fmt.Errorf("%s: %s: %s holds %d rounds, fewer than %d", dir, sc.Scenario, sub, len(rs[k].Capacity.Estimates), n)
			}
			rs[k].Capacity.Estimates = rs[k].Capacity.Estimates[:n]
		}
		s := c.Settings
		s.PairedKnees = true
		// As ab's compareKnees tests paired rounds: the results hold the
		// rounds the run tested, and no busy host vetoes them.
		s.IgnoreHostLoad = true
		fixed, err := compare.Compare([]*result.Result{rs[0]}, []*result.Result{rs[1]}, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", dir, sc.Scenario, err)
		}
		f, ok := maxQPS(fixed.Scenarios[0])
		if !ok {
			return nil, fmt.Errorf("%s: %s: no max QPS in the replay", dir, sc.Scenario)
		}
		add(tally, "sequential", live.Verdict)
		add(tally, fmt.Sprintf("fixed %d", n), f.Verdict)
		lines = append(lines, fmt.Sprintf("%s %s: sequential %s %+.1f%% [%+.1f, %+.1f] after %d rounds (%s, looks %d, %.0f s) | fixed %d: %s %+.1f%% [%+.1f, %+.1f]",
			filepath.Base(dir), sc.Scenario, live.Verdict, live.DeltaPct, live.CIPct[0], live.CIPct[1], live.NBase, run.Stopped, run.Looks, run.RunnerS,
			n, f.Verdict, f.DeltaPct, f.CIPct[0], f.CIPct[1]))
	}
	return lines, nil
}

// maxQPS is a scenario's max QPS metric.
func maxQPS(sc compare.ScenarioComparison) (compare.Metric, bool) {
	for _, m := range sc.Metrics {
		if m.Metric == compare.MetricMaxQPS {
			return m, true
		}
	}
	return compare.Metric{}, false
}

func add(t map[string]map[compare.Verdict]int, k string, v compare.Verdict) {
	if t[k] == nil {
		t[k] = map[compare.Verdict]int{}
	}
	t[k][v]++
}
