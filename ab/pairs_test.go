package ab

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// pairsConfig declares one pair: the test service at 50 ms (folder fast)
// against the same service at 150 ms (folder slow), measured from one
// checkout by MeasurePairs. 100 requests a trial, so that each pair is a
// unit of RequestsForQuantile(99) and the first look (6 pairs) tests six
// units (with 40, it tested two: a t-test on one degree of freedom).
const pairsConfig = `version: 1
gate: {p99_regression: 5%, confidence: 0.95}
ab: {max_trials: 10}
targets:
  fast:
    command: ["{self}", "{port}"]
    dir: fast
    env: {PERFGATE_AB_TEST_SERVICE: "1"}
    ready: "http://127.0.0.1:{port}/"
    ready_timeout: 20s
  slow:
    command: ["{self}", "{port}"]
    dir: slow
    env: {PERFGATE_AB_TEST_SERVICE: "1"}
    ready: "http://127.0.0.1:{port}/"
    ready_timeout: 20s
scenarios:
  - name: api-fast
    layer: service
    target: fast
    load: {mode: rate, rate: 400, duration: 250ms, warmup: 100ms, trials: 1}
  - name: api-slow
    layer: service
    target: slow
    load: {mode: rate, rate: 400, duration: 250ms, warmup: 100ms, trials: 1}
pairs:
  - {name: "service: fast → slow", base: api-fast, head: api-slow}
`

// TestMeasurePairs: a declared pair is measured by the A/B engine (ABBA
// order, fresh processes every block), not one scenario after the other,
// and a service three times as slow is decided regressed from paired evidence;
// each side's result is written under its own scenario's name.
func TestMeasurePairs(t *testing.T) {
	t.Parallel() // sleeping services, as the package's loopback A/B tests
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for sub, ms := range map[string]string{"fast": "50", "slow": "150"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
		if err := os.WriteFile(filepath.Join(dir, sub, "latency_ms"), []byte(ms), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(path, []byte(strings.ReplaceAll(pairsConfig, "{self}", self)), 0o644)
	c, err := config.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := config.Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var log strings.Builder
	res, err := MeasurePairs(context.Background(), plan, plan.Pairs, Options{OutDir: out,
		Settings: compare.DefaultSettings(), Suite: suite.Options{OutDir: filepath.Join(out, "results"), Environ: os.Environ(), Log: &log}})
	if err != nil {
		t.Fatal(err)
	}
	if res.RunErr != nil {
		t.Fatalf("run failed: %v\n%s", res.RunErr, log.String())
	}
	if len(res.Comparison.Scenarios) != 1 || res.Comparison.AB == nil || !res.Comparison.AB.Declared {
		t.Fatalf("comparison %+v, want one declared pair", res.Comparison)
	}
	sc, run := res.Comparison.Scenarios[0], res.Comparison.AB.Scenarios[0]
	t.Logf("%s: %s (%s) after %d pairs, order %s, processes %v", sc.Scenario, sc.Verdict, sc.Reason, run.Pairs, run.Order, run.Processes)
	if sc.Scenario != "service: fast → slow" || sc.Layer != "service" {
		t.Errorf("compared as %q in layer %q, want the pair's name in the service layer", sc.Scenario, sc.Layer)
	}
	if !strings.HasPrefix(run.Order, "ABBA") || run.Processes[0] < 2 || run.Processes[1] < 2 {
		t.Errorf("order %q, processes %v: want ABBA blocks, each side in fresh processes", run.Order, run.Processes)
	}
	var p99 *compare.Metric
	for i := range sc.Metrics {
		if sc.Metrics[i].Metric == compare.MetricP99 {
			p99 = &sc.Metrics[i]
		}
	}
	if p99 == nil || p99.Method != compare.MethodPaired {
		t.Fatalf("P99 not compared paired: %+v", sc.Metrics)
	}
	if p99.Verdict != compare.Regressed || sc.Verdict != compare.Regressed {
		t.Errorf("a service three times as slow: P99 %+.1f%% %s, pair %s; want regressed\n%s", p99.DeltaPct, p99.Verdict, sc.Verdict, log.String())
	}
	for _, name := range []string{"api-fast", "api-slow"} {
		if _, err := os.Stat(filepath.Join(out, "results", suite.FileName(name))); err != nil {
			t.Errorf("the %s side's result was not written: %v", name, err)
		}
	}
	// The results folder can be stored as baselines: a complete manifest
	// lists both files.
	m, err := result.ReadManifest(filepath.Join(out, "results"))
	if err != nil || !m.Complete || len(m.Scenarios) != 2 {
		t.Errorf("run manifest %+v (%v), want a complete one listing both sides", m, err)
	}
}
