package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// runCLI runs the command in process and returns its exit code and output.
//
// Tests in parallel: go test runs those that call t.Parallel two at a time
// (-parallel is the CPU count), after the others. They are tests that
// load a target lightly (a request or two in
// flight) and assert what a busy neighbour cannot change (an exit code, an
// error class, a message, a 25× slowdown under ignore_host_load), or a
// verdict fixed by construction (TestGateABOnInconclusive). A test that
// asserts a measured figure, saturates a core, reads the process's heap,
// or skips on a busy host stays sequential: beside another it would fail,
// or pass by skipping.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errb, workdir: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := run(ctx, args, e)
	return exitCode(err, &errb), out.String(), errb.String()
}

// skipIfBusy skips a test whose run exited 3 only because the shared
// machine starved the load generator: perfgate rightly marks such a
// result invalid (its warnings, on stdout, say so), which is not what the
// test is about.
func skipIfBusy(t *testing.T, code int, stdout string) {
	t.Helper()
	if code != exitRunFailed {
		return
	}
	for _, why := range []string{"the generator was saturated", "the generator could not keep up", "the machine was busy"} {
		if strings.Contains(stdout, why) {
			t.Skipf("the machine was too busy to measure: %s", why)
		}
	}
}

func TestRunExitCodes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(down.Close)
	dir := t.TempDir()
	badCfg := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badCfg, []byte("version: 1\nscenarios:\n  - name: a\n    layer: model\n    url: "+srv.URL+"\n    load: {mode: rate, rte: 5}\n"), 0o644)
	trace := filepath.Join(dir, "trace.jsonl")
	os.WriteFile(trace, []byte("{\"offset_ms\": 0}\n{\"offset_ms\": 20}\n{\"offset_ms\": 40, \"body\": {\"x\": 1}}\n"), 0o644)
	badTrace := filepath.Join(dir, "bad-trace.jsonl")
	os.WriteFile(badTrace, []byte("{\"offset_ms\": 0}\n{\"offset_ms\": \"soon\"}\n"), 0o644)
	deadTarget := filepath.Join(dir, "dead.yaml")
	os.WriteFile(deadTarget, []byte(`version: 1
targets:
  broken:
    command: ["sh", "-c", "echo cannot load model >&2; exit 7"]
    ready: "http://127.0.0.1:{port}/ready"
    ready_timeout: 5s
scenarios:
  - {name: a, layer: model, target: broken, load: {mode: rate, rate: 5, duration: 1s, warmup: 0s, trials: 1}}
`), 0o644)

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"no command", nil, exitUsage, "no command given"},
		{"unknown command", []string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{"run without target", []string{"run"}, exitUsage, "give --config"},
		{"two modes", []string{"run", "--url", srv.URL, "--rate", "5", "--concurrency", "2"}, exitUsage, "exactly one of"},
		{"bad body flag", []string{"run", "--url", srv.URL, "--rate", "5", "--body", "x.json"}, exitUsage, "@FILE"},
		{"config error names file and line", []string{"run", "--config", badCfg}, exitUsage, "bad.yaml:6: scenarios[0].load.rte: unknown key"},
		// The target exits before it is ready: the run failed (3) and the
		// error quotes the target's log.
		{"target dies", []string{"run", "--config", deadTarget, "--out", filepath.Join(dir, "o")}, exitRunFailed, "cannot load model"},
		{"all requests fail", []string{"run", "--url", down.URL, "--rate", "20", "--duration", "300ms", "--warmup", "0s", "--trials", "1"}, exitRunFailed, "every request failed"},
		{"replay a trace", []string{"run", "--url", srv.URL, "--trace", trace, "--speed", "2"}, exitPass, ""},
		{"bad trace names file and line", []string{"run", "--url", srv.URL, "--trace", badTrace}, exitUsage, "bad-trace.jsonl:2"},
		{"missing body file", []string{"run", "--url", srv.URL, "--rate", "5", "--body", "@" + filepath.Join(dir, "nope.json")}, exitUsage, "nope.json"},
		{"quick run passes", []string{"run", "--url", srv.URL, "--rate", "50", "--duration", "300ms", "--warmup", "100ms", "--trials", "2"}, exitPass, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if tt.wantCode == exitPass {
				skipIfBusy(t, code, stdout)
			}
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d; stderr:\n%s", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.wantStderr, stderr)
			}
		})
	}
}

// A quick run writes a perfgate.result/v1 file with the measured trials.
func TestRunWritesResult(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Millisecond)
	}))
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := runCLI(t, "run", "--url", srv.URL, "--concurrency", "4", "--duration", "400ms", "--warmup", "100ms", "--trials", "3", "--out", out)
	skipIfBusy(t, code, stdout)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Trials) != 3 || r.Summary.Requests == 0 || r.Load.Mode != "concurrency" || r.Environment.Cores == 0 {
		t.Errorf("result = %d trials, %d requests, mode %q, %d cores", len(r.Trials), r.Summary.Requests, r.Load.Mode, r.Environment.Cores)
	}
	if r.Summary.Latency.P50 < 2 {
		t.Errorf("P50 %.2f ms is below the server's 2 ms service time", r.Summary.Latency.P50)
	}
	if !strings.Contains(stdout, "p99 ms") {
		t.Errorf("no summary table on stdout:\n%s", stdout)
	}
}

