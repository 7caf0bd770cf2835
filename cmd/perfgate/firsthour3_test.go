package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The first hour, part III (issue 47): a newcomer's service, a config
// written from docs/configuration.md, the README's commands in order.

// fixtureTarget is a target block serving this test binary's fixture
// (TestMain runs main when PERFGATE_TEST_MAIN=1) on the port perfgate
// gives it, that refuses to start until its build step has written
// built.txt in its folder.
func fixtureTarget(build string) string {
	return `targets:
  svc:
    command: ["sh", "-c", "test -f built.txt || { echo 'svc: not built' >&2; exit 9; }; exec \"$0\" fixture serve --addr 127.0.0.1:$1", "{perfgate}", "{port}"]
    env: {PERFGATE_TEST_MAIN: "1"}
    dir: .
    ready: "http://127.0.0.1:{port}/v2/health/ready"
    ready_timeout: 20s
    build: ` + build + `
`
}

// buildsIn counts the builds that ran in dir: each appends a line to
// built.txt.
func buildsIn(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "built.txt"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// A target's build: runs in every mode that starts it (run --config,
// gate), once per run however many scenarios use the target, its output
// kept beside the results; --no-build skips it; a failed build is exit 3
// quoting the end of its output, before any load.
func TestBuildRunsInEveryMode(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	write := func(build string) {
		t.Helper()
		yaml := "version: 1\nbaselines: bl\n" + fixtureTarget(build) + `scenarios:
  - {name: a, layer: service, target: svc, path: /v2/health/ready, restarts: 1,
     load: {mode: concurrency, concurrency: 1, duration: 100ms, warmup: 0s, trials: 5}}
  - {name: b, layer: service, target: svc, path: /v2/health/live, restarts: 1,
     load: {mode: concurrency, concurrency: 1, duration: 100ms, warmup: 0s, trials: 5}}
`
		if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`["sh", "-c", "echo compiling svc; echo build >> built.txt"]`)
	os.Mkdir(filepath.Join(dir, "bl"), 0o755) // the first run: no baselines yet

	out := filepath.Join(dir, "perfgate-out", "results")
	code, _, stderr := runCLI(t, "run", "--config", cfg, "--out", out)
	if code != exitPass {
		t.Fatalf("run --config: exit %d\n%s", code, stderr)
	}
	if n := buildsIn(t, dir); n != 1 {
		t.Errorf("run --config built %d times, want once for the two scenarios of one target", n)
	}
	if log, err := os.ReadFile(filepath.Join(out, "svc.build.log")); err != nil || !strings.Contains(string(log), "compiling svc") {
		t.Errorf("the build's output is not kept in %s (%v): %q", filepath.Join(out, "svc.build.log"), err, log)
	}
	if !strings.Contains(stderr, "target svc: built in") || !strings.Contains(stderr, "svc.build.log") {
		t.Errorf("run's log does not summarize the build:\n%s", stderr)
	}

	os.Remove(filepath.Join(dir, "built.txt"))
	code, _, stderr = runCLI(t, "gate", "--config", cfg, "--out", filepath.Join(dir, "gate-out"), "--scenario", "a")
	if code != exitPass {
		t.Fatalf("gate: exit %d\n%s", code, stderr)
	}
	if n := buildsIn(t, dir); n != 1 {
		t.Errorf("gate built %d times, want once", n)
	}

	// The Action's baseline mode measures twice and builds once.
	os.Remove(filepath.Join(dir, "built.txt"))
	var errb strings.Builder
	e := &env{getenv: func(string) string { return "" }, stdout: &errb, stderr: &errb, workdir: dir}
	_, err := runBaselinePipeline(context.Background(), e, cfg, filepath.Join(dir, "bl"))
	// Both runs must have measured; whether their results could be
	// stored (a busy machine may mark one invalid) is not the point here.
	if _, serr := os.Stat(filepath.Join(dir, "perfgate-out", "results-run2", "b.json")); serr != nil {
		t.Fatalf("the Action's baseline mode did not measure twice: %v\n%s", err, errb.String())
	}
	if n := buildsIn(t, dir); n != 1 {
		t.Errorf("the Action's baseline mode built %d times, want once for its two runs", n)
	}

	// --no-build starts whatever the folder holds: here, nothing built.
	os.Remove(filepath.Join(dir, "built.txt"))
	code, _, stderr = runCLI(t, "run", "--config", cfg, "--out", out, "--no-build", "--scenario", "a")
	if n := buildsIn(t, dir); n != 0 || code != exitRunFailed || !strings.Contains(stderr, "svc: not built") {
		t.Errorf("run --no-build: %d builds, exit %d; want none, and exit 3 from the unbuilt target:\n%s", n, code, stderr)
	}

	write(`["sh", "-c", "echo compiling svc; echo 'main.go:3: undefined: x' >&2; exit 7"]`)
	for _, cmd := range []string{"run", "gate"} {
		runOut := filepath.Join(dir, cmd+"-failed")
		start := time.Now()
		code, _, stderr = runCLI(t, cmd, "--config", cfg, "--out", runOut)
		if code != exitRunFailed {
			t.Errorf("%s with a failing build: exit %d, want 3\n%s", cmd, code, stderr)
		}
		for _, want := range []string{"build failed: target svc", "exit status 7", "main.go:3: undefined: x"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s with a failing build: stderr lacks %q:\n%s", cmd, want, stderr)
			}
		}
		if strings.Contains(stderr, "started target") {
			t.Errorf("%s started the target after its build failed:\n%s", cmd, stderr)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%s with a failing build took %v: it should stop at the build", cmd, took)
		}
	}
	if code, _, stderr := runCLI(t, "gate", "--config", cfg, "--ab", "HEAD", "--no-build"); code != exitUsage || !strings.Contains(stderr, "--no-build") {
		t.Errorf("gate --ab --no-build: exit %d, want 2 naming --no-build:\n%s", code, stderr)
	}
}

