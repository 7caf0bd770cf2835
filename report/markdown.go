package report

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
)

// Options shape the markdown report.
type Options struct {
	// MaxBytes caps the report's length: CommentMaxBytes for a PR comment,
	// SummaryMaxBytes for the step summary; 0 means no cap. A longer report
	// is shortened as the package documentation describes.
	MaxBytes int
	// Marker is written last, verbatim (the sticky comment's hidden HTML
	// comment); "" writes none. It is the caller's, never the config's.
	Marker string
}

// maxCharts bounds the charts of one report; the rest are named only.
const maxCharts = 8

// mdParts is the report's sections rendered in markdown, kept apart so
// that shortening can leave some out.
type mdParts struct {
	blocks  []mdBlock
	rows    int    // the scenario table's rows
	marker  string // written last
	summary string // the step summary's URL, for the truncation note
	max     int    // the byte limit, for the truncation note
}

// mdBlock is one section in markdown: its head, its rows (each with its
// scenario, "" for a row kept whatever the scenarios kept) and its tail.
type mdBlock struct {
	kind sectionKind
	head string
	rows []mdRow
	tail string
}

// mdRow is one rendered row and the scenario it belongs to.
type mdRow struct {
	scenario string
	text     string
}

// Markdown writes r as GitHub-flavoured markdown within o.MaxBytes.
func Markdown(w io.Writer, r *Report, o Options) error {
	if r == nil || r.Comparison == nil {
		return errors.New("rendering markdown: the report has no comparison")
	}
	p := r.mdParts(o.Marker)
	out := p.assemble(p.rows, true, true, "")
	if o.MaxBytes > 0 && len(out) > o.MaxBytes {
		out = p.shorten(o.MaxBytes)
	}
	_, err := io.WriteString(w, out)
	return err
}

// shorten drops, in order, the details, the charts and scenario rows from
// the least severe up, until the report fits max bytes; as a last resort it
// cuts the text. It always keeps the truncation note and the marker.
func (p *mdParts) shorten(max int) string {
	p.max = max
	n := p.rows
	if out := p.assemble(n, true, false, p.note(n, "the environment, method and warnings")); len(out) <= max {
		return out
	}
	if out := p.assemble(n, false, false, p.note(n, "the details and the charts")); len(out) <= max {
		return out
	}
	// The largest number of rows that fits, by bisection.
	lo, hi := 0, n
	for lo < hi {
		k := (lo + hi + 1) / 2
		if len(p.assemble(k, false, false, p.note(k, "the details and the charts"))) <= max {
			lo = k
		} else {
			hi = k - 1
		}
	}
	out := p.assemble(lo, false, false, p.note(lo, "the details and the charts"))
	if len(out) <= max {
		return out
	}
	// Even the headline is too long (an enormous title): cut it.
	tail := "\n\n" + p.note(0, "the details and the charts") + p.markerLine()
	keep := max - len(tail)
	if keep < 0 {
		keep = 0
	}
	for keep > 0 && !utf8.RuneStart(out[keep]) {
		keep--
	}
	return out[:keep] + tail
}

// note is the line that says what was left out and where the rest is.
func (p *mdParts) note(rows int, dropped string) string {
	what := dropped
	if rows < p.rows {
		what += fmt.Sprintf(" and %d of %d scenarios (the least severe)", p.rows-rows, p.rows)
	}
	where := "the workflow run's step summary"
	if p.summary != "" {
		where = "the [step summary](" + p.summary + ")"
	}
	return fmt.Sprintf("> [!NOTE]\n> This report was shortened to fit GitHub's limit of %s characters: %s left out. The full report is in %s.\n",
		thousands(float64(p.max), 0), what, where)
}

func (p *mdParts) markerLine() string {
	if p.marker == "" {
		return ""
	}
	return "\n" + p.marker + "\n"
}

