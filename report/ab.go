package report

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
)

// abLines describes a same-runner A/B run (`gate --ab`) for the reports:
// which mode ran, the pairs measured, the stopping, the runner time beside
// the fixed design's, the drift the pairing cancelled and the order effect
// the ABBA order cancelled. Text and
// markdown share it; cell escapes the untrusted parts (the ref).
func abLines(ab *compare.ABRun, cell func(string) string, code func(string) string) (head string, rows [][]string) {
	how := fmt.Sprintf("measured interleaved on this runner (ABBA order, %s resident)", cell(ab.Resident))
	declHow := fmt.Sprintf("measured interleaved on this runner (ABBA order, fresh processes every block, %s resident)", cell(ab.Resident))
	if ab.Design == config.DesignConcurrent {
		how = "measured both at once on this runner (fresh processes for both every block, the same open-loop schedule sent to each; knee searches interleaved)"
		declHow = how
	}
	head = fmt.Sprintf("Same-runner A/B: base %s (%s) against head %s, %s and compared pair by pair; stored baselines were not read.",
		code(cell(ab.Ref)), code(shortSHA(ab.BaseSHA)), code(shortSHA(ab.HeadSHA)), how)
	if ab.Declared {
		head = fmt.Sprintf("Declared pairs: each pair's base scenario against its head scenario, %s and compared pair by pair.", declHow)
	}
	if n := len(ab.Scenarios); n > 0 {
		var spent float64
		for _, sc := range ab.Scenarios {
			spent += sc.RunnerS
		}
		if ab.Decided > 0 {
			head += fmt.Sprintf(" Runner time per decided verdict: %s (%d of %d decided; the fixed design: ~%s).",
				seconds(ab.RunnerSPerDecided), ab.Decided, n, seconds(ab.FixedRunnerSPerDecided))
		} else {
			head += fmt.Sprintf(" No scenario was decided in %s of runner time.", seconds(spent))
		}
	}
	if ab.HeadDirty {
		head += " The head had uncommitted changes, measured as they were."
	}
	for _, s := range ab.Scenarios {
		// One cell each: a name holding '|' stays in its cell.
		rows = append(rows, []string{cell(s.Scenario), fmt.Sprintf("%d pairs (%s)", s.Pairs, cell(abbrevOrder(s.Order))),
			fmt.Sprintf("%s after %s, last level %.3g", cell(s.Stopped), plural(s.Looks, "look"), s.Level),
			fmt.Sprintf("%d trials, %s (fixed design: %d trials, ~%s)", s.Trials, seconds(s.RunnerS), s.FixedTrials, seconds(s.FixedRunnerS)),
			pct(s.BaseDriftPct, false), pct(s.UnpairedDeltaPct, false), fmt.Sprintf("%d / %d", s.Processes[0], s.Processes[1]),
			orderEffect(s.OrderEffect)})
	}
	return head, rows
}

// abColumns are the columns of abLines' rows.
var abColumns = []string{"scenario", "pairs (order)", "stopped", "runner time", "base drift cancelled", "unpaired Δ P99", "processes base / head",
	"order effect cancelled (first measured against second)"}

// orderEffect is the order effect's cell: how much slower the side measured
// first in a pair was, P50 and P99 with their intervals ("-" where none was
// estimated: both sides at once, a knee search, under two ABBA blocks).
func orderEffect(oe *compare.OrderEffect) string {
	if oe == nil {
		return "-"
	}
	return fmt.Sprintf("P50 %s [%s, %s], P99 %s [%s, %s] over %s",
		pct(oe.P50Pct, false), pct(oe.P50CIPct[0], false), pct(oe.P50CIPct[1], false),
		pct(oe.P99Pct, false), pct(oe.P99CIPct[0], false), pct(oe.P99CIPct[1], false), plural(oe.Blocks, "block"))
}

// mdAB is the markdown A/B section, empty when the run was not A/B.
func (r *Report) mdAB() string {
	ab := r.Comparison.AB
	if ab == nil {
		return ""
	}
	head, rows := abLines(ab, esc, func(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" })
	var b strings.Builder
	b.WriteString("\n" + head + "\n\n")
	b.WriteString("| " + strings.Join(abColumns, " | ") + " |\n|" + strings.Repeat(" --- |", len(abColumns)) + "\n")
	for _, row := range rows {
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	return b.String()
}

// textAB is the terminal's A/B section, empty when the run was not A/B.
func (r *Report) textAB() string {
	ab := r.Comparison.AB
	if ab == nil {
		return ""
	}
	head, rows := abLines(ab, plain, func(s string) string { return s })
	var b strings.Builder
	b.WriteString(head + "\n")
	for _, f := range rows {
		for i := 1; i < len(f) && i < len(abColumns); i++ {
			f[i] = abColumns[i] + " " + f[i]
		}
		b.WriteString("  " + strings.Join(f, "; ") + "\n")
	}
	return b.String()
}

// abbrevOrder shortens a long ABBA order string.
func abbrevOrder(o string) string {
	if len(o) <= 12 {
		return o
	}
	return o[:8] + "…"
}

// seconds formats a runner time.
func seconds(s float64) string {
	if s >= 120 {
		return fmt.Sprintf("%.1f min", s/60)
	}
	return fmt.Sprintf("%.0f s", s)
}

// abMethod is the method line of an A/B run's details, for the design
// asked for (config.DesignConcurrent, else interleaved).
func abMethod(s compare.Settings, design string) string {
	order := "in ABBA order"
	if design == config.DesignConcurrent {
		order = "measured at once"
	}
	return fmt.Sprintf("latency (A/B): per pair of base and head trials %s (pairs merged until each side holds %d requests) the log ratio of each side's P99 from its merged histogram; Student's paired t-test and interval of the mean log ratio, Holm-corrected across a scenario's gated metrics; looks after %d%% of the pairs and each further 30%%, each at the level spent by then (Pocock-type alpha spending for a regression or an improvement, O'Brien-Fleming-type for unchanged)", order, compare.RequestsForQuantile(99), 30)
}

// abKneeMethod says how a same-runner A/B sweep's max QPS was tested.
const abKneeMethod = "max QPS under the SLO (A/B): both sides' knee confirmations interleaved, each round in fresh processes for both and from one bracket holding both knees (each side's own where the knees are more than twice apart), the two sides' rounds back to back; Student's paired t-test over the rounds' log ratios of the head's estimate to the base's, with no run-to-run term (the searches' own estimates, one side's measured while the other waited, are left out, of the test and of the sizing alike); a regression needs the change beyond the threshold and the test significant"

// usesMethod reports whether any metric of c was tested by method.
func usesMethod(c *compare.Comparison, method string) bool {
	for _, sc := range c.Scenarios {
		for _, m := range sc.Metrics {
			if m.Method == method {
				return true
			}
		}
	}
	return false
}
