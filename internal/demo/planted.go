package demo

import (
	"context"
	"fmt"
	"slices"
	"time"

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
// with it and P50 decides in a few pairs. The demo measures the clean and
// the slowed server by the engine that measures its layer pairs: the gate
// must call it regressed, and the batched service's knee, measured on
// both servers the same way, sizes the service on each (the instance
// count recomputed).
const (
	// PlantedScenario is the scenario slowed.
	PlantedScenario = "ladder-int8-batched"
	// PlantedOverhead is the batcher's planted CPU time per batch.
	PlantedOverhead = "2ms"
)

// plantedSlowed is the suffix of a slowed copy's scenario name.
const plantedSlowed = "-slow-batcher"

// plantedPairs are the planted regression's pairs, clean → slowed: the
// scenario slowed (its verdict is the demo's claim), then the batched
// service's knee (the instance count on both servers). The other layers'
// variants are not measured beside them: the knob is inert there by
// construction, and an A/A of them decides `unchanged` in no fewer
// pairs than any A/A at a P99 threshold of 5%, far beyond the demo's
// three minutes (bench/RESULTS-rules.md#demoplantedpairs).
var plantedPairs = []struct{ scenario, label string }{
	{PlantedScenario, "planted: the batcher +" + PlantedOverhead + " a batch (service layer)"},
	{"service-batch32", "planted: the batcher +" + PlantedOverhead + " a batch, the batched service's knee (the instance count)"},
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

// Planted returns a config of the planted regression's scenarios, each
// clean one beside a copy whose server runs with --batch-overhead
// PlantedOverhead, and its pairs clean → slowed (plantedPairs; the first
// is PlantedScenario's). cfg is not changed. An error when neither cfg
// nor the embedded demo config it came from has PlantedScenario; the
// knee's pair is left out when its scenario is missing, and in the quick
// demo (a config with no ladder).
func Planted(cfg *config.Config) (*config.Config, []config.Pair, error) {
	if plantedScenario(cfg, PlantedScenario) == nil {
		return nil, nil, fmt.Errorf("the planted regression: no scenario %q", PlantedScenario)
	}
	c := *cfg
	c.Scenarios, c.Pairs, c.Ladder = nil, nil, nil
	for i, pp := range plantedPairs {
		if i > 0 && len(cfg.Ladder) == 0 {
			// The quick demo (Shrink: no ladder) shows the verdict and
			// leaves the sizing out, as it leaves the ladder out: its
			// promise is about two and a half minutes.
			break
		}
		clean := plantedScenario(cfg, pp.scenario)
		if clean == nil {
			continue
		}
		if clean.Load.Mode == "sweep" {
			// The knee is here to size both servers: the quick demo's
			// search and the fewest paired rounds (plantedKnee).
			k := *clean
			plantedKnee(&k.Load)
			clean = &k
		}
		slowed := *clean
		slowed.Name = clean.Name + plantedSlowed
		slowed.Args = append(slices.Clone(clean.Args), "--batch-overhead", PlantedOverhead)
		c.Scenarios = append(c.Scenarios, clean, &slowed)
		c.Pairs = append(c.Pairs, config.Pair{Name: pp.label, Base: clean.Name, Head: slowed.Name})
	}
	return &c, c.Pairs, nil
}

// plantedKnee shortens the planted knee's search to the quick demo's
// (Shrink) and its confirmation to ab.MinPairedKneeRounds paired rounds:
// it is measured to size the service on both servers, which a planted
// cost of 2 ms a batch moves by about a fifth, where the layer pairs'
// batched knee must resolve a smaller move (its extra round).
func plantedKnee(l *config.Load) {
	l.Duration, l.Warmup, l.Budget = config.Duration(300*time.Millisecond), config.Duration(100*time.Millisecond), config.Duration(3*time.Second)
	l.Estimates = ab.MinPairedKneeRounds
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
