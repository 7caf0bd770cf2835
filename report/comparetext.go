package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/perfgate/perfgate/compare"
)

// ComparisonText writes c as aligned plain text for a terminal: the
// sections comparisonSections lists, a blank line between them. Names and
// warnings pass through plain, as in Text, so that none can drive the
// terminal.
func ComparisonText(w io.Writer, c *compare.Comparison) error {
	bw := bufio.NewWriter(w)
	for i, s := range comparisonSections(c) {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		comparisonTextSection(bw, c, s)
	}
	return bw.Flush()
}

// comparisonTextSection writes one section of a comparison for a terminal.
func comparisonTextSection(bw io.Writer, c *compare.Comparison, s section) {
	switch s.kind {
	case secHeadline:
		fmt.Fprintln(bw, plain(headline(c)))
		fmt.Fprintln(bw, settingsLine(c))
		if e := c.Environment; e != nil {
			fmt.Fprintf(bw, "environment: baseline %s; candidate %s\n", plain(e.Baseline), plain(e.Candidate))
		}
		for _, w := range comparisonWarnings(c) {
			fmt.Fprintf(bw, "WARNING: %s\n", plain(w))
		}
	case secScenario:
		sc := s.sc
		head := plain(sc.Scenario)
		if sc.Layer != "" {
			head += " (" + plain(sc.Layer) + ")"
		}
		fmt.Fprintf(bw, "%s: %s, %d vs %d trials\n", head, strings.ToUpper(string(sc.Verdict)), sc.BaseTrials, sc.CandTrials)
		if why := ScenarioReason(sc); why != "" {
			fmt.Fprintf(bw, "  %s\n", plain(why))
		}
		if len(s.rows) > 0 {
			width := len("metric")
			for _, row := range s.rows {
				width = max(width, len(name(*row.metric)))
			}
			tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "  %-*s\tbaseline\tcandidate\tdelta\tinterval\tp\tn\tverdict\t\n", width, "metric")
			for _, row := range s.rows {
				m := row.metric
				bv, cv := metricValues(m)
				fmt.Fprintf(tw, "  %-*s\t%s\t%s\t%s\t%s\t%s\t%d+%d\t%s\t\n", width, name(*m), bv, cv,
					delta(m),
					ciText(m.CIPct, m.Absolute, m.CIOpenHigh), pValue(*m), m.NBase, m.NCand, m.Verdict)
			}
			tw.Flush()
		}
		for _, w := range scenarioWarnings(sc) {
			fmt.Fprintf(bw, "  warning: %s\n", plain(w))
		}
	case secLayers:
		fmt.Fprintln(bw, s.title+" (geometric mean over the layer's scenarios):")
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  layer\tp99\tmax qps\tscenarios")
		for _, row := range s.rows {
			l := row.layer
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", plainCell(l.Layer), change(l.P99, false), change(l.MaxQPS, false), plainCell(strings.Join(l.Scenarios, ", ")))
		}
		tw.Flush()
	case secLadder:
		la := c.Ladder
		fmt.Fprintf(bw, "%s %s:\n", s.title, plain(strings.Join(la.Rungs, " → ")))
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  step\tlayer\tp99\tmax qps")
		for _, row := range s.rows {
			st := row.step
			fmt.Fprintf(tw, "  %s → %s\t%s\t%s\t%s\n", plainCell(st.From), plainCell(st.To), plainCell(st.Layer), change(&st.P99, false), change(st.MaxQPS, false))
		}
		fmt.Fprintf(tw, "  whole %s → %s\t\t%s\t%s\n", plainCell(la.Whole.From), plainCell(la.Whole.To), change(&la.Whole.P99, false), change(la.Whole.MaxQPS, false))
		tw.Flush()
		fmt.Fprintf(bw, "  %s\n", ladderNote(la))
		for _, w := range ladderWarnings(la) {
			fmt.Fprintf(bw, "  warning: %s\n", plain(w))
		}
	case secLegend:
		fmt.Fprintln(bw, legend)
	}
}
