package ab

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/internal/cpuset"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// duetConfig declares one pair of the test service (folder a against
// folder b) measured by the concurrent design, 200 requests a trial in
// half a second; each process logs its
// first request to {arrivals}, and both targets ask for the CPUs {cpus} (the
// design then swaps the two halves of them between the sides).
const duetConfig = `version: 1
gate: {p99_regression: 5%, confidence: 0.95}
ab: {max_trials: {max}, design: concurrent}
targets:
  a:
    command: ["{self}", "{port}"]
    dir: a
    env: {PERFGATE_AB_TEST_SERVICE: "1", PERFGATE_AB_TEST_ARRIVALS: "{arrivals}"}
    ready: "http://127.0.0.1:{port}/ready"
    ready_timeout: 20s
    {cpus}
  b:
    command: ["{self}", "{port}"]
    dir: b
    env: {PERFGATE_AB_TEST_SERVICE: "1", PERFGATE_AB_TEST_ARRIVALS: "{arrivals}"}
    ready: "http://127.0.0.1:{port}/ready"
    ready_timeout: 20s
    {cpus}
scenarios:
  - name: api-a
    layer: service
    target: a
    load: {mode: rate, rate: 400, duration: 500ms, warmup: 200ms, trials: 1}
  - name: api-b
    layer: service
    target: b
    load: {mode: rate, rate: 400, duration: 500ms, warmup: 200ms, trials: 1}
pairs:
  - {name: "service: a → b", base: api-a, head: api-b}
`

// TestDuetLoopback: the concurrent design on loopback, with real
// services started fresh every block. An A/A pair is decided unchanged
// and a service 20% slower regressed, from the paired test the
// interleaved design uses; both sides' processes receive their first
// request within a few milliseconds of each other (one schedule, one
// instant), and where the host has two CPUs the sides run on one each,
// swapped at every start.
func TestDuetLoopback(t *testing.T) {
	if testing.Short() {
		t.Skip("loopback A/B: starts processes for half a minute")
	}
	// Alone, and its two pairs one after the other: the sides' first
	// requests are timed to the millisecond, and other targets on the
	// same cores delay one side's start by a scheduler's slice.
	tests := []struct {
		name         string
		baseMs, head string
		maxTrials    int
		want         compare.Verdict
	}{
		// An A/A pair needs the last look's level to call it unchanged:
		// the equivalence test spends almost nothing early.
		{name: "A/A", baseMs: "40", head: "40", maxTrials: 12, want: compare.Unchanged},
		{name: "+20%", baseMs: "40", head: "48", maxTrials: 12, want: compare.Regressed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, arrivals, log := runDuet(t, tt.baseMs, tt.head, tt.maxTrials)
			sc, run := res.Comparison.Scenarios[0], res.Comparison.AB.Scenarios[0]
			t.Logf("%s: %s (%s) after %d pairs, %.1f s, processes %v, cpus %v", tt.name, sc.Verdict, sc.Reason, run.Pairs, run.RunnerS, run.Processes, run.CPUHalves)
			for _, m := range sc.Metrics {
				t.Logf("  %s %+.1f%% [%+.1f, %+.1f] %s", m.Metric, m.DeltaPct, m.CIPct[0], m.CIPct[1], m.Verdict)
			}
			if res.Comparison.AB.Design != config.DesignConcurrent || run.Design != config.DesignConcurrent {
				t.Errorf("designs %q (run), %q (scenario), want concurrent", res.Comparison.AB.Design, run.Design)
			}
			if run.Order != strings.Repeat("=", run.Pairs) || run.Trials != 2*run.Pairs {
				t.Errorf("order %q, trials %d for %d pairs: want one = per pair, both sides each", run.Order, run.Trials, run.Pairs)
			}
			if run.OrderEffect != nil {
				t.Errorf("order effect %+v: the concurrent design measures no side first", run.OrderEffect)
			}
			checkArrivals(t, arrivals, run)
			if sc.Verdict != tt.want && sc.Verdict != compare.Undecided {
				t.Fatalf("verdict %s (%s), want %s: a false decision\n%s", sc.Verdict, sc.Reason, tt.want, log)
			}
			if sc.Verdict != tt.want {
				// Where the pairs' ratios, at their mean and spread, could
				// not have decided within the pairs allowed, the host
				// decided the outcome (go test runs other packages beside
				// this one); where they could, the verdict is wrong.
				need := [2]float64{}
				for i, q := range []func(result.Latency) float64{
					func(l result.Latency) float64 { return l.P50 },
					func(l result.Latency) float64 { return l.P99 },
				} {
					need[i] = pairsNeeded(logRatios(res, q), tt.want)
				}
				// unchanged needs every gated metric; regressed, one.
				n := max(need[0], need[1])
				if tt.want == compare.Regressed {
					n = min(need[0], need[1])
				}
				if n > float64(tt.maxTrials) {
					t.Skipf("this host moved the pairs too much to decide within %d pairs (about %.0f pairs needed for P50, %.0f for P99, at the ratios' mean and spread): %s without a false decision; rerun on a quieter host", tt.maxTrials, need[0], need[1], sc.Verdict)
				}
				t.Errorf("verdict %s (%s), want %s (about %.0f pairs needed for P50, %.0f for P99)\n%s", sc.Verdict, sc.Reason, tt.want, need[0], need[1], log)
			}
			if p50 := metric(sc, compare.MetricP50); p50 == nil || p50.Method != compare.MethodPaired {
				t.Errorf("P50 not compared by the paired test: %+v", p50)
			}
		})
	}
}

