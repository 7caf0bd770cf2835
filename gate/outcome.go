package gate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/internal/exitcode"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// Outcome is what a gate produced, and the one place its verdict becomes
// an exit code and a message: the command and the Action both ask it.
type Outcome struct {
	Report   *report.Report
	Outcomes []suite.Outcome
	// RunErr joins the scenarios' failures (the run itself failed: exit 3).
	RunErr error
	// Rerun is what gate.on_inconclusive: rerun did, nil when it did not
	// run.
	Rerun *Rerun
	// Regressions has one line per regressed scenario
	// (report.RegressionLines), and those Join adds.
	Regressions []string
	// FailOnInconclusive: an inconclusive verdict exits 1
	// (on_inconclusive: fail, from the config or the request).
	FailOnInconclusive bool
	// ReportOnly reports a regression or an incomparable baseline without
	// failing (exit 0): the Action's fail-on-regression: false. An
	// inconclusive verdict is still FailOnInconclusive's to decide.
	ReportOnly bool
	// Paths are the files Write wrote ("" before).
	Paths Paths
	// BaselinesDir is the folder the baselines were looked for in, and
	// ResultsDir the candidate's results ("" when unknown, as in an A/B
	// gate): a first run's message names both, in the command that
	// stores the one in the other.
	BaselinesDir, ResultsDir string
	// version is perfgate's, named in report.html.
	version string
}

// Paths are the files Outcome.Write writes.
type Paths struct {
	// Comparison is comparison.json (perfgate.comparison/v1).
	Comparison string
	// Markdown is report.md, the report posted on a pull request,
	// at most report.SummaryMaxBytes.
	Markdown string
	// HTML is report.html, the same with charts, one offline page.
	HTML string
	// Log is gate.log, the full report for a terminal (report.Text:
	// method, warnings and every detail), which the terminal's brief
	// output points to.
	Log string
}

// Verdict is the comparison's top-level verdict.
func (o *Outcome) Verdict() compare.Verdict { return o.Report.Comparison.Verdict }

// ExitCode is the gate's exit code: 3 when the run failed, else
// exitcode.ForVerdict (1 on a regression or an incomparable baseline,
// unless ReportOnly, and on an inconclusive verdict when
// FailOnInconclusive; 0 on pass or no baseline).
func (o *Outcome) ExitCode() int {
	if o.RunErr != nil {
		return exitcode.RunFailed
	}
	code := exitcode.ForVerdict(o.Verdict(), o.FailOnInconclusive)
	if o.ReportOnly && o.Verdict() != compare.Undecided {
		return exitcode.Pass
	}
	return code
}

// Message says what the outcome means for the gate, in one line for the
// command's stderr and the Action's annotation (either prefixes it with
// "perfgate: "): why it fails, or, when it passes, why it passed without
// a comparison to trust (no baseline, inconclusive). It is "" for a plain
// pass.
func (o *Outcome) Message() string {
	if o.RunErr != nil {
		return o.RunErr.Error()
	}
	c := o.Report.Comparison
	passes := ""
	if o.ReportOnly {
		passes = "; fail-on-regression is false, so the step passes"
	}
	switch o.Verdict() {
	case compare.Fail:
		n := "a regression"
		if len(o.Regressions) > 0 {
			n = countNoun(len(o.Regressions), "regression")
		}
		if o.ReportOnly {
			return n + passes
		}
		return "gate failed: " + n + " beyond the threshold"
	case compare.Incomparable:
		why := "the baselines were measured on a different environment"
		if r := report.Reason(c); r != "" {
			why += ": " + r
		}
		return why + "; the gate cannot compare them: store baselines measured on this runner, or accept the mismatch with --allow-env-mismatch (the Action's allow-env-mismatch input)" + passes
	case compare.NoBaseline:
		return o.firstRunMessage()
	case compare.Undecided:
		if o.FailOnInconclusive {
			return "gate inconclusive, and on-inconclusive is fail: " + report.Summary(c)
		}
		return "inconclusive: " + report.Summary(c) + " (the gate passes as inconclusive, not pass; gate.on_inconclusive: fail or --on-inconclusive fail fails it, rerun measures more trials)"
	}
	return ""
}

