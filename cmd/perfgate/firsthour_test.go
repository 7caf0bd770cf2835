package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/internal/githubapi/githubapitest"
	"github.com/perfgate/perfgate/refserver"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
	"go.yaml.in/yaml/v3"
)

// Every way of asking a command for help exits 0, never 2.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{
		{"-h"}, {"help"}, {"--help"},
		{"run", "-h"}, {"gate", "-h"}, {"action", "-h"}, {"compare", "-h"}, {"size", "-h"},
		{"demo", "-h"}, {"baseline", "-h"}, {"baseline", "update", "-h"}, {"fixture", "-h"},
		{"fixture", "serve", "-h"}, {"gpu-sample", "-h"}, {"run", "--help"}, {"report", "-h"},
	} {
		code, stdout, stderr := runCLI(t, args...)
		if code != exitPass {
			t.Errorf("perfgate %v: exit %d, want 0; stderr:\n%s", args, code, stderr)
		}
		if stdout+stderr == "" {
			t.Errorf("perfgate %v printed nothing", args)
		}
	}
}

// A --url run is unlabelled unless --layer names its layer; a wrong layer
// is a usage error naming the value.
func TestRunURLLayer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	quick := []string{"run", "--url", srv.URL, "--rate", "40", "--duration", "200ms", "--warmup", "0s", "--trials", "1"}
	for _, tt := range []struct {
		flags     []string
		wantLayer string
	}{
		{nil, ""},
		{[]string{"--layer", "model"}, "model"},
	} {
		out := filepath.Join(t.TempDir(), "r.json")
		args := append(append(append([]string{}, quick...), tt.flags...), "--out", out)
		code, stdout, stderr := runCLI(t, args...)
		skipIfBusy(t, code, stdout)
		if code != exitPass {
			t.Fatalf("perfgate %v: exit %d\n%s", args, code, stderr)
		}
		r, err := result.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if r.Layer != tt.wantLayer {
			t.Errorf("flags %v: layer %q, want %q", tt.flags, r.Layer, tt.wantLayer)
		}
	}
	code, _, stderr := runCLI(t, append(quick, "--layer", "kernel")...)
	if code != exitUsage || !strings.Contains(stderr, `"kernel" is not a layer`) {
		t.Errorf("--layer kernel: exit %d, stderr %q; want exit 2 naming the value", code, stderr)
	}
}

// run --sweep takes the knee search's bounds on the command line: no probe
// above --max-rate, the first at --start; the bounds without --sweep are a
// usage error.
func TestRunSweepBounds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "knee.json")
	args := []string{"run", "--url", srv.URL, "--sweep", "--slo-p99", "200ms", "--start", "20", "--max-rate", "60",
		"--budget", "20s", "--duration", "300ms", "--warmup", "0s", "--out", out}
	if code, _, stderr := runCLI(t, args...); code != exitPass {
		t.Fatalf("perfgate %v: exit %d\n%s", args, code, stderr)
	}
	r, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Capacity == nil || len(r.Capacity.Points) == 0 {
		t.Fatalf("no knee search in the result: %+v", r.Capacity)
	}
	if got := r.Capacity.Points[0].OfferedRPS; got < 19 || got > 21 {
		t.Errorf("first probe at %.1f req/s, want --start 20", got)
	}
	for _, p := range r.Capacity.Points {
		if p.OfferedRPS > 60*1.001 {
			t.Errorf("probe at %.1f req/s is above --max-rate 60", p.OfferedRPS)
		}
	}
	for _, flag := range []string{"--max-rate", "--estimates"} {
		code, _, stderr := runCLI(t, "run", "--url", srv.URL, "--rate", "5", flag, "10")
		if code != exitUsage || !strings.Contains(stderr, "--sweep") {
			t.Errorf("%s without --sweep: exit %d, stderr %q; want exit 2 asking for --sweep", flag, code, stderr)
		}
	}
	code, _, stderr := runCLI(t, "run", "--url", srv.URL, "--sweep", "--slo-p99", "200ms", "--estimates", "0")
	if code != exitUsage || !strings.Contains(stderr, "--estimates") {
		t.Errorf("--estimates 0: exit %d, stderr %q; want exit 2 naming the flag", code, stderr)
	}
}

