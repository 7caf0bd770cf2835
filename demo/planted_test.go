package demo

import (
	"reflect"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/config"
)

// TestPlanted: the planted regression is the service layer's candidate
// against the same scenario with the batcher slowed, a pair the config
// accepts (same load), and the demo's config is left as it was.
func TestPlanted(t *testing.T) {
	cfg, err := Config(false)
	if err != nil {
		t.Fatal(err)
	}
	before := len(cfg.Scenarios)
	pc, p, err := Planted(cfg)
	if err != nil {
		t.Fatal(err)
	}
	clean, slowed := pc.ScenarioNamed(p.Base), pc.ScenarioNamed(p.Head)
	if clean == nil || slowed == nil || clean.Name != PlantedScenario {
		t.Fatalf("pair %+v: scenarios %v and %v, want %s and its slowed copy", p, clean, slowed, PlantedScenario)
	}
	if want := append(slices.Clone(clean.Args), "--batch-overhead", PlantedOverhead); !slices.Equal(slowed.Args, want) {
		t.Errorf("slowed args %q, want %q", slowed.Args, want)
	}
	if !reflect.DeepEqual(clean.Load, slowed.Load) || slowed.Layer != "service" {
		t.Errorf("slowed load %+v layer %s, want the clean one's (%+v) in the service layer", slowed.Load, slowed.Layer, clean.Load)
	}
	if _, err := config.Compile(pc); err != nil {
		t.Errorf("the planted config does not compile: %v", err)
	}
	if len(cfg.Scenarios) != before || cfg.ScenarioNamed(p.Head) != nil || len(clean.Args) != 4 {
		t.Errorf("Planted changed the demo's config: %d scenarios (was %d), clean args %q", len(cfg.Scenarios), before, clean.Args)
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
