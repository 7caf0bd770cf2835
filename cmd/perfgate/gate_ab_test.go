package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/githubapi/githubapitest"
)

// gitRepo makes a git repository in a temporary folder with perfgate.yaml
// as its one commit, and returns the config's path.
func gitRepo(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return cfg
}

// TestGateABExitCodes checks `gate --ab`'s exit codes for what stops it
// before any load: a revision that does not exist and URL targets (2), a
// build that fails (3, its output quoted).
func TestGateABExitCodes(t *testing.T) {
	started := `version: 1
targets:
  svc:
    command: ["./server", "{port}"]
    build: ["sh", "-c", "echo building the server; echo 'server.go:7: syntax error' >&2; exit 2"]
    ready: "http://127.0.0.1:{port}/"
scenarios:
  - {name: api, layer: service, target: svc, load: {mode: rate, rate: 10, duration: 1s, trials: 1}}
`
	url := `version: 1
scenarios:
  - {name: remote, layer: service, url: "http://127.0.0.1:9/", load: {mode: rate, rate: 10, duration: 1s, trials: 1}}
`
	tests := []struct {
		name, config, ref string
		extra             []string
		code              int
		say               string
	}{
		{"unknown revision", started, "no-such-ref", nil, exitUsage, `"no-such-ref" is not a commit`},
		{"url target", url, "HEAD", nil, exitUsage, "would hit that one service"},
		{"baselines with ab", started, "HEAD", []string{"--baselines", "b"}, exitUsage, "--baselines and --results are not read"},
		{"failing build", started, "HEAD", nil, exitRunFailed, "server.go:7: syntax error"},
		{"unknown design", started, "HEAD", []string{"--design", "duet"}, exitUsage, `--design "duet": want interleaved`},
		{"concurrent with resident one", started + "ab: {resident: one}\n", "HEAD", []string{"--design", "concurrent"}, exitUsage, "--design concurrent runs both sides' targets at once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := gitRepo(t, tt.config)
			args := append([]string{"gate", "--config", cfg, "--ab", tt.ref, "--out", filepath.Join(t.TempDir(), "out")}, tt.extra...)
			code, _, stderr := runCLI(t, args...)
			if code != tt.code || !strings.Contains(stderr, tt.say) {
				t.Errorf("exit %d, want %d with %q; stderr:\n%s", code, tt.code, tt.say, stderr)
			}
		})
	}
}

// TestGateDesignNeedsAB: --design chooses how --ab measures; without
// --ab it is a usage error, not a flag silently ignored.
func TestGateDesignNeedsAB(t *testing.T) {
	code, _, stderr := runCLI(t, "gate", "--config", "perfgate.yaml", "--design", "concurrent")
	if code != exitUsage || !strings.Contains(stderr, "give --ab REF") {
		t.Errorf("exit %d, want %d saying --design needs --ab; stderr:\n%s", code, exitUsage, stderr)
	}
}

// TestGateABDesignConcurrent: gate --ab --design concurrent measures a
// fixed-rate scenario with both sides at once and a closed loop
// interleaved, and the comparison records the design, per run and per
// scenario.
func TestGateABDesignConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("an A/B run of a real target")
	}
	t.Parallel() // light, and robust beside another: see runCLI
	cfg := gitRepo(t, `version: 1
ab: {max_trials: 2}
targets:
  server:
    command: ["sh", "-c", "exec \"$0\" fixture serve --addr 127.0.0.1:$1 --model sim --sim-fixed 1ms", "{perfgate}", "{port}"]
    env: {PERFGATE_TEST_MAIN: "1"}
    ready: "http://127.0.0.1:{port}/v2/health/ready"
    ready_timeout: 60s
scenarios:
  - {name: api, layer: model, target: server, protocol: kserve-http, model: mlp-sim,
     load: {mode: rate, rate: 50, duration: 300ms, warmup: 100ms, trials: 1}}
  - {name: closed, layer: model, target: server, protocol: kserve-http, model: mlp-sim,
     load: {mode: concurrency, concurrency: 1, duration: 300ms, warmup: 100ms, trials: 1}}
`)
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runCLI(t, "gate", "--config", cfg, "--ab", "HEAD", "--design", "concurrent", "--out", out)
	if code != exitPass {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitPass, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "comparison.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		AB struct {
			Design    string `json:"design"`
			Scenarios []struct {
				Design, Order string
			} `json:"scenarios"`
		} `json:"ab"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	// The closed loop has no schedule to share: it is measured
	// interleaved, and says so.
	want := []struct{ Design, Order string }{{"concurrent", "=="}, {"interleaved", "ABBA"}}
	if c.AB.Design != "concurrent" || len(c.AB.Scenarios) != 2 || c.AB.Scenarios[0] != want[0] || c.AB.Scenarios[1] != want[1] {
		t.Errorf("ab %+v, want the concurrent design asked for, the fixed rate measured by it (order ==) and the closed loop interleaved (ABBA)", c.AB)
	}
	if !strings.Contains(stderr, "a/b: closed: measured interleaved: mode concurrency has no open-loop schedule to share") {
		t.Errorf("the log does not say why the closed loop was measured interleaved:\n%s", stderr)
	}
}

// abNoKneeConfig is an A/B config of one knee search against this test
// binary's reference server whose every probe passes (an SLO of 10 s, the
// start at the max_rate, so each side's search is one passing probe):
// neither side's search can bracket its knee, so both sides are invalid and the verdict is
// inconclusive by construction, whatever the host's noise. The rows test
// how the verdict maps to an exit code, not a figure, so the probe's
// window is short (at 8/s it is lengthened to 400 ms, the most it may be).
const abNoKneeConfig = `version: 1
slo: {p99: 10s}
gate: {p99_regression: 5%%%s}
targets:
  server:
    command: ["sh", "-c", "exec \"$0\" fixture serve --addr 127.0.0.1:$1 --model sim --sim-fixed 1ms", "{perfgate}", "{port}"]
    env: {PERFGATE_TEST_MAIN: "1"}
    ready: "http://127.0.0.1:{port}/v2/health/ready"
    ready_timeout: 60s