// run --sweep --estimates N makes N knee estimates (the search's and a
// confirmation round each), against a server that serves one request at a
// time in 1 ms: a knee under 1000 requests/s.
func TestRunSweepEstimates(t *testing.T) {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		time.Sleep(time.Millisecond)
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "knee.json")
	args := []string{"run", "--url", srv.URL, "--sweep", "--slo-p99", "50ms", "--start", "200", "--max-rate", "4000",
		"--budget", "2s", "--estimates", "2", "--duration", "100ms", "--warmup", "50ms", "--out", out}
	if code, _, stderr := runCLI(t, args...); code != exitPass {
		t.Fatalf("perfgate %v: exit %d\n%s", args, code, stderr)
	}
	r, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Capacity == nil || len(r.Capacity.Estimates) != 2 {
		t.Fatalf("knee estimates %+v, want 2 (--estimates 2)", r.Capacity)
	}
}

// Plain progress lines count each phase on its own: a trial's line does
// not include the warm-up's or the earlier trials' requests, and says how
// many of its completions were sent in the phase before (the closed
// loop's last warm-up request, or a trial's last in flight).
func TestProgressCountsPerPhase(t *testing.T) {
	var b strings.Builder
	p := &progress{w: &b}
	p.update("s", harness.Progress{Phase: "warmup", PhaseDone: true, Sent: 100, Done: 100})
	p.update("s", harness.Progress{Phase: "trial", Trial: 1, Trials: 2, PhaseDone: true, Sent: 400, Done: 398, Errors: 1, InFlight: 1})
	p.update("s", harness.Progress{Phase: "trial", Trial: 2, Trials: 2, PhaseDone: true, Sent: 700, Done: 697, Errors: 2, InFlight: 1})
	p.update("t", harness.Progress{Phase: "warmup", PhaseDone: true, Sent: 10, Done: 10})
	p.update("c", harness.Progress{Phase: "warmup", PhaseDone: true, Sent: 301, Done: 300, InFlight: 1})
	p.update("c", harness.Progress{Phase: "trial", Trial: 1, Trials: 1, PhaseDone: true, Sent: 565, Done: 565})
	want := "s: warm-up done: 100 sent (excluded from every figure)\n" +
		"s: trial 1/2 done: 300 sent, 298 completed, 1 errors in this trial; 1 in flight\n" +
		"s: trial 2/2 done: 300 sent, 299 completed (1 of them sent before it), 1 errors in this trial; 1 in flight\n" +
		"t: warm-up done: 10 sent (excluded from every figure)\n" +
		"c: warm-up done: 301 sent (excluded from every figure)\n" +
		"c: trial 1/1 done: 264 sent, 265 completed (1 of them sent before it), 0 errors in this trial; 0 in flight\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("progress lines (-want +got):\n%s", d)
	}
}

// A failed run states its error once, on stderr, and never in the table.
func TestRunFailurePrintedOnce(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	code, stdout, stderr := runCLI(t, "run", "--url", down.URL, "--rate", "20", "--duration", "300ms", "--warmup", "0s", "--trials", "1")
	if code != exitRunFailed {
		t.Fatalf("exit %d, want %d", code, exitRunFailed)
	}
	if n := strings.Count(stdout+stderr, "every request failed"); n != 1 {
		t.Errorf("the error appears %d times, want once:\nstdout:\n%s\nstderr:\n%s", n, stdout, stderr)
	}
}

// Every Action error names its real cause.
func TestActionErrorsNameTheCause(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
	// A real bundle, from a gate run on the pull request.
	bundle := filepath.Join(t.TempDir(), "bundle")
	pr := newActionRun(t, srv, "pull_request")
	pr.vars["INPUT_COMMENT"] = "false"
	pr.vars["INPUT_COMMENT-DIR"] = bundle
	if code := pr.run(fakeGate(t, compare.Pass, "c.json")); code != exitPass {
		t.Fatalf("gate run writing the bundle: exit %d\n%s", code, pr.stderr.String())
	}
	tests := []struct {
		name string
		vars func(r *actionRun)
		args []string
		want string
	}{
		{"no GitHub environment", func(r *actionRun) { r.vars = map[string]string{} }, nil,
			"no GitHub Actions environment (GITHUB_ACTIONS and GITHUB_EVENT_NAME are unset)"},
		{"comment mode on another event", func(r *actionRun) {}, []string{"--comment-from", bundle},
			`mode comment runs on a workflow_run event; GITHUB_EVENT_NAME is "pull_request"`},
		{"comment mode, payload without workflow_run", func(r *actionRun) { r.vars["GITHUB_EVENT_NAME"] = "workflow_run" },
			[]string{"--comment-from", bundle}, "has no workflow_run object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newActionRun(t, srv, "pull_request")
			tt.vars(r)
			code := r.run(pipelines{}, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(r.stderr.String(), tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, r.stderr.String())
			}
		})
	}
}