// run --url to a port where nothing listens says so plainly, with the
// address, before any load: in the time of one refused connection, not
// after the whole load has been refused request by request.
func TestRunURLNothingListens(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // the port is now free: nothing listens there
	start := time.Now()
	code, stdout, stderr := runCLI(t, "run", "--url", "http://"+addr+"/predict", "--rate", "50", "--duration", "2s", "--warmup", "1s", "--trials", "3")
	took := time.Since(start)
	if code != exitRunFailed {
		t.Errorf("exit %d, want 3 (the run failed)\n%s", code, stderr)
	}
	if want := "nothing listens on " + addr; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	for _, not := range []string{"warm-up done", "trial 1/", "no process of this user listens"} {
		if strings.Contains(stdout+stderr, not) {
			t.Errorf("output has %q: load was sent, or a misleading note printed:\n%s%s", not, stdout, stderr)
		}
	}
	if took > 1500*time.Millisecond {
		t.Errorf("took %v: nothing listening must be found before the load (7 s of it)", took)
	}
}

// A target that exits mid-run is reported once, clearly: exit 3, its exit
// and the end of its log, and no stray "the run was interrupted" (the
// load was stopped by perfgate because the target died, not by a signal).
func TestTargetExitMidRunReportedOnce(t *testing.T) {
	t.Parallel() // light, and robust beside another: see runCLI
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(cfg, []byte(`version: 1
targets:
  server:
    command: ["sh", "-c", "\"$0\" fixture serve --addr 127.0.0.1:$1 & sleep 2; echo 'fatal: CUDA out of memory' >&2; kill -9 $!; exit 137", "{perfgate}", "{port}"]
    env: {PERFGATE_TEST_MAIN: "1"}
    ready: "http://127.0.0.1:{port}/v2/health/ready"
scenarios:
  - {name: dies, layer: service, target: server, path: /v2/health/ready, restarts: 1,
     load: {mode: concurrency, concurrency: 1, duration: 200ms, warmup: 0s, trials: 40}}
`), 0o644)
	start := time.Now()
	code, stdout, stderr := runCLI(t, "run", "--config", cfg, "--out", filepath.Join(dir, "out"))
	all := stdout + stderr
	if code != exitRunFailed {
		t.Fatalf("exit %d, want 3:\n%s", code, all)
	}
	if took := time.Since(start); took > 7*time.Second {
		t.Errorf("the run took %v: it went on after the target died (40 trials of 200ms)", took)
	}
	for _, want := range []string{`target "server" exited with status 137 during the run`, "last lines of its log"} {
		if n := strings.Count(all, want); n != 1 {
			t.Errorf("%q appears %d times, want once:\n%s", want, n, all)
		}
	}
	if !strings.Contains(stderr, "  fatal: CUDA out of memory") {
		t.Errorf("the end of the target's log is not quoted:\n%s", stderr)
	}
	if strings.Contains(all, "interrupted") {
		t.Errorf("the output calls the run interrupted: the target died, perfgate was not interrupted:\n%s", all)
	}
}

