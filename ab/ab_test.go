package ab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/internal/cpuset"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// The loopback tests' service is this test binary, started again with
// serviceEnv set (TestMain then serves instead of testing). Its latency is
// read from latency_ms in its working folder, a file of the git repository
// under test, so the base side (started in the worktree of the base
// revision) and the head side (started in the current checkout) serve the
// latency of their own revision.
//
// The drifting host: every process of it gets slower over time. The service
// multiplies its latency by 1 + drift·(now − t0), with t0 read from the file
// named by clockEnv, written once by the test outside the repository: both
// sides read the same clock, so at any moment they suffer the same
// slowdown, as every process on a throttling or crowded host would, and the
// slowdown grows through the run whichever side is measured.
const (
	serviceEnv = "PERFGATE_AB_TEST_SERVICE"
	clockEnv   = "PERFGATE_AB_TEST_CLOCK"
	driftEnv   = "PERFGATE_AB_TEST_DRIFT" // fraction per minute
	serialEnv  = "PERFGATE_AB_TEST_SERIAL"
	// arrivalsEnv names a file to which each service process appends one
	// line at its first request (the readiness probe's path /ready aside):
	// its working folder, the arrival in Unix nanoseconds, and the CPUs
	// it may run on.
	arrivalsEnv = "PERFGATE_AB_TEST_ARRIVALS"
)

func TestMain(m *testing.M) {
	if os.Getenv(serviceEnv) != "" {
		serve()
		return
	}
	os.Exit(m.Run())
}

// serve is the test service: GET / sleeps latency_ms × the host's slowdown.
func serve() {
	b, err := os.ReadFile("latency_ms")
	if err != nil {
		fmt.Fprintln(os.Stderr, "test service:", err)
		os.Exit(1)
	}
	base, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test service: latency_ms:", err)
		os.Exit(1)
	}
	var t0 time.Time
	if c, err := os.ReadFile(os.Getenv(clockEnv)); err == nil {
		ns, _ := strconv.ParseInt(strings.TrimSpace(string(c)), 10, 64)
		t0 = time.Unix(0, ns)
	}
	drift, _ := strconv.ParseFloat(os.Getenv(driftEnv), 64)
	var serial sync.Mutex // held per request when serialEnv is set: a capacity of 1/latency
	var first sync.Once   // the first request past the readiness probe, for arrivalsEnv
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if path := os.Getenv(arrivalsEnv); path != "" && r.URL.Path != "/ready" {
			first.Do(func() { logArrival(path, time.Now()) })
		}
		if os.Getenv(serialEnv) != "" {
			serial.Lock()
			defer serial.Unlock()
		}
		f := 1.0
		if !t0.IsZero() {
			f += drift * time.Since(t0).Minutes()
		}
		if r.Context().Err() != nil {
			return // the client gave up while this request queued
		}
		select { // a request the client gives up on stops holding the service
		case <-time.After(time.Duration(base * f * float64(time.Millisecond))):
		case <-r.Context().Done():
		}
	})
	// start_delay_ms, when its revision has one, is how long the service
	// takes to become ready (a model server loading its weights).
	if b, err := os.ReadFile("start_delay_ms"); err == nil {
		ms, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	srv := &http.Server{Addr: "127.0.0.1:" + os.Args[len(os.Args)-1], ReadHeaderTimeout: 5 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "test service:", err)
		os.Exit(1)
	}
}

