package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
)

// A person reads a verdict in five seconds: one headline line (verdict,
// counts, the one thing to do next), the table, and at most MaxDecideLines
// short lines on what would decide the undecided scenarios. Method,
// warnings and per-scenario detail come after, in the full report (the
// collapsed details in Markdown, --verbose and the log file in a
// terminal). This file composes those lines from the comparison's
// numbers; it computes nothing the comparison does not hold.

// HeadlineMax is the most characters a headline line takes.
const HeadlineMax = 120

// MaxDecideLines is the most lines under the table on what would decide
// the undecided scenarios.
const MaxDecideLines = 3

// VisibleLimitPct is the largest change, in percent, a report writes as a
// figure: an MDE beyond it is said in words ("cannot see … here") and an
// interval's end beyond CapPct is written "over +1000%". A detectable
// change of several times the value is no sensitivity a reader can use.
const VisibleLimitPct = 100

// CapPct is the largest interval end written as a figure; beyond it the
// interval says "over +1000%" (a sampled P99 of a handful of requests can
// give +46501%, which reads as precision it does not have).
const CapPct = 1000

// cause is why a gated metric (or a scenario) was left undecided, in the
// order a person should act on them: fix the run before measuring more.
type cause int

const (
	causeInvalid   cause = iota // a side's run was invalid
	causeBusy                   // the host was busy with other work
	causeRunner                 // the runner's own speed moved
	causeSparse                 // a quantile of too few requests a unit
	causeRunNoise               // run-to-run noise no number of units removes
	causeUnits                  // more units a side would decide it
	causeNoTest                 // no test: one knee a side
	causeUndecided              // the interval straddles the threshold
)

// undecided is one cause and the metrics and scenarios it holds.
type undecided struct {
	cause     cause
	metrics   []string // gated metric names, in first-seen order
	scenarios []string
	units     int    // causeUnits: the most units a side asked for
	unit      string // causeUnits: what a unit is
	requests  int    // causeSparse: requests a unit needs
}

// undecidedOf groups the comparison's undecided scenarios by cause, in
// cause order. A scenario counts once per cause of its gated metrics; an
// inconclusive scenario with no inconclusive gated metric (an invalid run)
// counts under its own cause.
func undecidedOf(c *compare.Comparison) []undecided {
	by := map[cause]*undecided{}
	add := func(k cause, sc string, metric string) *undecided {
		u := by[k]
		if u == nil {
			u = &undecided{cause: k}
			by[k] = u
		}
		if !slices.Contains(u.scenarios, sc) {
			u.scenarios = append(u.scenarios, sc)
		}
		if metric != "" && !slices.Contains(u.metrics, metric) {
			u.metrics = append(u.metrics, metric)
		}
		return u
	}
	for _, sc := range c.Scenarios {
		if sc.Verdict != compare.Inconclusive {
			continue
		}
		var scCause cause = -1
		switch {
		case sc.Invalid:
			scCause = causeInvalid
		case sc.HostBusy:
			scCause = causeBusy
		case sc.RunnerShifted:
			scCause = causeRunner
		}
		n := 0
		for _, m := range sc.Metrics {
			if !m.Gated || m.Verdict != compare.Inconclusive {
				continue
			}
			n++
			k := metricCause(m)
			if scCause >= 0 {
				k = scCause
			}
			u := add(k, sc.Scenario, m.Metric)
			switch k {
			case causeUnits:
				units, unit := m.MDEUnitsNeeded, m.MDEUnit
				if units == 0 {
					units, unit = m.TrialsNeeded, "trials"
				}
				if units > u.units {
					u.units, u.unit = units, unit
				}
			case causeSparse:
				u.requests = max(u.requests, m.RequestsNeeded)
			}
		}
		if n == 0 {
			if scCause < 0 {
				scCause = causeUndecided
			}
			add(scCause, sc.Scenario, "")
		}
	}
	var out []undecided
	for k := causeInvalid; k <= causeUndecided; k++ {
		if u := by[k]; u != nil {
			out = append(out, *u)
		}
	}
	return out
}

// metricCause is why one gated metric was left inconclusive, from its
// numbers.
func metricCause(m compare.Metric) cause {
	switch {
	case m.RequestsNeeded > 0:
		return causeSparse
	case runNoiseBound(m):
		return causeRunNoise
	case m.MDEUnitsNeeded > 0 || m.TrialsNeeded > 0:
		return causeUnits
	case m.Method == compare.MethodBracket:
		return causeNoTest
	}
	return causeUndecided
}

