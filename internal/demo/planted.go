package demo

import (
	"context"
	"fmt"
	"slices"

	"github.com/perfgate/perfgate/ab"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// The planted regression: the same server with a slower batcher, every
// item it batches costing PlantedOverhead more CPU (`perfgate fixture
// serve --item-overhead`, inert with batching off, so the model and
// system layers' variants are untouched), measured against the clean
// server by the engine that measures the demo's layer pairs, in two
// pairs of the service layer's batched variant: at a fixed 200 requests/s
// (the ladder's last rung), where every request pays it and P50 decides
// in a few pairs, and at its knee, where no batch amortises a per-item
// cost, so max QPS falls by more than the paired rounds spread and the
// instance count is recomputed from it. The gate must call both
// regressed. A per-batch cost (--batch-overhead) is amortised over the
// knee's large batches and moved it less than its rounds spread; the
// other layers' variants against the inert knob (A/A) decide nothing
// within the demo's minutes (bench/RESULTS-rules.md#demoplanted).
const (
	// PlantedScenario is the fixed-rate scenario slowed.
	PlantedScenario = "ladder-int8-batched"
	// PlantedKneeScenario is the knee slowed.
	PlantedKneeScenario = "service-batch32"
	// PlantedOverhead is the planted CPU time per item batched.
	PlantedOverhead = "2ms"
)

// plantedNames are the scenarios the planted regression slows, in the
// order measured.
var plantedNames = []string{PlantedScenario, PlantedKneeScenario}

// PlantedSelection is what the planted regression measures of a demo of
// the scenarios only (empty: all): the planted scenarios only names; else
// both pairs in the full demo, and in the quick one the fixed rate's
// alone: its shorter knee searches run out of budget below the batched
// knee (bench/RESULTS-rules.md#demoplanted).
func PlantedSelection(quick bool, only []string) []string {
	if len(only) == 0 && quick {
		return []string{PlantedScenario}
	}
	return only
}

// PlantedSelected reports whether a demo of the scenarios only (empty:
// all) measures the planted regression: when it names a planted scenario.
func PlantedSelected(only []string) bool {
	return len(only) == 0 || slices.ContainsFunc(plantedNames, func(n string) bool { return slices.Contains(only, n) })
}

// plantedScenario is cfg's scenario name, else the full demo config's:
// --quick leaves the ladder out of the layers' run, not out of the
// planted regression.
func plantedScenario(cfg *config.Config, name string) *config.Scenario {
	if s := cfg.ScenarioNamed(name); s != nil {
		return s
	}
	if cfg.Path == Source {
		if full, err := Config(false); err == nil {
			return full.ScenarioNamed(name)
		}
	}
	return nil
}

// Planted returns a config of the planted scenarios that only selects
// (empty: both), each beside a copy of it whose server runs with
// --item-overhead PlantedOverhead, and the pairs clean → slowed. cfg is
// not changed. An error when neither cfg nor the embedded demo config it
// came from has a selected planted scenario.
func Planted(cfg *config.Config, only []string) (*config.Config, []config.Pair, error) {
	c := *cfg
	c.Scenarios, c.Pairs, c.Ladder = nil, nil, nil
	for _, name := range plantedNames {
		if len(only) > 0 && !slices.Contains(only, name) {
			continue
		}
		clean := plantedScenario(cfg, name)
		if clean == nil {
			return nil, nil, fmt.Errorf("the planted regression: no scenario %q", name)
		}
		where := "a fixed rate"
		if clean.Load.Mode == "sweep" {
			// The fewest paired rounds (four): the planted change is
			// several times the rounds' spread, and the demo keeps to its
			// minutes.
			k := *clean
			k.Load.Estimates = min(k.Load.Estimates, ab.MinPairedKneeRounds+1)
			clean, where = &k, "the knee"
		}
		slowed := *clean
		slowed.Name = clean.Name + "-slowed"
		slowed.Args = append(slices.Clone(clean.Args), "--item-overhead", PlantedOverhead)
		c.Scenarios = append(c.Scenarios, clean, &slowed)
		c.Pairs = append(c.Pairs, config.Pair{Name: fmt.Sprintf("planted: the batcher +%s an item, %s (%s layer)", PlantedOverhead, where, clean.Layer),
			Base: clean.Name, Head: slowed.Name})
	}
	if len(c.Pairs) == 0 {
		return nil, nil, fmt.Errorf("the planted regression: none of %q selected", plantedNames)
	}
	return &c, c.Pairs, nil
}

// MeasurePlanted measures the planted regression's pairs that only
// selects (Planted) by ab.MeasurePairs, its results written to
// so.OutDir (give it a folder of its own: they are not baselines).
func MeasurePlanted(ctx context.Context, cfg *config.Config, so suite.Options, logDir string, only []string) (*Measured, error) {
	pc, _, err := Planted(cfg, only)
	if err != nil {
		return nil, err
	}
	plan, err := config.Compile(pc)
	if err != nil {
		return nil, err
	}
	m := &Measured{Pairs: plan.Pairs, Run: Run{ByName: map[string]*result.Result{}}}
	o := ab.Options{Suite: so, OutDir: logDir, Settings: inRunSettings(pc)}
	if m.Paired, err = ab.MeasurePairs(ctx, plan, m.Pairs, o); err != nil {
		return nil, err
	}
	for _, r := range append(append([]*result.Result{}, m.Paired.Base...), m.Paired.Head...) {
		m.Run.add(r)
	}
	return m, nil
}
