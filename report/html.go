package report

import (
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
)

var (
	//go:embed html.tmpl
	htmlTemplate string
	//go:embed html.css
	htmlCSS string
)

// pageTemplate is parsed once; html/template escapes every name.
var pageTemplate = template.Must(template.New("page").Parse(htmlTemplate))

// HTMLOptions shape the HTML report.
type HTMLOptions struct {
	// Version is perfgate's version, for the footer; "" omits it.
	Version string
}

// htmlPage is what the template renders.
type htmlPage struct {
	Title, Verdict, Headline, Mode, Commit, Version, RunURL string
	// Decide are the lines on what would decide the undecided scenarios
	// (decideLines); Reason the comparison's whole reason, in the
	// details.
	Decide, Reason                []string
	CSS                           template.CSS
	Rows                          []htmlRow
	Overview                      []*figure
	Scenarios                     []htmlScenario
	Environment, Method, Warnings []string
}

type htmlRow struct {
	Anchor, Scenario, Layer, P99, P99Delta, QPS, QPSDelta, Verdict, Note string
}

type htmlScenario struct {
	Anchor, Name, Layer, Verdict string
	Notes                        []string
	Figures                      []*figure
}

// HTML writes r as one self-contained HTML page: its styles, its charts
// (inline SVG) and its few lines of script (the theme switch) are all in
// the file, so it opens offline and nothing is fetched. The page follows
// the reader's light or dark preference (a button switches) and prints in
// the light theme, one chart per block.
//
// Per scenario, baseline against PR, where the results hold the data: P99
// and P50 against offered load with the SLO, the knees and their brackets
// and every probe; the percentile spectrum of the merged histograms; each
// trial's P99 with the interval of the change; the achieved rate and the
// P99 per second; TTFT, TPOT and ITL spectra for streams. Before them,
// instances and cost at the peak, and the ladder as a waterfall.
func HTML(w io.Writer, r *Report, o HTMLOptions) error {
	if r == nil || r.Comparison == nil {
		return errors.New("rendering HTML: the report has no comparison")
	}
	page := r.htmlPage()
	page.Version = o.Version
	if err := pageTemplate.Execute(w, page); err != nil {
		return fmt.Errorf("rendering HTML: %w", err)
	}
	return nil
}

// htmlPage gathers the page's text and figures.
func (r *Report) htmlPage() *htmlPage {
	c := r.Comparison
	p := &htmlPage{Title: "perfgate", Verdict: string(c.Verdict), Mode: r.mode(), Decide: decideLines(c), Reason: r.verdictLines(),
		Commit: shortSHA(r.Commit), CSS: template.CSS(htmlCSS), RunURL: safeURL(r.RunURL)}
	if r.Title != "" {
		p.Title = "perfgate · " + r.Title
	}
	p.Headline = tallyLine(c)
	if next := nextStep(c); next != "" {
		p.Headline += " · next: " + next
	}
	if layers, v := r.responsible(); len(layers) > 0 {
		what := "regressions from"
		if v == compare.Improved {
			what = "improvements from"
		}
		p.Headline += fmt.Sprintf(" · %s %s", what, joinAnd(layers))
	}
	p.Overview = append(p.Overview, r.capacityFigures()...)
	if fig := ladderFigure(c.Ladder); fig != nil {
		p.Overview = append(p.Overview, fig)
	}
	for i, s := range r.scenarios() {
		anchor := fmt.Sprintf("scenario-%d", i+1)
		p.Rows = append(p.Rows, r.htmlRow(s, anchor))
		p.Scenarios = append(p.Scenarios, r.htmlScenario(s, anchor))
	}
	p.Environment, p.Method, p.Warnings = r.environment(), r.method(), r.warnings()
	return p
}

// htmlRow is one scenario's row of the summary table.
func (r *Report) htmlRow(s compare.ScenarioComparison, anchor string) htmlRow {
	w := r.scenarioRow(s, "—")
	row := htmlRow{Anchor: anchor, Scenario: s.Scenario, Layer: s.Layer, Verdict: string(s.Verdict),
		P99: w.P99, P99Delta: withCI(w.P99Pct, w.P99CI), QPS: w.QPS, QPSDelta: withCI(w.QPSPct, w.QPSCI), Note: strings.TrimSpace(w.notes())}
	if row.Layer == "" {
		row.Layer = "—"
	}
	return row
}

// htmlScenario is one scenario's section: notes and figures.
func (r *Report) htmlScenario(s compare.ScenarioComparison, anchor string) htmlScenario {
	sd := sides{base: find(r.Baseline, s.Scenario), cand: find(r.Candidate, s.Scenario)}
	sec := htmlScenario{Anchor: anchor, Name: s.Scenario, Layer: s.Layer, Verdict: string(s.Verdict)}
	if why := ScenarioReason(&s); why != "" {
		sec.Notes = append(sec.Notes, why)
	}
	if s.Simulated {
		sec.Notes = append(sec.Notes, "simulated: the target computed nothing real")
	}
	if b := r.bottleneck(sd.cand); b != "" {
		sec.Notes = append(sec.Notes, b)
	}
	add := func(figs ...*figure) {
		for _, f := range figs {
			if f != nil {
				sec.Figures = append(sec.Figures, f)
			}
		}
	}
	add(curveFigure(sd))
	add(spectrumFigure(sd, "spectrum", "Latency percentile spectrum", "latency",
		func(t result.Trial) string { return t.Histogram }))
	add(trialsFigure(sd, metric(s, compare.MetricP99)))
	add(timelineFigures(sd)...)
	add(llmFigures(sd)...)
	add(r.Trend.trendFigures(s, sd.cand)...)
	return sec
}

// bottleneck is the telemetry's diagnosis of a result, in one line.
func (r *Report) bottleneck(res *result.Result) string {
	if res == nil || res.Telemetry == nil || res.Telemetry.Bottleneck == nil {
		return ""
	}
	b := res.Telemetry.Bottleneck
	line := "bottleneck (PR): " + b.Class
	for i, e := range b.Evidence {
		if i == 0 {
			line += ": "
		} else {
			line += "; "
		}
		line += e
	}
	if b.Next != "" {
		line += ". Next: " + b.Next
	}
	return line
}

// joinAnd joins words as "a, b and c".
func joinAnd(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	out := ws[0]
	for _, w := range ws[1 : len(ws)-1] {
		out += ", " + w
	}
	return out + " and " + ws[len(ws)-1]
}