// One layout: compare and baseline update read what run and gate write,
// given the output folder or its results/; a wrong path is exit 2 naming
// what was expected.
func TestOneLayout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(cfg, []byte(`version: 1
scenarios:
  - {name: api, layer: service, url: "`+srv.URL+`", load: {mode: concurrency, concurrency: 1, duration: 200ms, warmup: 0s, trials: 5}}
`), 0o644)
	out := filepath.Join(dir, "perfgate-out")
	code, stdout, stderr := runCLI(t, "run", "--config", cfg, "--out", filepath.Join(out, "results"))
	skipIfBusy(t, code, stdout)
	if code != exitPass {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	for _, from := range []string{out, filepath.Join(out, "results")} {
		if code, _, stderr := runCLI(t, "baseline", "update", "--from", from, "--to", filepath.Join(dir, "bl")); code != exitPass {
			t.Errorf("baseline update --from %s: exit %d\n%s", from, code, stderr)
		}
		if code, _, stderr := runCLI(t, "compare", "--baseline", filepath.Join(dir, "bl"), "--candidate", from); code == exitUsage {
			t.Errorf("compare --candidate %s: exit %d\n%s", from, code, stderr)
		}
	}
	missing := filepath.Join(dir, "nope")
	for _, args := range [][]string{
		{"baseline", "update", "--from", missing, "--to", filepath.Join(dir, "bl")},
		{"compare", "--baseline", filepath.Join(dir, "bl"), "--candidate", missing},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, missing) || !strings.Contains(stderr, "perfgate-out/results") {
			t.Errorf("perfgate %v: exit %d, stderr %q; want exit 2 naming the path and the expected layout", args, code, stderr)
		}
	}
}

// compare --config and size --config use the config's gate and capacity,
// as gate does; flags override.
func TestCompareAndSizeReadTheConfig(t *testing.T) {
	dir := t.TempDir()
	base, cand := filepath.Join(dir, "bl"), filepath.Join(dir, "perfgate-out", "results")
	os.MkdirAll(base, 0o755)
	os.MkdirAll(cand, 0o755)
	spec := comparetest.Spec{Scenario: "api", Layer: "service", Trials: 8, Requests: 4000, MedianMs: 10, Noise: 0.005,
		MaxQPS: 500, Bracket: [2]float64{500, 515}}
	writeResult(t, filepath.Join(base, "api.json"), spec, 1)
	spec.Scale = 1.07 // 7% slower: beyond the built-in 5%, inside the config's 12%
	writeResult(t, filepath.Join(cand, "api.json"), spec, 2)
	cfg := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(cfg, []byte(`version: 1
baselines: bl
gate: {p99_regression: 12%, p50_regression: 12%, max_qps_regression: 5%}
capacity: {peak_qps: 5000, headroom: 1.5, cost_per_instance_hour: 2}
scenarios:
  - {name: api, layer: service, url: "http://127.0.0.1:1", load: {mode: rate, rate: 5}}
`), 0o644)

	verdict := func(args ...string) compare.Verdict {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"compare", "--format", "json"}, args...)...)
		if code == exitUsage {
			t.Fatalf("compare %v: exit %d\n%s", args, code, stderr)
		}
		var c compare.Comparison
		if err := json.Unmarshal([]byte(stdout), &c); err != nil {
			t.Fatalf("compare %v: %v\n%s", args, err, stdout)
		}
		return c.Scenarios[0].Verdict
	}
	if v := verdict("--baseline", base, "--candidate", cand); v != compare.Regressed {
		t.Errorf("built-in 5%% threshold: verdict %q, want regressed", v)
	}
	if v := verdict("--config", cfg, "--candidate", filepath.Join(dir, "perfgate-out")); v != compare.Unchanged {
		t.Errorf("--config (12%% threshold): verdict %q, want unchanged", v)
	}
	if v := verdict("--config", cfg, "--p99-threshold", "5%", "--candidate", cand); v != compare.Regressed {
		t.Errorf("--config with --p99-threshold 5%%: verdict %q, want regressed (the flag overrides)", v)
	}

	code, stdout, stderr := runCLI(t, "size", "--config", cfg, "--result", filepath.Join(cand, "api.json"), "--format", "json")
	if code != exitPass {
		t.Fatalf("size --config: exit %d\n%s", code, stderr)
	}
	var s sizing.Sizing
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.PeakQPS != 5000 || s.Headroom != 1.5 || s.Instances != 15 || s.CostPerMonth == nil {
		t.Errorf("size --config: peak %v headroom %v instances %d cost %v; want 5000, 1.5, 15 (5000×1.5/500) and a cost",
			s.PeakQPS, s.Headroom, s.Instances, s.CostPerMonth)
	}
	code, stdout, _ = runCLI(t, "size", "--config", cfg, "--result", filepath.Join(cand, "api.json"), "--format", "json", "--headroom", "1.0")
	if json.Unmarshal([]byte(stdout), &s); code != exitPass || s.Instances != 10 {
		t.Errorf("size --config --headroom 1.0: exit %d, instances %d, want 10 (the flag overrides)", code, s.Instances)
	}
}

