package suite

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/refserver"
)

func demoConfig(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Parse("perfgate.yaml", refserver.DemoConfig())
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Over the demo config, for any number of parts: the union of the parts
// is every scenario exactly once; the variants compared with each other
// (each layer's pair, the ladder's rungs) share a part; the partition is
// deterministic; and no part is longer than the longest-processing-time
// rule's bound, 4/3 of the best possible (which is at least the mean part
// and the longest group).
func TestPartitionDemo(t *testing.T) {
	cfg := demoConfig(t)
	together := [][]string{
		{"model-fp32", "model-int8"},
		{"service-batch1", "service-batch32"},
		{"system-json-http", "system-protobuf-grpc"},
		cfg.Ladder,
	}
	var total, longest time.Duration
	for _, g := range Groups(cfg) {
		total += g.Expected
		longest = max(longest, g.Expected)
	}
	for n := 1; n <= 12; n++ {
		parts, err := Partition(cfg, n)
		if err != nil {
			t.Fatal(err)
		}
		if len(parts) != n {
			t.Fatalf("Partition(%d) gave %d parts", n, len(parts))
		}
		seen := map[string]int{}
		partOf := map[string]int{}
		for i := 1; i <= n; i++ {
			names, err := PartNames(cfg, i, n)
			if err != nil {
				t.Fatal(err)
			}
			var load time.Duration
			for _, name := range names {
				seen[name]++
				partOf[name] = i
			}
			for _, s := range parts[i-1] {
				load += ExpectedDuration(s)
			}
			if bound := max(total/time.Duration(n), longest) * 4 / 3; load > bound {
				t.Errorf("%d parts: part %d expects %v, over the bound %v", n, i, load, bound)
			}
		}
		for _, s := range cfg.Scenarios {
			if seen[s.Name] != 1 {
				t.Errorf("%d parts: scenario %s is in %d parts, want exactly 1", n, s.Name, seen[s.Name])
			}
		}
		if len(seen) != len(cfg.Scenarios) {
			t.Errorf("%d parts: %d names, want the config's %d", n, len(seen), len(cfg.Scenarios))
		}
		for _, g := range together {
			for _, name := range g[1:] {
				if partOf[name] != partOf[g[0]] {
					t.Errorf("%d parts: %s in part %d, %s in part %d; compared variants must share a part", n, g[0], partOf[g[0]], name, partOf[name])
				}
			}
		}
		again, _ := Partition(cfg, n)
		if d := cmp.Diff(names(parts), names(again)); d != "" {
			t.Errorf("%d parts: not deterministic (-first +second):\n%s", n, d)
		}
	}
}

func names(parts [][]*config.Scenario) [][]string {
	var out [][]string
	for _, p := range parts {
		var ns []string
		for _, s := range p {
			ns = append(ns, s.Name)
		}
		out = append(out, ns)
	}
	return out
}

// Grouping: `group:` overrides the layer-and-load rule; the ladder joins
// its rungs whatever their layers; the longest group goes first.
func TestGroups(t *testing.T) {
	cfg := parse(t, `version: 1
ladder: [l1, l2]
slo: {p99: 50ms}
scenarios:
  - {name: a-fp32, layer: model, url: "http://127.0.0.1:1", group: a, load: {mode: rate, rate: 10, duration: 1s, warmup: 0s, trials: 2}}
  - {name: b-fp32, layer: model, url: "http://127.0.0.1:1", group: b, load: {mode: rate, rate: 10, duration: 1s, warmup: 0s, trials: 2}}
  - {name: a-int8, layer: model, url: "http://127.0.0.1:1", group: a, load: {mode: rate, rate: 10, duration: 1s, warmup: 0s, trials: 2}}
  - {name: b-int8, layer: model, url: "http://127.0.0.1:1", group: b, load: {mode: rate, rate: 10, duration: 1s, warmup: 0s, trials: 2}}
  - {name: json, layer: system, url: "http://127.0.0.1:1", load: {mode: concurrency, concurrency: 1, duration: 1s, warmup: 0s, trials: 2}}
  - {name: grpc, layer: system, url: "http://127.0.0.1:1", load: {mode: concurrency, concurrency: 1, duration: 1s, warmup: 0s, trials: 2}}
  - {name: other-load, layer: system, url: "http://127.0.0.1:1", load: {mode: concurrency, concurrency: 4, duration: 1s, warmup: 0s, trials: 2}}
  - {name: l1, layer: model, url: "http://127.0.0.1:1", load: {mode: rate, rate: 50, duration: 1s, warmup: 0s, trials: 2}}
  - {name: l2, layer: service, url: "http://127.0.0.1:1", load: {mode: rate, rate: 50, duration: 1s, warmup: 0s, trials: 2}}
  - {name: knee, layer: service, url: "http://127.0.0.1:1", load: {mode: sweep, budget: 30s}}
`)
	var got [][]string
	for _, g := range Groups(cfg) {
		var ns []string
		for _, s := range g.Scenarios {
			ns = append(ns, s.Name)
		}
		got = append(got, ns)
	}
	want := [][]string{{"a-fp32", "a-int8"}, {"b-fp32", "b-int8"}, {"json", "grpc"}, {"other-load"}, {"l1", "l2"}, {"knee"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Groups (-want +got):\n%s", d)
	}
	parts, err := Partition(cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	// knee (30 s) alone outweighs the rest (2 s per scenario, 16 s).
	if d := cmp.Diff([][]string{{"knee"}, {"a-fp32", "b-fp32", "a-int8", "b-int8", "json", "grpc", "other-load", "l1", "l2"}}, names(parts)); d != "" {
		t.Errorf("Partition(2) (-want +got):\n%s", d)
	}
	if _, err := PartNames(cfg, 3, 2); err == nil {
		t.Error("PartNames(3, 2) succeeded, want an error")
	}
}

func TestExpectedDuration(t *testing.T) {
	tests := []struct {
		name string
		s    config.Scenario
		want time.Duration
	}{
		{"windows", config.Scenario{Load: config.Load{Mode: "rate", Warmup: config.Duration(time.Second), Duration: config.Duration(2 * time.Second), Trials: 5}}, 11 * time.Second},
		{"started target", config.Scenario{Target: "server", Load: config.Load{Mode: "concurrency", Duration: config.Duration(time.Second), Trials: 1}}, time.Second + TargetStartCost},
		{"sweep budget", config.Scenario{Load: config.Load{Mode: "sweep", Budget: config.Duration(40 * time.Second)}}, 40 * time.Second},
		{"sweep default budget", config.Scenario{Load: config.Load{Mode: "sweep"}}, DefaultSweepBudget},
		// 2 s windows after 1 s warm-ups in 3 processes: 3·(1 s + 2 s) + 5·2 s.
		{"restarts", config.Scenario{Target: "server", Restarts: 3, Load: config.Load{Mode: "rate", Warmup: config.Duration(time.Second), Duration: config.Duration(2 * time.Second), Trials: 5}},
			3*(time.Second+TargetStartCost) + 10*time.Second},
		// 30 s budget and one start, then 2 rounds of a start and 2.5
		// probes of 0.5 s + 1 s + 0.25 s.
		{"sweep confirmation", config.Scenario{Target: "server", Load: config.Load{Mode: "sweep", Budget: config.Duration(30 * time.Second), Warmup: config.Duration(500 * time.Millisecond), Duration: config.Duration(time.Second), Estimates: 3}},
			30*time.Second + TargetStartCost + 2*(TargetStartCost+4375*time.Millisecond)},
	}
	for _, tt := range tests {
		if got := ExpectedDuration(&tt.s); got != tt.want {
			t.Errorf("%s: ExpectedDuration = %v, want %v", tt.name, got, tt.want)
		}
	}
}
