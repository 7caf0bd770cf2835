package report

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Text writes r for a terminal: the sections of the markdown report
// (sections) without charts and links, as aligned columns.
func Text(w io.Writer, r *Report) error {
	if r == nil || r.Comparison == nil {
		return errors.New("rendering text: the report has no comparison")
	}
	var b strings.Builder
	r.writeTextSections(&b, func(sectionKind) bool { return true })
	_, err := io.WriteString(w, b.String())
	return err
}

// textSection renders one section for a terminal; "" leaves it out.
func (r *Report) textSection(s section) string {
	c := r.Comparison
	var b strings.Builder
	switch s.kind {
	case secHeadline:
		b.WriteString(plain(headlineLine(r.headPrefix(plain), c)) + "\n")
	case secAB:
		b.WriteString(r.textAB())
	case secScenarios:
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SCENARIO\tLAYER\tP99 BASE → PR\tΔ P99 [CI]\tMAX QPS BASE → PR\tΔ MAX QPS [CI]\tVERDICT")
		for _, row := range s.rows {
			s := row.sc
			w := r.scenarioRow(s, "-")
			layer := s.Layer
			if layer == "" {
				layer = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", plainCell(s.Scenario), plainCell(layer),
				w.P99, withCI(w.P99Pct, w.P99CI), w.QPS, withCI(w.QPSPct, w.QPSCI), string(s.Verdict)+w.notes())
		}
		tw.Flush()
	case secDecide:
		for _, g := range s.groups {
			for _, l := range g.lines {
				b.WriteString(plain(l) + "\n")
			}
		}
	case secCapacity:
		b.WriteString(s.title + ":\n")
		for _, row := range s.rows {
			switch p := row.plan; {
			case p.Diff != nil:
				fmt.Fprintf(&b, "  %s: %s\n", plain(p.Scenario), plain(sizingDiff(*p.Diff)))
			case p.Withheld != "":
				fmt.Fprintf(&b, "  %s: %s\n", plain(p.Scenario), plain(p.Withheld))
			default:
				fmt.Fprintf(&b, "  %s: %s (no baseline plan)\n", plain(p.Scenario), plain(p.Candidate.Formula))
			}
		}
	case secLayers:
		b.WriteString(s.title + ":\n")
		for _, row := range s.rows {
			la := row.layer
			fmt.Fprintf(&b, "  %s: P99 %s; max QPS %s\n", plain(la.Layer), change(la.P99, false), change(la.MaxQPS, false))
		}
	case secLadder:
		l := c.Ladder
		b.WriteString(s.title + " (one layer changed per rung):\n")
		for _, row := range s.rows {
			st := row.step
			fmt.Fprintf(&b, "  %s → %s (%s): P99 %s", plain(st.From), plain(st.To), plain(st.Layer), change(&st.P99, false))
			if st.MaxQPS != nil {
				fmt.Fprintf(&b, "; max QPS %s", change(st.MaxQPS, false))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  whole: P99 %s; %s\n", change(&l.Whole.P99, false), ladderNote(l))
	case secBottleneck:
		// One paragraph per scenario.
		for i, row := range s.rows {
			bn := row.cand.Telemetry.Bottleneck
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%s %s: %s", s.title, plain(row.scenario), plain(bn.Class))
			if len(bn.Evidence) > 0 {
				fmt.Fprintf(&b, " (%s)", plain(strings.Join(bn.Evidence, "; ")))
			}
			if bn.Next != "" {
				fmt.Fprintf(&b, "; next: %s", plain(bn.Next))
			}
			b.WriteString("\n")
		}
	case secDetails:
		for _, g := range s.groups {
			prefix := "  "
			if g.title == "warnings" {
				if len(g.lines) == 0 {
					continue
				}
				prefix = "  ! "
			}
			b.WriteString(g.title + ":\n")
			for _, l := range g.lines {
				b.WriteString(prefix + plain(l) + "\n")
			}
		}
	}
	return b.String()
}

// plainCell is plain with tabs and newlines (column breakers) as spaces.
func plainCell(s string) string {
	return plain(strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s))
}

// writeTextSections writes the report's sections that keep selects, as
// text: a blank line between sections, the A/B lines directly after the
// headline.
func (r *Report) writeTextSections(b *strings.Builder, keep func(sectionKind) bool) {
	for _, s := range r.sections() {
		if !keep(s.kind) {
			continue
		}
		out := r.textSection(s)
		if out == "" {
			continue
		}
		if s.kind != secHeadline && s.kind != secAB {
			b.WriteString("\n")
		}
		b.WriteString(out)
	}
}
