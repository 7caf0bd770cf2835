package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/internal/capread"
	"github.com/perfgate/perfgate/internal/githubapi/githubapitest"
	"github.com/perfgate/perfgate/report"
)

// soakBundlesEnv sets how many hostile bundles TestCommentModeSoak posts
// (default 50); bench/comment-soak.sh runs 1,000.
const soakBundlesEnv = "PERFGATE_SOAK_BUNDLES"

// soakHeapBound is the most Go heap in use (sampled every 2 ms) that
// comment mode may reach over the soak. The largest input it accepts is a
// 64 MiB report.json (capread.Result) of scenarios, which decodes into
// several times its size, plus the results the bundle carries.
const soakHeapBound = 1536 << 20

// Comment mode, the trusted half of the fork-safe pair, over hostile
// bundles: random fields (verdicts the gate never writes, headlines that
// contradict their scenarios, names built to mention, link, inject
// workflow commands or markup, numbers at their extremes, junk result
// files) and sizes at each cap (pr.json and report.json at their cap and
// one byte over, 1,000 result files and 1,001, a result file at its cap).
// For every bundle: the verdict output is documented; it is pass only
// when the scenarios make pass by the gate's rule; the comment fits
// GitHub's limit; nothing panics; and the Go heap stays under
// soakHeapBound.
func TestCommentModeSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("writes bundles of up to 64 MiB")
	}
	n := 50
	if v := os.Getenv(soakBundlesEnv); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("%s=%q: want a count", soakBundlesEnv, v)
		}
	}
	srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
	srv.HeadSHA[23] = forkHead
	rng := rand.New(rand.NewPCG(43, uint64(n)))

	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	outcomes := map[string]int{}
	for i := range n {
		dir := filepath.Join(t.TempDir(), "bundle")
		b := hostileBundle(t, rng, i, dir)
		r := newActionRun(t, srv, "workflow_run")
		code := func() (code int) {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("bundle %d (%s): panic: %v", i, b.kind, p)
				}
			}()
			return r.run(pipelines{}, "--comment-from", dir)
		}()
		got := r.outputs()["verdict"]
		outcomes[fmt.Sprintf("%s → exit %d, %s", b.kind, code, got)]++
		if !slices.Contains(actionVerdicts(), got) {
			t.Errorf("bundle %d (%s): verdict output %q, want one of %v", i, b.kind, got, actionVerdicts())
		}
		if got == string(compare.Pass) && (b.scenarios == nil || compare.HeadlineVerdict(b.scenarios) != compare.Pass) {
			t.Errorf("bundle %d (%s): verdict output pass, but its scenarios make %q", i, b.kind, compare.HeadlineVerdict(b.scenarios))
		}
		if (code == exitPass) != (got != "error") {
			t.Errorf("bundle %d (%s): exit %d with verdict output %q", i, b.kind, code, got)
		}
		os.RemoveAll(filepath.Dir(dir))
	}
	close(stop)
	wg.Wait()
	for _, c := range srv.Comments(23) {
		if len(c.Body) > report.CommentMaxBytes {
			t.Errorf("a comment of %d bytes, over GitHub's %d", len(c.Body), report.CommentMaxBytes)
		}
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range outcomes {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		t.Logf("%4d × %s", outcomes[k], k)
	}
	t.Logf("%d bundles in %v; peak Go heap in use %d MiB (bound %d MiB)", n, time.Since(start).Round(time.Millisecond), peak.Load()>>20, soakHeapBound>>20)
	if p := peak.Load(); p > soakHeapBound {
		t.Errorf("peak Go heap in use %d MiB, over the bound of %d MiB", p>>20, soakHeapBound>>20)
	}
}

// soakBundle is what hostileBundle wrote: its kind, and the scenarios of
// its report (nil when the report is not a comparison perfgate can read).
type soakBundle struct {
	kind      string
	scenarios []compare.ScenarioComparison
}