// logArrival appends the service's line for arrivalsEnv to path.
func logArrival(path string, at time.Time) {
	wd, _ := os.Getwd()
	cpus := "-"
	if set, err := cpuset.OfProcess(os.Getpid()); err == nil {
		cpus = set.String()
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test service:", err)
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s %d %s\n", wd, at.UnixNano(), cpus) // one write: appends do not interleave
}

// testRepo is a git repository in a temporary folder holding perfgate.yaml
// and the service's latency_ms.
type testRepo struct {
	t   *testing.T
	dir string
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *testRepo) write(name, content string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, name), []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *testRepo) commit(msg string) {
	r.t.Helper()
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

// newRepo makes a repository whose first commit has config (with the test
// binary as the service's program) and latency_ms = latencyMs.
func newRepo(t *testing.T, config string, latencyMs int) *testRepo {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := &testRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	r.write("perfgate.yaml", strings.ReplaceAll(config, "{self}", self))
	r.write("latency_ms", strconv.Itoa(latencyMs))
	r.commit("service at " + strconv.Itoa(latencyMs) + " ms")
	return r
}

// serviceConfig is an A/B config of one rate scenario against the test
// service; extra is appended to the target.
const serviceConfig = `version: 1
gate: {p99_regression: 5%, confidence: 0.95}
ab: {max_trials: 10}
targets:
  svc:
    command: ["{self}", "{port}"]
    env: {PERFGATE_AB_TEST_SERVICE: "1"}
    ready: "http://127.0.0.1:{port}/"
    ready_timeout: 20s
    env_passthrough: [PERFGATE_AB_TEST_CLOCK, PERFGATE_AB_TEST_DRIFT]
%s
scenarios:
  - name: api
    layer: service
    target: svc
    load: {mode: rate, rate: 100, duration: 2s, warmup: 500ms, trials: 1}
`

// loadConfig reads the repository's config and compiles it (as the
// gate would).
func (r *testRepo) loadConfig() *config.Plan {
	r.t.Helper()
	cfg, err := config.ReadFile(filepath.Join(r.dir, "perfgate.yaml"))
	if err != nil {
		r.t.Fatal(err)
	}
	p, err := config.Compile(cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	return p
}

// runAB runs an A/B of the repository against ref, with the drifting
// host's clock started now, and checks that the worktree is gone after.
func (r *testRepo) runAB(ctx context.Context, ref string, drift float64) (*Outcome, error) {
	r.t.Helper()
	clock := filepath.Join(r.t.TempDir(), "clock")
	os.WriteFile(clock, []byte(strconv.FormatInt(time.Now().UnixNano(), 10)), 0o644)
	environ := append(os.Environ(), clockEnv+"="+clock, driftEnv+"="+strconv.FormatFloat(drift, 'f', -1, 64),
		"PERFGATE_AB_TEST_TOKEN=s3cret")
	var wt string
	out := filepath.Join(r.t.TempDir(), "out")
	tmp := r.t.TempDir()
	res, err := Run(ctx, r.loadConfig(), Options{Ref: ref, OutDir: out, TempDir: tmp,
		Settings:   compare.DefaultSettings(),
		OnWorktree: func(d string) { wt = d },
		Suite:      suite.Options{OutDir: filepath.Join(out, "results"), Environ: environ}})
	r.checkClean(wt, tmp)
	return res, err
}

// checkClean fails when the base worktree, its temporary folder or git's
// record of it survived.
func (r *testRepo) checkClean(wt, tmp string) {
	r.t.Helper()
	if wt != "" {
		if _, err := os.Stat(wt); !errors.Is(err, os.ErrNotExist) {
			r.t.Errorf("the base worktree %s was not removed (stat: %v)", wt, err)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		r.t.Errorf("the temporary folder %s still holds %v", tmp, left)
	}
	if list := r.git("worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		r.t.Errorf("git still lists the base worktree:\n%s", list)
	}
}

// TestRewarmed: a process's later trials are warmed with a quarter of a
// fixed warm-up, never less than RewarmMin; a warm-up the cut would not
// shorten, an automatic one and none are kept.
func TestRewarmed(t *testing.T) {
	for _, tt := range []struct {
		warmup, want config.Duration
	}{
		{config.Duration(time.Second), config.Duration(RewarmMin)},
		{config.Duration(2 * time.Second), config.Duration(500 * time.Millisecond)},
		{config.Duration(400 * time.Millisecond), config.Duration(RewarmMin)},
		{config.Duration(200 * time.Millisecond), config.Duration(200 * time.Millisecond)},
		{config.Auto, config.Auto},
		{0, 0},
	} {
		s := &config.Scenario{Name: "x", Load: config.Load{Warmup: tt.warmup}}
		if got := rewarmed(s).Load.Warmup; got != tt.want {
			t.Errorf("warm-up %v: re-warm %v, want %v", time.Duration(tt.warmup), time.Duration(got), time.Duration(tt.want))
		}
		if s.Load.Warmup != tt.warmup {
			t.Errorf("warm-up %v: rewarmed changed the scenario", time.Duration(tt.warmup))
		}
	}
}

// TestABLoopback is issue 12's real target on loopback: a service whose
// latency is set by a file in the repository, on a host whose every
// process gets slower by 60% per minute. An unchanged commit passes (or is
// inconclusive); a commit that makes the service 20% slower fails.
//
// Each trial is 100 requests (the least a P99 needs) sent at 200/s after
// a 400 ms warm-up (a process's later trials RewarmMin): a pair takes about half the wall time it took at
// 100/s, so the host's drift is doubled to keep the slowdown between a
// pair's two trials, and over the run, what it was. The two commits are
// measured at once, each in its own repository (sleeping services, as
// beside the package's other parallel tests).
//
// The 20% half needs a host quiet enough for a 20% change to be told
// from its noise within ab.max_trials pairs: the pair-to-pair spread of
// the log ratio of the median (gated beside P99, and the metric a sleeping
// service's change moves without the host's scheduling hiccups), measured
// on the unchanged commit, must allow it. When it does not, the test says
// so with the figures and skips that half's checks.
func TestABLoopback(t *testing.T) {
	if testing.Short() {
		t.Skip("loopback A/B: starts processes for a few minutes")
	}
	// Its service sleeps rather than computes: it runs beside the
	// package's other parallel test (t.Parallel), as beside another
	// package's tests on CI.
	t.Parallel()
	const maxTrials = 16
	cfg := strings.Replace(cfgWith(""), "ab: {max_trials: 10}", "ab: {max_trials: 16, budget: 150s}", 1)
	cfg = strings.Replace(cfg, "load: {mode: rate, rate: 100, duration: 2s, warmup: 500ms, trials: 1}",
		"load: {mode: rate, rate: 200, duration: 500ms, warmup: 400ms, trials: 1, connections: 64}", 1)
	same := newRepo(t, cfg, 100)
	same.write("README", "a change that does not touch the service\n")
	same.commit("docs only")
	slower := newRepo(t, cfg, 100)
	slower.write("latency_ms", "120") // 20% slower
	slower.commit("service 20% slower")

	// Each run's failures are reported here, from the test's goroutine.
	var res [2]*Outcome
	var errs [2]error
	var wg sync.WaitGroup
	for i, r := range []*testRepo{same, slower} {
		wg.Go(func() { res[i], errs[i] = r.runAB(context.Background(), "HEAD~1", loopbackDrift) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("%s commit: %v", []string{"unchanged", "slower"}[i], err)
		}
	}

	logAB(t, "unchanged", res[0])
	if res[0].RunErr != nil {
		t.Fatalf("unchanged commit: run failed: %v", res[0].RunErr)
	}
	// Pass, or inconclusive (which passes the gate unless asked otherwise);
	// never fail.
	if v := res[0].Comparison.Verdict; v != compare.Pass && v != compare.Undecided {
		t.Errorf("unchanged commit: verdict %s (%s), want pass", v, res[0].Comparison.Reason)
	}
	// Pairs needed to tell +20% from the 5% threshold at this noise: the
	// interval's half-width z·σ/√n must fit between ln 1.05 and ln 1.20.
	sigma := pairSpread(res[0].Comparison.Scenarios[0], res[0])
	need := math.Pow(2.5*sigma/(math.Log(1.20)-math.Log(1.05)), 2)
	t.Logf("host noise: pair-to-pair spread of ln(P50 ratio) %.3f: about %.0f pairs needed for a 20%% change, %d allowed", sigma, need, maxTrials)
	logAB(t, "20% slower", res[1])
	if need > maxTrials {
		t.Skipf("this host is too noisy for the 20%% target (spread %.3f, %.0f pairs needed, %d allowed): the unchanged commit passed; rerun on a quieter host", sigma, need, maxTrials)
	}

	if res[1].RunErr != nil {
		t.Fatalf("slower commit: run failed: %v", res[1].RunErr)
	}
	if res[1].Comparison.Verdict != compare.Fail {
		t.Errorf("20%% slower commit: verdict %s (%s), want fail", res[1].Comparison.Verdict, res[1].Comparison.Reason)
	}
	ab := res[1].Comparison.AB.Scenarios[0]
	if ab.Processes[0] < 2 || ab.Processes[1] < 2 {
		t.Errorf("processes per side %v, want at least 2 each", ab.Processes)
	}
	if !strings.HasPrefix(ab.Order, "ABBAABBA") {
		t.Errorf("order %q, want ABBA blocks", ab.Order)
	}
	// Each process's first trial warms up fully (the load's 400 ms), its
	// later ones RewarmMin (a quarter would be less), recorded per trial.
	for _, side := range [][]*result.Result{res[1].Base, res[1].Head} {
		seen := map[int]bool{}
		for i, tr := range side[0].Trials {
			want := 0.0 // the load's
			if seen[tr.Process] {
				want = RewarmMin.Seconds()
			}
			seen[tr.Process] = true
			if math.Abs(tr.WarmupS-want) > 1e-9 {
				t.Errorf("%s trial %d (process %d): warmup_s %v, want %v", side[0].Scenario, i+1, tr.Process, tr.WarmupS, want)
			}
		}
		if len(seen) == len(side[0].Trials) {
			t.Errorf("%s: every trial in a process of its own (%d): nothing re-warmed", side[0].Scenario, len(seen))
		}
	}
	if oe := ab.OrderEffect; oe == nil || oe.Blocks != ab.Pairs/2 {
		t.Errorf("order effect %+v after %d pairs: want one over every ABBA block", oe, ab.Pairs)
	}
	if len(res[1].Base) != 1 || len(res[1].Head) != 1 || len(res[1].Head[0].Trials) != ab.Pairs {
		t.Errorf("results: %d base, %d head, want one each with %d trials", len(res[1].Base), len(res[1].Head), ab.Pairs)
	}
}

// loopbackDrift is TestABLoopback's host slowdown, a fraction per minute.
const loopbackDrift = 0.6

// pairSpread is a robust standard deviation of the pairs' ln(P50 ratio):
// 1.4826 × the median absolute deviation.
func pairSpread(sc compare.ScenarioComparison, res *Outcome) float64 {
	var d []float64
	b, h := res.Base[0].Trials, res.Head[0].Trials
	for i := range min(len(b), len(h)) {
		if b[i].Latency.P50 > 0 && h[i].Latency.P50 > 0 {
			d = append(d, math.Log(h[i].Latency.P50/b[i].Latency.P50))
		}
	}
	if len(d) < 2 {
		return math.Inf(1)
	}
	sort.Float64s(d)
	med := d[len(d)/2]
	dev := make([]float64, len(d))
	for i, x := range d {
		dev[i] = math.Abs(x - med)
	}
	sort.Float64s(dev)
	return 1.4826 * dev[len(dev)/2]
}

func logAB(t *testing.T, name string, res *Outcome) {
	t.Helper()
	if len(res.Base) == 1 && len(res.Head) == 1 {
		var pairs []string
		for i := range min(len(res.Base[0].Trials), len(res.Head[0].Trials)) {
			pairs = append(pairs, fmt.Sprintf("%.0f/%.0f", res.Base[0].Trials[i].Latency.P99, res.Head[0].Trials[i].Latency.P99))
		}
		t.Logf("%s: P99 per pair, base/head ms: %s", name, strings.Join(pairs, " "))
	}
	for i, sc := range res.Comparison.Scenarios {
		ab := res.Comparison.AB.Scenarios[i]
		for _, m := range sc.Metrics {
			if m.Metric == compare.MetricP99 {
				t.Logf("%s: %s %s: P99 %.1f → %.1f ms, paired %+.1f%% [%+.1f, %+.1f], p_holm %.3g; unpaired %+.1f%%; base drift %+.1f%%; %d pairs (%s), stopped %s after %d looks, %.0f s (fixed design ~%.0f s)",
					name, sc.Scenario, m.Verdict, m.Baseline, m.Candidate, m.DeltaPct, m.CIPct[0], m.CIPct[1], deref(m.PHolm),
					ab.UnpairedDeltaPct, ab.BaseDriftPct, ab.Pairs, ab.Order, ab.Stopped, ab.Looks, ab.RunnerS, ab.FixedRunnerS)
			}
		}
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

// TestABCleanupOnEveryPath checks that the base worktree is removed when
// the run fails or is cut short: a failing build (ErrBuild, its output
// quoted), a target that cannot start, an interrupt in the middle of the
// trials.
func TestABCleanupOnEveryPath(t *testing.T) {
	tests := []struct {
		name    string
		extra   string
		cancel  time.Duration // interrupt after this long (0: never)
		wantErr error         // returned by Run
		wantRun bool          // a failure of the run (Outcome.RunErr)
		quote   string        // text the error must quote
	}{
		{name: "failing build", extra: `    build: ["sh", "-c", "echo compiling server; echo 'main.go:3: undefined: x' >&2; exit 7"]`,
			wantErr: ErrBuild, quote: "main.go:3: undefined: x"},
		// The build sees no secret of perfgate's environment: its output is
		// kept as an artifact.
		{name: "build without secrets", extra: `    build: ["sh", "-c", "echo token=[$PERFGATE_AB_TEST_TOKEN]; exit 1"]`,
			wantErr: ErrBuild, quote: "token=[]"},
		// The target's ready URL never answers: the start fails after its timeout.
		{name: "target does not start", extra: `    build: ["sh", "-c", "rm latency_ms"]`, wantRun: true, quote: "latency_ms"},
		{name: "interrupted", cancel: 2 * time.Second, wantRun: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t, cfgWith(tt.extra), 5)
			ctx := context.Background()
			if tt.cancel > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.cancel)
				defer cancel()
			}
			res, err := r.runAB(ctx, "HEAD", 0)
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Run error %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.quote) {
					t.Errorf("Run error does not quote %q:\n%v", tt.quote, err)
				}
			case tt.wantRun:
				if err != nil {
					t.Fatalf("Run error %v, want a run failure in the outcome", err)
				}
				if res.RunErr == nil {
					t.Fatalf("no run failure reported; verdict %s", res.Comparison.Verdict)
				}
				if !strings.Contains(res.RunErr.Error(), tt.quote) {
					t.Errorf("run failure does not mention %q:\n%v", tt.quote, res.RunErr)
				}
				if res.Comparison.Verdict == compare.Fail {
					t.Errorf("a failed run must not fail the gate on its partial pairs")
				}
			}
		})
	}
}

