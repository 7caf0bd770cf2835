package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/internal/exitcode"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// writeResults writes rs into a new folder under root named name.
func writeResults(t *testing.T, root, name string, rs ...*result.Result) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if err := r.WriteFile(filepath.Join(dir, result.FileName(r.Scenario))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The one entry maps every verdict to one exit code and one message, the
// same for the command and the Action: a regression and an incomparable
// baseline fail (unless reported only), no baseline passes and says how
// to store one, an inconclusive verdict passes or fails as
// on_inconclusive says (the request over the config), a scenario without
// a result is a run failure (3), and what cannot be gated at all is an
// error carrying its code.
func TestGateExitCodesAndMessages(t *testing.T) {
	fp32 := comparetest.Spec{Scenario: "fp32", Layer: "model"}
	quiet := func(scale float64, gpu string) *result.Result {
		sp := comparetest.Spec{Scenario: "fp32", Layer: "model", Trials: 5, Requests: 2000, MedianMs: 10, Noise: 0.02, Scale: scale, GPU: gpu}
		return gen(2, sp)
	}
	steady := comparetest.Spec{Scenario: "fp32", Layer: "model", Trials: 12, Requests: 3000, MedianMs: 10, Noise: 0.005}
	noisy := gen(7, comparetest.Spec{Scenario: "fp32", Layer: "model", Trials: 5, Requests: 2000, MedianMs: 10, Noise: 0.35, Scale: 1.3})
	tests := []struct {
		name       string
		base       []*result.Result // nil: an empty baseline folder (or none, with missing)
		missing    bool             // the baseline folder does not exist
		firstRun   bool             // Stored.FirstRun
		cand       []*result.Result
		scenarios  []string
		onInc      string // the request's
		configInc  string // the config's gate.on_inconclusive
		reportOnly bool
		badBase    bool
		ab         bool
		wantVerd   compare.Verdict
		wantCode   int
		wantMsg    string // "" for none
		wantErr    bool
	}{
		{name: "pass", base: []*result.Result{gen(1, steady)}, cand: []*result.Result{gen(2, steady)}, wantVerd: compare.Pass, wantCode: exitcode.Pass},
		{name: "fail", base: []*result.Result{gen(1, fp32)}, cand: []*result.Result{quiet(1.3, "")}, wantVerd: compare.Fail,
			wantCode: exitcode.Regression, wantMsg: "gate failed: 1 regression beyond the threshold"},
		{name: "fail, reported only", base: []*result.Result{gen(1, fp32)}, cand: []*result.Result{quiet(1.3, "")}, reportOnly: true,
			wantVerd: compare.Fail, wantCode: exitcode.Pass, wantMsg: "1 regression; fail-on-regression is false, so the step passes"},
		{name: "incomparable", base: []*result.Result{gen(1, comparetest.Spec{Scenario: "fp32", Layer: "model", GPU: "NVIDIA A100"})},
			cand: []*result.Result{quiet(1, "NVIDIA H200")}, wantVerd: compare.Incomparable, wantCode: exitcode.Regression,
			wantMsg: "the baselines were measured on a different environment: "},
		{name: "incomparable, reported only", base: []*result.Result{gen(1, comparetest.Spec{Scenario: "fp32", Layer: "model", GPU: "NVIDIA A100"})},
			cand: []*result.Result{quiet(1, "NVIDIA H200")}, reportOnly: true, wantVerd: compare.Incomparable, wantCode: exitcode.Pass,
			wantMsg: "fail-on-regression is false, so the step passes"},
		// A first run: the message names the folder and the command that
		// stores the run there.
		{name: "no baseline, empty folder", cand: []*result.Result{quiet(1, "")}, wantVerd: compare.NoBaseline, wantCode: exitcode.Pass,
			wantMsg: "no baseline in %ROOT%/baselines to compare with (a first run): the gate passes; store this run as the baselines with `perfgate baseline update --from %ROOT%/results --to %ROOT%/baselines`"},
		// issue 43: a folder that does not exist is a typo more often than
		// a first run: exit 2, naming it, unless the user says first run.
		{name: "missing baseline folder", missing: true, cand: []*result.Result{quiet(1, "")}, wantErr: true, wantCode: exitcode.Usage,
			wantMsg: `baselines folder "%ROOT%/baselines" does not exist: check the path`},
		{name: "missing baseline folder, first run", missing: true, firstRun: true, cand: []*result.Result{quiet(1, "")},
			wantVerd: compare.NoBaseline, wantCode: exitcode.Pass, wantMsg: "no baseline in %ROOT%/baselines to compare with (a first run)"},
		{name: "inconclusive passes by default", base: []*result.Result{gen(1, fp32)}, cand: []*result.Result{noisy},
			wantVerd: compare.Undecided, wantCode: exitcode.Pass, wantMsg: "(the gate passes as inconclusive, not pass;"},
		{name: "inconclusive fails when asked", base: []*result.Result{gen(1, fp32)}, cand: []*result.Result{noisy}, onInc: "fail",
			wantVerd: compare.Undecided, wantCode: exitcode.Regression, wantMsg: "gate inconclusive, and on-inconclusive is fail: "},
		{name: "inconclusive fails by the config", base: []*result.Result{gen(1, fp32)}, cand: []*result.Result{noisy}, configInc: "fail",
			wantVerd: compare.Undecided, wantCode: exitcode.Regression, wantMsg: "gate inconclusive"},
		{name: "the request overrides the config", base: []*result.Result{gen(1, fp32)}, cand: []*result.Result{noisy}, configInc: "fail", onInc: "pass",
			wantVerd: compare.Undecided, wantCode: exitcode.Pass, wantMsg: "passes as inconclusive"},
		{name: "inconclusive is not reported only", base: []*result.Result{gen(1, fp32)}, cand: []*result.Result{noisy}, onInc: "fail", reportOnly: true,
			wantVerd: compare.Undecided, wantCode: exitcode.Regression, wantMsg: "gate inconclusive"},
		{name: "run error", base: []*result.Result{gen(1, fp32)}, cand: []*result.Result{quiet(1, "")}, scenarios: []string{"fp32", "int8"},
			wantCode: exitcode.RunFailed, wantMsg: "scenario int8 has no result in "},
		{name: "damaged baseline", badBase: true, cand: []*result.Result{quiet(1, "")}, wantErr: true, wantCode: exitcode.Usage, wantMsg: "bad baselines"},
		{name: "results are not gated A/B", cand: []*result.Result{quiet(1, "")}, ab: true, wantErr: true, wantCode: exitcode.Usage,
			wantMsg: "results measured elsewhere are not read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			c := cfg(t, "")
			c.Gate.OnInconclusive = tt.configInc
			baseDir := filepath.Join(root, "baselines")
			switch {
			case tt.base != nil:
				baseDir = writeResults(t, root, "baselines", tt.base...)
			case !tt.missing:
				os.MkdirAll(baseDir, 0o755)
			}
			tt.wantMsg = strings.ReplaceAll(tt.wantMsg, "%ROOT%", root)
			if tt.badBase {
				os.MkdirAll(baseDir, 0o755)
				os.WriteFile(filepath.Join(baseDir, "fp32.json"), []byte("{not json"), 0o644)
			}
			req := Request{Candidate: Results{Dir: writeResults(t, root, "results", tt.cand...)}, Base: Stored{Dir: baseDir, FirstRun: tt.firstRun},
				Scenarios: tt.scenarios, OnInconclusive: tt.onInc}
			if req.Scenarios == nil {
				req.Scenarios = []string{"fp32"}
			}
			if tt.ab {
				req.Base = AB{Ref: "HEAD"}
			}
			o, err := Gate(context.Background(), c, req)
			if tt.wantErr {
				if err == nil || exitcode.Of(err) != tt.wantCode || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("error %v (exit %d), want exit %d saying %q", err, exitcode.Of(err), tt.wantCode, tt.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			o.ReportOnly = tt.reportOnly
			if tt.wantVerd != "" && o.Verdict() != tt.wantVerd {
				t.Fatalf("verdict %q (%s), want %q for the row to mean anything", o.Verdict(), o.Report.Comparison.Reason, tt.wantVerd)
			}
			msg := o.Message()
			if got := o.ExitCode(); got != tt.wantCode {
				t.Errorf("exit code %d, want %d (message %q)", got, tt.wantCode, msg)
			}
			if (tt.wantMsg == "") != (msg == "") || !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("message %q, want one containing %q", msg, tt.wantMsg)
			}
			// Err is what the command returns: nil on exit 0, else the
			// message with its code.
			if err := o.Err(); exitcode.Of(err) != tt.wantCode || (err != nil && err.Error() != msg) {
				t.Errorf("Err() = %v (exit %d), want exit %d with the message", err, exitcode.Of(err), tt.wantCode)
			}
		})
	}
}

// Write writes comparison.json, report.md and report.html into the
// folder, and the outcome keeps their paths.
func TestOutcomeWrite(t *testing.T) {
	root := t.TempDir()
	c := cfg(t, "")
	o, err := Gate(context.Background(), c, Request{Candidate: Results{Dir: writeResults(t, root, "results", gen(2, comparetest.Spec{Scenario: "fp32", Layer: "model"}))},
		Base: Stored{Dir: filepath.Join(root, "none"), FirstRun: true}, Scenarios: []string{"fp32"}, Suite: suiteVersion("v9.9.9-test")})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "out")
	p, err := o.Write(out)
	if err != nil {
		t.Fatal(err)
	}
	if p != o.Paths || p.Comparison != filepath.Join(out, "comparison.json") || p.Markdown != filepath.Join(out, "report.md") || p.HTML != filepath.Join(out, "report.html") {
		t.Errorf("paths %+v (kept %+v), want comparison.json, report.md and report.html in %s", p, o.Paths, out)
	}
	for _, f := range []string{p.Comparison, p.Markdown, p.HTML} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if b, _ := os.ReadFile(p.HTML); !strings.Contains(string(b), "v9.9.9-test") {
		t.Errorf("report.html does not name the version the request ran")
	}
	if b, _ := os.ReadFile(p.Comparison); !strings.Contains(string(b), `"`+string(compare.NoBaseline)+`"`) {
		t.Errorf("comparison.json lacks the verdict:\n%s", b)
	}
}

