package report

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/history"
)

// HistoryText writes each series as a table: date, commit, value with
// its interval, and a mark on runs stored as the baseline.
func HistoryText(w io.Writer, series []history.Series) error {
	if len(series) == 0 {
		_, err := fmt.Fprintln(w, "no series in the history (check --scenario and --metric)")
		return err
	}
	for i, s := range series {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s · %s · runner %s · %d run(s)\n", s.Scenario, s.Metric, s.Runner, len(s.Points))
		for _, p := range s.Points {
			ci := ""
			if p.Hi > 0 {
				ci = fmt.Sprintf(" [%s, %s]", num(p.Lo), num(p.Hi))
			}
			mark := ""
			if p.Baseline {
				mark = "  baseline"
			}
			fmt.Fprintf(w, "  %s  %-12s  %s%s%s\n", p.Date.Format("2006-01-02 15:04"), commitName(p.Commit), num(p.Value), ci, mark)
		}
	}
	return nil
}

// ChangesText writes change points one a line: scenario, metric, runner,
// the commit window, the size and the confidence.
func ChangesText(w io.Writer, changes []history.Change) error {
	if len(changes) == 0 {
		_, err := fmt.Fprintln(w, "no change points found")
		return err
	}
	for _, c := range changes {
		fmt.Fprintf(w, "%s %s (runner %s): %s %s between %s and %s (run %d), confidence %.1f%%\n",
			c.Scenario, c.Metric, c.Runner, changeWord(c), signedPct(c.SizePct),
			commitName(c.Before.Commit), commitName(c.After.Commit), c.Index+1, 100*c.Confidence)
	}
	return nil
}

// ChangesMarkdown writes change points as a table for a step summary.
func ChangesMarkdown(w io.Writer, changes []history.Change) error {
	if len(changes) == 0 {
		_, err := fmt.Fprintln(w, "perfgate history: no change points on main.")
		return err
	}
	fmt.Fprintln(w, "### perfgate history: change points")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| scenario | metric | change | commit window | confidence |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, c := range changes {
		fmt.Fprintf(w, "| %s | %s | %s %s | `%s`…`%s` | %.1f%% |\n", codeSpan(c.Scenario), c.Metric, changeWord(c), signedPct(c.SizePct),
			commitName(c.Before.Commit), commitName(c.After.Commit), 100*c.Confidence)
	}
	return nil
}

func changeWord(c history.Change) string {
	if c.Regression {
		return "regression"
	}
	return "improvement"
}

func signedPct(p float64) string {
	if p >= 0 {
		return fmt.Sprintf("+%.1f%%", p)
	}
	return fmt.Sprintf("−%.1f%%", -p)
}

// commitName is a commit's short id, or "?" when unknown (or not hex).
func commitName(s string) string {
	if c := shortSHA(s); c != "" {
		return c
	}
	return "?"
}
