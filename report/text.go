package report

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/perfgate/perfgate/compare"
)

// Text writes r for a terminal: the same content as the markdown report
// without charts, as aligned columns.
func Text(w io.Writer, r *Report) error {
	if r == nil || r.Comparison == nil {
		return errors.New("rendering text: the report has no comparison")
	}
	c := r.Comparison
	var b strings.Builder
	title := "perfgate"
	if r.Title != "" {
		title += " · " + plain(r.Title)
	}
	reg, imp := r.counts()
	fmt.Fprintf(&b, "%s: %s (%s, %s across %s)\n", title, strings.ToUpper(plain(c.Verdict)),
		plural(reg, "regression"), plural(imp, "improvement"), plural(len(c.Scenarios), "scenario"))
	if layers, v := r.responsible(); len(layers) > 0 {
		what := "regressions from"
		if v == compare.Improved {
			what = "improvements from"
		}
		fmt.Fprintf(&b, "%s: %s\n", what, plain(strings.Join(layers, ", ")))
	}
	if c.Reason != "" {
		fmt.Fprintf(&b, "%s\n", plain(c.Reason))
	}
	b.WriteString(r.textAB())
	b.WriteString("\n")

	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tLAYER\tP99 BASE → PR\tΔ P99 [CI]\tMAX QPS BASE → PR\tΔ MAX QPS [CI]\tVERDICT")
	for _, s := range r.scenarios() {
		w := r.scenarioRow(s, "-")
		p99Cell, p99Delta, qpsCell, qpsDelta := w.P99, withCI(w.P99Pct, w.P99CI), w.QPS, withCI(w.QPSPct, w.QPSCI)
		verdict := s.Verdict + w.notes()
		layer := s.Layer
		if layer == "" {
			layer = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", plainCell(s.Scenario), plainCell(layer), p99Cell, p99Delta, qpsCell, qpsDelta, verdict)
	}
	tw.Flush()

	if len(r.Plans) > 0 {
		b.WriteString("\ncapacity:\n")
		for _, p := range r.Plans {
			switch {
			case p.Diff != nil:
				fmt.Fprintf(&b, "  %s: %s\n", plain(p.Scenario), plain(sizingDiff(*p.Diff)))
			case p.Withheld != "":
				fmt.Fprintf(&b, "  %s: %s\n", plain(p.Scenario), plain(p.Withheld))
			case p.Candidate != nil:
				fmt.Fprintf(&b, "  %s: %s (no baseline plan)\n", plain(p.Scenario), plain(p.Candidate.Formula))
			}
		}
	}
	if len(c.Layers) > 0 {
		b.WriteString("\nby layer:\n")
		for _, la := range c.Layers {
			fmt.Fprintf(&b, "  %s: P99 %s; max QPS %s\n", plain(la.Layer), change(la.P99, false), change(la.MaxQPS, false))
		}
	}
	if l := c.Ladder; l != nil && len(l.Steps) > 0 {
		b.WriteString("\nladder (one layer changed per rung):\n")
		for _, st := range l.Steps {
			fmt.Fprintf(&b, "  %s → %s (%s): P99 %s", plain(st.From), plain(st.To), plain(st.Layer), change(&st.P99, false))
			if st.MaxQPS != nil {
				fmt.Fprintf(&b, "; max QPS %s", change(st.MaxQPS, false))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  whole: P99 %s; %s\n", change(&l.Whole.P99, false), ladderNote(l))
	}
	for _, s := range r.scenarios() {
		if res := find(r.Candidate, s.Scenario); res != nil && res.Telemetry != nil && res.Telemetry.Bottleneck != nil {
			bn := res.Telemetry.Bottleneck
			fmt.Fprintf(&b, "\nbottleneck %s: %s", plain(s.Scenario), plain(bn.Class))
			if len(bn.Evidence) > 0 {
				fmt.Fprintf(&b, " (%s)", plain(strings.Join(bn.Evidence, "; ")))
			}
			if bn.Next != "" {
				fmt.Fprintf(&b, "; next: %s", plain(bn.Next))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\nenvironment:\n")
	for _, l := range r.environment() {
		b.WriteString("  " + plain(l) + "\n")
	}
	b.WriteString("method:\n")
	for _, l := range r.method() {
		b.WriteString("  " + plain(l) + "\n")
	}
	if ws := r.warnings(); len(ws) > 0 {
		b.WriteString("warnings:\n")
		for _, w := range ws {
			b.WriteString("  ! " + plain(w) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// plainCell is plain with tabs and newlines (column breakers) as spaces.
func plainCell(s string) string {
	return plain(strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s))
}
