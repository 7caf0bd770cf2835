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
// slowed, a pair the config accepts (same load), in the quick demo too
// (which leaves the ladder out), and the demo's config is left as it was.
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
		pc, p, err := Planted(cfg)
		if err != nil {
			t.Fatalf("quick %v: %v", quick, err)
		}
		clean, slowed := pc.ScenarioNamed(p.Base), pc.ScenarioNamed(p.Head)
		if clean == nil || slowed == nil || clean.Name != PlantedScenario {
			t.Fatalf("quick %v: pair %+v: scenarios %v and %v, want %s and its slowed copy", quick, p, clean, slowed, PlantedScenario)
		}
		if want := append(slices.Clone(clean.Args), "--batch-overhead", PlantedOverhead); !slices.Equal(slowed.Args, want) {
			t.Errorf("quick %v: slowed args %q, want %q", quick, slowed.Args, want)
		}
		// A fixed rate (P50 decides), batching on (else the knob is inert).
		if !reflect.DeepEqual(clean.Load, slowed.Load) || slowed.Layer != "service" || clean.Load.Mode != "rate" || !slices.Contains(clean.Args, "--max-batch") {
			t.Errorf("quick %v: slowed load %+v layer %s, want the clean one's (%+v: a fixed rate, batching on) in the service layer", quick, slowed.Load, slowed.Layer, clean.Load)
		}
		if _, err := config.Compile(pc); err != nil {
			t.Errorf("quick %v: the planted config does not compile: %v", quick, err)
		}
		if s := cfg.ScenarioNamed(PlantedScenario); len(cfg.Scenarios) != before || cfg.ScenarioNamed(p.Head) != nil || (s != nil && !slices.Equal(s.Args, args)) {
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
