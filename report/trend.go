package report

import (
	"fmt"
	"html/template"
	"math"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/result"
)

// Trend is the history the report shows: each scenario's series on the
// candidate's runner (history.AllSeries), and the change points found in
// them. Set by the gate when it is given a history.
type Trend struct {
	Series  []history.Series `json:"series"`
	Changes []history.Change `json:"changes,omitempty"`
}

// trendMetrics are the metrics drawn in a scenario's trend panel, with the
// comparison's name of the same figure.
var trendMetrics = []struct{ history, compare, label string }{
	{history.MetricP99, compare.MetricP99, "P99 (ms)"},
	{history.MetricMaxQPS, compare.MetricMaxQPS, "max QPS under the SLO"},
}

// runs is how many runs the trend holds for scenario (its longest series).
func (t *Trend) runs(scenario string) int {
	n := 0
	for _, s := range t.Series {
		if s.Scenario == scenario {
			n = max(n, len(s.Points))
		}
	}
	return n
}

// trendFigures are a scenario's trend panels: each metric over the
// history's commits with its interval, baseline updates filled (other
// runs hollow), change points as vertical rules with their size, and the
// PR's value (the comparison's candidate, with the change's interval)
// placed at the end. Nil without a history of the scenario.
func (t *Trend) trendFigures(s compare.ScenarioComparison, cand *result.Result) []*figure {
	if t == nil {
		return nil
	}
	runner := ""
	if cand != nil {
		runner = history.FingerprintID(result.FingerprintOf(cand.Environment))
	}
	var figs []*figure
	for _, tm := range trendMetrics {
		ser := pickSeries(t.Series, s.Scenario, tm.history, runner)
		if ser == nil || len(ser.Points) == 0 {
			continue
		}
		fig := &figure{Kind: "trend", Title: "Trend: " + tm.label + " over commits"}
		p := &plot{X: axis{Label: "run (oldest → newest; PR last)", Min: -0.5, Max: float64(len(ser.Points)) - 0.5}, Y: axis{Label: tm.label}}
		sr := series{Label: "history", Class: "base", Dots: true, Line: true}
		top := 0.0
		for i, pt0 := range ser.Points {
			x := float64(i)
			sr.Pts = append(sr.Pts, pt{x, pt0.Value})
			sr.Open = append(sr.Open, !pt0.Baseline)
			ci := ""
			if pt0.Hi > 0 {
				ci = fmt.Sprintf(" [%s, %s]", num(pt0.Lo), num(pt0.Hi))
				p.HSpans = append(p.HSpans, span{From: pt0.Lo, To: pt0.Hi, X0: x - 0.3, X1: x + 0.3, Class: "ci trend",
					Label: fmt.Sprintf("%s: 95%% interval%s", commitName(pt0.Commit), ci)})
			}
			sr.Titles = append(sr.Titles, fmt.Sprintf("%s %s: %s%s%s", pt0.Date.Format("2006-01-02"), commitName(pt0.Commit), num(pt0.Value), ci,
				map[bool]string{true: " (baseline update)", false: ""}[pt0.Baseline]))
			top = math.Max(top, math.Max(pt0.Value, pt0.Hi))
		}
		p.Series = append(p.Series, sr)
		for _, c := range t.Changes {
			if c.Key == ser.Key {
				p.VRules = append(p.VRules, rule{At: float64(c.Index) - 0.5, Class: "threshold",
					Label: fmt.Sprintf("%s %s", signedPct(c.SizePct), commitName(c.After.Commit))})
			}
		}
		fig.Legend = append(fig.Legend, legendItem{"base", "history on this runner (filled: baseline updates)"})
		if m := metric(s, tm.compare); m != nil && m.Candidate > 0 {
			x := float64(len(ser.Points))
			p.X.Max = x + 0.5
			p.Series = append(p.Series, series{Label: "PR", Class: "pr", Dots: true, Pts: []pt{{x, m.Candidate}},
				Titles: []string{fmt.Sprintf("this PR: %s (%s %s against the baseline)", num(m.Candidate), pct(m.DeltaPct, false), interval(m))}})
			if m.Baseline > 0 {
				lo, hi := m.Baseline*(1+m.CIPct[0]/100), m.Baseline*(1+m.CIPct[1]/100)
				p.HSpans = append(p.HSpans, span{From: lo, To: hi, X0: x - 0.3, X1: x + 0.3, Class: string("ci " + m.Verdict),
					Label: fmt.Sprintf("this PR's change %s %s: %s", pct(m.DeltaPct, false), interval(m), m.Verdict)})
				top = math.Max(top, hi)
			}
			top = math.Max(top, m.Candidate)
			fig.Legend = append(fig.Legend, legendItem{"pr", "this PR"})
		}
		p.Y.Min, p.Y.Max = 0, niceCeil(top*1.1)
		p.X.Ticks = []tick{}
		fig.Caption = fmt.Sprintf("%d run(s) of %s on runner %s; bars are 95%% intervals; vertical lines are change points (E-Divisive, permutation test).", len(ser.Points), s.Scenario, ser.Runner)
		fig.SVG = template.HTML(p.svg(fmt.Sprintf("%s of %s over %d runs and this PR", tm.label, s.Scenario, len(ser.Points))))
		figs = append(figs, fig)
	}
	return figs
}

// pickSeries is the series of scenario and metric on runner, else the
// longest on any runner.
func pickSeries(all []history.Series, scenario, metric, runner string) *history.Series {
	var best *history.Series
	for i := range all {
		s := &all[i]
		if s.Scenario != scenario || s.Metric != metric {
			continue
		}
		if s.Runner == runner {
			return s
		}
		if best == nil || len(s.Points) > len(best.Points) {
			best = s
		}
	}
	return best
}
