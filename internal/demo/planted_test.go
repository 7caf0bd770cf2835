package demo

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/perfgate/perfgate/ab"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// TestPlanted: the planted regression is the service layer's batched
// variant at a fixed rate against the same scenario with the batcher
// slowed, then the batched service's knee against its slowed copy (the
// instance count on both servers): pairs the config accepts (same load);
// the quick demo (which leaves the ladder out) keeps the first, and the
// demo's config is left as it was.
func TestPlanted(t *testing.T) {
	for _, quick := range []bool{false, true} {
		cfg, err := Config(quick)
		if err != nil {
			t.Fatal(err)
		}
		before, args := len(cfg.Scenarios), []string(nil)
		if s := cfg.ScenarioNamed(PlantedScenario); s != nil {
			args = slices.Clone(s.Args)
		}
		pc, pairs, err := Planted(cfg)
		if err != nil {
			t.Fatalf("quick %v: %v", quick, err)
		}
		if want := map[bool]int{false: 2, true: 1}[quick]; len(pairs) != want {
			t.Fatalf("quick %v: %d pairs, want %d (the fixed-rate pair, and the knee's in the full demo)", quick, len(pairs), want)
		}
		for i, p := range pairs {
			clean, slowed := pc.ScenarioNamed(p.Base), pc.ScenarioNamed(p.Head)
			if clean == nil || slowed == nil || (i == 0 && clean.Name != PlantedScenario) {
				t.Fatalf("quick %v: pair %+v: scenarios %v and %v, want %s and its slowed copy first", quick, p, clean, slowed, PlantedScenario)
			}
			if want := append(slices.Clone(clean.Args), "--batch-overhead", PlantedOverhead); !slices.Equal(slowed.Args, want) {
				t.Errorf("quick %v: slowed args %q, want %q", quick, slowed.Args, want)
			}
			// Batching on (else the knob is inert), in the service layer:
			// the first at a fixed rate (P50 decides), the second a knee
			// (the instance count).
			wantMode := map[int]string{0: "rate", 1: "sweep"}[i]
			if !reflect.DeepEqual(clean.Load, slowed.Load) || slowed.Layer != "service" || clean.Load.Mode != wantMode || !slices.Contains(clean.Args, "--max-batch") {
				t.Errorf("quick %v: pair %d: slowed load %+v layer %s, want the clean one's (%+v: %s, batching on) in the service layer", quick, i, slowed.Load, slowed.Layer, clean.Load, wantMode)
			}
			if cfg.ScenarioNamed(p.Head) != nil {
				t.Errorf("quick %v: Planted added %s to the demo's config", quick, p.Head)
			}
		}
		if _, err := config.Compile(pc); err != nil {
			t.Errorf("quick %v: the planted config does not compile: %v", quick, err)
		}
		if s := cfg.ScenarioNamed(PlantedScenario); len(cfg.Scenarios) != before || (s != nil && !slices.Equal(s.Args, args)) {
			t.Errorf("quick %v: Planted changed the demo's config: %d scenarios (was %d)", quick, len(cfg.Scenarios), before)
		}
	}
	if _, _, err := Planted(&config.Config{}); err == nil {
		t.Errorf("Planted of a config without %s: no error", PlantedScenario)
	}
}

// TestDemoPairs: the demo declares a pair for each layer and for each
// step of its ladder, so that every one is measured interleaved and
// paired.
func TestDemoPairs(t *testing.T) {
	cfg, err := Config(false)
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]string
	for _, p := range cfg.Pairs {
		got = append(got, [2]string{p.Base, p.Head})
	}
	want := [][2]string{{"model-fp32", "model-int8"}, {"service-batch1", "service-batch32"},
		{"system-json-http", "system-protobuf-grpc"}, {"llm-fp32", "llm-int8"}, {"llm-batching-off", "llm-batching-on"}}
	for i := 0; i+1 < len(cfg.Ladder); i++ {
		want = append(want, [2]string{cfg.Ladder[i], cfg.Ladder[i+1]})
	}
	if !slices.Equal(got, want) {
		t.Errorf("demo pairs %q, want %q", got, want)
	}
}

// TestRelist: when scenarios in no pair run after the pairs, the suite's
// manifest replaces the pairs'; relist lists the pairs' results again, so
// that baseline update stores the whole run.
func TestRelist(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) *result.Result {
		r := testResult(name, 1)
		if err := r.WriteFile(filepath.Join(dir, suite.FileName(name))); err != nil {
			t.Fatal(err)
		}
		return r
	}
	alone, base, head := write("alone"), write("model-fp32"), write("model-int8")
	m := result.NewManifest("suite", time.Now())
	if err := m.Add(alone.Scenario, filepath.Join(dir, suite.FileName(alone.Scenario))); err != nil {
		t.Fatal(err)
	}
	m.Complete = true
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	if err := relist(dir, &ab.Outcome{Base: []*result.Result{base}, Head: []*result.Result{head}}); err != nil {
		t.Fatal(err)
	}
	got, err := result.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range got.Scenarios {
		names = append(names, e.Scenario)
	}
	if want := []string{"alone", "model-fp32", "model-int8"}; !slices.Equal(names, want) || !got.Complete {
		t.Errorf("manifest lists %q (complete %v), want %q, complete", names, got.Complete, want)
	}
}