// An inconclusive gate is never reported as pass; on_inconclusive (config
// or flag) decides its exit code.
func TestOnInconclusive(t *testing.T) {
	dir := t.TempDir()
	bl, res := filepath.Join(dir, "bl"), filepath.Join(dir, "res")
	os.MkdirAll(bl, 0o755)
	os.MkdirAll(res, 0o755)
	writeResult(t, filepath.Join(bl, "api.json"), comparetest.Spec{Scenario: "api", Layer: "service"}, 1)
	writeResult(t, filepath.Join(res, "api.json"), comparetest.Spec{Scenario: "api", Layer: "service",
		Trials: 5, Requests: 2000, MedianMs: 10, Noise: 0.35, Scale: 1.3}, 7)
	write := func(onInc string) string {
		p := filepath.Join(dir, "perfgate-"+onInc+".yaml")
		os.WriteFile(p, []byte(`version: 1
baselines: bl
gate: {p99_regression: 5%`+map[bool]string{true: ", on_inconclusive: " + onInc, false: ""}[onInc != ""]+`}
scenarios:
  - {name: api, layer: service, url: "http://127.0.0.1:1", load: {mode: rate, rate: 5, trials: 5}}
`), 0o644)
		return p
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"default passes as inconclusive", []string{"--config", write("")}, exitPass, "inconclusive"},
		{"config fail", []string{"--config", write("fail")}, exitRegression, "gate inconclusive"},
		{"flag overrides the config", []string{"--config", write("fail"), "--on-inconclusive", "pass"}, exitPass, "inconclusive"},
		{"bad flag", []string{"--config", write(""), "--on-inconclusive", "maybe"}, exitUsage, `--on-inconclusive "maybe"`},
		{"bad config value", []string{"--config", write("maybe")}, exitUsage, `gate.on_inconclusive: "maybe"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"gate", "--results", res, "--out", filepath.Join(t.TempDir(), "o")}, tt.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != tt.wantCode || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, tt.want, stdout, stderr)
			}
			if code == exitPass && strings.Contains(stdout, ": PASS") {
				t.Errorf("an inconclusive gate's headline says PASS:\n%s", stdout)
			}
		})
	}
}

// The config the demo writes for `perfgate gate` (the embedded one,
// marshalled back to YAML) parses again: an optional key left out must not
// come back as `key: null`, which the strict parser refuses.
func TestDemoConfigRoundTrips(t *testing.T) {
	cfg, err := config.Parse("refserver/perfgate.yaml (embedded)", refserver.DemoConfig())
	if err != nil {
		t.Fatal(err)
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	again, err := config.Parse("perfgate-demo/perfgate.yaml", b)
	if err != nil {
		t.Fatalf("the demo's written config does not parse: %v\n%s", err, b)
	}
	if len(again.Scenarios) != len(cfg.Scenarios) {
		t.Errorf("%d scenarios after the round trip, want %d", len(again.Scenarios), len(cfg.Scenarios))
	}
}

// On a terminal the progress is one live line: a new scenario redraws it
// (carriage returns, never a newline), and with a log set the run's log
// lines go there instead of the screen (the demo fits one screen).
func TestProgressOneLiveLine(t *testing.T) {
	var screen, log strings.Builder
	p := &progress{w: &screen, terminal: true, log: &log}
	for _, name := range []string{"a", "b", "c"} {
		fmt.Fprintf(p, "scenario %s: started target server\n", name)
		p.update(name, harness.Progress{Phase: "trial", Trial: 1, Trials: 1, Elapsed: time.Second, Total: 2 * time.Second})
		// Past the bar's throttle, so that the next draw is not skipped.
		time.Sleep(210 * time.Millisecond)
		p.update(name, harness.Progress{Phase: "trial", Trial: 1, Trials: 1, Elapsed: 2 * time.Second, Total: 2 * time.Second})
	}
	p.close()
	if strings.Contains(screen.String(), "\n") {
		t.Errorf("the terminal got a newline, want one live line redrawn:\n%q", screen.String())
	}
	if !strings.Contains(screen.String(), "c trial 1/1") {
		t.Errorf("the terminal never showed the last scenario: %q", screen.String())
	}
	if got, want := strings.Count(log.String(), "started target server\n"), 3; got != want {
		t.Errorf("log got %d log lines, want %d:\n%s", got, want, log.String())
	}
}
