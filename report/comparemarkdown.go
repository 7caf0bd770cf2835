package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/compare"
)

// ComparisonMarkdown writes c as GitHub-flavoured markdown.
func ComparisonMarkdown(w io.Writer, c *compare.Comparison) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "### perfgate compare: **%s**\n\n%s\n\n", strings.ToUpper(c.Verdict), esc(c.Reason))
	for _, w := range c.Warnings {
		fmt.Fprintf(bw, "> [!WARNING]\n> %s\n\n", esc(w))
	}
	fmt.Fprintf(bw, "%s\n\n", esc(settingsLine(c)))
	if e := c.Environment; e != nil {
		fmt.Fprintf(bw, "Environment: baseline %s; candidate %s\n\n", esc(e.Baseline), esc(e.Candidate))
	}
	for _, sc := range c.Scenarios {
		head := esc(sc.Scenario)
		if sc.Layer != "" {
			head += " (" + esc(sc.Layer) + ")"
		}
		fmt.Fprintf(bw, "#### %s: %s, %d vs %d trials\n\n", head, bold(sc.Verdict), sc.BaseTrials, sc.CandTrials)
		if sc.Reason != "" {
			fmt.Fprintf(bw, "%s\n\n", esc(sc.Reason))
		}
		if len(sc.Metrics) > 0 {
			fmt.Fprintln(bw, "| metric | baseline | candidate | delta | interval | p | n | verdict |")
			fmt.Fprintln(bw, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
			for _, m := range sc.Metrics {
				fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %d+%d | %s |\n", esc(name(m)), value(m.Metric, m.Baseline),
					value(m.Metric, m.Candidate), pct(m.DeltaPct, m.Absolute),
					ciText(m.CIPct, m.Absolute, m.CIOpenHigh), pValue(m), m.NBase, m.NCand, bold(m.Verdict))
			}
			fmt.Fprintln(bw)
		}
		for _, w := range sc.Warnings {
			fmt.Fprintf(bw, "- ⚠️ %s\n", esc(w))
		}
		if len(sc.Warnings) > 0 {
			fmt.Fprintln(bw)
		}
	}
	if len(c.Layers) > 0 {
		fmt.Fprintln(bw, "#### By layer")
		fmt.Fprintln(bw)
		fmt.Fprintln(bw, "| layer | p99 | max qps | scenarios |")
		fmt.Fprintln(bw, "| --- | --- | --- | --- |")
		for _, l := range c.Layers {
			fmt.Fprintf(bw, "| %s | %s | %s | %s |\n", l.Layer, change(l.P99, false), change(l.MaxQPS, false), esc(strings.Join(l.Scenarios, ", ")))
		}
		fmt.Fprintln(bw)
	}
	if la := c.Ladder; la != nil {
		fmt.Fprintf(bw, "#### Ladder %s\n\n", esc(strings.Join(la.Rungs, " → ")))
		fmt.Fprintln(bw, "| step | layer | p99 | max qps |")
		fmt.Fprintln(bw, "| --- | --- | --- | --- |")
		for _, st := range la.Steps {
			fmt.Fprintf(bw, "| %s → %s | %s | %s | %s |\n", esc(st.From), esc(st.To), st.Layer, change(&st.P99, false), change(st.MaxQPS, false))
		}
		fmt.Fprintf(bw, "| **whole** %s → %s | | %s | %s |\n\n", esc(la.Whole.From), esc(la.Whole.To), change(&la.Whole.P99, false), change(la.Whole.MaxQPS, false))
		fmt.Fprintf(bw, "%s.\n\n", esc(ladderNote(la)))
		for _, w := range la.Warnings {
			fmt.Fprintf(bw, "- ⚠️ %s\n", esc(w))
		}
		if len(la.Warnings) > 0 {
			fmt.Fprintln(bw)
		}
	}
	fmt.Fprintf(bw, "<sub>%s</sub>\n", esc(legend))
	return bw.Flush()
}

// bold emphasises the verdicts a reader must not miss.
func bold(v string) string {
	if v == compare.Regressed || v == compare.Fail || v == compare.Incomparable {
		return "**" + v + "**"
	}
	return v
}
