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

// The planted regression: the service layer's batched variant at a fixed
// 200 requests/s (the ladder's last rung: int8, dynamic batching on)
// against the same server whose batcher spends PlantedOverhead of CPU on
// every batch (`perfgate fixture serve --batch-overhead`, inert when
// batching is off, so the other layers' variants are untouched). Every
// request pays it, so the latency at a fixed rate moves about one to one
// with it and P50 decides in a few pairs, where the batched knee moves
// between rounds by more than the change. The demo measures the clean and
// the slowed server by the engine that measures its layer pairs, and the
// gate must call it regressed. It neither sizes the batched service on
// both servers nor measures the other layers against the inert knob:
// neither decides within the demo's minutes
// (bench/RESULTS-rules.md#demoplanted).
const (
	// PlantedScenario is the scenario slowed.
	PlantedScenario = "ladder-int8-batched"
	// PlantedOverhead is the batcher's planted CPU time per batch.
	PlantedOverhead = "2ms"
)

// plantedScenario is cfg's PlantedScenario, else the full demo config's:
// --quick leaves the ladder out of the layers' run, not out of the
// planted regression.
func plantedScenario(cfg *config.Config) *config.Scenario {
	if s := cfg.ScenarioNamed(PlantedScenario); s != nil {
		return s
	}
	if cfg.Path == Source {
		if full, err := Config(false); err == nil {
			return full.ScenarioNamed(PlantedScenario)
		}
	}
	return nil
}

// Planted returns a config of two scenarios, PlantedScenario and a copy
// of it whose server runs with --batch-overhead PlantedOverhead, and the
// pair clean → slowed. cfg is not changed. An error when neither cfg nor
// the embedded demo config it came from has scenario PlantedScenario.
func Planted(cfg *config.Config) (*config.Config, config.Pair, error) {
	clean := plantedScenario(cfg)
	if clean == nil {
		return nil, config.Pair{}, fmt.Errorf("the planted regression: no scenario %q", PlantedScenario)
	}
	slowed := *clean
	slowed.Name = clean.Name + "-slow-batcher"
	slowed.Args = append(slices.Clone(clean.Args), "--batch-overhead", PlantedOverhead)
	c := *cfg
	c.Scenarios = []*config.Scenario{clean, &slowed}
	c.Ladder = nil
	p := config.Pair{Name: fmt.Sprintf("planted: the batcher +%s a batch (service layer)", PlantedOverhead), Base: clean.Name, Head: slowed.Name}
	c.Pairs = []config.Pair{p}
	return &c, p, nil
}

// MeasurePlanted measures the planted regression (Planted) by
// ab.MeasurePairs, its results written to so.OutDir (give it a folder of
// its own: they are not baselines).
func MeasurePlanted(ctx context.Context, cfg *config.Config, so suite.Options, logDir string) (*Measured, error) {
	pc, _, err := Planted(cfg)
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
