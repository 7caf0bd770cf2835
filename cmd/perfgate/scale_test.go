package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/internal/githubapi/githubapitest"
	"github.com/perfgate/perfgate/refserver"
	"github.com/perfgate/perfgate/result"
)

// TestMain lets a test start this package's test binary as the perfgate
// command (PERFGATE_TEST_MAIN=1), for tests that need separate processes.
func TestMain(m *testing.M) {
	if os.Getenv("PERFGATE_TEST_MAIN") == "1" {
		main()
		return
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// knownLatencyServer answers every 50th request in 1 s and the others in
// 100 ms, counted over all clients: 2% slow, so P50 is the middle of the
// fast requests and P99 the middle of the slow ones. Both are then medians
// of (server time + scheduling noise), which a loaded machine moves far
// less than it moves a tail: a fast request delayed even by a few hundred
// milliseconds stays below every slow one.
func knownLatencyServer(t *testing.T) string {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%50 == 0 {
			time.Sleep(time.Second)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// perfgateProcess starts the test binary as perfgate with args.
func perfgateProcess(ctx context.Context, args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "PERFGATE_TEST_MAIN=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// Three generator processes at a third of the rate each, started at one
// --start-at instant and merged, measure what one process at the whole
// rate measures against a server of known latency: the same P50 and P99
// (within HDR precision plus 5%) and the same request count (within 1%),
// with a start skew under 50 ms. The one process and the three run at the
// same time, each against its own copy of the server, so that both see the
// machine in the same state; a machine shared by many jobs can still stall
// a process for most of a second, so a comparison spoiled that way is
// measured again, up to three times in all. A real difference (a schedule
// that is not the whole one, an inexact merge) fails every attempt.
func TestGeneratorsMatchOneProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four load generators for about 10 s, up to three times")
	}
	var problems, late []string
	for attempt := 1; attempt <= 3; attempt++ {
		got, stalled := compareGenerators(t, attempt)
		if stalled != "" {
			// Not a comparison at all: the host held a generator past
			// the shared start instant (which it refuses, as it should),
			// or held their start as long as their sends.
			late = append(late, fmt.Sprintf("attempt %d: %s", attempt, stalled))
			t.Logf("attempt %d: %s", attempt, stalled)
			continue
		}
		if len(got) == 0 {
			return
		}
		problems = got
		t.Logf("attempt %d: %s", attempt, strings.Join(problems, "; "))
	}
	if len(problems) == 0 {
		t.Skipf("host too busy to start the generators together on any attempt: %s", strings.Join(late, "; "))
	}
	t.Errorf("3 generators vs one process, on every attempt: %s", strings.Join(problems, "; "))
}

// compareGenerators runs one attempt and returns what did not match, or,
// when the host held a generator past the shared --start-at instant (it
// then refuses to run, exit 3), why the attempt compared nothing.
func compareGenerators(t *testing.T, attempt int) (problems []string, stalled string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	load := []string{"run", "--rate", "100", "--duration", "2s", "--warmup", "1s", "--trials", "3"}
	startAt := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)
	type proc struct {
		cmd *exec.Cmd
		out *bytes.Buffer
	}
	var procs []proc
	one := filepath.Join(dir, "one.json")
	cmd, out := perfgateProcess(ctx, append(load, "--url", knownLatencyServer(t), "--out", one)...)
	procs = append(procs, proc{cmd, out})
	shared := knownLatencyServer(t)
	for i := 1; i <= 3; i++ {
		d := filepath.Join(dir, "shards", fmt.Sprintf("g%d", i))
		os.MkdirAll(d, 0o755)
		cmd, out := perfgateProcess(ctx, append(load, "--url", shared, "--generator", fmt.Sprintf("%d/3", i),
			"--start-at", startAt, "--out", filepath.Join(d, "run.json"))...)
		procs = append(procs, proc{cmd, out})
	}
	var wg sync.WaitGroup
	errs := make([]error, len(procs))
	for i, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = p.cmd.Run() }()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil && strings.Contains(procs[i].out.String(), "late, after the warm-up's end") {
			return nil, fmt.Sprintf("process %d reached the start instant late: %s", i, lastLine(procs[i].out.String()))
		}
		if err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, procs[i].out)
		}
	}
	code, stdout, stderr := runCLI(t, "merge", "--out", filepath.Join(dir, "merged"), filepath.Join(dir, "shards"))
	if code != exitPass {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	single, err := result.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := result.ReadFile(filepath.Join(dir, "merged", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, m := single.Summary, merged.Summary
	t.Logf("attempt %d: one process:  %d requests, P50 %.3f ms, P99 %.3f ms, achieved %.1f rps, schedule lag P99 %.1f ms",
		attempt, s.Requests, s.Latency.P50, s.Latency.P99, s.AchievedRPS, s.LagP99Ms)
	t.Logf("attempt %d: 3 generators: %d requests, P50 %.3f ms, P99 %.3f ms, achieved %.1f rps, schedule lag P99 ≤ %.1f ms, start skew %.3f ms",
		attempt, m.Requests, m.Latency.P50, m.Latency.P99, m.AchievedRPS, m.LagP99Ms, merged.Merged.StartSkewMs)

	// Every shard was told the same instant, and the server's known figures
	// bound the measured ones from below: these hold on any attempt.
	for _, sh := range merged.Merged.Shards {
		if sh.StartAt == nil || sh.StartAt.Format(time.RFC3339Nano) != startAt {
			t.Errorf("shard %d start_at %v, want %s", sh.Index, sh.StartAt, startAt)
		}
	}
	if m.Latency.P50 < 100 || m.Latency.P99 < 1000 {
		t.Errorf("P50 %.1f ms, P99 %.1f ms: faster than the server's 100 ms and 1 s", m.Latency.P50, m.Latency.P99)
	}
	// HDR keeps 3 significant digits: a value is known to 1 part in 10³.
	near := func(got, want float64) bool { return math.Abs(got-want) <= 0.05*want+2e-3*want }
	if !near(m.Latency.P50, s.Latency.P50) {
		problems = append(problems, fmt.Sprintf("P50 %.3f ms vs %.3f ms: over 5%% apart", m.Latency.P50, s.Latency.P50))
	}
	if !near(m.Latency.P99, s.Latency.P99) {
		problems = append(problems, fmt.Sprintf("P99 %.3f ms vs %.3f ms: over 5%% apart", m.Latency.P99, s.Latency.P99))
	}
	if d := math.Abs(float64(m.Requests - s.Requests)); d > 0.01*float64(s.Requests) {
		problems = append(problems, fmt.Sprintf("requests %d vs %d: over 1%% apart", m.Requests, s.Requests))
	}
	if sk := merged.Merged.StartSkewMs; sk >= 50 {
		// The generators' own schedule lag, measured in the same run, is
		// the reference: a host that held their sends that late also held
		// their start; only a skew beyond it is the merge's.
		if len(problems) == 0 && m.LagP99Ms >= sk {
			return nil, fmt.Sprintf("start skew %.1f ms, within the generators' own schedule lag P99 of %.1f ms (a busy host)", sk, m.LagP99Ms)
		}
		// A process woken at the start instant beside a CPU hog can wait
		// a scheduler slice or more to run, once: its sends' P99 lag does
		// not show it, how late its goroutines ran (sched P99) does.
		if len(problems) == 0 && max(m.GeneratorSchedP99Ms, s.GeneratorSchedP99Ms) > 5 {
			return nil, fmt.Sprintf("start skew %.1f ms on a busy host (generator sched P99 %.1f ms merged, %.1f ms alone)", sk, m.GeneratorSchedP99Ms, s.GeneratorSchedP99Ms)
		}
		problems = append(problems, fmt.Sprintf("start skew %.1f ms, want under 50 ms", sk))
	}
	return problems, ""
}

// The demo config split into parts, each part's results in its own
// folder (a matrix job's artifact), gathered with perfgate merge and gated
// with gate --results: the same comparison, verdict included, as gating the
// unsplit results, and as evaluating them in process.
func TestPartsGateLikeUnsplit(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "perfgate.yaml")
	if err := os.WriteFile(cfgPath, refserver.DemoConfig(), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	gen := func(name, layer string, scale float64) *result.Result {
		return comparetest.Result(comparetest.Spec{Scenario: name, Layer: layer, Trials: 5, Requests: 2000,
			MedianMs: 5, Noise: 0.01, Scale: scale}, rng)
	}
	var base, cand []*result.Result
	for _, s := range cfg.Scenarios {
		scale := 1.0
		if s.Name == "model-int8" {
			scale = 1.3 // a regression the gate must find
		}
		base = append(base, gen(s.Name, s.Layer, 1))
		cand = append(cand, gen(s.Name, s.Layer, scale))
	}
	write := func(sub string, rs []*result.Result) string {
		d := filepath.Join(dir, sub)
		os.MkdirAll(d, 0o755)
		for _, r := range rs {
			if err := r.WriteFile(filepath.Join(d, result.FileName(r.Scenario))); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	baseDir := write("baselines", base)
	unsplit := write("unsplit", cand)

	const n = 3
	for i := 1; i <= n; i++ {
		code, stdout, stderr := runCLI(t, "run", "--config", cfgPath, "--part", partName(i, n), "--list")
		if code != exitPass {
			t.Fatalf("--list: exit %d: %s", code, stderr)
		}
		var rs []*result.Result
		for _, name := range strings.Fields(stdout) {
			for _, r := range cand {
				if r.Scenario == name {
					c := *r
					c.Part = &result.Part{Index: i, Count: n, ConfigHash: cfg.Hash}
					rs = append(rs, &c)
				}
			}
		}
		write(filepath.Join("artifacts", fmt.Sprintf("part-%d", i), "results"), rs)
	}
	code, stdout, stderr := runCLI(t, "merge", "--out", filepath.Join(dir, "merged"), filepath.Join(dir, "artifacts"))
	if code != exitPass {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}

	gateJSON := func(results string) (int, map[string]any) {
		out := filepath.Join(dir, "gate-"+filepath.Base(results))
		code, _, stderr := runCLI(t, "gate", "--config", cfgPath, "--results", results, "--baselines", baseDir, "--out", out, "--format", "json")
		b, err := os.ReadFile(filepath.Join(out, "comparison.json"))
		if err != nil {
			t.Fatalf("gate --results %s: exit %d, %v\n%s", results, code, err, stderr)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		return code, v
	}
	codeM, merged := gateJSON(filepath.Join(dir, "merged"))
	codeU, whole := gateJSON(unsplit)
	if codeM != exitRegression || codeU != exitRegression {
		t.Errorf("exit codes: merged %d, unsplit %d; want both 1 (model-int8 regressed)", codeM, codeU)
	}
	if d := cmp.Diff(whole, merged); d != "" {
		t.Errorf("comparison of the merged parts differs from the unsplit one (-unsplit +merged):\n%s", d)
	}
	rep, err := gate.Evaluate(cfg, base, cand, cand, false)
	if err != nil {
		t.Fatal(err)
	}
	if merged["verdict"] != string(rep.Comparison.Verdict) || rep.Comparison.Verdict != "fail" {
		t.Errorf("verdict: merged parts %v, in-process evaluation %q; want both fail", merged["verdict"], rep.Comparison.Verdict)
	}

	// A part that failed leaves its scenarios out: the gate says which, exit 3.
	os.Remove(filepath.Join(dir, "merged", "model-int8.json"))
	code, _, stderr = runCLI(t, "gate", "--config", cfgPath, "--results", filepath.Join(dir, "merged"), "--baselines", baseDir, "--out", filepath.Join(dir, "gate-missing"))
	if code != exitRunFailed || !strings.Contains(stderr, "scenario model-int8 has no result") {
		t.Errorf("gate with a missing scenario: exit %d, want 3 naming it; stderr:\n%s", code, stderr)
	}
}

func partName(i, n int) string { return fmt.Sprintf("%d/%d", i, n) }

// The scale flags' usage errors exit 2 with a message naming the flag.
func TestScaleUsageErrors(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(cfgPath, refserver.DemoConfig(), 0o644)
	sweep := filepath.Join(dir, "sweep.yaml")
	os.WriteFile(sweep, []byte("version: 1\nslo: {p99: 50ms}\nscenarios:\n  - {name: k, layer: service, url: \"http://127.0.0.1:1\", load: {mode: sweep}}\n"), 0o644)
	shardA := comparetest.Result(comparetest.Spec{Scenario: "fleet", Trials: 2, Requests: 10, MedianMs: 5}, rand.New(rand.NewPCG(1, 1)))
	shardB := comparetest.Result(comparetest.Spec{Scenario: "fleet", Trials: 2, Requests: 10, MedianMs: 5}, rand.New(rand.NewPCG(2, 2)))
	shardA.Generator = &result.Generator{Index: 1, Count: 2, ConfigHash: "h"}
	shardB.Generator = &result.Generator{Index: 2, Count: 2, ConfigHash: "h"}
	shardB.Load.Rate *= 2
	shardA.WriteFile(filepath.Join(dir, "a.json"))
	shardB.WriteFile(filepath.Join(dir, "b.json"))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"part without config", []string{"run", "--url", "http://127.0.0.1:1", "--rate", "1", "--part", "1/2"}, "give --config"},
		{"part and scenario", []string{"run", "--config", cfgPath, "--part", "1/2", "--scenario", "llm-stream"}, "not both"},
		{"part out of range", []string{"run", "--config", cfgPath, "--part", "3/2", "--list"}, `--part "3/2": want I/N`},
		{"generator not I/N", []string{"run", "--url", "http://127.0.0.1:1", "--rate", "1", "--generator", "two"}, `--generator "two"`},
		{"start-at alone", []string{"run", "--url", "http://127.0.0.1:1", "--rate", "1", "--start-at", "2026-01-01T00:00:00Z"}, "give --generator"},
		{"start-at not RFC 3339", []string{"run", "--url", "http://127.0.0.1:1", "--rate", "1", "--generator", "1/2", "--start-at", "noon"}, "want an RFC 3339 instant"},
		{"start-at past", []string{"run", "--url", "http://127.0.0.1:1", "--rate", "1", "--generator", "1/2", "--start-at", "2020-01-01T00:00:00Z"}, "in the past"},
		{"generator over concurrency", []string{"run", "--url", "http://127.0.0.1:1", "--concurrency", "2", "--generator", "1/3"}, "concurrency 2 split over 3 generators"},
		{"generator on a sweep", []string{"run", "--config", sweep, "--generator", "1/2"}, "cannot be split over generators"},
		{"merge without out", []string{"merge", dir}, "give --out DIR"},
		{"merge different loads", []string{"merge", "--out", filepath.Join(dir, "m"), filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")}, "different loads"},
		{"merge no results", []string{"merge", "--out", filepath.Join(dir, "m"), filepath.Join(dir, "m-missing")}, "no such file"},
	}
	// A refused run leaves no empty output folder behind ("generator on a
	// sweep" is refused after its default perfgate-out/results, relative
	// to this package's folder, was created).
	_, before := os.Stat(defaultOutDir)
	t.Cleanup(func() {
		if _, after := os.Stat(defaultOutDir); before != nil && after == nil {
			t.Errorf("a refused run left %s/ behind", defaultOutDir)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want 2 with %q; stderr:\n%s", code, tt.want, stderr)
			}
		})
	}
}

// The Action's `results` input gates results measured elsewhere (the
// matrix's gating job): nothing is run (the config's URL accepts no
// connection), the regression in the results fails the gate, and the one
// comment is posted.
func TestActionGatesResults(t *testing.T) {
	work := t.TempDir()
	cfg := filepath.Join(work, "perfgate.yaml")
	os.WriteFile(cfg, []byte(`version: 1
baselines: perfgate/baselines
scenarios:
  - {name: api, layer: service, url: "http://127.0.0.1:1", load: {mode: concurrency, concurrency: 2, duration: 300ms, warmup: 100ms, trials: 5}}
`), 0o644)
	rng := rand.New(rand.NewPCG(4, 4))
	base := comparetest.Result(comparetest.Spec{Scenario: "api", Layer: "service", Trials: 5, Requests: 2000, MedianMs: 5, Noise: 0.01}, rng)
	cand := comparetest.Result(comparetest.Spec{Scenario: "api", Layer: "service", Trials: 5, Requests: 2000, MedianMs: 5, Noise: 0.01, Scale: 1.4}, rng)
	os.MkdirAll(filepath.Join(work, "perfgate", "baselines"), 0o755)
	os.MkdirAll(filepath.Join(work, "merged"), 0o755)
	base.WriteFile(filepath.Join(work, "perfgate", "baselines", "api.json"))
	cand.WriteFile(filepath.Join(work, "merged", "api.json"))

	srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
	pr := newActionRun(t, srv, "pull_request")
	pr.vars["INPUT_CONFIG"] = cfg
	pr.vars["INPUT_RESULTS"] = filepath.Join(work, "merged")
	wd, _ := os.Getwd()
	pr.vars["GITHUB_EVENT_PATH"] = filepath.Join(wd, pr.vars["GITHUB_EVENT_PATH"])
	e := &env{getenv: func(k string) string { return pr.vars[k] }, stdin: strings.NewReader(""),
		stdout: &pr.stdout, stderr: &pr.stderr, workdir: work}
	code := exitCode(runAction(context.Background(), e, nil, pipelines{gate: runGatePipeline, baseline: runBaselinePipeline}), &pr.stderr)
	if code != exitRegression || pr.outputs()["verdict"] != "fail" {
		t.Fatalf("exit %d, verdict %q; want 1 and fail\nstderr:\n%s", code, pr.outputs()["verdict"], pr.stderr.String())
	}
	if n := len(srv.Comments(17)); n != 1 {
		t.Errorf("%d comments on the pull request, want 1", n)
	}
	if _, err := os.Stat(filepath.Join(work, "perfgate-out", "results")); err == nil {
		t.Error("the Action ran the scenarios: perfgate-out/results exists")
	}
}

// Merging again into a folder inside the inputs does not read back what
// the earlier merge wrote there; relative paths resolve against the
// working folder.
func TestMergeAgainIntoInputs(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 5))
	for i := 1; i <= 2; i++ {
		r := comparetest.Result(comparetest.Spec{Scenario: "fleet", Trials: 2, Requests: 100, MedianMs: 5}, rng)
		r.Generator = &result.Generator{Index: i, Count: 2, ConfigHash: "h"}
		d := filepath.Join(dir, "shards", fmt.Sprintf("g%d", i))
		os.MkdirAll(d, 0o755)
		if err := r.WriteFile(filepath.Join(d, "fleet.json")); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	e := &env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errb, workdir: dir}
	for range 2 {
		if code := exitCode(run(context.Background(), []string{"merge", "--out", "shards/merged", "shards"}, e), &errb); code != exitPass {
			t.Fatalf("merge: exit %d\n%s", code, errb.String())
		}
	}
	m, err := result.ReadFile(filepath.Join(dir, "shards", "merged", "fleet.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Merged == nil || m.Merged.Generators != 2 || m.Summary.Requests != 400 {
		t.Errorf("merged %+v, %d requests; want 2 generators and 400 requests", m.Merged, m.Summary.Requests)
	}
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
