package sizing

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/internal/textfmt"
)

// WriteJSON writes s as indented perfgate.sizing/v1 JSON.
func (s *Sizing) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// lines returns the plan as label/value rows with every formula's numbers
// filled in; text and markdown both render them.
func (s *Sizing) lines() [][2]string {
	b := s.PerInstanceMaxQPSBracket
	knee := num(s.PerInstanceMaxQPS) + " rps"
	switch {
	case b[1] > 0:
		knee += fmt.Sprintf(" (bracket [%s, %s]", num(b[0]), num(b[1]))
	default:
		knee += " (no failing probe"
	}
	if s.Windows > 0 {
		knee += fmt.Sprintf(", %d windows", s.Windows)
	}
	knee += ")"
	rows := [][2]string{
		{"SLO", fmt.Sprintf("P99 <= %s ms", num(s.SLOP99Ms))},
		{"per-instance max QPS", knee},
		{"peak", fmt.Sprintf("%s rps × headroom %s", num(s.PeakQPS), num(s.Headroom))},
		{"plan", s.Formula},
	}
	r := s.InstancesRange
	rng := fmt.Sprintf("%d–%d", r[0], r[1])
	if b[1] > s.PerInstanceMaxQPS {
		rng += fmt.Sprintf(" (ceil(%s × %s / %s) = %d … ceil(%s × %s / %s) = %d)",
			num(s.PeakQPS), num(s.Headroom), num(b[1]), r[0],
			num(s.PeakQPS), num(s.Headroom), num(s.PerInstanceMaxQPS), r[1])
	}
	rows = append(rows, [2]string{"instances range", rng})
	w, wAt := s.LatencyAtKneeMs, fmt.Sprintf("%s latency at %s rps", s.LatencyBasis, num(s.PerInstanceMaxQPS))
	if s.LatencyAtOperatingMs > 0 {
		w, wAt = s.LatencyAtOperatingMs, fmt.Sprintf("latency at the operating rate %s rps, %s; %s ms at the knee", num(s.OperatingQPS), s.OperatingBasis, num(s.LatencyAtKneeMs))
	}
	if w > 0 {
		rows = append(rows,
			[2]string{"concurrency at peak", fmt.Sprintf("L = λ·W = %s rps × %s ms = %s in flight (W: %s)",
				num(s.PeakQPS), num(w), num(s.ConcurrencyAtPeak), wAt)})
	}
	a := s.Autoscaler
	rows = append(rows, [2]string{"autoscaler target", fmt.Sprintf("%s / %s = %s rps per instance",
		num(s.PerInstanceMaxQPS), num(s.Headroom), num(a.TargetQPSPerInstance))})
	if w > 0 {
		rows = append(rows, [2]string{"queue depth target", fmt.Sprintf("%s rps × %s ms = %s in flight per instance",
			num(a.TargetQPSPerInstance), num(w), num(a.QueueDepthPerInstance))})
	}
	if s.CostPerMonth != nil {
		rows = append(rows, [2]string{"cost", fmt.Sprintf("%d × %s/h × %d h = %s per month",
			s.Instances, money(s.CostPerInstanceHour), HoursPerMonth, money(*s.CostPerMonth))})
	}
	if lc := s.Little; lc != nil {
		verdict := "holds"
		if !lc.OK {
			verdict = "does not hold"
		}
		rows = append(rows, [2]string{"Little's Law at the knee", fmt.Sprintf("measured %.1f in flight, λ·W %.1f (%+.1f%%): %s",
			lc.MeasuredInFlight, lc.PredictedInFlight, 100*lc.RelGap, verdict)})
	}
	return append(rows, s.extraLines()...)
}

// WriteText writes s for a terminal: the formulas with their numbers, the
// warnings, and the HPA snippet.
func (s *Sizing) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "sizing: %s\n", s.Scenario)
	if s.Simulated {
		b.WriteString("  (simulated target: not a real service's figures)\n")
	}
	width := 0
	rows := s.lines()
	for _, r := range rows {
		width = max(width, len([]rune(r[0])))
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, r[0], r[1])
	}
	b.WriteString(s.scheduleText())
	if len(s.Warnings) > 0 {
		b.WriteString("warnings:\n")
		for _, x := range s.Warnings {
			fmt.Fprintf(&b, "  - %s\n", x)
		}
	}
	if s.Autoscaler.HPA != "" {
		b.WriteString("HPA (autoscaling/v2):\n")
		for _, l := range strings.SplitAfter(strings.TrimRight(s.Autoscaler.HPA, "\n"), "\n") {
			b.WriteString("  " + l)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes s as a GitHub-flavoured markdown section: a table of
// the formulas with their numbers, the warnings, and the HPA snippet in a
// collapsed block.
func (s *Sizing) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Sizing: %s\n\n", textfmt.Markdown(s.Scenario))
	if s.Simulated {
		b.WriteString("> **Simulated target**: these are not a real service's figures.\n\n")
	}
	fmt.Fprintf(&b, "**%d instances** for %s peak QPS.\n\n", s.Instances, num(s.PeakQPS))
	b.WriteString("| | |\n| --- | --- |\n")
	for _, r := range s.lines() {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], mdCell(r[1]))
	}
	b.WriteString(s.scheduleMarkdown())
	if len(s.Warnings) > 0 {
		b.WriteString("\n")
		for _, x := range s.Warnings {
			fmt.Fprintf(&b, "- :warning: %s\n", mdCell(x))
		}
	}
	if s.Autoscaler.HPA != "" {
		b.WriteString("\n<details><summary>HorizontalPodAutoscaler (scale out fast, in slowly)</summary>\n\n```yaml\n")
		b.WriteString(s.Autoscaler.HPA)
		b.WriteString("```\n\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Summary is the diff in one line for a PR comment, e.g.
// "instances 11 → 14 (+3) for 5000 peak QPS; max QPS per instance 1234.5 → 962.9 (−22.0%); cost +$5,475.00/month".
func (d Diff) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "instances %d → %d (%s) for %s peak QPS; max QPS per instance %s → %s (%s%%)",
		d.BaselineInstances, d.CandidateInstances, signedInt(d.InstancesDelta), num(d.PeakQPS),
		num(d.BaselineMaxQPS), num(d.CandidateMaxQPS), signed(d.MaxQPSDeltaPct, 1))
	if d.CostPerMonthDelta != nil {
		fmt.Fprintf(&b, "; cost %s/month", textfmt.SignedMoney(*d.CostPerMonthDelta))
	}
	if d.CostPerDayDelta != nil {
		fmt.Fprintf(&b, "; scheduled cost %s/day", signedMoneyDay(*d.CostPerDayDelta))
	}
	return b.String()
}

// The number helpers are the ones every report uses (internal/textfmt).
func signedInt(n int) string           { return textfmt.SignedInt(n) }
func signed(x float64, dec int) string { return textfmt.Signed(x, dec) }
func money(x float64) string           { return textfmt.Money(x) }

// mdCell escapes the characters that would break a markdown table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
