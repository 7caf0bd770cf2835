package main

import (
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/bisect"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/internal/golden"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// rewriteFixtures regenerates the committed inputs of the CLI's golden
// tests (testdata/cli/*.json) from comparetest's seeded generator. The
// golden tests read the committed files, so a change to the generator
// does not move them.
var rewriteFixtures = flag.Bool("fixtures", false, "regenerate testdata/cli's result fixtures")

// cliFixtureDir is where the golden tests' inputs and outputs live.
const cliFixtureDir = "testdata/cli"

// writeCLIFixtures writes the results, the A/B comparison and the
// bisection the golden tests read.
func writeCLIFixtures(t *testing.T) {
	t.Helper()
	base := comparetest.Spec{Scenario: "api", Layer: "service", Trials: 5, Requests: 2000, MedianMs: 10, Noise: 0.02}
	write := func(name string, sp comparetest.Spec, seed uint64) *result.Result {
		r := comparetest.Result(sp, rand.New(rand.NewPCG(seed, 7)))
		if err := r.WriteFile(filepath.Join(cliFixtureDir, name)); err != nil {
			t.Fatal(err)
		}
		return r
	}
	write("base.json", base, 1)
	write("same.json", base, 2)
	slow := base
	slow.Scale = 1.3
	write("slow.json", slow, 3)
	h100, h200 := base, base
	h100.GPU, h200.GPU = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
	write("gpu-h100.json", h100, 1)
	write("gpu-h200.json", h200, 2)

	// Same-runner A/B: 8 pairs of one trial a side, the head 12% slower,
	// judged as gate --ab judges them.
	ab := base
	ab.Trials = 8
	abBase := comparetest.Result(ab, rand.New(rand.NewPCG(11, 7)))
	ab.Scale = 1.12
	abHead := comparetest.Result(ab, rand.New(rand.NewPCG(12, 7)))
	s := compare.DefaultSettings()
	alpha := 1 - s.Confidence
	sc := compare.ComparePaired("api", "service", compare.Pairs{Base: abBase.Trials, Head: abHead.Trials}, s, alpha, alpha)
	c := compare.PairedComparison([]compare.ScenarioComparison{sc}, s)
	c.AB = &compare.ABRun{Ref: "main", BaseSHA: "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", HeadSHA: "4f2c1e0d9b8a7f6e5d4c3b2a1908f7e6d5c4b3a2",
		Resident: "both", MaxTrials: 20, Scenarios: []compare.ABScenario{{Scenario: "api", Order: "ABBAABBAABBAABBA", Pairs: 8, Trials: 16,
			Looks: 1, Level: alpha, Stopped: "decided", RunnerS: 95, FixedTrials: 40, FixedRunnerS: 237, Processes: [2]int{3, 3},
			OrderEffect: &compare.OrderEffect{Blocks: 4, P50Pct: -0.2, P50CIPct: [2]float64{-1.5, 1.1}, P99Pct: 11, P99CIPct: [2]float64{4.2, 18.3}}}}}
	c.AB.Tally(c.Scenarios)
	writeFixtureJSON(t, "ab.comparison.json", c)

	// A bisection that found the commit that made api 25% slower.
	step := func(base, head string, verdict compare.Verdict, d float64, ci [2]float64) bisect.Step {
		return bisect.Step{Base: base, Head: head, Verdict: verdict, Metric: compare.MetricP99, DeltaPct: d, CIPct: ci, Pairs: 8, RunnerS: 40, WallS: 55}
	}
	total := step("1111111111aa", "5555555555ee", compare.Regressed, 25.1, [2]float64{20.3, 30})
	culprit := step("3333333333cc", "4444444444dd", compare.Regressed, 24.6, [2]float64{19.8, 29.7})
	writeFixtureJSON(t, "bisect.json", &bisect.Outcome{Good: "1111111111aa", Bad: "5555555555ee", Commits: 4, Status: bisect.Found,
		Direction: compare.Regressed, Culprit: "4444444444dd", Window: [2]string{"3333333333cc", "4444444444dd"},
		Change: &culprit, Total: &total, RunnerS: 160, WallS: 220,
		Steps: []bisect.Step{total, step("1111111111aa", "3333333333cc", compare.Unchanged, 0.4, [2]float64{-2.1, 3}), culprit}})
}

func writeFixtureJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cliFixtureDir, name), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFixtureJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(cliFixtureDir, name))
	if err != nil {
		t.Fatalf("%v (go test -run TestCLIGolden -fixtures writes it)", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// The CLI's output for representative comparisons, as benchstat's
// main_test.go checks its own: committed inputs, the output compared
// with testdata/cli/*.golden (go test -update rewrites them). Each
// terminal output is the five-second form: a headline of at most
// report.HeadlineMax characters, the table, at most three lines.
func TestCLIGolden(t *testing.T) {
	if *rewriteFixtures {
		writeCLIFixtures(t)
	}
	// The command runs in a temporary folder: absolute paths.
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	fx := func(name string) string { return abs(filepath.Join(cliFixtureDir, name)) }
	aa := abs(filepath.Join("..", "..", "compare", "testdata", "aa"))
	tests := []struct {
		name     string
		args     []string
		wantCode int
	}{
		{"compare-pass", []string{"compare", fx("base.json"), fx("same.json")}, exitPass},
		{"compare-regressed", []string{"compare", fx("base.json"), fx("slow.json")}, exitRegression},
		{"compare-regressed-verbose", []string{"compare", "--verbose", fx("base.json"), fx("slow.json")}, exitRegression},
		// A real A/A pair of the demo's llm-int8 (compare/testdata/aa).
		{"compare-aa-inconclusive", []string{"compare", filepath.Join(aa, "llm-int8-demo.json"), filepath.Join(aa, "llm-int8-gate3.json")}, exitPass},
		{"compare-incomparable", []string{"compare", fx("gpu-h100.json"), fx("gpu-h200.json")}, exitRegression},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstderr:\n%s", code, tt.wantCode, stderr)
			}
			golden.Check(t, "cli/"+tt.name+".golden", []byte(stdout))
			if !strings.Contains(tt.name, "verbose") {
				checkFiveSeconds(t, stdout)
			}
		})
	}

	// gate --ab prints the gate's report in brief (report.Brief) and
	// writes the Markdown; both from the committed A/B comparison.
	t.Run("gate-ab", func(t *testing.T) {
		var c compare.Comparison
		readFixtureJSON(t, "ab.comparison.json", &c)
		r := &report.Report{Title: "perfgate.yaml", Comparison: &c}
		var txt, md strings.Builder
		if err := report.Brief(&txt, r, "full report: perfgate-out/gate.log (--verbose prints it here)"); err != nil {
			t.Fatal(err)
		}
		if err := report.Markdown(&md, r, report.Options{}); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "cli/gate-ab.golden", []byte(txt.String()))
		golden.Check(t, "cli/gate-ab.md.golden", []byte(md.String()))
		checkFiveSeconds(t, txt.String())
		if !strings.Contains(md.String(), "<details>") {
			t.Errorf("the A/B report.md has no collapsed details:\n%s", md.String())
		}
	})
	t.Run("bisect", func(t *testing.T) {
		var o bisect.Outcome
		readFixtureJSON(t, "bisect.json", &o)
		var txt strings.Builder
		if err := report.BisectText(&txt, &o); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "cli/bisect.golden", []byte(txt.String()))
	})
}

// checkFiveSeconds holds a terminal output to the five-second form: its
// first line at most report.HeadlineMax characters, and no figure of a
// change beyond what a reader can use.
func checkFiveSeconds(t *testing.T, out string) {
	t.Helper()
	first, _, _ := strings.Cut(out, "\n")
	if n := len([]rune(first)); n > report.HeadlineMax {
		t.Errorf("headline is %d characters, want at most %d: %q", n, report.HeadlineMax, first)
	}
	if strings.Contains(out, "method:") || strings.Contains(out, "warning:") {
		t.Errorf("the brief output carries the method or warnings (they belong to --verbose):\n%s", out)
	}
}