// assemble writes the sections, a blank line between them, keeping the
// rows of the first rows scenarios of the scenario table, the charts and
// the details when asked, and the note (if any) before the links.
func (p *mdParts) assemble(rows int, charts, details bool, note string) string {
	kept := map[string]bool{}
	for _, b := range p.blocks {
		if b.kind == secScenarios {
			for _, row := range b.rows[:rows] {
				kept[row.scenario] = true
			}
		}
	}
	var b strings.Builder
	first, noted := true, note == ""
	write := func(s string) {
		if !first {
			b.WriteString("\n")
		}
		first = false
		b.WriteString(s)
	}
	for _, blk := range p.blocks {
		if blk.kind == secCharts && !charts || blk.kind == secDetails && !details {
			continue
		}
		if blk.kind == secLinks && !noted {
			write(note)
			noted = true
		}
		var body strings.Builder
		n := 0
		for _, row := range blk.rows {
			if row.scenario == "" || kept[row.scenario] {
				body.WriteString(row.text)
				n++
			}
		}
		// A section of rows none of which is kept is left out; the
		// scenario table keeps its header.
		if len(blk.rows) > 0 && n == 0 && blk.kind != secScenarios || blk.head+blk.tail == "" && n == 0 {
			continue
		}
		write(blk.head + body.String() + blk.tail)
	}
	if !noted {
		write(note)
	}
	b.WriteString(p.markerLine())
	return b.String()
}

// mdParts renders every section of the report.
func (r *Report) mdParts(marker string) *mdParts {
	p := &mdParts{marker: marker, summary: safeURL(r.SummaryURL)}
	for _, s := range r.sections() {
		blk := r.mdSection(s, p.summary)
		if s.kind == secScenarios {
			p.rows = len(blk.rows)
		}
		p.blocks = append(p.blocks, blk)
	}
	return p
}