// TestABRefused checks the usage errors: a revision that does not exist,
// and scenarios whose target is a URL perfgate does not start.
func TestABRefused(t *testing.T) {
	urlConfig := `version: 1
scenarios:
  - name: remote
    layer: service
    url: http://127.0.0.1:9/
    load: {mode: rate, rate: 10, duration: 1s, trials: 1}
`
	tests := []struct {
		name, config, ref string
		want              error
		say               string
	}{
		{"no such revision", cfgWith(""), "no-such-branch", ErrBadRef, `"no-such-branch" is not a commit`},
		{"option-like revision", cfgWith(""), "--orphan", ErrBadRef, "give a git revision"},
		{"url target", urlConfig, "HEAD", ErrRefused, "both sides of the A/B run would hit that one service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t, tt.config, 5)
			_, err := r.runAB(context.Background(), tt.ref, 0)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Run error %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.say) {
				t.Errorf("error %q does not say %q", err, tt.say)
			}
		})
	}
}

// cfgWith is serviceConfig with extra lines in its target.
func cfgWith(extra string) string { return strings.Replace(serviceConfig, "%s", extra, 1) }

// serialSweepConfig is serviceConfig with the serial test service (its
// capacity about 1/latency), an SLO of 100 ms, and load (the scenario's
// load line, and any scenario keys before it) in place of the rate load.
func serialSweepConfig(load string) string {
	cfg := strings.Replace(cfgWith(`    env: {PERFGATE_AB_TEST_SERVICE: "1", PERFGATE_AB_TEST_SERIAL: "1"}`), `    env: {PERFGATE_AB_TEST_SERVICE: "1"}
`, "", 1)
	cfg = strings.Replace(cfg, "gate: {", "slo: {p99: 100ms}\ngate: {", 1)
	return strings.Replace(cfg, "load: {mode: rate, rate: 100, duration: 2s, warmup: 500ms, trials: 1}", load, 1)
}

