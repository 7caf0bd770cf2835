// Command replay judges kept interleaved A/B runs again, look by look,
// under other gate settings: for each run folder (a `gate --ab --out DIR`
// folder: comparison.json, base-results/ and results/) and each margin of
// unchanged for P99 (Settings.P99Equivalence), it replays the run's
// sequential design on the pairs it measured (the same looks, levels,
// futility stops and paired test as ab's looker) and says where the run
// would have stopped and with what verdict.
//
// With -max-pairs N it replays the runs as if their design had stopped
// at N pairs (ab.max_trials: N), its looks and levels spent over N: a run
// measured to 40 pairs says what a design of 20 would have said on its
// first 20.
//
// It answers one question behind issue 44's fixed-rate A/A target: how
// often would the gate say `unchanged` on the same pairs were P99's
// margin of unchanged wider than its 5% regression threshold, and at
// what cost in false `unchanged` (a +10% head called unchanged)? A run
// that stopped early at its own settings holds only the pairs it
// measured: a replay that would have gone on is cut there, and says so
// ("cut").
//
// With -pair NAME -sides BASE,HEAD it replays a declared pair of a kept
// `perfgate demo` folder instead (its comparison.json names the pair, its
// results/ hold both scenarios' trials; a scenario in two pairs, as the
// ladder's middle rung, keeps one pair's trials there, so only pairs of
// their own scenarios replay). A replay at the run's own
// settings must reproduce the run, or replay fails; with -rejudge it says
// where this build's verdict rules part from the run's instead.
//
// Usage:
//
//	go run ./bench/replay [-margins 5,7.5,10,15] [-max-pairs N] [-pair NAME -sides BASE,HEAD] [-rejudge] DIR...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
)

// run is one kept A/B run's scenario: its settings, design and pairs.
type run struct {
	dir, scenario string
	settings      compare.Settings
	maxPairs      int
	pairs         compare.Pairs
	runnerS       float64 // the run's own runner time
	measured      int     // the pairs it measured
	verdict       compare.Verdict
	stopped       string
}

// outcome is one replay: where it stopped and with what.
type outcome struct {
	verdict compare.Verdict
	pairs   int
	stopped string
	p99     string
	// advice is what a run left undecided at max_trials would need
	// (compare.PairsToDecide, the gate's "more-pairs" note).
	advice string
}

func main() {
	marginsFlag := flag.String("margins", "5,7.5,10,15", "P99 margins of unchanged to replay, in percent")
	maxPairs := flag.Int("max-pairs", 0, "replay as if ab.max_trials were this (0: each run's own)")
	pair := flag.String("pair", "", "a declared pair's name (perfgate demo's folder): replay it instead of the first scenario")
	sidesFlag := flag.String("sides", "", "with -pair: its base and head scenarios, BASE,HEAD")
	rejudge := flag.Bool("rejudge", false, "say where this build's verdicts part from the run's instead of failing")
	flag.Parse()
	sides := strings.Split(*sidesFlag, ",")
	if (*pair != "") != (*sidesFlag != "") || (*pair != "" && len(sides) != 2) {
		fail(fmt.Errorf("-pair %q -sides %q: give both, the sides as BASE,HEAD", *pair, *sidesFlag))
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: replay [-margins 5,7.5,10,15] [-max-pairs N] [-pair NAME -sides BASE,HEAD] [-rejudge] DIR...")
		os.Exit(2)
	}
	var margins []float64
	for _, f := range strings.Split(*marginsFlag, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 || v >= 100 {
			fail(fmt.Errorf("-margins: %q: want percentages in (0, 100)", f))
		}
		margins = append(margins, v)
	}
	if *maxPairs == 1 || *maxPairs < 0 {
		fail(fmt.Errorf("-max-pairs %d: want 0 (each run's own) or at least 2", *maxPairs))
	}
	groups := map[string][]map[compare.Verdict]int{}
	runnerS := map[string][]float64{}
	var names []string
	for _, dir := range flag.Args() {
		r, err := load(dir, *pair, sides)
		if err != nil {
			fail(err)
		}
		g := groupOf(dir)
		if _, ok := groups[g]; !ok {
			names = append(names, g)
			groups[g] = make([]map[compare.Verdict]int, len(margins))
			runnerS[g] = make([]float64, len(margins))
			for i := range margins {
				groups[g][i] = map[compare.Verdict]int{}
			}
		}
		// The replay at the run's own settings must be the run: the same
		// looks over the same pairs give the same verdict and stop.
		if o := replay(r, r.settings.P99Equivalence, r.maxPairs); o.verdict != r.verdict || o.pairs != r.measured || o.stopped != r.stopped {
			err := fmt.Errorf("%s: the replay at the run's own settings gives %s at %d pairs (%s), the run %s at %d (%s)",
				dir, o.verdict, o.pairs, o.stopped, r.verdict, r.measured, r.stopped)
			if !*rejudge {
				fail(err)
			}
			fmt.Println("rejudged:", err)
		}
		var line []string
		design := r.maxPairs
		if *maxPairs > 0 {
			design = *maxPairs
		}
		for i, mg := range margins {
			o := replay(r, mg/100, design)
			groups[g][i][o.verdict]++
			runnerS[g][i] += r.runnerS * float64(o.pairs) / float64(r.measured)
			line = append(line, fmt.Sprintf("±%g%%: %s at %d (%s%s; %s)", mg, o.verdict, o.pairs, o.stopped, o.advice, o.p99))
		}
		fmt.Printf("%s [%s]: %s\n", filepath.Base(dir), g, strings.Join(line, " | "))
	}
	sort.Strings(names)
	fmt.Println("# per group and margin: verdicts over runs; runner time a run (the run's own per pair, times the replay's pairs)")
	for _, g := range names {
		for i, mg := range margins {
			c := groups[g][i]
			n := 0
			for _, k := range c {
				n += k
			}
			fmt.Printf("%-12s ±%-5g unchanged %d, regressed %d, improved %d, inconclusive %d of %d; runner %.0f s a run\n",
				g, mg, c[compare.Unchanged], c[compare.Regressed], c[compare.Improved], c[compare.Inconclusive], n, runnerS[g][i]/float64(n))
		}
	}
}