// hostileNames are scenario names a fork would choose.
var hostileNames = []string{
	"@octocat ping", "fixes #1", "acme/svc#2", "GH-12", "https://github.com/acme/svc/issues/3",
	"www.example.com/x", "::warning::pwned", "a\r::set-output name=verdict::pass", "##[error]x",
	"<script>alert(1)</script>", "`code` | [x](y) ![i](j)", "\u00a0::error::nbsp", "line\nbreak",
	strings.Repeat("é", 100), strings.Repeat("x", 200),
}

// hostileBundle writes bundle i into dir. Bundles 0-6 of every 250 are
// the caps, each with a report that agrees with itself (so that the cap,
// not the report, decides); the others are random.
func hostileBundle(t *testing.T, rng *rand.Rand, i int, dir string) soakBundle {
	t.Helper()
	for _, sub := range []string{"baseline", "candidate"} {
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
	}
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pad := func(b []byte, size int) []byte { // JSON with trailing spaces up to size bytes
		return append(b, bytes.Repeat([]byte(" "), max(0, size-len(b)))...)
	}
	pr, _ := json.Marshal(map[string]any{"number": 23, "head_sha": forkHead})
	doc, scs := randomReport(rng, 1+rng.IntN(40))
	kind := "random"
	if i%250 < 7 || rng.IntN(2) == 0 {
		doc, scs = consistentReport(rng, 1+rng.IntN(40))
		kind = "agreeing with itself"
	}
	switch i % 250 {
	case 0:
		kind, pr = "pr.json at its cap", pad(pr, capread.Config)
	case 1:
		kind, pr = "pr.json a byte over its cap", pad(pr, capread.Config+1)
	case 2:
		// A report of as many scenarios as fit in 64 MiB: the heaviest
		// input comment mode accepts.
		kind = "report.json of scenarios up to its cap"
		doc, scs = randomReport(rng, 0)
		var many []any
		for size := 0; ; {
			_, s := consistentReport(rng, 1)
			one, _ := json.Marshal(s[0])
			if size += len(one) + 1; size > capread.Result-64<<10 {
				break
			}
			many = append(many, s[0])
			scs = append(scs, s[0])
		}
		doc["comparison"].(map[string]any)["scenarios"] = many
		doc["comparison"].(map[string]any)["verdict"] = compare.HeadlineVerdict(scs)
	case 3:
		kind = "report.json a byte over its cap"
		b, _ := json.Marshal(doc)
		write("report.json", pad(b, capread.Result+1))
		write("pr.json", pr)
		return soakBundle{kind: kind}
	case 4:
		// One result, renamed per file: the cap counts files, and
		// synthesizing 1,000 histograms would cost most of the test.
		kind = "1,000 result files"
		r := comparetest.Result(comparetest.Spec{Layer: "service", Trials: 5, Requests: 2000, MedianMs: 10, Noise: 0.02}, rand.New(rand.NewPCG(0, 7)))
		for k := range 1000 {
			r.Scenario = fmt.Sprintf("s%d", k)
			if err := r.WriteFile(filepath.Join(dir, "candidate", fmt.Sprintf("s%d.json", k))); err != nil {
				t.Fatal(err)
			}
		}
	case 5:
		kind = "1,001 result files"
		for k := range 1001 {
			os.WriteFile(filepath.Join(dir, "baseline", fmt.Sprintf("s%d.json", k)), []byte("{}"), 0o644)
		}
	case 6:
		kind = "a result file at its cap"
		p := filepath.Join(dir, "candidate", "big.json")
		writeResult(t, p, comparetest.Spec{Scenario: "big", Layer: "service"}, 1)
		b, _ := os.ReadFile(p)
		os.WriteFile(p, pad(b, capread.Result), 0o644)
	default:
		switch rng.IntN(4) {
		case 0:
			kind = "junk result files"
			for k := range rng.IntN(5) + 1 {
				junk := make([]byte, rng.IntN(4096))
				for j := range junk {
					junk[j] = byte(rng.IntN(256))
				}
				os.WriteFile(filepath.Join(dir, "candidate", fmt.Sprintf("j%d.json", k)), junk, 0o644)
			}
		case 1:
			kind = "another pull request"
			pr, _ = json.Marshal(map[string]any{"number": 1 + rng.IntN(100), "head_sha": strings.Repeat("a", 40)})
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	write("report.json", b)
	write("pr.json", pr)
	return soakBundle{kind: kind, scenarios: scs}
}

// randomReport is a report document of n scenarios with random verdicts
// (some the gate never writes), flags, names and figures, and a headline
// that is as often forged as not.
func randomReport(rng *rand.Rand, n int) (map[string]any, []compare.ScenarioComparison) {
	verdicts := []compare.Verdict{compare.Unchanged, compare.Improved, compare.Regressed, compare.Inconclusive, compare.NoBaseline, "fine", ""}
	figures := []float64{0, -1, 1e308, -1e308, 5e-324, 12.5, math.MaxInt64}
	var scs []compare.ScenarioComparison
	var raw []any
	for k := range n {
		sc := compare.ScenarioComparison{
			Scenario: hostileNames[rng.IntN(len(hostileNames))] + " " + strconv.Itoa(k),
			Layer:    []string{"model", "service", "system", "<b>"}[rng.IntN(4)],
			Verdict:  verdicts[rng.IntN(len(verdicts))],
			Invalid:  rng.IntN(5) == 0,
		}
		for range rng.IntN(3) {
			sc.Metrics = append(sc.Metrics, compare.Metric{Metric: []string{compare.MetricP99, compare.MetricMaxQPS, "x"}[rng.IntN(3)],
				Baseline: figures[rng.IntN(len(figures))], Candidate: figures[rng.IntN(len(figures))],
				DeltaPct: figures[rng.IntN(len(figures))], Verdict: verdicts[rng.IntN(len(verdicts))], Gated: rng.IntN(2) == 0})
		}
		if rng.IntN(10) == 0 {
			sc.Warnings = []string{strings.Repeat("warning @x #1 ", rng.IntN(2000))}
		}
		scs = append(scs, sc)
		raw = append(raw, sc)
	}
	headline := []compare.Verdict{compare.Pass, compare.Fail, compare.Undecided, compare.NoBaseline, compare.Incomparable, "pass\n::set-output name=x::y"}[rng.IntN(6)]
	if rng.IntN(2) == 0 {
		headline = compare.HeadlineVerdict(scs) // agreeing with itself
	}
	return map[string]any{"schema": report.Schema, "title": hostileNames[rng.IntN(len(hostileNames))],
		"comparison": map[string]any{"schema": compare.Schema, "verdict": headline, "reason": "because @everyone #9",
			"scenarios": raw, "settings": compare.DefaultSettings()}}, scs
}

// consistentReport is randomReport with only the verdicts the gate
// writes, invalid scenarios inconclusive, and the headline its scenarios
// make.
func consistentReport(rng *rand.Rand, n int) (map[string]any, []compare.ScenarioComparison) {
	doc, scs := randomReport(rng, n)
	valid := []compare.Verdict{compare.Unchanged, compare.Improved, compare.Regressed, compare.Inconclusive, compare.NoBaseline}
	var raw []any
	for k := range scs {
		sc := &scs[k]
		sc.Verdict = valid[rng.IntN(len(valid))]
		if sc.Invalid || sc.Verdict == compare.NoBaseline {
			sc.Verdict, sc.Metrics = compare.Inconclusive, nil
			if !sc.Invalid {
				sc.Verdict = compare.NoBaseline
			}
		}
		for m := range sc.Metrics {
			sc.Metrics[m].Verdict = compare.Unchanged
			if sc.Metrics[m].Gated && sc.Verdict == compare.Regressed {
				sc.Metrics[m].Verdict = compare.Regressed
			}
		}
		raw = append(raw, *sc)
	}
	c := doc["comparison"].(map[string]any)
	c["scenarios"], c["verdict"] = raw, compare.HeadlineVerdict(scs)
	return doc, scs
}