// compare-with both: the A/B outcome is reported, failing when the stored
// gate fails, with its regressions and its verdict in the warnings.
func TestOutcomeJoin(t *testing.T) {
	mk := func(verdict compare.Verdict, regs ...string) *Outcome {
		return &Outcome{Report: reportWith(verdict), Regressions: regs}
	}
	ab := mk(compare.Pass).Join(mk(compare.Fail, "fp32 regressed"))
	if ab.Verdict() != compare.Fail || ab.ExitCode() != exitcode.Regression || len(ab.Regressions) != 1 {
		t.Errorf("joined: verdict %s, exit %d, regressions %q; want the stored failure", ab.Verdict(), ab.ExitCode(), ab.Regressions)
	}
	if w := strings.Join(ab.Report.Comparison.Warnings, "\n"); !strings.Contains(w, "against the stored baselines the verdict is fail") {
		t.Errorf("warnings %q do not give the stored verdict", w)
	}
	if both := mk(compare.Pass).Join(mk(compare.Pass)); both.ExitCode() != exitcode.Pass {
		t.Errorf("both pass: exit %d", both.ExitCode())
	}
}

func suiteVersion(v string) suite.Options { return suite.Options{Version: v} }

func reportWith(verdict compare.Verdict) *report.Report {
	return &report.Report{Comparison: &compare.Comparison{Schema: compare.Schema, Verdict: verdict}}
}