// runDuet measures the pair a (baseMs) → b (headMs) by the concurrent
// design and returns the outcome, the arrivals file and the log.
func runDuet(t *testing.T, baseMs, headMs string, maxTrials int) (*Outcome, string, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for sub, ms := range map[string]string{"a": baseMs, "b": headMs} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
		if err := os.WriteFile(filepath.Join(dir, sub, "latency_ms"), []byte(ms), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cpus := ""
	if host, err := cpuset.Allowed(); err == nil && len(host) >= 2 {
		cpus = "cpus: " + strconv.Quote(cpuset.Set{host[0], host[1]}.String())
	}
	arrivals := filepath.Join(dir, "arrivals")
	src := strings.NewReplacer("{self}", self, "{arrivals}", arrivals, "{cpus}", cpus, "{max}", strconv.Itoa(maxTrials)).Replace(duetConfig)
	path := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(path, []byte(src), 0o644)
	c, err := config.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := config.Compile(c)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	out := t.TempDir()
	res, err := MeasurePairs(context.Background(), plan, plan.Pairs, Options{OutDir: out,
		Settings: compare.DefaultSettings(), Suite: suite.Options{OutDir: filepath.Join(out, "results"), Environ: os.Environ(), Log: &log}})
	if err != nil {
		t.Fatal(err)
	}
	if res.RunErr != nil {
		t.Fatalf("run failed: %v\n%s", res.RunErr, log.String())
	}
	if len(res.Comparison.Scenarios) != 1 || res.Comparison.AB == nil || len(res.Comparison.AB.Scenarios) != 1 {
		t.Fatalf("comparison %+v, want one pair", res.Comparison)
	}
	return res, arrivals, log.String()
}

// checkArrivals checks the services' first requests: one process per
// side per start, the k-th of each side within a few milliseconds of the
// other's (the median gap at most 5 ms; none 500 ms apart or more,
// where the interleaved design's are a warm-up and a window apart,
// 0.7 s here; on a busy host a process now and then
// answers its first request a scheduling delay late), and, when the sides
// were pinned, the base side's k-th process on half k mod 2 and the
// head's on the other.
func checkArrivals(t *testing.T, path string, run compare.ABScenario) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type arrival struct {
		at   time.Time
		cpus string
	}
	var sides [2][]arrival
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("arrivals line %q: want folder, time, cpus", line)
		}
		ns, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		side := 0
		if filepath.Base(f[0]) == "b" {
			side = 1
		}
		sides[side] = append(sides[side], arrival{time.Unix(0, ns), f[2]})
	}
	if got := [2]int{len(sides[0]), len(sides[1])}; got != run.Processes {
		t.Fatalf("first requests per side %v, want one per process %v", got, run.Processes)
	}
	for i := range sides { // each side's processes in the order they were started
		slices.SortFunc(sides[i], func(x, y arrival) int { return x.at.Compare(y.at) })
	}
	var gaps []float64
	for k := range sides[0] {
		gaps = append(gaps, math.Abs(float64(sides[0][k].at.Sub(sides[1][k].at)))/float64(time.Millisecond))
		if len(run.CPUHalves) == 2 {
			want := []string{run.CPUHalves[k%2], run.CPUHalves[(k+1)%2]}
			if got := []string{sides[0][k].cpus, sides[1][k].cpus}; !cmp.Equal(got, want) {
				t.Errorf("start %d: the sides ran on CPUs %v, want %v (halves %v swapped at every start)", k+1, got, want, run.CPUHalves)
			}
		}
	}
	med := slices.Clone(gaps)
	slices.Sort(med)
	t.Logf("gap between the sides' first requests per start, ms: %.2f (median %.2f)", gaps, med[len(med)/2])
	if med[len(med)/2] > 5 || med[len(med)-1] >= 500 {
		t.Errorf("the sides' first requests were %.2f ms apart (median %.2f): want one schedule sent to both at once (median ≤ 5 ms, each < 500 ms)", gaps, med[len(med)/2])
	}
}

