package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/perfgate/perfgate/compare"
)

// ComparisonText writes c as aligned plain text for a terminal. Names and
// warnings pass through plain, as in Text, so that none can drive the
// terminal.
func ComparisonText(w io.Writer, c *compare.Comparison) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, plain(headline(c)))
	fmt.Fprintln(bw, settingsLine(c))
	if e := c.Environment; e != nil {
		fmt.Fprintf(bw, "environment: baseline %s; candidate %s\n", plain(e.Baseline), plain(e.Candidate))
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(bw, "WARNING: %s\n", plain(w))
	}
	for _, sc := range c.Scenarios {
		fmt.Fprintln(bw)
		head := plain(sc.Scenario)
		if sc.Layer != "" {
			head += " (" + plain(sc.Layer) + ")"
		}
		fmt.Fprintf(bw, "%s: %s, %d vs %d trials\n", head, strings.ToUpper(sc.Verdict), sc.BaseTrials, sc.CandTrials)
		if sc.Reason != "" {
			fmt.Fprintf(bw, "  %s\n", plain(sc.Reason))
		}
		if len(sc.Metrics) > 0 {
			width := len("metric")
			for _, m := range sc.Metrics {
				width = max(width, len(name(m)))
			}
			tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "  %-*s\tbaseline\tcandidate\tdelta\tinterval\tp\tn\tverdict\t\n", width, "metric")
			for _, m := range sc.Metrics {
				fmt.Fprintf(tw, "  %-*s\t%s\t%s\t%s\t%s\t%s\t%d+%d\t%s\t\n", width, name(m), value(m.Metric, m.Baseline),
					value(m.Metric, m.Candidate), pct(m.DeltaPct, m.Absolute),
					ciText(m.CIPct, m.Absolute, m.CIOpenHigh), pValue(m), m.NBase, m.NCand, m.Verdict)
			}
			tw.Flush()
		}
		for _, w := range sc.Warnings {
			fmt.Fprintf(bw, "  warning: %s\n", plain(w))
		}
	}
	if len(c.Layers) > 0 {
		fmt.Fprintln(bw)
		fmt.Fprintln(bw, "by layer (geometric mean over the layer's scenarios):")
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  layer\tp99\tmax qps\tscenarios")
		for _, l := range c.Layers {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", plainCell(l.Layer), change(l.P99, false), change(l.MaxQPS, false), plainCell(strings.Join(l.Scenarios, ", ")))
		}
		tw.Flush()
	}
	if la := c.Ladder; la != nil {
		fmt.Fprintln(bw)
		fmt.Fprintf(bw, "ladder %s:\n", plain(strings.Join(la.Rungs, " → ")))
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  step\tlayer\tp99\tmax qps")
		for _, st := range la.Steps {
			fmt.Fprintf(tw, "  %s → %s\t%s\t%s\t%s\n", plainCell(st.From), plainCell(st.To), plainCell(st.Layer), change(&st.P99, false), change(st.MaxQPS, false))
		}
		fmt.Fprintf(tw, "  whole %s → %s\t\t%s\t%s\n", plainCell(la.Whole.From), plainCell(la.Whole.To), change(&la.Whole.P99, false), change(la.Whole.MaxQPS, false))
		tw.Flush()
		fmt.Fprintf(bw, "  %s\n", ladderNote(la))
		for _, w := range la.Warnings {
			fmt.Fprintf(bw, "  warning: %s\n", plain(w))
		}
	}
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, legend)
	return bw.Flush()
}