// mdSection renders one section in markdown; a block with no head, rows or
// tail is left out.
func (r *Report) mdSection(s section, summary string) mdBlock {
	c := r.Comparison
	blk := mdBlock{kind: s.kind}
	switch s.kind {
	case secHeadline:
		blk.head = r.mdHead()
	case secAB:
		blk.head = strings.TrimPrefix(r.mdAB(), "\n")
	case secScenarios:
		if len(s.rows) == 0 {
			break
		}
		blk.head = "| | scenario | layer | P99 base → PR | Δ P99 [CI] | max QPS under SLO base → PR | Δ max QPS [CI] | verdict |\n" +
			"| --- | --- | --- | --- | --- | --- | --- | --- |\n"
		for _, row := range s.rows {
			blk.rows = append(blk.rows, mdRow{row.scenario, r.mdRow(row.sc)})
		}
	case secDecide:
		for _, g := range s.groups {
			for _, l := range g.lines {
				blk.head += "- " + esc(l) + "\n"
			}
		}
	case secCapacity:
		head, rows := r.mdCapacity()
		for _, row := range s.rows {
			if text, ok := rows[row.scenario]; ok && head != "" {
				blk.rows = append(blk.rows, mdRow{row.scenario, text})
			}
		}
		if len(blk.rows) > 0 {
			blk.head = head
		}
	case secLayers:
		blk.head = "### " + capitalize(s.title) + "\n\n| layer | Δ P99 [CI] | Δ max QPS [CI] | scenarios |\n| --- | --- | --- | --- |\n"
		for _, row := range s.rows {
			la := row.layer
			names := make([]string, len(la.Scenarios))
			for i, s := range la.Scenarios {
				names[i] = esc(s)
			}
			blk.head += fmt.Sprintf("| %s | %s | %s | %s |\n", esc(la.Layer), change(la.P99, false), change(la.MaxQPS, false), strings.Join(names, ", "))
		}
	case secLadder:
		l := c.Ladder
		var b strings.Builder
		fmt.Fprintf(&b, "**%s** (one layer changed per rung):\n\n", capitalize(s.title))
		for _, row := range s.rows {
			st := row.step
			fmt.Fprintf(&b, "- %s → %s (%s): P99 %s", esc(st.From), esc(st.To), esc(st.Layer), change(&st.P99, false))
			if st.MaxQPS != nil {
				fmt.Fprintf(&b, "; max QPS %s", change(st.MaxQPS, false))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "- whole: P99 %s; %s\n", change(&l.Whole.P99, false), esc(ladderNote(l)))
		blk.head = b.String()
	case secBottleneck:
		blk.head = "**" + capitalize(s.title) + "** (PR, from telemetry):\n\n"
		for _, row := range s.rows {
			blk.rows = append(blk.rows, mdRow{row.scenario, mdBottleneck(row.cand)})
		}
	case secCharts:
		omitted := 0
		for _, row := range s.rows {
			ch := chart(row.sc.Scenario, find(r.Baseline, row.sc.Scenario), find(r.Candidate, row.sc.Scenario))
			if ch == "" {
				continue
			}
			if len(blk.rows) == maxCharts {
				omitted++
				continue
			}
			blk.rows = append(blk.rows, mdRow{text: "\n" + ch})
		}
		if len(blk.rows) == 0 {
			break
		}
		blk.head = "### " + s.title + "\n"
		if omitted > 0 {
			blk.tail = fmt.Sprintf("\n%s more swept scenarios are not charted.\n", plural(omitted, "other"))
		}
	case secDetails:
		blk.head = mdDetails(s)
	case secLinks:
		blk.head = r.mdLinks(summary)
	}
	return blk
}

// mdLinks is the footer: the full report, the workflow run, the HTML
// report and the trend; "" without a run to link to.
func (r *Report) mdLinks(summary string) string {
	var links []string
	if summary != "" {
		links = append(links, "[Full report]("+summary+")")
	}
	if u := safeURL(r.RunURL); u != "" && u != summary {
		links = append(links, "[Workflow run]("+u+")")
	}
	if u := safeURL(r.RunURL); u != "" {
		// The gate writes perfgate-out/report.html; the example workflows
		// upload it as the run's artifact perfgate-report.
		links = append(links, "[HTML report]("+u+"#artifacts) (artifact `perfgate-report`: charts of every scenario)")
		if r.Trend != nil && len(r.Trend.Series) > 0 {
			links = append(links, "[Trend]("+u+"#artifacts) (the HTML report's trend panels: each scenario over its history on this runner, change points marked)")
		}
	}
	if len(links) == 0 {
		return ""
	}
	return strings.Join(links, " · ") + "\n"
}

// capitalize upper-cases a section title's first letter for a heading.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// mdHead is the headline: verdict, counts, the responsible layers, reason.
func (r *Report) mdHead() string {
	c := r.Comparison
	var b strings.Builder
	fmt.Fprintf(&b, "## %s %s: **%s**\n\n", verdictMark(c.Verdict), r.headPrefix(esc), esc(string(c.Verdict)))
	reg, _ := r.counts()
	line := esc(tallyLine(c))
	if reg > 0 {
		line = "**" + line + "**"
	}
	if next := nextStep(c); next != "" {
		line += " · next: " + esc(next)
	}
	if layers, v := r.responsible(); len(layers) > 0 {
		names := make([]string, len(layers))
		for i, l := range layers {
			names[i] = "**" + esc(l) + "**"
		}
		what := "regressions from"
		if v == compare.Improved {
			what = "improvements from"
		}
		line += fmt.Sprintf(" · %s %s %s", what, map[bool]string{true: "layer", false: "layers"}[len(layers) == 1], strings.Join(names, ", "))
	}
	b.WriteString(line + "\n")
	if sha := shortSHA(r.Commit); sha != "" && c.AB == nil {
		fmt.Fprintf(&b, "\nMeasured commit `%s` against the stored baselines.\n", sha)
	}
	return b.String()
}

// kneeRateNote stands for a P99 change that is not gated: after a sweep
// each side's latency was measured at its own knee rate.
const kneeRateNote = "at each knee, not gated"

// mdRow is one scenario's table row.
func (r *Report) mdRow(s compare.ScenarioComparison) string {
	w := r.scenarioRow(s, "—")
	p99Cell, p99Delta := w.P99, withCI(boldIf(w.P99Pct, w.P99Regressed), w.P99CI)
	qpsCell, qpsDelta := w.QPS, withCI(boldIf(w.QPSPct, w.QPSRegressed), w.QPSCI)
	verdict := esc(string(s.Verdict)) + w.notes()
	layer := esc(s.Layer)
	if layer == "" {
		layer = "—"
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |\n",
		mark(s.Verdict), esc(s.Scenario), layer, p99Cell, p99Delta, qpsCell, qpsDelta, verdict)
}

// mdCapacity is the capacity table's header and its rows by scenario.
func (r *Report) mdCapacity() (string, map[string]string) {
	rows := map[string]string{}
	var peak, headroom float64
	cost, daily := false, false
	for _, p := range r.Plans {
		if s := p.Candidate; s != nil {
			peak, headroom = s.PeakQPS, s.Headroom
			cost = cost || s.CostPerMonth != nil
			daily = daily || s.CostPerDay != nil
		}
	}
	if peak == 0 {
		return "", rows
	}
	for _, p := range r.Plans {
		if p.Candidate == nil {
			continue
		}
		c := p.Candidate
		perInst := "— → " + qps(c.PerInstanceMaxQPS)
		inst := fmt.Sprintf("— → %d", c.Instances)
		money := "— → " + costOf(c.CostPerMonth)
		if p.Withheld != "" {
			perInst = qps(p.Baseline.PerInstanceMaxQPS) + " → " + qps(c.PerInstanceMaxQPS) + ": " + esc(p.Withheld)
			inst, money = "withheld", "withheld"
		}
		if d, b := p.Diff, p.Baseline; d != nil && b != nil {
			perInst = fmt.Sprintf("%s → %s (%s%s)", qps(d.BaselineMaxQPS), qps(d.CandidateMaxQPS), pct(d.MaxQPSDeltaPct, false), esc(testedSuffix(*d)))
			inst = fmt.Sprintf("%d → %d (%s)", d.BaselineInstances, d.CandidateInstances, boldIf(signedInt(d.InstancesDelta), d.InstancesDelta > 0))
			if d.InstancesDelta != 0 && d.Overlap {
				inst += " within the knee's resolution"
			}
			money = costOf(d.BaselineCostPerMonth) + " → " + costOf(d.CandidateCostPerMonth)
			if d.CostPerMonthDelta != nil {
				money += " (" + boldIf(signedMoney(*d.CostPerMonthDelta), *d.CostPerMonthDelta > 0) + ")"
			}
		}
		row := fmt.Sprintf("| %s | %s | %s |", esc(p.Scenario), perInst, inst)
		if cost {
			row += " " + money + " |"
		}
		if daily {
			row += " " + dailyCost(p) + " |"
		}
		rows[p.Scenario] = row + "\n"
	}
	head := fmt.Sprintf("### Capacity at %s peak QPS (headroom %s)\n\n| scenario | max QPS per instance base → PR | instances base → PR |",
		qps(peak), num(headroom))
	sep := "| --- | --- | --- |"
	if cost {
		head += " cost per month base → PR |"
		sep += " --- |"
	}
	if daily {
		head += " scheduled cost per day base → PR (flat) |"
		sep += " --- |"
	}
	return head + "\n" + sep + "\n", rows
}

// mdBottleneck is the bottleneck line of a scenario whose run sampled
// telemetry.
func mdBottleneck(res *result.Result) string {
	t := res.Telemetry
	line := fmt.Sprintf("- **%s**: %s", esc(res.Scenario), esc(t.Bottleneck.Class))
	if len(t.Bottleneck.Evidence) > 0 {
		ev := make([]string, len(t.Bottleneck.Evidence))
		for i, e := range t.Bottleneck.Evidence {
			ev[i] = esc(e)
		}
		line += ": " + strings.Join(ev, "; ")
	}
	if t.Bottleneck.Next != "" {
		line += ". Next: " + esc(t.Bottleneck.Next)
	}
	return line + esc(cacheNote(res)) + "\n"
}

// boldIf wraps s in ** when cond.
func boldIf(s string, cond bool) string {
	if cond {
		return "**" + s + "**"
	}
	return s
}

// costOf formats an optional monthly cost.
func costOf(v *float64) string {
	if v == nil {
		return "—"
	}
	return money(*v)
}

// shortSHA returns the first 12 hex digits of a commit id, or "" when sha
// is not hexadecimal.
func shortSHA(sha string) string {
	for _, r := range sha {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return ""
		}
	}
	return sha[:min(len(sha), 12)]
}

// safeURL returns u when it is an absolute http(s) URL, re-encoded so it
// cannot break out of a markdown link, else "".
func safeURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
		return ""
	}
	s := p.String()
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E").Replace(s)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
