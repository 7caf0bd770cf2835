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
// variant at a fixed rate and at its knee, each against the same scenario
// with the batcher slowed, pairs the config
// accepts (same load), in the quick demo too (which leaves the ladder
// out); a selection measures only the planted scenarios it names; the
// demo's config is left as it was.
func TestPlanted(t *testing.T) {
	for _, quick := range []bool{false, true} {
		cfg, err := Config(quick)
		if err != nil {
			t.Fatal(err)
		}
		before := len(cfg.Scenarios)
		args := map[string][]string{}
		for _, s := range cfg.Scenarios {
			args[s.Name] = slices.Clone(s.Args)
		}
		pc, pairs, err := Planted(cfg, nil)
		if err != nil {
			t.Fatalf("quick %v: %v", quick, err)
		}
		var bases []string
		for _, p := range pairs {
			bases = append(bases, p.Base)
			clean, slowed := pc.ScenarioNamed(p.Base), pc.ScenarioNamed(p.Head)
			if clean == nil || slowed == nil {
				t.Fatalf("quick %v: pair %+v: scenarios %v and %v, want a scenario and its slowed copy", quick, p, clean, slowed)
			}
			if want := append(slices.Clone(clean.Args), "--item-overhead", PlantedOverhead); !slices.Equal(slowed.Args, want) {
				t.Errorf("quick %v: %s: slowed args %q, want %q", quick, p.Name, slowed.Args, want)
			}
			if !reflect.DeepEqual(clean.Load, slowed.Load) || slowed.Layer != "service" || clean.Layer != "service" {
				t.Errorf("quick %v: %s: slowed load %+v layer %s, want the clean one's (%+v) in the service layer", quick, p.Name, slowed.Load, slowed.Layer, clean.Load)
			}
			if cfg.ScenarioNamed(p.Head) != nil {
				t.Errorf("quick %v: Planted added %s to the demo's config", quick, p.Head)
			}
		}
		// The fixed rate (P50 decides), then the knee (max QPS decides; the
		// instance count is recomputed from it), both with batching on
		// (else the knob is inert).
		if want := []string{PlantedScenario, PlantedKneeScenario}; !slices.Equal(bases, want) {
			t.Fatalf("quick %v: planted pairs' bases %q, want %q", quick, bases, want)
		}
		if fixed := pc.ScenarioNamed(PlantedScenario); fixed.Load.Mode != "rate" || !batching(fixed.Args) {
			t.Errorf("quick %v: %s: load %s args %q, want a fixed rate with batching on", quick, fixed.Name, fixed.Load.Mode, fixed.Args)
		}
		if knee := pc.ScenarioNamed(PlantedKneeScenario); knee.Load.Mode != "sweep" || !batching(knee.Args) {
			t.Errorf("quick %v: %s: load %s args %q, want a knee search with batching on", quick, knee.Name, knee.Load.Mode, knee.Args)
		}
		if _, err := config.Compile(pc); err != nil {
			t.Errorf("quick %v: the planted config does not compile: %v", quick, err)
		}
		if len(cfg.Scenarios) != before {
			t.Errorf("quick %v: Planted changed the demo's config: %d scenarios (was %d)", quick, len(cfg.Scenarios), before)
		}
		for _, s := range cfg.Scenarios {
			if !slices.Equal(s.Args, args[s.Name]) {
				t.Errorf("quick %v: Planted changed %s's args to %q", quick, s.Name, s.Args)
			}
		}
		_, only, err := Planted(cfg, []string{PlantedKneeScenario, "model-fp32"})
		if err != nil || len(only) != 1 || only[0].Base != PlantedKneeScenario {
			t.Errorf("quick %v: Planted of a selection naming the knee: pairs %+v, %v; want the knee's alone", quick, only, err)
		}
	}
	// The quick demo's shorter knee searches find no batched knee within
	// their budget: it measures the fixed rate's pair alone, unless a
	// planted scenario is named.
	for _, tt := range []struct {
		quick bool
		only  []string
		want  []string
	}{
		{false, nil, nil},
		{true, nil, []string{PlantedScenario}},
		{true, []string{PlantedKneeScenario}, []string{PlantedKneeScenario}},
		{false, []string{"model-fp32"}, []string{"model-fp32"}},
	} {
		if got := PlantedSelection(tt.quick, tt.only); !slices.Equal(got, tt.want) {
			t.Errorf("PlantedSelection(%v, %q) = %q, want %q", tt.quick, tt.only, got, tt.want)
		}
	}
	if !PlantedSelected(nil) || !PlantedSelected([]string{PlantedKneeScenario}) || PlantedSelected([]string{"model-fp32"}) {
		t.Errorf("PlantedSelected: want true for all and for a planted scenario, false for another")
	}
	if _, _, err := Planted(&config.Config{}, nil); err == nil {
		t.Errorf("Planted of a config without %s: no error", PlantedScenario)
	}
	if _, _, err := Planted(&config.Config{}, []string{"model-fp32"}); err == nil {
		t.Errorf("Planted of a selection naming no planted scenario: no error")
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

// batching reports whether a reference server's args turn dynamic
// batching on: --max-batch above 1.
func batching(args []string) bool {
	i := slices.Index(args, "--max-batch")
	return i >= 0 && i+1 < len(args) && args[i+1] != "1"
}