// SIGINT or SIGTERM (a cancelled context) stops the load, writes the
// partial result marked interrupted, and exits 3.
func TestRunInterruptedWritesPartial(t *testing.T) {
	// The interrupt comes once the server has answered a few requests,
	// not after a fixed time: on a busy host the run's setup alone can
	// take longer than any fixed delay.
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served.Add(1) }))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "p.yaml")
	os.WriteFile(cfg, []byte("version: 1\nscenarios:\n  - {name: long, layer: system, url: '"+srv.URL+"', load: {mode: rate, rate: 50, duration: 30s, warmup: 0s, trials: 1}}\n"), 0o644)
	var out, errb bytes.Buffer
	e := &env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errb, workdir: dir}
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	var stopped atomic.Int64 // when the interrupt came, in Unix nanoseconds
	go func() {
		for served.Load() < 20 && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		stopped.Store(time.Now().UnixNano())
		cancel()
	}()
	code := exitCode(run(ctx, []string{"run", "--config", cfg, "--out", filepath.Join(dir, "out")}, e), &errb)
	if at := stopped.Load(); at != 0 && time.Since(time.Unix(0, at)) > 10*time.Second {
		t.Errorf("the interrupted run took %v to stop", time.Since(time.Unix(0, at)))
	}
	if code != exitRunFailed {
		t.Errorf("exit code = %d, want %d", code, exitRunFailed)
	}
	r, err := result.ReadFile(filepath.Join(dir, "out", "long.json"))
	if err != nil {
		t.Fatalf("the partial result was lost: %v", err)
	}
	if !r.Interrupted || r.Valid || r.Summary.Requests == 0 {
		t.Errorf("partial result: interrupted=%v valid=%v requests=%d; want interrupted, invalid, some requests", r.Interrupted, r.Valid, r.Summary.Requests)
	}
}

// An engine setting in the environment that means nothing stops a command
// that sends load before it starts: exit 2, naming the variable.
func TestEngineEnvIsBadInput(t *testing.T) {
	for _, cmd := range [][]string{{"run", "--url", "http://127.0.0.1:9/", "--rate", "10"}, {"demo", "--quick"}, {"gate"}} {
		var out, errb bytes.Buffer
		e := &env{getenv: func(k string) string {
			if k == "PERFGATE_LOOP_BATCH" {
				return "fast"
			}
			return ""
		}, stdout: &out, stderr: &errb, workdir: t.TempDir()}
		code := exitCode(run(t.Context(), cmd, e), &errb)
		if code != exitUsage || !strings.Contains(errb.String(), `PERFGATE_LOOP_BATCH="fast"`) {
			t.Errorf("perfgate %s: exit %d, stderr %q; want %d naming PERFGATE_LOOP_BATCH", cmd[0], code, errb.String(), exitUsage)
		}
	}
}

// An --out folder that is a symbolic link (a pull request can commit
// perfgate-out as one) is refused before anything runs, exit 2, naming
// it; nothing is written through it (run and gate alike).
func TestOutFolderLinkRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(cfg, []byte("version: 1\nscenarios:\n  - {name: a, layer: service, url: \""+srv.URL+
		"\", load: {mode: rate, rate: 20, duration: 200ms, warmup: 0s, trials: 1}}\n"), 0o644)
	elsewhere := t.TempDir()
	link := filepath.Join(dir, "perfgate-out")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", "--config", cfg, "--out", link},
		{"run", "--config", cfg, "--out", filepath.Join(link, "results")},
		{"gate", "--config", cfg, "--out", link, "--baselines", t.TempDir()},
	} {
		// The working directory is the checkout holding the link.
		var out, errb bytes.Buffer
		e := &env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errb, workdir: dir}
		code := exitCode(run(t.Context(), args, e), &errb)
		stderr := errb.String()
		if code != exitUsage || !strings.Contains(stderr, link) || !strings.Contains(stderr, "symbolic link") {
			t.Errorf("perfgate %v: exit %d, want %d naming the link:\n%s", args, code, exitUsage, stderr)
		}
		if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
			t.Errorf("perfgate %v wrote %v through the link", args, ents)
		}
	}
}

// A run whose result is marked invalid says so in its row and exits 3
// (issue 43: an ordinary row and exit 0; the user learnt it only when
// baseline update refused the file). The outcome is built here: what
// marks a whole result invalid (a saturated generator) cannot be caused
// on purpose on a shared machine.
func TestRunInvalidExits3(t *testing.T) {
	res := func(name string, valid bool) suite.Outcome {
		return suite.Outcome{Scenario: &config.Scenario{Name: name, Layer: "model"}, Result: &result.Result{
			Schema: result.Schema, Scenario: name, Layer: "model", Valid: valid, Load: result.Load{Mode: "rate", Rate: 100, Trials: 1},
			Summary:  result.Summary{Requests: 100, AchievedRPS: 99, Latency: result.Latency{P50: 1, P90: 2, P99: 3, P999: 4, Max: 5}},
			Warnings: map[bool][]string{false: {"generator-bound: the generator was saturated"}}[valid]}}
	}
	tests := []struct {
		name     string
		outs     []suite.Outcome
		wantCode int
		wantRow  string // a row of stdout
		wantErr  string
	}{
		{"valid", []suite.Outcome{res("api", true)}, exitPass, "api  model", ""},
		{"one invalid of two", []suite.Outcome{res("api", true), res("chat", false)}, exitRunFailed, "chat INVALID", `invalid run of scenario "chat"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			e := &env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errb}
			err := runEnd(context.Background(), e, tt.outs)
			code := exitCode(err, &errb)
			if code != tt.wantCode || !strings.Contains(errb.String(), tt.wantErr) {
				t.Errorf("runEnd: exit %d, stderr %q; want exit %d with %q", code, errb.String(), tt.wantCode, tt.wantErr)
			}
			if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), strings.Join(strings.Fields(tt.wantRow), " ")) {
				t.Errorf("stdout has no row with %q:\n%s", tt.wantRow, out.String())
			}
		})
	}
}
