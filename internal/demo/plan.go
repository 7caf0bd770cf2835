package demo

import (
	"slices"
	"time"

	"github.com/perfgate/perfgate/ab"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/refserver"
	"github.com/perfgate/perfgate/suite"
)

// Source names the demo config in errors: it is embedded in the binary
// (refserver.DemoConfig).
const Source = "refserver/perfgate.yaml (embedded)"

// StartCost is what one start and stop of the reference server costs the
// demo's plan: about twice the time it takes to be ready
// (bench/RESULTS-rules.md#demostartcost); the rest is for stopping it.
const StartCost = 400 * time.Millisecond

// Config parses the embedded demo config, with the short windows of
// --quick (Shrink) when quick.
func Config(quick bool) (*config.Config, error) {
	cfg, err := config.Parse(Source, refserver.DemoConfig())
	if err != nil {
		return nil, err
	}
	if quick {
		Shrink(cfg)
	}
	return cfg, nil
}

// Planned is the demo's planned time: each selected pair's
// PairPlanned, suite.PlannedDuration of each selected scenario in no
// pair, and the planted regression's pairs (PlantedSelection) whose
// scenarios are selected (only names scenarios; empty: all).
func Planned(cfg *config.Config, quick bool, only []string) time.Duration {
	var d time.Duration
	inPair := map[string]bool{}
	for _, p := range cfg.Pairs {
		inPair[p.Base], inPair[p.Head] = true, true
	}
	for _, s := range cfg.Scenarios {
		if !inPair[s.Name] && (len(only) == 0 || slices.Contains(only, s.Name)) {
			d += suite.PlannedDuration(s, StartCost)
		}
	}
	for _, p := range selectedPairs(cfg, quick, only) {
		d += PairPlanned(p.cfg, p.base)
	}
	return d
}

// SecondLook is the most a second look adds to the plan: the longest
// selected fixed-load pair's PairPlanned, since the second look measures
// as many pairs again as the first (a knee's further rounds are not
// counted). Planned holds every pair decided at its first look.
func SecondLook(cfg *config.Config, quick bool, only []string) time.Duration {
	var most time.Duration
	for _, p := range selectedPairs(cfg, quick, only) {
		if p.base.Load.Mode != "sweep" {
			most = max(most, PairPlanned(p.cfg, p.base))
		}
	}
	return most
}

// plannedPair is a selected pair's base scenario and the config it runs
// under (the demo's, or the planted regression's).
type plannedPair struct {
	cfg  *config.Config
	base *config.Scenario
}

// selectedPairs are the demo's pairs that only selects (empty: all), the
// planted regression's (PlantedSelection) after them.
func selectedPairs(cfg *config.Config, quick bool, only []string) []plannedPair {
	var out []plannedPair
	for _, p := range cfg.Pairs {
		if len(only) == 0 || slices.Contains(only, p.Base) || slices.Contains(only, p.Head) {
			out = append(out, plannedPair{cfg, cfg.ScenarioNamed(p.Base)})
		}
	}
	if pc, pairs, err := Planted(cfg, PlantedSelection(quick, only)); err == nil {
		for _, p := range pairs {
			out = append(out, plannedPair{pc, pc.ScenarioNamed(p.Base)})
		}
	}
	return out
}

// PairPlanned is a pair's planned time, measured by ab.MeasurePairs
// under s's load: for a fixed load, the first look's pairs (both sides'
// trials, each after its warm-up, and fresh processes for both every
// block), where a pair whose variants differ as the demo's do is decided;
// for a sweep, both sides' searches on paired probes (twice the sweep's
// budget, since a paired probe is two windows) and their confirmation
// rounds (at least ab.MinPairedKneeRounds).
func PairPlanned(cfg *config.Config, s *config.Scenario) time.Duration {
	if s.Load.Mode == "sweep" {
		paired := *s
		paired.Load.Estimates = max(s.Load.Estimates, ab.MinPairedKneeRounds+1)
		return 2 * suite.PlannedDuration(&paired, StartCost)
	}
	pairs := compare.Sequential{MaxPairs: cfg.AB.ABMaxTrials()}.FirstLook()
	blocks := (pairs + compare.PairsPerBlock - 1) / compare.PairsPerBlock
	trial := s.Load.Warmup.D() + s.Load.Duration.D()
	return time.Duration(2*pairs)*trial + time.Duration(2*blocks)*StartCost
}

// Shrink makes the demo shorter for --quick, with wider intervals: the
// knee searches' windows and budgets shorter, and the ladder (its rungs
// and their pairs) left out (the layer pairs show the same changes). The fixed-load
// windows stay: each already holds the 100 requests a P99 needs, and a
// shorter one would only merge pairs into fewer units and decide later.
func Shrink(cfg *config.Config) {
	for _, s := range cfg.Scenarios {
		l := &s.Load
		if l.Mode == "sweep" {
			l.Duration, l.Warmup, l.Budget = config.Duration(300*time.Millisecond), config.Duration(100*time.Millisecond), config.Duration(3*time.Second)
		}
	}
	rung := func(name string) bool { return slices.Contains(cfg.Ladder, name) }
	cfg.Pairs = slices.DeleteFunc(slices.Clone(cfg.Pairs), func(p config.Pair) bool { return rung(p.Base) || rung(p.Head) })
	cfg.Scenarios = slices.DeleteFunc(slices.Clone(cfg.Scenarios), func(s *config.Scenario) bool { return rung(s.Name) })
	cfg.Ladder = nil
}