// logRatios is the pairs' log ratios of the latency quantile q reads
// (head over base): what the paired t-test sees, outliers included.
func logRatios(res *Outcome, q func(result.Latency) float64) []float64 {
	var d []float64
	b, h := res.Base[0].Trials, res.Head[0].Trials
	for i := range min(len(b), len(h)) {
		if q(b[i].Latency) > 0 && q(h[i].Latency) > 0 {
			d = append(d, math.Log(q(h[i].Latency)/q(b[i].Latency)))
		}
	}
	return d
}

// pairsNeeded is about how many pairs with the log ratios d's mean and
// standard deviation the verdict want needs: enough for the interval's
// half-width 2.5·σ/√n to fit between the mean and the 5% margin (inside
// ±5% for unchanged, above +5% for regressed); +Inf where the mean
// leaves no room.
func pairsNeeded(d []float64, want compare.Verdict) float64 {
	if len(d) < 2 {
		return math.Inf(1)
	}
	var mean, ss float64
	for _, x := range d {
		mean += x / float64(len(d))
	}
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(len(d)-1))
	room := math.Log(1.05) - math.Abs(mean)
	if want == compare.Regressed {
		room = mean - math.Log(1.05)
	}
	if room <= 0 {
		return math.Inf(1)
	}
	return math.Pow(2.5*sd/room, 2)
}

// metric is sc's metric m, or nil.
func metric(sc compare.ScenarioComparison, m string) *compare.Metric {
	for i := range sc.Metrics {
		if sc.Metrics[i].Metric == m {
			return &sc.Metrics[i]
		}
	}
	return nil
}

func TestDuetCPUs(t *testing.T) {
	tests := []struct {
		name            string
		targets         [2]string
		generator, host cpuset.Set
		want            [2]cpuset.Set
		why             string
	}{
		{name: "one list, split", targets: [2]string{"2-3", "2-3"}, host: cpuset.Set{0, 1, 2, 3}, want: [2]cpuset.Set{{2}, {3}}},
		{name: "two lists, pooled", targets: [2]string{"1,3", "2,4"}, host: cpuset.Set{0, 1, 2, 3, 4}, want: [2]cpuset.Set{{1, 2}, {3, 4}}},
		// An odd pool leaves its last CPU out: halves of one size, so
		// that the swap moves no capacity between the sides.
		{name: "odd pool", targets: [2]string{"1-3", ""}, host: cpuset.Set{0, 1, 2, 3}, want: [2]cpuset.Set{{1}, {2}}},
		{name: "generator pinned, no cpus", generator: cpuset.Set{0}, host: cpuset.Set{0, 1, 2}, want: [2]cpuset.Set{{1}, {2}}},
		{name: "unpinned", host: cpuset.Set{0, 1}, why: "no cpus or generator_cpus"},
		{name: "one CPU", targets: [2]string{"1", "1"}, host: cpuset.Set{0, 1}, why: "one CPU (1) for both sides"},
		{name: "host lacks them", targets: [2]string{"6-7", ""}, host: cpuset.Set{0, 1}, why: "no 6-7"},
		{name: "not Linux", targets: [2]string{"0-1", ""}, why: "Linux only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := duetCPUs(tt.targets, tt.generator, tt.host)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("duetCPUs(%q, %v, %v) (-want +got):\n%s", tt.targets, tt.generator, tt.host, d)
			}
			if (tt.why == "") != (why == "") || !strings.Contains(why, tt.why) {
				t.Errorf("duetCPUs(%q, %v, %v) says %q, want %q", tt.targets, tt.generator, tt.host, why, tt.why)
			}
		})
	}
}

func TestDuetFits(t *testing.T) {
	tests := []struct {
		name string
		load string
		why  string // "" when the concurrent design measures it
	}{
		{name: "fixed rate", load: "{mode: rate, rate: 10}"},
		{name: "knee search", load: "{mode: sweep}", why: "knee search"},
		{name: "closed loop", load: "{mode: concurrency, concurrency: 4}", why: "no open-loop schedule"},
		{name: "automatic warm-up", load: "{mode: rate, rate: 10, warmup: auto}", why: "warmup: auto"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "version: 1\nslo: {p99: 100ms}\ntargets:\n  svc: {command: [\"./s\", \"{port}\"], ready: \"http://127.0.0.1:{port}/\"}\nscenarios:\n  - {name: api, layer: service, target: svc, load: " + tt.load + "}\n"
			c, err := config.Parse("perfgate.yaml", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			err = duetFits(c.Scenarios[0])
			if (tt.why == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.why)) {
				t.Errorf("duetFits(%s) = %v, want %q", tt.load, err, tt.why)
			}
		})
	}
}
