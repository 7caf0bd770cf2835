package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare"
)

// abComputeConfig is an A/B config of the reference server with
// --sim-cpu, its CPU per request read from cost.args in the target's
// folder (each side its own revision's), and its Prometheus endpoint
// named so that each trial records the server's own compute time.
const abComputeConfig = `version: 1
ab: {max_trials: 6}
targets:
  server:
    command: ["sh", "-c", "exec \"$0\" fixture serve --addr 127.0.0.1:$1 --model sim --sim-cpu $(cat cost.args)", "{perfgate}", "{port}"]
    dir: server
    env: {PERFGATE_TEST_MAIN: "1"}
    ready: "http://127.0.0.1:{port}/v2/health/ready"
    ready_timeout: 60s
    metrics: "http://127.0.0.1:{port}/metrics"
scenarios:
  - {name: api, layer: model, target: server, protocol: kserve-http, model: mlp-sim,
     load: {mode: rate, rate: 250, duration: 500ms, warmup: 100ms, trials: 1}}
`

// TestGateABServerCompute: gate --ab of the reference server against
// itself with twice the CPU a request (0.6 ms → 1.2 ms, really computed)
// reads the server's own compute time from its Triton counters every
// trial and decides the regression with server_compute_ms among the
// deciding metrics, compared pair by pair.
func TestGateABServerCompute(t *testing.T) {
	if testing.Short() {
		t.Skip("an A/B run of a real target")
	}
	cfg := gitRepo(t, abComputeConfig)
	dir := filepath.Dir(cfg)
	server := filepath.Join(dir, "server")
	if err := os.MkdirAll(server, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(args string) {
		if err := os.WriteFile(filepath.Join(server, "cost.args"), []byte(args), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("--sim-fixed 200us --sim-per-item 400us\n") // the base: 0.6 ms a request
	commit := exec.Command("sh", "-c", "git add -A && git commit -q -m base")
	commit.Dir = dir
	commit.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := commit.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	write("--sim-fixed 200us --sim-per-item 1ms\n") // the head, uncommitted: 1.2 ms
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, "gate", "--config", cfg, "--ab", "HEAD", "--out", out)
	b, err := os.ReadFile(filepath.Join(out, "comparison.json"))
	if err != nil {
		t.Fatalf("exit %d, no comparison: %v\n%s", code, err, stderr)
	}
	var c compare.Comparison
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Scenarios) != 1 {
		t.Fatalf("%d scenarios compared, want 1\n%s", len(c.Scenarios), stderr)
	}
	sc := c.Scenarios[0]
	var m *compare.Metric
	for i := range sc.Metrics {
		if sc.Metrics[i].Metric == compare.MetricServerCompute {
			m = &sc.Metrics[i]
		}
	}
	if m == nil {
		t.Fatalf("server_compute_ms not compared: metrics %+v, warnings %q\n%s", sc.Metrics, sc.Warnings, stderr)
	}
	t.Logf("server_compute_ms %.3g → %.3g ms (%+.1f%% [%+.1f, %+.1f]) %s; scenario %s, decided by %v; exit %d",
		m.Baseline, m.Candidate, m.DeltaPct, m.CIPct[0], m.CIPct[1], m.Verdict, sc.Verdict, sc.DecidedBy, code)
	if m.Method != compare.MethodPaired || !m.Gated || m.Verdict != compare.Regressed {
		t.Errorf("server_compute_ms: method %s gated %v verdict %s, want paired, gated, regressed", m.Method, m.Gated, m.Verdict)
	}
	if sc.Verdict != compare.Regressed || !slices.Contains(sc.DecidedBy, compare.MetricServerCompute) || code != exitRegression {
		t.Errorf("scenario %s decided by %v, exit %d; want regressed with server_compute_ms among the deciding metrics, exit %d\n%s",
			sc.Verdict, sc.DecidedBy, code, exitRegression, stderr)
	}
	// The server's figure is its compute alone: about 0.6 ms and 1.2 ms
	// a request, whatever the client's latency holds besides.
	if m.Baseline < 0.5 || m.Baseline > 2 || m.Candidate < 1 || m.Candidate > 4 {
		t.Errorf("server compute %.3g → %.3g ms, want about 0.6 → 1.2", m.Baseline, m.Candidate)
	}
	if strings.Contains(stderr, "server metrics:") {
		t.Errorf("the server's metrics could not be read:\n%s", stderr)
	}
}
