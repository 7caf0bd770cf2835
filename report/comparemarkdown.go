package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/compare"
)

// ComparisonMarkdown writes c as GitHub-flavoured markdown: the sections
// comparisonSections lists, each ending in a blank line.
func ComparisonMarkdown(w io.Writer, c *compare.Comparison) error {
	bw := bufio.NewWriter(w)
	for _, s := range comparisonSections(c) {
		comparisonMarkdownSection(bw, c, s)
	}
	return bw.Flush()
}

// comparisonMarkdownSection writes one section of a comparison in markdown.
func comparisonMarkdownSection(bw io.Writer, c *compare.Comparison, s section) {
	switch s.kind {
	case secHeadline:
		fmt.Fprintf(bw, "### perfgate compare: **%s**\n\n%s\n\n", strings.ToUpper(string(c.Verdict)), esc(reasonWithAdvice(c)))
		for _, w := range comparisonWarnings(c) {
			fmt.Fprintf(bw, "> [!WARNING]\n> %s\n\n", esc(w))
		}
		fmt.Fprintf(bw, "%s\n\n", esc(settingsLine(c)))
		if e := c.Environment; e != nil {
			fmt.Fprintf(bw, "Environment: baseline %s; candidate %s\n\n", esc(e.Baseline), esc(e.Candidate))
		}
	case secScenario:
		sc := s.sc
		head := esc(sc.Scenario)
		if sc.Layer != "" {
			head += " (" + esc(sc.Layer) + ")"
		}
		fmt.Fprintf(bw, "#### %s: %s, %d vs %d trials\n\n", head, bold(sc.Verdict), sc.BaseTrials, sc.CandTrials)
		if why := ScenarioReason(sc); why != "" {
			fmt.Fprintf(bw, "%s\n\n", esc(why))
		}
		if len(s.rows) > 0 {
			fmt.Fprintln(bw, "| metric | baseline | candidate | delta | interval | p | n | verdict |")
			fmt.Fprintln(bw, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
			for _, row := range s.rows {
				m := row.metric
				bv, cv := metricValues(m)
				fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %d+%d | %s |\n", esc(name(*m)), bv, cv,
					delta(m),
					ciText(m.CIPct, m.Absolute, m.CIOpenHigh), pValue(*m), m.NBase, m.NCand, bold(m.Verdict))
			}
			fmt.Fprintln(bw)
		}
		mdWarnings(bw, scenarioWarnings(sc))
	case secLayers:
		fmt.Fprintf(bw, "#### %s\n\n", capitalize(s.title))
		fmt.Fprintln(bw, "| layer | p99 | max qps | scenarios |")
		fmt.Fprintln(bw, "| --- | --- | --- | --- |")
		for _, row := range s.rows {
			l := row.layer
			fmt.Fprintf(bw, "| %s | %s | %s | %s |\n", esc(l.Layer), change(l.P99, false), change(l.MaxQPS, false), esc(strings.Join(l.Scenarios, ", ")))
		}
		fmt.Fprintln(bw)
	case secLadder:
		la := c.Ladder
		fmt.Fprintf(bw, "#### %s %s\n\n", capitalize(s.title), esc(strings.Join(la.Rungs, " → ")))
		fmt.Fprintln(bw, "| step | layer | p99 | max qps |")
		fmt.Fprintln(bw, "| --- | --- | --- | --- |")
		for _, row := range s.rows {
			st := row.step
			fmt.Fprintf(bw, "| %s → %s | %s | %s | %s |\n", esc(st.From), esc(st.To), esc(st.Layer), change(&st.P99, false), change(st.MaxQPS, false))
		}
		fmt.Fprintf(bw, "| **whole** %s → %s | | %s | %s |\n\n", esc(la.Whole.From), esc(la.Whole.To), change(&la.Whole.P99, false), change(la.Whole.MaxQPS, false))
		fmt.Fprintf(bw, "%s.\n\n", esc(ladderNote(la)))
		mdWarnings(bw, ladderWarnings(la))
	case secLegend:
		fmt.Fprintf(bw, "<sub>%s</sub>\n", esc(legend))
	}
}

// mdWarnings lists warnings, a blank line after them; nothing for none.
func mdWarnings(bw io.Writer, ws []string) {
	for _, w := range ws {
		fmt.Fprintf(bw, "- ⚠️ %s\n", esc(w))
	}
	if len(ws) > 0 {
		fmt.Fprintln(bw)
	}
}

// bold emphasises the verdicts a reader must not miss.
func bold(v compare.Verdict) string {
	if v == compare.Regressed || v == compare.Fail || v == compare.Incomparable {
		return "**" + string(v) + "**"
	}
	return string(v)
}
