package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/history"
)

// aaLike is the demo's A/A gate in numbers: n scenarios, every P99 left
// inconclusive by run-to-run noise no number of processes removes, and a
// detectable change far beyond 100% (issue 45 measured ≥ 2030344%).
func aaLike(n int) *compare.Comparison {
	c := &compare.Comparison{Verdict: compare.Inconclusive,
		Reason: "could not decide …; not shown unchanged: " + strings.Repeat("model-fp32 (p99_ms -17.1% [-43.0%, +20.8%] leaves ±5% (run-to-run noise 8% a run)); ", n),
		Sensitivity: []compare.Sensitivity{
			{Metric: compare.MetricP99, Scenarios: n, MedianMDEPct: 2030344, MaxMDEPct: 2030344, ThresholdPct: 5},
			{Metric: compare.MetricMaxQPS, Scenarios: 2, MedianMDEPct: 30, MaxMDEPct: 31, ThresholdPct: 5},
			{Metric: compare.MetricErrorRate, Scenarios: n, MedianMDEPct: 0.5, ThresholdPct: 0.1, Absolute: true},
		}}
	for i := range n {
		c.Scenarios = append(c.Scenarios, compare.ScenarioComparison{
			Scenario: fmt.Sprintf("scenario-with-a-long-name-%02d", i), Verdict: compare.Inconclusive,
			Metrics: []compare.Metric{{Metric: compare.MetricP99, Gated: true, Verdict: compare.Inconclusive,
				DeltaPct: -17.1, CIPct: [2]float64{-43, 46501}, MDELimit: "the run-to-run noise …", RunToRunVar: 0.02}},
		})
	}
	return c
}

