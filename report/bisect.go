package report

import (
	"fmt"
	"io"

	"github.com/perfgate/perfgate/bisect"
)

// BisectText writes a bisection: its status, the culprit and its own
// change with the interval, each step, and the runner time.
func BisectText(w io.Writer, o *bisect.Outcome) error {
	fmt.Fprintf(w, "perfgate bisect: %s..%s, %d commit(s): %s\n", commitName(o.Good), commitName(o.Bad), o.Commits, o.Status)
	if o.Total != nil {
		fmt.Fprintf(w, "  good → bad: %s%s\n", o.Total.Verdict, stepChange(*o.Total))
	}
	switch o.Status {
	case bisect.Found:
		fmt.Fprintf(w, "  culprit: %s (after %s)", commitName(o.Culprit), commitName(o.Window[0]))
		if o.Change != nil {
			fmt.Fprintf(w, ": %s%s", o.Change.Verdict, stepChange(*o.Change))
		}
		fmt.Fprintln(w)
	case bisect.Inconclusive:
		fmt.Fprintf(w, "  narrowest window: after %s, at or before %s\n", commitName(o.Window[0]), commitName(o.Window[1]))
	}
	if o.Note != "" {
		fmt.Fprintf(w, "  note: %s\n", o.Note)
	}
	for i, s := range o.Steps {
		fmt.Fprintf(w, "  step %d: %s against %s: %s%s, %d pairs, runner %.0fs, wall %.0fs\n",
			i+1, commitName(s.Head), commitName(s.Base), s.Verdict, stepChange(s), s.Pairs, s.RunnerS, s.WallS)
	}
	_, err := fmt.Fprintf(w, "  %d step(s), runner time %.0fs, wall time %.0fs\n", len(o.Steps), o.RunnerS, o.WallS)
	return err
}

// stepChange is ", p99_ms +25.1% [+20.3%, +30.0%]", or "" without one.
func stepChange(s bisect.Step) string {
	if s.Metric == "" {
		return ""
	}
	return fmt.Sprintf(", %s %s [%s, %s]", s.Metric, signedPct(s.DeltaPct), signedPct(s.CIPct[0]), signedPct(s.CIPct[1]))
}