// groupOf names a run folder's cell from bench/duet.sh's folder names
// (out-STATE-DESIGN-CASE-I): STATE-CASE, else the folder's name.
func groupOf(dir string) string {
	m := regexp.MustCompile(`out-([a-z]+)-[a-z]+-([a-z0-9]+)-\d+$`).FindStringSubmatch(filepath.Base(dir))
	if m == nil {
		return filepath.Base(dir)
	}
	return m[1] + "-" + m[2]
}

// abScenario is what replay reads of comparison.json's ab.scenarios.
type abScenario struct {
	Scenario string  `json:"scenario"`
	Order    string  `json:"order"`
	Pairs    int     `json:"pairs"`
	RunnerS  float64 `json:"runner_s"`
	Stopped  string  `json:"stopped"`
}

// load reads a kept `gate --ab` folder's first scenario, or the declared
// pair named pair whose scenarios are sides (base, head).
func load(dir, pair string, sides []string) (*run, error) {
	var c struct {
		Settings  compare.Settings `json:"settings"`
		Scenarios []struct {
			Scenario string          `json:"scenario"`
			Verdict  compare.Verdict `json:"verdict"`
		} `json:"scenarios"`
		AB struct {
			MaxTrials int          `json:"max_trials"`
			Scenarios []abScenario `json:"scenarios"`
		} `json:"ab"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "comparison.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if len(c.AB.Scenarios) == 0 || len(c.Scenarios) == 0 || c.AB.MaxTrials < 2 {
		return nil, fmt.Errorf("%s: comparison.json has no A/B scenario", dir)
	}
	i, basePath, headPath := 0, filepath.Join(dir, "base-results", c.AB.Scenarios[0].Scenario+".json"), filepath.Join(dir, "results", c.AB.Scenarios[0].Scenario+".json")
	if pair != "" {
		i = slices.IndexFunc(c.AB.Scenarios, func(s abScenario) bool { return s.Scenario == pair })
		if i < 0 || i >= len(c.Scenarios) || c.Scenarios[i].Scenario != pair {
			return nil, fmt.Errorf("%s: comparison.json has no declared pair %q", dir, pair)
		}
		basePath, headPath = filepath.Join(dir, "results", sides[0]+".json"), filepath.Join(dir, "results", sides[1]+".json")
	}
	s := c.AB.Scenarios[i]
	base, err := result.ReadFile(basePath)
	if err != nil {
		return nil, err
	}
	head, err := result.ReadFile(headPath)
	if err != nil {
		return nil, err
	}
	r := &run{dir: dir, scenario: s.Scenario, settings: c.Settings, maxPairs: c.AB.MaxTrials, runnerS: s.RunnerS, measured: s.Pairs,
		verdict: c.Scenarios[i].Verdict, stopped: s.Stopped}
	r.pairs = compare.Pairs{Base: base.Trials, Head: head.Trials, HeadFirst: headFirst(s.Order)}
	if n := r.pairs.Len(); n != s.Pairs || n < 2 {
		return nil, fmt.Errorf("%s: %d pairs in the results, %d in comparison.json", dir, n, s.Pairs)
	}
	return r, nil
}

// headFirst reads, per pair, whether its head trial ran first, from the
// run's order of trials ("ABBA…": A the base), as ab pairs them: a pair
// is complete when both sides have a pending trial.
func headFirst(order string) []bool {
	var out []bool
	var pending [2]bool
	for _, ch := range order {
		i := 0
		if ch == 'B' {
			i = 1
		}
		pending[i] = true
		if pending[0] && pending[1] {
			out = append(out, i == 0)
			pending = [2]bool{}
		}
	}
	return out
}

// replay runs ab's looker over the first pairs of r with P99's margin of
// unchanged set to margin (a fraction; the threshold when not wider) and
// a design of at most maxPairs pairs.
func replay(r *run, margin float64, maxPairs int) outcome {
	s := r.settings
	s.P99Equivalence = 0
	if margin > s.P99Regression {
		s.P99Equivalence = margin
	}
	d := compare.Sequential{Alpha: 1 - s.Confidence, MaxPairs: maxPairs}
	var tPrev float64
	last := 0
	for n := 1; n <= r.measured; n++ {
		t := d.Fraction(n, 0)
		if !d.LookAt(n, last) && t < 1 {
			continue
		}
		level := d.Spent(t) - d.Spent(tPrev)
		eq := d.EquivSpent(t) - d.EquivSpent(tPrev)
		tPrev, last = t, n
		p := compare.Pairs{Base: r.pairs.Base[:n], Head: r.pairs.Head[:n], HeadFirst: r.pairs.HeadFirst[:n]}
		sc := compare.ComparePaired(r.scenario, "", p, s, level, eq)
		compare.TailSampling(&sc, p, s) // a look's, where the gate notes it at its last
		o := outcome{verdict: sc.Verdict, pairs: n, p99: p99Text(sc)}
		switch {
		case compare.Decided(sc):
			o.stopped = "decided"
			return o
		case n >= d.MaxPairs:
			o.stopped = "max_trials"
			if m, need, ok := compare.PairsToDecide(sc, compare.Look{Pairs: n, Level: level}, d.Alpha); ok {
				o.advice = fmt.Sprintf("; %s would need about %d pairs", m, need)
			}
			return o
		}
		look := compare.Look{Pairs: n, EndPairs: d.MaxPairs, Level: level,
			AlphaLeft: d.Spent(1) - d.Spent(t), EqAlphaLeft: d.EquivSpent(1) - d.EquivSpent(t)}
		if _, ok := compare.Futile(sc, look); ok {
			o.stopped = "futile"
			return o
		}
		if n == r.measured {
			o.stopped = "cut"
			return o
		}
	}
	return outcome{verdict: compare.Inconclusive, pairs: r.measured, stopped: "cut"}
}

// p99Text is the scenario's P99 change with its interval and verdict, and
// when undecided its units' spread beside its sampling floor (the note
// tail-sampling).
func p99Text(sc compare.ScenarioComparison) string {
	for _, m := range sc.Metrics {
		if m.Metric == compare.MetricP99 {
			eq := m.CIPct
			if m.EquivCIPct != nil {
				eq = *m.EquivCIPct
			}
			spread := ""
			for _, n := range sc.Notes {
				if n.Code == compare.NoteTailSampling && n.Metric == compare.MetricP99 {
					spread = fmt.Sprintf(", units spread %.1f%% (sampling %d requests alone %.1f%%)", n.Pct, n.Need, n.FloorPct)
				}
			}
			return fmt.Sprintf("p99 %+.1f%% equivalence interval [%+.1f, %+.1f] %s%s", m.DeltaPct, eq[0], eq[1], m.Verdict, spread)
		}
	}
	return "no p99"
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "replay:", err)
	os.Exit(1)
}