func TestHeadlineLine(t *testing.T) {
	oneOf := func(verdict compare.Verdict, m compare.Metric, sc compare.ScenarioComparison) *compare.Comparison {
		sc.Scenario, sc.Verdict = "api", compare.Inconclusive
		if m.Metric != "" {
			sc.Metrics = []compare.Metric{m}
		}
		return &compare.Comparison{Verdict: verdict, Scenarios: []compare.ScenarioComparison{sc}}
	}
	undecided := compare.Metric{Metric: compare.MetricP99, Gated: true, Verdict: compare.Inconclusive}
	with := func(f func(*compare.Metric)) compare.Metric { m := undecided; f(&m); return m }
	tests := []struct {
		name string
		c    *compare.Comparison
		want string
	}{
		{"A/A of 13 scenarios", aaLike(13),
			"perfgate · perfgate.yaml: INCONCLUSIVE · 13 undecided of 13 scenarios · next: run perfgate gate --ab"},
		{"pass", &compare.Comparison{Verdict: compare.Pass, Scenarios: []compare.ScenarioComparison{
			{Verdict: compare.Unchanged}, {Verdict: compare.Improved}}},
			"perfgate · perfgate.yaml: PASS · 1 improved, 1 unchanged of 2 scenarios"},
		{"fail", &compare.Comparison{Verdict: compare.Fail, Scenarios: []compare.ScenarioComparison{
			{Verdict: compare.Regressed}, {Verdict: compare.Unchanged}}},
			"perfgate · perfgate.yaml: FAIL · 1 regressed, 1 unchanged of 2 scenarios · next: fix it, or re-baseline if intended"},
		{"incomparable", &compare.Comparison{Verdict: compare.Incomparable},
			"perfgate · perfgate.yaml: INCOMPARABLE · 0 scenarios · next: compare on the same hardware"},
		// The run comes before its statistics: a busy host is the thing
		// to fix even where more processes would also help.
		{"host busy", oneOf(compare.Inconclusive, with(func(m *compare.Metric) { m.MDEUnitsNeeded, m.MDEUnit = 12, "target processes" }),
			compare.ScenarioComparison{HostBusy: true}),
			"perfgate · perfgate.yaml: INCONCLUSIVE · 1 undecided of 1 scenario · next: rerun on a quiet runner"},
		{"units", oneOf(compare.Inconclusive, with(func(m *compare.Metric) { m.MDEUnitsNeeded, m.MDEUnit = 12, "target processes" }),
			compare.ScenarioComparison{}),
			"perfgate · perfgate.yaml: INCONCLUSIVE · 1 undecided of 1 scenario · next: measure about 12 target processes a side"},
		{"sparse", oneOf(compare.Inconclusive, with(func(m *compare.Metric) { m.RequestsNeeded = 100 }), compare.ScenarioComparison{}),
			"perfgate · perfgate.yaml: INCONCLUSIVE · 1 undecided of 1 scenario · next: lengthen the window or raise the rate"},
		{"invalid run", oneOf(compare.Inconclusive, compare.Metric{}, compare.ScenarioComparison{Invalid: true}),
			"perfgate · perfgate.yaml: INCONCLUSIVE · 1 undecided of 1 scenario · next: fix the invalid run and rerun"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := headlineLine("perfgate · perfgate.yaml", tt.c)
			if got != tt.want {
				t.Errorf("headlineLine = %q, want %q", got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > HeadlineMax {
				t.Errorf("headlineLine is %d characters, want at most %d", n, HeadlineMax)
			}
		})
	}
	// Under the table, the units' line says what its count is for: the
	// more-pairs note's count decides the estimate as it stands, this one
	// a change of the threshold's size.
	got := decideLines(tests[5].c)
	want := "p99_ms in api: the interval straddles the threshold: measure about 12 target processes a side (enough to catch a change of the threshold's size 4 times in 5)"
	if len(got) == 0 || got[0] != want {
		t.Errorf("decideLines = %q, want first %q", got, want)
	}
}

// A headline too long for its title drops the title, then is cut, never
// past HeadlineMax.
func TestHeadlineLineMax(t *testing.T) {
	c := aaLike(3)
	long := "perfgate · " + strings.Repeat("very-long-config-name/", 8) + "perfgate.yaml"
	got := headlineLine(long, c)
	if want := "perfgate: INCONCLUSIVE · 3 undecided of 3 scenarios · next: run perfgate gate --ab"; got != want {
		t.Errorf("headlineLine = %q, want %q", got, want)
	}
	got = headlineLine(strings.Repeat("x", 200), c)
	if n := utf8.RuneCountInString(got); n != HeadlineMax || !strings.HasSuffix(got, "…") {
		t.Errorf("headlineLine of a 200-character prefix = %q (%d characters), want %d ending in …", got, n, HeadlineMax)
	}
}

// The demo's A/A gate, issue 45: a 2,371-character reason under the
// headline. Now the text brief is the headline, the table and at most
// three short lines; the reason is in the full report only, and no
// detectable change or interval end beyond the caps is written as a
// figure.
func TestBriefAA(t *testing.T) {
	r := &Report{Title: "perfgate.yaml", Comparison: aaLike(13)}
	var b strings.Builder
	if err := Brief(&b, r, "full report: perfgate-out/gate.log (--verbose prints it)"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// headline, blank, table header and 13 rows, blank, 2 lines, blank,
	// the pointer.
	if len(lines) != 1+1+14+1+2+1+1 {
		t.Errorf("brief has %d lines, want 21:\n%s", len(lines), out)
	}
	if n := utf8.RuneCountInString(lines[0]); n > HeadlineMax {
		t.Errorf("headline is %d characters: %q", n, lines[0])
	}
	for _, bad := range []string{"2030344", "46501", "could not decide"} {
		if strings.Contains(out, bad) {
			t.Errorf("brief contains %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{
		"p99_ms in 13 scenarios (scenario-with-a-long-name-00, …): whole runs differ here; baselines from two runs or a history also help: run perfgate gate --ab",
		"this runner cannot see p99_ms changes here (not even 100%); it sees max_qps changes ≥ 30%",
		"[-43.0%, over +1000%]",
		"full report: perfgate-out/gate.log",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("brief lacks %q:\n%s", want, out)
		}
	}
	var full strings.Builder
	if err := Text(&full, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(full.String(), "could not decide") {
		t.Errorf("the full text report lacks the comparison's reason:\n%s", full.String())
	}
}

func TestDecideLinesAtMostThree(t *testing.T) {
	c := aaLike(4)
	// Four causes: the lines keep the first two and what the gate sees.
	c.Scenarios[0].HostBusy = true
	c.Scenarios[1].Invalid = true
	c.Scenarios[2].Metrics[0].MDELimit, c.Scenarios[2].Metrics[0].MDEUnitsNeeded, c.Scenarios[2].Metrics[0].MDEUnit = "", 9, "target processes"
	got := decideLines(c)
	if len(got) != MaxDecideLines {
		t.Fatalf("decideLines = %d lines, want %d: %q", len(got), MaxDecideLines, got)
	}
	for i, prefix := range []string{"p99_ms in scenario-with-a-long-name-01: a side's run was invalid", "p99_ms in scenario-with-a-long-name-00: the host was busy", "this runner cannot see"} {
		if !strings.HasPrefix(got[i], prefix) {
			t.Errorf("decideLines[%d] = %q, want it to start %q", i, got[i], prefix)
		}
	}
}

func TestSeesLine(t *testing.T) {
	tests := []struct {
		name string
		ss   []compare.Sensitivity
		want string
	}{
		{"sees its thresholds", []compare.Sensitivity{{Metric: compare.MetricP99, MedianMDEPct: 4, ThresholdPct: 5}}, ""},
		{"short of them", []compare.Sensitivity{{Metric: compare.MetricP99, MedianMDEPct: 56, ThresholdPct: 5}},
			"this gate sees p99_ms changes ≥ 56%"},
		{"blind", []compare.Sensitivity{{Metric: compare.MetricP99, MedianMDEPct: 2030344, ThresholdPct: 5}},
			"this runner cannot see p99_ms changes here (not even 100%)"},
		// The error rate's MDE is in points and its own sentence is noise.
		{"error rate left out", []compare.Sensitivity{{Metric: compare.MetricErrorRate, MedianMDEPct: 3, ThresholdPct: 0.1, Absolute: true}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := seesLine(tt.ss); got != tt.want {
				t.Errorf("seesLine = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCIText(t *testing.T) {
	tests := []struct {
		ci       [2]float64
		abs, top bool
		want     string
	}{
		{[2]float64{12.1, 23.5}, false, false, "[+12.1%, +23.5%]"},
		{[2]float64{-9.7, 117.5}, false, false, "[-9.7%, +117.5%]"},
		{[2]float64{-43, 46501}, false, false, "[-43.0%, over +1000%]"},
		{[2]float64{5, 0}, false, true, "[+5.0%, ∞)"},
		// Points are not capped: an error rate of +1500 pp cannot be.
		{[2]float64{-0.5, 1500}, true, false, "[-0.50 pp, +1500.00 pp]"},
	}
	for _, tt := range tests {
		if got := ciText(tt.ci, tt.abs, tt.top); got != tt.want {
			t.Errorf("ciText(%v, %v, %v) = %q, want %q", tt.ci, tt.abs, tt.top, got, tt.want)
		}
	}
}

// The HTML report says which comparison produced it (issue 45: an A/B
// run's page did not say it was one).
func TestHTMLSaysItsMode(t *testing.T) {
	base := func() *compare.Comparison {
		return &compare.Comparison{Schema: compare.Schema, Verdict: compare.Pass, Settings: compare.DefaultSettings(),
			Scenarios: []compare.ScenarioComparison{{Scenario: "api", Verdict: compare.Unchanged}}}
	}
	ab := base()
	ab.AB = &compare.ABRun{Ref: "main", BaseSHA: "0a1b2c3d4e5f60718293", HeadSHA: "4f2c1e0d9b8a7f6e5d4c"}
	declared := base()
	declared.AB = &compare.ABRun{Declared: true}
	learned := base()
	learned.Settings.Learned = map[string]compare.LearnedNoise{"api": {}}
	alone := base()
	alone.Verdict = compare.NoBaseline
	tests := []struct {
		name string
		r    *Report
		want string
	}{
		{"stored", &Report{Comparison: base()}, "Mode: stored baselines</p>"},
		{"A/B", &Report{Comparison: ab}, "Mode: same-runner A/B: base main (0a1b2c3d4e5f) against head 4f2c1e0d9b8a"},
		{"declared pairs", &Report{Comparison: declared}, "Mode: declared pairs: each pair&#39;s base scenario against its head scenario, measured interleaved on this runner"},
		{"history", &Report{Comparison: learned}, "Mode: stored baselines, the run-to-run noise learned from the history (1 scenario)"},
		{"history trend", &Report{Comparison: base(), Trend: &Trend{Series: []history.Series{{}}}}, "Mode: stored baselines; trends from the history"},
		{"results alone", &Report{Comparison: alone}, "Mode: results alone"},
		{"stated by the caller", &Report{Comparison: base(), Mode: "variants measured in one run"}, "Mode: variants measured in one run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := HTML(&b, tt.r, HTMLOptions{}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tt.want) {
				i := strings.Index(b.String(), "Mode:")
				t.Errorf("HTML lacks %q; has %q", tt.want, b.String()[i:min(len(b.String()), i+160)])
			}
		})
	}
}

// The brief says how many machines the change needs: each sized
// scenario's instance counts, base → candidate, the one figure a capacity
// owner reads first, and nothing of the method or the details.
func TestBriefCapacity(t *testing.T) {
	r := sampleReport(t)
	var b strings.Builder
	if err := Brief(&b, r, ""); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "\ncapacity:\n") {
		t.Fatalf("brief has no capacity section:\n%s", out)
	}
	for _, p := range r.Plans {
		if p.Diff == nil {
			continue
		}
		want := fmt.Sprintf("  %s: instances %d → %d", p.Scenario, p.Diff.BaselineInstances, p.Diff.CandidateInstances)
		if !strings.Contains(out, want) {
			t.Errorf("brief lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "method") || strings.Contains(out, "environment") {
		t.Errorf("brief holds the details:\n%s", out)
	}
}