// TestABSweep checks max QPS in A/B: a serial service (one request at a
// time, so its capacity is about 1/latency) swept on both sides, each rate
// probed on both back to back, each side's knee from its own search in
// fresh processes, compared over the knee estimates.
//
// The same commit is on both sides, so the gate must never fail, however
// busy the machine: a probe pair measured while other processes used the
// host is measured again, and a max-QPS change still resting on a busy
// probe is inconclusive (host busy). On a shared 2-core host at a load
// average of 11, the head's probes once read P99 165 ms at 10 rps and, with
// no busy check, the A/A sweep said max QPS −86.6% regressed. The
// comparison's figures are checked only when both searches bracketed their
// knee: a neighbour can stop that (a side without a bracket is invalid and
// inconclusive by design), and the test then says so.
func TestABSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("loopback A/B sweep: starts processes for about half a minute")
	}
	// Its service sleeps rather than computes: it runs beside the
	// package's other parallel tests, TestABSweepHeadMeetsSLONowhere's
	// search included (side by side, both searches bracketed their knees
	// as they did alone).
	t.Parallel()
	// 100 ms windows (lengthened to 400 ms near the knee, as every probe
	// short of suite.MinProbeRequests is) and a 3 s budget: the searches
	// take about as many windows as they did in 300 ms windows (1.2 s
	// near the knee) and a 6 s budget, in under half the time. They start
	// at 80/s, below the knee (about 100/s), so that a bracket (80, then
	// 160) takes two probes and a probe measured again on a busy host
	// leaves budget for it.
	cfg := serialSweepConfig("load: {mode: sweep, start: 80, max_rate: 160, duration: 100ms, warmup: 100ms, budget: 3s, estimates: 3}")
	r := newRepo(t, cfg, 10)
	res, err := r.runAB(context.Background(), "HEAD", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.RunErr != nil {
		t.Fatalf("run failed: %v", res.RunErr)
	}
	sc, ab := res.Comparison.Scenarios[0], res.Comparison.AB.Scenarios[0]
	var qps *compare.Metric
	for i, m := range sc.Metrics {
		if m.Metric == compare.MetricMaxQPS {
			qps = &sc.Metrics[i]
		}
	}
	t.Logf("sweep A/B: %d probe pairs (%s), processes %v, %.0f s; verdict %s (%s); max QPS %+v; warnings %q",
		ab.Pairs, ab.Order, ab.Processes, ab.RunnerS, sc.Verdict, sc.Reason, qps, sc.Warnings)
	busy := 0
	for i, r := range []*result.Result{res.Base[0], res.Head[0]} {
		var pts []string
		for _, pt := range r.Capacity.Points {
			b := ""
			if pt.Host != nil && pt.Host.Busy {
				b, busy = "(busy)", busy+1
			}
			pts = append(pts, fmt.Sprintf("%.0f:%.0fms:%s%s", pt.OfferedRPS, pt.Latency.P99, pt.Why, b))
		}
		t.Logf("%s side's probes: %s", sideName(i), strings.Join(pts, " "))
	}
	// What holds whatever the host's load.
	if res.Comparison.Verdict == compare.Fail {
		t.Errorf("the same commit on both sides failed: %s", res.Comparison.Reason)
	}
	if ab.Processes[0] < 2 || ab.Processes[1] < 2 {
		t.Errorf("processes per side %v, want at least 2 each", ab.Processes)
	}
	// Every probe is a back-to-back pair, AB or BA, or one side's alone
	// (a or b: the second side's new rates, whose twins nothing reads).
	pairs, alone := 0, 0
	for i := 0; i < len(ab.Order); {
		if c := ab.Order[i]; c == 'a' || c == 'b' {
			alone, i = alone+1, i+1
			continue
		}
		if i+2 > len(ab.Order) {
			t.Fatalf("order %q: ends in half a pair", ab.Order)
		}
		if pair := ab.Order[i : i+2]; pair != "AB" && pair != "BA" {
			t.Fatalf("order %q: probe at %d is %q, not a back-to-back pair", ab.Order, i, pair)
		}
		pairs, i = pairs+1, i+2
	}
	if pairs != ab.Pairs || 2*pairs+alone != ab.Trials || ab.Pairs < 2 {
		t.Errorf("order %q (%d pairs, %d alone) for %d pairs and %d windows", ab.Order, pairs, alone, ab.Pairs, ab.Trials)
	}
	for i, r := range []*result.Result{res.Base[0], res.Head[0]} {
		if r.Capacity.Found && !bracketed(r.Capacity) && r.Valid {
			t.Errorf("%s side: the knee search ended without a bracket (%s) but the result is valid", sideName(i), kneeText(r.Capacity))
		}
	}
	if !bracketed(res.Base[0].Capacity) || !bracketed(res.Head[0].Capacity) {
		if sc.Verdict != compare.Inconclusive {
			t.Errorf("a side without a knee: scenario verdict %s, want inconclusive", sc.Verdict)
		}
		t.Skipf("a knee search did not bracket its knee on this host (%d busy probes): the comparison's figures are not checked", busy)
	}
	if qps == nil || qps.Baseline <= 0 || qps.Candidate <= 0 || qps.NBase < 2 || qps.NCand < 2 {
		t.Fatalf("max QPS not compared over both sides' knee estimates: %+v", sc.Metrics)
	}
	// At least MinPairedKneeRounds confirmation rounds (estimates: 3
	// asks for 2), and at most twice as many, interleaved: max QPS is
	// tested over them (the quiet ones, when a busy one was left out),
	// paired, with no run-to-run term.
	most := MaxKneeRoundsFactor*MinPairedKneeRounds + maxBusyRounds
	if qps.Method != compare.MethodPairedKnees || qps.NBase < 2 || qps.NBase > most || qps.RunToRunVar != 0 {
		t.Errorf("max QPS tested by %s over %d rounds (run-to-run variance %g), want %s over 2 to %d interleaved rounds and none", qps.Method, qps.NBase, qps.RunToRunVar, compare.MethodPairedKnees, most)
	}
	// The rounds stopped at a look, and say why.
	if !slices.Contains([]string{"decided", "futile", "max_rounds"}, ab.Stopped) || ab.Looks < 1 || ab.Looks > 2 || !(ab.Level > 0 && ab.Level < 0.05) {
		t.Errorf("the rounds stopped %q after %d looks, last level %g: want decided, futile or max_rounds after one or two looks, the level spent over them", ab.Stopped, ab.Looks, ab.Level)
	}
	// The results written, which the capacity plan sizes, hold the
	// estimates the gate tested.
	for i, r := range []*result.Result{res.Base[0], res.Head[0]} {
		want := []float64{qps.Baseline, qps.Candidate}[i]
		if got := compare.KneeQPS(r.Capacity); len(r.Capacity.Estimates) != qps.NBase || math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s side's result: %d estimates, knee %v; the gate tested %d, %v", sideName(i), len(r.Capacity.Estimates), got, qps.NBase, want)
		}
	}
}