// A target that ignores {port} and listens on a port of its own is never
// ready where perfgate looks: the error says where its log says it
// listens, and which line of the config to change.
func TestTargetIgnoresPort(t *testing.T) {
	t.Parallel() // light, and robust beside another: see runCLI
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fixed := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // free for the target, which binds it itself
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`version: 1
targets:
  svc:
    command: ["{perfgate}", "fixture", "serve", "--addr", "127.0.0.1:%d"]
    env: {PERFGATE_TEST_MAIN: "1"}
    ready: "http://127.0.0.1:{port}/v2/health/ready"
    ready_timeout: 3s
scenarios:
  - {name: api, layer: service, target: svc, load: {mode: rate, rate: 20, duration: 200ms, warmup: 0s, trials: 1}}
`, fixed)), 0o644)
	code, _, stderr := runCLI(t, "run", "--config", cfg, "--out", filepath.Join(dir, "out"))
	if code != exitRunFailed {
		t.Fatalf("exit %d, want 3:\n%s", code, stderr)
	}
	for _, want := range []string{
		fmt.Sprintf("seems to listen on port %d", fixed),
		"the one perfgate gave it as {port}",
		`"fixture", "serve", "--addr", "127.0.0.1:{port}"]`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// run --sweep with an SLO the service can never meet says so plainly:
// the P99 reached at each rate tried and the SLO that would have been met
// (exit 0: the search ran, and its finding, no knee, is in the result).
func TestSweepSLONeverMet(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(3 * time.Millisecond)
	}))
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "knee.json")
	code, stdout, stderr := runCLI(t, "run", "--url", srv.URL, "--sweep", "--slo-p99", "1ms", "--start", "40",
		"--duration", "200ms", "--warmup", "0s", "--budget", "10s", "--out", out)
	if code != exitPass {
		t.Fatalf("exit %d, want 0 (documented: a search that ran is a finding)\n%s", code, stderr)
	}
	r := readResult(t, out)
	if r.Capacity == nil || r.Capacity.Found || len(r.Capacity.Points) == 0 {
		t.Fatalf("capacity %+v: want a search that found no knee", r.Capacity)
	}
	lowest := r.Capacity.Points[0]
	for _, p := range r.Capacity.Points {
		if p.OfferedRPS < lowest.OfferedRPS {
			lowest = p
		}
	}
	// The figures of the result, as the sentence writes them (%.2f and
	// %.1f, trailing zeros trimmed: rounding x·100 instead once read
	// 4.555 as 4.56 where the sentence said 4.55).
	short := func(x float64, decimals int) string {
		s := strconv.FormatFloat(x, 'f', decimals, 64)
		return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	for _, want := range []string{
		"no rate met P99 ≤ 1 ms; the P99 reached at each rate tried: ",
		fmt.Sprintf("%s ms at %s req/s", short(lowest.Latency.P99, 2), short(lowest.OfferedRPS, 1)),
		"would have been met at",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}

// The README walkthrough's knee search against a service faster than its
// --max-rate passed at the cap: size sizes from the bound it found ("at
// most N instances", exit 0) instead of refusing (issue 47: a quiet
// clean clone failed TestReadmeWalkthrough here, exit 2).
func TestSizeFromMaxRateBound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	knee := filepath.Join(t.TempDir(), "knee.json")
	code, _, stderr := runCLI(t, "run", "--url", srv.URL, "--sweep", "--slo-p99", "50ms", "--start", "20", "--max-rate", "40",
		"--duration", "200ms", "--warmup", "0s", "--budget", "10s", "--out", knee)
	if code != exitPass {
		t.Fatalf("run --sweep: exit %d\n%s", code, stderr)
	}
	if c := readResult(t, knee).Capacity; c == nil || !c.ReachedMaxRate || c.Bracket[1] != 0 {
		t.Fatalf("capacity %+v: want a search that passed at its max rate, with no failing probe", c)
	}
	code, stdout, stderr := runCLI(t, "size", "--result", knee, "--peak-qps", "5000", "--headroom", "1.3")
	if code != exitPass {
		t.Fatalf("size: exit %d, want 0\n%s", code, stderr)
	}
	for _, want := range []string{"at most 163 (the knee is above the max rate)", "≥ 40 rps", "fewer instances may do"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("size's output lacks %q:\n%s", want, stdout)
		}
	}
}
