package report

import (
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
)

// sectionKind is one part of the gate's report.
type sectionKind int

// The parts of the report, in the order sections lists them.
const (
	secHeadline   sectionKind = iota // verdict, counts, the layers responsible, the reason
	secAB                            // the same-runner A/B run, when the gate ran one
	secScenarios                     // one row per scenario, most severe first
	secDecide                        // at most MaxDecideLines on what would decide the undecided
	secCapacity                      // the capacity plan of each scenario that has one
	secLayers                        // the change per layer
	secLadder                        // the ladder: one layer changed per rung
	secBottleneck                    // the PR's bottleneck per scenario, from telemetry
	secCharts                        // P99 against offered load (markdown only)
	secDetails                       // environment, method and warnings
	secLinks                         // the full report, the run, the HTML report (markdown only)

	// A comparison alone (`perfgate compare`) has a headline, one section
	// per scenario, the per-layer and ladder sections above, and a legend.
	secScenario // one scenario: its verdict, reason, metrics and warnings
	secLegend   // what the columns mean
)

// section is one part of the report: what Text and Markdown both show, in
// the order both show it. sections decides which parts a report has and
// which rows each holds; each format renders a section its own way (text.go,
// markdown.go) and may leave out a part it has no use for (a terminal draws
// no charts).
type section struct {
	kind sectionKind
	// title names the section; the formats style it ("by layer:",
	// "### By layer").
	title string
	// rows are the section's rows in order.
	rows []sectionRow
	// groups are the details' lists: environment, method, warnings.
	groups []lineGroup
	// sc is a secScenario's scenario.
	sc *compare.ScenarioComparison
}

// sectionRow is one row of a section. scenario is the scenario it belongs
// to ("" for a row of the whole comparison): a markdown report shortened to
// its most severe scenarios keeps only their rows. One of the other fields
// is set, as the section's kind says.
type sectionRow struct {
	scenario string
	sc       compare.ScenarioComparison // secScenarios, secCharts
	plan     *Plan                      // secCapacity
	layer    *compare.LayerAttribution  // secLayers
	step     *compare.LadderStep        // secLadder
	cand     *result.Result             // secBottleneck: the PR's result
	metric   *compare.Metric            // secScenario
}

// lineGroup is a titled list of lines.
type lineGroup struct {
	title string
	lines []string
}

// sections lists the report's parts in order with their rows. The
// headline, the scenario table, the details and the links are always
// there; every other part only when it has rows.
func (r *Report) sections() []section {
	c := r.Comparison
	ss := r.scenarios()
	out := []section{{kind: secHeadline}}
	if c.AB != nil {
		out = append(out, section{kind: secAB})
	}
	table := section{kind: secScenarios}
	capacity := section{kind: secCapacity, title: "capacity"}
	bottleneck := section{kind: secBottleneck, title: "bottleneck"}
	charts := section{kind: secCharts, title: "P99 against offered load"}
	for _, s := range ss {
		table.rows = append(table.rows, sectionRow{scenario: s.Scenario, sc: s})
		if p := r.plan(s.Scenario); p != nil && p.Candidate != nil {
			capacity.rows = append(capacity.rows, sectionRow{scenario: s.Scenario, plan: p})
		}
		if res := find(r.Candidate, s.Scenario); res != nil && res.Telemetry != nil && res.Telemetry.Bottleneck != nil {
			bottleneck.rows = append(bottleneck.rows, sectionRow{scenario: s.Scenario, cand: res})
		}
		// Charts are left out whole or kept whole, never by scenario.
		charts.rows = append(charts.rows, sectionRow{sc: s})
	}
	layers := section{kind: secLayers, title: "by layer"}
	for i := range c.Layers {
		layers.rows = append(layers.rows, sectionRow{layer: &c.Layers[i]})
	}
	ladder := section{kind: secLadder, title: "ladder"}
	if l := c.Ladder; l != nil {
		for i := range l.Steps {
			ladder.rows = append(ladder.rows, sectionRow{step: &l.Steps[i]})
		}
	}
	out = append(out, table)
	decide := section{kind: secDecide}
	for _, l := range decideLines(c) {
		decide.groups = append(decide.groups, lineGroup{lines: []string{l}})
	}
	for _, s := range []section{decide, capacity, layers, ladder, bottleneck, charts} {
		if len(s.rows) > 0 || len(s.groups) > 0 {
			out = append(out, s)
		}
	}
	var groups []lineGroup
	if v := r.verdictLines(); len(v) > 0 {
		groups = append(groups, lineGroup{"verdict", v})
	}
	groups = append(groups, lineGroup{"environment", r.environment()}, lineGroup{"method", r.method()}, lineGroup{"warnings", r.warnings()})
	return append(out,
		section{kind: secDetails, title: "verdict, environment, method and warnings", groups: groups},
		section{kind: secLinks})
}

// comparisonSections lists a comparison's parts in order, for
// ComparisonText and ComparisonMarkdown: the headline (verdict, reason,
// settings, environment, warnings), one section per scenario in the
// comparison's order (rows: its metrics), the per-layer attribution when
// there is one, the ladder when the comparison ran one (even with no
// steps: its warnings say why), and the legend.
func comparisonSections(c *compare.Comparison) []section {
	out := []section{{kind: secHeadline}}
	for i := range c.Scenarios {
		sc := &c.Scenarios[i]
		s := section{kind: secScenario, title: sc.Scenario, sc: sc}
		for j := range sc.Metrics {
			s.rows = append(s.rows, sectionRow{scenario: sc.Scenario, metric: &sc.Metrics[j]})
		}
		out = append(out, s)
	}
	if len(c.Layers) > 0 {
		s := section{kind: secLayers, title: "by layer"}
		for i := range c.Layers {
			s.rows = append(s.rows, sectionRow{layer: &c.Layers[i]})
		}
		out = append(out, s)
	}
	if l := c.Ladder; l != nil {
		s := section{kind: secLadder, title: "ladder"}
		for i := range l.Steps {
			s.rows = append(s.rows, sectionRow{step: &l.Steps[i]})
		}
		out = append(out, s)
	}
	return append(out, section{kind: secLegend})
}