scenarios:
  - {name: api, layer: model, target: server, protocol: kserve-http, model: mlp-sim,
     load: {mode: sweep, start: 8, max_rate: 8, duration: 100ms, warmup: 50ms, budget: 10s}}
`

// abInconclusiveRepo is a git repository whose committed configs are
// abNoKneeConfig (perfgate.yaml) and the same with
// gate.on_inconclusive: fail (perfgate-fail.yaml). It returns its folder.
func abInconclusiveRepo(t *testing.T) string {
	t.Helper()
	cfg := gitRepo(t, fmt.Sprintf(abNoKneeConfig, ""))
	dir := filepath.Dir(cfg)
	os.WriteFile(filepath.Join(dir, "perfgate-fail.yaml"), []byte(fmt.Sprintf(abNoKneeConfig, ", on_inconclusive: fail")), 0o644)
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "fail on inconclusive"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// Issue 30, bug 1: an inconclusive A/B gate exits 1 when asked to (the
// --fail-on-inconclusive flag, gate.on_inconclusive: fail, the Action's
// compare-with: base with on-inconclusive: fail), as the stored gate does,
// and passes as inconclusive otherwise. Before the fix every row exited 0.
func TestGateABOnInconclusive(t *testing.T) {
	if testing.Short() {
		t.Skip("A/B runs of a real target")
	}
	t.Parallel() // inconclusive by construction: see runCLI
	dir := abInconclusiveRepo(t)
	head := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))
	tests := []struct {
		name     string
		config   string
		args     []string
		action   map[string]string // run as the Action with these inputs
		wantCode int
		want     string
	}{
		{name: "default passes as inconclusive", config: "perfgate.yaml", wantCode: exitPass, want: "inconclusive"},
		{name: "flag", config: "perfgate.yaml", args: []string{"--fail-on-inconclusive"}, wantCode: exitRegression, want: "gate inconclusive"},
		{name: "config", config: "perfgate-fail.yaml", wantCode: exitRegression, want: "gate inconclusive"},
		{name: "flag overrides the config", config: "perfgate-fail.yaml", args: []string{"--on-inconclusive", "pass"}, wantCode: exitPass, want: "inconclusive"},
		{name: "action compare-with base", config: "perfgate.yaml", action: map[string]string{"INPUT_ON-INCONCLUSIVE": "fail"},
			wantCode: exitRegression, want: "on-inconclusive is fail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			var code int
			var stdout, stderr string
			if tt.action != nil {
				srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
				r := newActionRun(t, srv, "pull_request")
				event := filepath.Join(t.TempDir(), "event.json")
				os.WriteFile(event, []byte(`{"number": 17, "pull_request": {"number": 17, "head": {"sha": "`+prHead+`"}, "base": {"sha": "`+head+`"}}}`), 0o644)
				r.vars["GITHUB_EVENT_PATH"] = event
				r.vars["INPUT_CONFIG"] = filepath.Join(dir, tt.config)
				r.vars["INPUT_COMPARE-WITH"] = "base"
				r.vars["INPUT_COMMENT"] = "false"
				for k, v := range tt.action {
					r.vars[k] = v
				}
				// The Action writes perfgate-out under its working folder:
				// a temporary one, not the package's.
				e := &env{getenv: func(k string) string { return r.vars[k] }, stdin: strings.NewReader(""),
					stdout: &r.stdout, stderr: &r.stderr, workdir: t.TempDir()}
				code = exitCode(runAction(context.Background(), e, nil,
					pipelines{gate: runGatePipeline, baseline: runBaselinePipeline, ab: runABPipeline}), &r.stderr)
				stdout, stderr = r.stdout.String(), r.stderr.String()
			} else {
				args := append([]string{"gate", "--config", filepath.Join(dir, tt.config), "--ab", "HEAD", "--out", out}, tt.args...)
				code, stdout, stderr = runCLI(t, args...)
			}
			if code != tt.wantCode || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, tt.want, stdout, stderr)
			}
			if !strings.Contains(stdout, "inconclusive") && !strings.Contains(stdout, "INCONCLUSIVE") {
				t.Errorf("the report does not say inconclusive:\n%s", stdout)
			}
		})
	}
}

// gitOut runs git in dir and returns its output.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