// lever is the one thing to do about u, short (for the headline) or with
// its reason (for a line under the table).
func (u undecided) lever(long bool) string {
	var short, why string
	switch u.cause {
	case causeInvalid:
		short, why = "fix the invalid run and rerun", "a side's run was invalid (its warnings say why)"
	case causeBusy:
		short, why = "rerun on a quiet runner", "the host was busy with other work"
	case causeRunner:
		short, why = "rerun on a quiet runner", "the runner's own speed moved between the runs"
	case causeSparse:
		short = "lengthen the window or raise the rate"
		why = "a P99 of too few requests is its slowest request"
		if u.requests > 0 {
			why = fmt.Sprintf("a unit holds fewer than the %d requests its quantile needs", u.requests)
		}
	case causeRunNoise:
		short, why = "run perfgate gate --ab", "whole runs differ here; baselines from two runs or a history also help"
	case causeUnits:
		short, why = "measure more", "the interval straddles the threshold"
		if u.units > 0 {
			short = fmt.Sprintf("measure about %d %s a side", u.units, u.unit)
		}
	case causeNoTest:
		short, why = "confirm the knee (load.estimates ≥ 3)", "one knee a side has no test"
	default:
		short, why = "rerun (gate.on_inconclusive: rerun)", "the interval straddles the threshold"
	}
	if !long {
		return short
	}
	if u.cause == causeUnits && u.units > 0 {
		// The MDE's projection, not the estimate's: the more-pairs note
		// says what would decide this estimate as it stands.
		return why + ": " + short + " (enough to catch a change of the threshold's size 4 times in 5)"
	}
	return why + ": " + short
}

// nextStep is the one thing to do after this verdict; "" when nothing is.
func nextStep(c *compare.Comparison) string {
	switch c.Verdict {
	case compare.Fail:
		return "fix it, or re-baseline if intended"
	case compare.NoBaseline:
		return "store one: perfgate baseline update"
	case compare.Incomparable:
		return "compare on the same hardware"
	case compare.Inconclusive:
		if us := undecidedOf(c); len(us) > 0 {
			return us[0].lever(false)
		}
	}
	return ""
}

// tallyLine counts the scenarios by verdict, most severe first, leaving
// out the verdicts none has: "2 regressed, 11 unchanged of 13 scenarios".
func tallyLine(c *compare.Comparison) string {
	n := map[compare.Verdict]int{}
	for _, sc := range c.Scenarios {
		n[sc.Verdict]++
	}
	var parts []string
	for _, v := range []struct {
		verdict compare.Verdict
		word    string
	}{
		{compare.Regressed, "regressed"}, {compare.Inconclusive, "undecided"}, {compare.Improved, "improved"},
		{compare.Unchanged, "unchanged"}, {compare.NoBaseline, "new"},
	} {
		if n[v.verdict] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[v.verdict], v.word))
		}
	}
	if len(parts) == 0 {
		return plural(len(c.Scenarios), "scenario")
	}
	return strings.Join(parts, ", ") + " of " + plural(len(c.Scenarios), "scenario")
}

// Summary is the headline without its prefix and verdict word: the
// scenarios by verdict and the one thing to do next ("13 undecided of 13
// scenarios · next: run perfgate gate --ab"), for a one-line message
// beside a report (the gate's exit message, the Action's annotation).
func Summary(c *compare.Comparison) string {
	s := tallyLine(c)
	if next := nextStep(c); next != "" {
		s += " · next: " + next
	}
	return s
}

// headlineLine is the verdict in one line of at most HeadlineMax
// characters: "perfgate · TITLE: INCONCLUSIVE · 13 undecided of 13
// scenarios · next: run perfgate gate --ab". prefix names the tool and
// title; it is cut (with "…") when the line would be longer.
func headlineLine(prefix string, c *compare.Comparison) string {
	tail := " · " + tallyLine(c)
	if next := nextStep(c); next != "" {
		tail += " · next: " + next
	}
	line := prefix + ": " + strings.ToUpper(string(c.Verdict)) + tail
	if utf8.RuneCountInString(line) > HeadlineMax {
		// The title goes first: the verdict and what to do matter more.
		if p, _, ok := strings.Cut(prefix, " · "); ok {
			line = p + ": " + strings.ToUpper(string(c.Verdict)) + tail
		}
	}
	return cutRunes(line, HeadlineMax)
}

// cutRunes shortens s to at most n characters, ending in "…" when cut.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// decideLines are the lines under the table: one per cause of undecided
// scenarios, then what the gate can see, at most MaxDecideLines in all.
// None for a passing or failing comparison whose gate sees its
// thresholds.
func decideLines(c *compare.Comparison) []string {
	var out []string
	if e := c.Environment; c.Verdict == compare.Incomparable && e != nil && len(e.Differences) > 0 {
		out = append(out, "the environments differ: "+strings.Join(e.Differences, "; "))
	}
	if c.Verdict == compare.Inconclusive {
		for _, u := range undecidedOf(c) {
			out = append(out, u.line())
		}
	}
	if c.Verdict == compare.Inconclusive || c.Verdict == compare.Pass {
		if l := seesLine(c.Sensitivity); l != "" {
			if len(out) >= MaxDecideLines {
				out = out[:MaxDecideLines-1]
			}
			out = append(out, l)
		}
	}
	if len(out) > MaxDecideLines {
		out = out[:MaxDecideLines]
	}
	return out
}