// The gate's message (its exit error on the terminal, the Action's
// annotation) says the verdict in a line, however long the comparison's
// reason: issue 45's A/A gate printed a 2,371-character reason there.
func TestMessageIsOneLine(t *testing.T) {
	c := &compare.Comparison{Verdict: compare.Undecided, Reason: "could not decide … " + strings.Repeat("model-fp32 (p99_ms -17.1% [-43.0%, +20.8%] leaves ±5%); ", 40)}
	for range 13 {
		c.Scenarios = append(c.Scenarios, compare.ScenarioComparison{Scenario: "s", Verdict: compare.Inconclusive,
			Metrics: []compare.Metric{{Metric: compare.MetricP99, Gated: true, Verdict: compare.Inconclusive, MDELimit: "noise", RunToRunVar: 0.02}}})
	}
	for _, failInc := range []bool{false, true} {
		o := &Outcome{Report: &report.Report{Comparison: c}, FailOnInconclusive: failInc}
		msg := o.Message()
		if len([]rune(msg)) > 300 || strings.Contains(msg, "could not decide") || !strings.Contains(msg, "13 undecided of 13 scenarios · next: run perfgate gate --ab") {
			t.Errorf("Message() (fail on inconclusive %v) = %q (%d characters), want one short line with the counts and the next step", failInc, msg, len([]rune(msg)))
		}
	}
}
