package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/textfmt"
	"github.com/perfgate/perfgate/sizing"
)

// The sizing plan (`perfgate size`, package sizing) in three formats: the
// formulas with their numbers filled in (sizingRows), the warnings, the
// traffic schedule, and one line on how to get the autoscaler manifests
// (perfgate size --emit prints them; the plan does not).

// SizingJSON writes s as an indented perfgate.sizing/v1 document.
func SizingJSON(w io.Writer, s *sizing.Sizing) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// SizingText writes s for a terminal: the formulas with their numbers, the
// schedule, the warnings, and how to get the autoscaler manifests.
func SizingText(w io.Writer, s *sizing.Sizing) error {
	var b strings.Builder
	fmt.Fprintf(&b, "sizing: %s\n", plain(s.Scenario))
	if s.Simulated {
		b.WriteString("  (simulated target: not a real service's figures)\n")
	}
	width := 0
	rows := sizingRows(s, plain)
	for _, r := range rows {
		width = max(width, len([]rune(r[0])))
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, r[0], r[1])
	}
	b.WriteString(scheduleText(s))
	if len(s.Warnings) > 0 {
		b.WriteString("warnings:\n")
		for _, x := range s.Warnings {
			fmt.Fprintf(&b, "  - %s\n", plain(x))
		}
	}
	if s.Autoscaler.HPA != "" {
		b.WriteString(manifestHint(s, func(x string) string { return x }, strconv.Quote(plain(s.Scenario))) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SizingMarkdown writes s as a GitHub-flavoured markdown section: a table
// of the formulas with their numbers, the schedule, the warnings, and how
// to get the autoscaler manifests.
func SizingMarkdown(w io.Writer, s *sizing.Sizing) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Sizing: %s\n\n", esc(s.Scenario))
	if s.Simulated {
		b.WriteString("> **Simulated target**: these are not a real service's figures.\n\n")
	}
	atMost := ""
	if s.CapacityAtLeast {
		atMost = "at most "
	}
	fmt.Fprintf(&b, "**%s%d instances** for %s peak QPS.\n\n", atMost, s.Instances, num(s.PeakQPS))
	b.WriteString("| | |\n| --- | --- |\n")
	for _, r := range sizingRows(s, esc) {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], r[1])
	}
	b.WriteString(scheduleMarkdown(s))
	if len(s.Warnings) > 0 {
		b.WriteString("\n")
		for _, x := range s.Warnings {
			fmt.Fprintf(&b, "- :warning: %s\n", esc(x))
		}
	}
	if s.Autoscaler.HPA != "" {
		code := func(x string) string { return "`" + x + "`" }
		b.WriteString("\n" + manifestHint(s, code, "**"+esc(s.Scenario)+"**") + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// manifestHint says how to get the autoscaler manifests, which the plan
// itself does not print: nobody asked for them, and they name a
// Deployment after the scenario, which is rarely the service's own name.
// code formats a flag; name is the scenario's name, quoted for the format.
func manifestHint(s *sizing.Sizing, code func(string) string, name string) string {
	keda := "; with " + code("--traffic") + ", " + code("--emit keda") + " for a KEDA ScaledObject"
	if s.Schedule != nil {
		keda = "; " + code("--emit keda") + " for a KEDA ScaledObject"
	}
	return fmt.Sprintf("autoscaler manifests: add %s for a HorizontalPodAutoscaler%s (both name the Deployment %s after the scenario: rename it to your service's)", code("--emit hpa"), keda, name)
}

// sizingDiff is the change of plan in one line, e.g. "instances 11 → 14
// (+3) for 5000 peak QPS; max QPS per instance 1234.5 → 962.9 (-22.0%);
// cost +$5,475.00/month".
func sizingDiff(d sizing.Diff) string {
	var b strings.Builder
	fmt.Fprintf(&b, "instances %d → %d (%s) for %s peak QPS; max QPS per instance %s → %s (%s%%%s)",
		d.BaselineInstances, d.CandidateInstances, signedInt(d.InstancesDelta), num(d.PeakQPS),
		num(d.BaselineMaxQPS), num(d.CandidateMaxQPS), textfmt.Signed(d.MaxQPSDeltaPct, 1), testedSuffix(d))
	if d.CostPerMonthDelta != nil {
		fmt.Fprintf(&b, "; cost %s/month", signedMoney(*d.CostPerMonthDelta))
	} else {
		b.WriteString("; cost not priced (set capacity.cost_per_instance_hour)")
	}
	if d.CostPerDayDelta != nil {
		fmt.Fprintf(&b, "; scheduled cost %s/day", signedMoney(*d.CostPerDayDelta))
	}
	return b.String()
}

// testedSuffix is the gate's test of the max QPS change behind a change
// of plan, e.g. " [-3.1%, +2.9%], unchanged", so the capacity line reads
// as certain as the verdict and no more.
func testedSuffix(d sizing.Diff) string {
	if d.MaxQPSCIPct == nil {
		return ""
	}
	return fmt.Sprintf(" [%s%%, %s%%], %s", textfmt.Signed(d.MaxQPSCIPct[0], 1), textfmt.Signed(d.MaxQPSCIPct[1], 1), d.MaxQPSVerdict)
}