// line is u as one line under the table: what is undecided, where, why,
// and the lever.
func (u undecided) line() string {
	what := "undecided"
	if len(u.metrics) > 0 {
		what = strings.Join(u.metrics, ", ")
	}
	where := u.scenarios[0]
	if len(u.scenarios) > 1 {
		where = fmt.Sprintf("%d scenarios (%s, …)", len(u.scenarios), u.scenarios[0])
	}
	return cutRunes(fmt.Sprintf("%s in %s: %s", what, where, u.lever(true)), 2*HeadlineMax)
}

// seesLine says what the gate could detect, per gated metric (error rate
// aside: its threshold is a tenth of a point), and only when some metric
// could not see its threshold: "this gate cannot see p99_ms changes here
// (under 100%); it sees max_qps changes ≥ 30%". A detectable change
// beyond VisibleLimitPct is said in words, never as a figure.
func seesLine(ss []compare.Sensitivity) string {
	var blind, sees []string
	short := false
	for _, s := range ss {
		if s.Metric == compare.MetricErrorRate {
			continue
		}
		v := max(s.MedianMDEPct, s.ThresholdPct)
		if s.MedianMDEPct > s.ThresholdPct {
			short = true
		}
		switch {
		case !s.Absolute && v > VisibleLimitPct:
			blind = append(blind, s.Metric)
		default:
			sees = append(sees, fmt.Sprintf("%s changes ≥ %s", s.Metric, mdePct(v, s.Absolute)))
		}
	}
	if !short {
		return ""
	}
	var parts []string
	if len(blind) > 0 {
		parts = append(parts, fmt.Sprintf("this runner cannot see %s changes here (not even %d%%)", orList(blind), VisibleLimitPct))
	}
	if len(sees) > 0 {
		lead := "this gate sees "
		if len(blind) > 0 {
			lead = "it sees "
		}
		parts = append(parts, lead+strings.Join(sees, ", "))
	}
	return strings.Join(parts, "; ")
}

// orList joins names as prose: "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// mdePct writes a detectable change: "56%", or "0.5 pp" for an absolute
// metric.
func mdePct(v float64, abs bool) string {
	if abs {
		return fmt.Sprintf("%.2g pp", v)
	}
	return fmt.Sprintf("%.0f%%", v)
}

// Brief writes r for a terminal in five seconds: the headline line, the
// scenario table, the lines on what would decide the undecided ones and
// the instance counts of the scenarios sized (how many machines now).
// Text writes everything. more, when not "", ends the output as one line
// saying where the rest is.
func Brief(w io.Writer, r *Report, more string) error {
	if r == nil || r.Comparison == nil {
		return fmt.Errorf("rendering text: the report has no comparison")
	}
	return brief(w, r, r.headPrefix(plain), more)
}

// brief is Brief with the headline's prefix ("perfgate · TITLE").
func brief(w io.Writer, r *Report, prefix, more string) error {
	var b strings.Builder
	b.WriteString(plain(headlineLine(prefix, r.Comparison)) + "\n")
	r.writeTextSections(&b, func(k sectionKind) bool {
		return k == secAB || k == secScenarios || k == secDecide || k == secCapacity
	})
	if more != "" {
		b.WriteString("\n" + plain(more) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ComparisonBrief writes a comparison alone (perfgate compare) in five
// seconds: its headline, the scenario table and what would decide the
// undecided ones; ComparisonText writes the method, warnings and every
// metric of every scenario.
func ComparisonBrief(w io.Writer, c *compare.Comparison, more string) error {
	return brief(w, &Report{Comparison: c}, "perfgate compare", more)
}

// headPrefix names the report in its headline: "perfgate · TITLE".
func (r *Report) headPrefix(title func(string) string) string {
	if r.Title != "" {
		return "perfgate · " + title(r.Title)
	}
	return "perfgate"
}

// mode says which comparison produced the report, for the HTML report's
// header: the same words whether the reader opened it from a gate, an
// A/B run or the history.
func (r *Report) mode() string {
	c := r.Comparison
	var m string
	switch {
	case c.AB != nil:
		how := "interleaved"
		if c.AB.Design == config.DesignConcurrent {
			how = "both sides at once"
		}
		m = fmt.Sprintf("same-runner A/B: base %s (%s) against head %s, measured %s on this runner; no stored baseline was read",
			c.AB.Ref, shortSHA(c.AB.BaseSHA), shortSHA(c.AB.HeadSHA), how)
		if c.AB.Declared {
			m = fmt.Sprintf("declared pairs: each pair's base scenario against its head scenario, measured %s on this runner; no stored baseline was read", how)
		}
	case r.Mode != "":
		m = r.Mode
	case c.Verdict == compare.NoBaseline:
		m = "results alone: no baseline to compare with"
	case len(c.Settings.Learned) > 0:
		m = fmt.Sprintf("stored baselines, the run-to-run noise learned from the history (%s)", plural(len(c.Settings.Learned), "scenario"))
	default:
		m = "stored baselines"
	}
	if r.Trend != nil && len(r.Trend.Series) > 0 {
		m += "; trends from the history"
	}
	return m
}