// TestABSweepHeadMeetsSLONowhere: a head that cannot meet the SLO at any
// rate (every request takes 150 ms against an SLO of 100 ms, and the
// client gives up after 300 ms) against a
// base whose knee is about 100 rps is a max-QPS regression, its lowest
// failing rate the bound (compare.MethodCensoredKnee), and is not sized;
// before, its search "ended without a bracket", its result was invalid and
// the gate inconclusive.
func TestABSweepHeadMeetsSLONowhere(t *testing.T) {
	if testing.Short() {
		t.Skip("loopback A/B sweep: starts processes for about half a minute")
	}
	// Its services sleep rather than compute: it runs beside the
	// package's other parallel tests, TestABSweep's search included.
	t.Parallel()
	cfg := serialSweepConfig("timeout: 300ms\n    load: {mode: sweep, start: 80, max_rate: 130, duration: 300ms, warmup: 100ms, budget: 6s, estimates: 3}")
	r := newRepo(t, cfg, 10)
	r.write("latency_ms", "150")
	r.commit("every request 150 ms")
	res, err := r.runAB(context.Background(), "HEAD~1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.RunErr != nil {
		t.Fatalf("run failed: %v", res.RunErr)
	}
	sc := res.Comparison.Scenarios[0]
	var qps *compare.Metric
	for i, m := range sc.Metrics {
		if m.Metric == compare.MetricMaxQPS {
			qps = &sc.Metrics[i]
		}
	}
	t.Logf("verdict %s (%s); max QPS %+v; warnings %q", res.Comparison.Verdict, sc.Reason, qps, sc.Warnings)
	head := res.Head[0]
	if head.Capacity.Found || !head.Valid {
		t.Fatalf("head: found %v, valid %v (%s): want no knee, and a result that is compared", head.Capacity.Found, head.Valid, kneeText(head.Capacity))
	}
	if base := res.Base[0].Capacity; !bracketed(base) || len(base.Estimates) < 2 {
		t.Skipf("the base side's search did not bracket its knee and confirm it on this host (%s, %d estimates): the bound is tested against two or more", kneeText(base), len(base.Estimates))
	}
	if qps == nil || qps.Method != compare.MethodCensoredKnee || qps.Censored != "candidate" {
		t.Fatalf("max QPS %+v: want the censored test with the candidate's bound", qps)
	}
	if sc.HostBusy || sc.RunnerShifted {
		t.Skipf("the host was busy or the runner's speed moved (%s): the verdict is inconclusive by design", sc.Reason)
	}
	if qps.Verdict != compare.Regressed || res.Comparison.Verdict != compare.Fail {
		t.Errorf("max QPS %s %+.1f%% %v p %v, gate %s: want regressed and fail", qps.Verdict, qps.DeltaPct, qps.CIPct, qps.PValue, res.Comparison.Verdict)
	}
	if qps.Candidate > 20 || qps.DeltaPct > -75 {
		t.Errorf("bound %.4g rps (%+.1f%%): want the lowest failing rate, 20 rps or less, about −80%% or beyond", qps.Candidate, qps.DeltaPct)
	}
}