// Err is the outcome as the command returns it: nil when the gate passes
// (ExitCode 0), else Message carrying ExitCode (exitcode.Of).
func (o *Outcome) Err() error {
	code := o.ExitCode()
	if code == exitcode.Pass {
		return nil
	}
	return exitcode.With(code, errors.New(o.Message()))
}

// countNoun is n with its noun, pluralized with s.
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Write writes comparison.json, report.md, report.html and gate.log into
// dir and records their paths in o.Paths. Its error carries exit code 3.
func (o *Outcome) Write(dir string) (Paths, error) {
	p := Paths{Comparison: filepath.Join(dir, "comparison.json"), Markdown: filepath.Join(dir, "report.md"),
		HTML: filepath.Join(dir, "report.html"), Log: filepath.Join(dir, "gate.log")}
	err := WriteComparison(p.Comparison, o.Report.Comparison)
	if err == nil {
		err = result.WriteFileAtomic(p.Markdown, func(w io.Writer) error {
			return report.Markdown(w, o.Report, report.Options{MaxBytes: report.SummaryMaxBytes})
		})
	}
	if err == nil {
		err = result.WriteFileAtomic(p.HTML, func(w io.Writer) error {
			return report.HTML(w, o.Report, report.HTMLOptions{Version: o.version})
		})
	}
	if err == nil {
		err = result.WriteFileAtomic(p.Log, func(w io.Writer) error { return report.Text(w, o.Report) })
	}
	if err != nil {
		return Paths{}, exitcode.With(exitcode.RunFailed, err)
	}
	o.Paths = p
	return p, nil
}

// WriteComparison writes the comparison JSON (report.ComparisonJSON, as
// `perfgate compare --format json` prints it) to path atomically.
func WriteComparison(path string, c *compare.Comparison) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return result.WriteFileAtomic(path, func(w io.Writer) error { return report.ComparisonJSON(w, c) })
}

// Join is the Action's compare-with: both: o, the A/B gate's outcome, is
// the one reported, with stored's verdict (the gate against the stored
// baselines) added to its warnings; it fails when stored fails, taking
// stored's regressions.
func (o *Outcome) Join(stored *Outcome) *Outcome {
	c := o.Report.Comparison
	c.Warnings = append(c.Warnings, fmt.Sprintf("compare-with both: against the stored baselines the verdict is %s (%s); the table above is the A/B run's",
		stored.Verdict(), report.Reason(stored.Report.Comparison)))
	if v := compare.JoinStored(o.Verdict(), stored.Verdict()); v != o.Verdict() {
		c.Verdict = v
		o.Regressions = append(o.Regressions, stored.Regressions...)
	}
	o.RunErr = errors.Join(o.RunErr, stored.RunErr)
	return o
}

// firstRunMessage says that there was no baseline to compare with, where
// it looked, and the exact command that stores this run there.
func (o *Outcome) firstRunMessage() string {
	if o.BaselinesDir == "" {
		return "no baseline to compare with: the gate passes; store baselines with `perfgate baseline update` (the Action's mode: baseline)"
	}
	return FirstRunMessage(o.BaselinesDir, o.ResultsDir)
}

// FirstRunMessage is the line a gate (or compare) that found no baseline
// prints: that it passes, the folder it looked in, and the exact command
// that stores the results in resultsDir ("" when unknown) there.
func FirstRunMessage(baselinesDir, resultsDir string) string {
	from := resultsDir
	if from == "" {
		from = "RESULTS"
	}
	return fmt.Sprintf("no baseline in %s to compare with (a first run): the gate passes; store this run as the baselines with "+
		"`perfgate baseline update --from %s --to %s` (the Action's mode: baseline), then review and commit them",
		shellQuote(baselinesDir), shellQuote(from), shellQuote(baselinesDir))
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and /._-+:@%, so that a printed command can be pasted.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@%,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
