package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
)

// figure is one chart of the HTML report with its caption and legend.
type figure struct {
	// Kind names the chart type (curve, spectrum, trials, timeline-rate,
	// timeline-p99, ttft, tpot, itl, instances, cost, ladder); the browser
	// test and the stylesheet key on it.
	Kind    string
	Title   string
	Caption string
	Legend  []legendItem
	SVG     template.HTML
}

// legendItem is one entry of a figure's legend: a CSS class and its words.
type legendItem struct{ Class, Label string }

// sides are the two results of a scenario, with their legend words.
type sides struct {
	base, cand *result.Result
}

func (s sides) each(fn func(r *result.Result, class, label string)) {
	if s.base != nil {
		fn(s.base, "base", "baseline")
	}
	if s.cand != nil {
		fn(s.cand, "pr", "PR")
	}
}

// kneeRounds splits a sweep's probes into the search's and each
// confirmation round's (knee.Confirm), each by offered rate. The search's
// are the first Windows − ConfirmWindows; every round then starts with a
// probe at the bracket's low rate and never probes that rate again (its
// steps go above the bracket's top or below its bottom), so a probe at
// that rate starts a round.
func kneeRounds(c *result.Capacity) [][]result.Point {
	n := len(c.Points) - c.ConfirmWindows
	if c.ConfirmWindows <= 0 || n < 0 {
		return [][]result.Point{sortByRate(c.Points)}
	}
	rounds := [][]result.Point{sortByRate(c.Points[:n])}
	rest := c.Points[n:]
	var cur []result.Point
	for i, q := range rest {
		if i > 0 && q.OfferedRPS == rest[0].OfferedRPS {
			rounds = append(rounds, sortByRate(cur))
			cur = nil
		}
		cur = append(cur, q)
	}
	return append(rounds, sortByRate(cur))
}

// sortedPoints returns a sweep's probes by offered rate.
func sortedPoints(r *result.Result) []result.Point { return sortByRate(r.Capacity.Points) }

// sortByRate returns a copy of ps by offered rate, in probe order at
// equal rates.
func sortByRate(ps []result.Point) []result.Point {
	pts := slices.Clone(ps)
	slices.SortStableFunc(pts, func(a, b result.Point) int {
		switch {
		case a.OfferedRPS < b.OfferedRPS:
			return -1
		case a.OfferedRPS > b.OfferedRPS:
			return 1
		}
		return 0
	})
	return pts
}

// clipSLO is the height, in SLOs, above which a probe is drawn at the top
// of the load curve: one saturated probe must not flatten the knee.
const clipSLO = 3.0

// curveFigure draws P99 and P50 against offered load for each side that
// swept: every probe a dot (hollow where it failed), the SLO, each knee
// and its bracket. Nil when neither side swept.
func curveFigure(s sides) *figure {
	fig := &figure{Kind: "curve", Title: "P99 and P50 against offered load"}
	p := &plot{X: axis{Label: "offered load (requests/s)"}, Y: axis{Label: "latency (ms)"}, Clip: true}
	lo, hi, top := math.Inf(1), math.Inf(-1), 0.0
	slo := 0.0
	n := 0
	s.each(func(r *result.Result, class, label string) {
		if r.Capacity == nil || len(r.Capacity.Points) == 0 {
			return
		}
		n++
		if r.Capacity.SLOP99Ms > 0 {
			slo = r.Capacity.SLOP99Ms
		}
		// The search is one line; each confirmation round (its own
		// process, its own noise) is a thinner line of its own, so that
		// the rounds' probes are not joined into one tangle.
		for k, round := range kneeRounds(r.Capacity) {
			name, cls := label+" P99", class
			if k > 0 {
				name, cls = fmt.Sprintf("%s P99, confirmation round %d", label, k), class+" round"
			}
			p99 := series{Label: name, Class: cls, Line: true, Dots: true}
			p50 := series{Label: label + " P50", Class: class + " p50", Line: true}
			for _, q := range round {
				lo, hi = math.Min(lo, q.OfferedRPS), math.Max(hi, q.OfferedRPS)
				top = math.Max(top, q.Latency.P99)
				p99.Pts = append(p99.Pts, pt{q.OfferedRPS, q.Latency.P99})
				p99.Open = append(p99.Open, !q.Pass)
				t := fmt.Sprintf("%s: %s rps offered, %s achieved, P99 %s ms, P50 %s ms", name, qps(q.OfferedRPS), qps(q.AchievedRPS), ms(q.Latency.P99), ms(q.Latency.P50))
				if q.Pass {
					t += ", passed"
				} else if q.Why != "" {
					t += ", failed: " + q.Why
				}
				p99.Titles = append(p99.Titles, t)
				p50.Pts = append(p50.Pts, pt{q.OfferedRPS, q.Latency.P50})
			}
			if k == 0 {
				p.Series = append(p.Series, p50)
			}
			p.Series = append(p.Series, p99)
		}
		fig.Legend = append(fig.Legend, legendItem{class, label + " P99, the search (dots: probes; hollow: failed)"}, legendItem{class + " p50", label + " P50"})
		if n := len(r.Capacity.Estimates); n > 1 {
			fig.Legend = append(fig.Legend, legendItem{class + " round", fmt.Sprintf("%s P99, each confirmation round apart (%d)", label, n-1)})
		}
		c := r.Capacity
		if c.Found {
			p.VRules = append(p.VRules, rule{At: c.MaxQPS, Class: class + " knee", Label: label + " knee " + qps(c.MaxQPS)})
			if c.Bracket[1] > c.Bracket[0] {
				p.VSpans = append(p.VSpans, span{From: c.Bracket[0], To: c.Bracket[1], Class: class,
					Label: fmt.Sprintf("%s knee bracket [%s, %s] rps", label, qps(c.Bracket[0]), qps(c.Bracket[1]))})
			}
		}
	})
	if n == 0 {
		return nil
	}
	pad := math.Max((hi-lo)*0.06, hi*0.02)
	p.X.Min, p.X.Max = math.Max(0, lo-pad), hi+pad
	ceil := top
	if slo > 0 {
		p.HRules = append(p.HRules, rule{At: slo, Class: "slo", Label: "SLO P99 " + ms(slo) + " ms"})
		ceil = math.Min(math.Max(top, slo), clipSLO*slo)
		fig.Legend = append(fig.Legend, legendItem{"slo", "the SLO"})
	}
	p.Y.Min, p.Y.Max = 0, niceCeil(ceil*1.08)
	fig.Caption = "Each probe of the knee search at its offered rate (a linear axis), and each confirmation round's probes as a thinner line of their own (a fresh process each: their spread is the knee's run-to-run noise); the shaded band is each side's knee bracket [highest pass, lowest fail]."
	if top > p.Y.Max {
		fig.Caption += fmt.Sprintf(" Probes above %g× the SLO are drawn at the top as triangles.", clipSLO)
	}
	fig.SVG = template.HTML(p.svg("P99 and P50 latency against offered load"))
	return fig
}

// quantileAxis is the percentile spectrum's x: log10(1/(1−q)), so 90%,
// 99%, 99.9% … are evenly spaced, as HdrHistogram's plotter draws it.
func quantileAxis(maxX float64) axis {
	a := axis{Label: "percentile", Min: 0, Max: maxX}
	labels := []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"}
	for i := 0; i <= int(maxX) && i < len(labels); i++ {
		a.Ticks = append(a.Ticks, tick{At: float64(i), Label: labels[i]})
	}
	return a
}

// spectrumSeries samples h's percentile spectrum: value (ms) at q for x =
// log10(1/(1−q)) in steps of 0.05 up to the resolution the count allows
// (x ≤ log10 n), ending at the maximum.
func spectrumSeries(h *hdrhistogram.Histogram, label, class string) (series, float64) {
	s := series{Label: label, Class: class, Line: true}
	n := h.TotalCount()
	maxX := math.Min(math.Log10(float64(n)), 6)
	for x := 0.0; x < maxX; x += 0.05 {
		q := 100 * (1 - math.Pow(10, -x))
		s.Pts = append(s.Pts, pt{x, float64(h.ValueAtQuantile(q)) / 1000})
	}
	s.Pts = append(s.Pts, pt{maxX, float64(h.Max()) / 1000})
	// Too few values for a line: show them as dots.
	s.Dots = len(s.Pts) < 3
	return s, maxX
}

// spectrumFigure draws the latency percentile spectrum of each side's
// merged histograms; get returns a trial's histogram (or "").
func spectrumFigure(s sides, kind, title, what string, get func(result.Trial) string) *figure {
	fig := &figure{Kind: kind, Title: title}
	p := &plot{Y: axis{Label: what + " (ms)"}}
	maxX, top := 0.0, 0.0
	s.each(func(r *result.Result, class, label string) {
		h := mergeHists(r.Trials, get)
		if h == nil || h.TotalCount() == 0 {
			return
		}
		sr, mx := spectrumSeries(h, label, class)
		sr.Label = fmt.Sprintf("%s: %s values, P50 %s ms, P99 %s ms, max %s ms", label, thousands(float64(h.TotalCount()), 0),
			ms(float64(h.ValueAtQuantile(50))/1000), ms(float64(h.ValueAtQuantile(99))/1000), ms(float64(h.Max())/1000))
		p.Series = append(p.Series, sr)
		fig.Legend = append(fig.Legend, legendItem{class, sr.Label})
		maxX, top = math.Max(maxX, mx), math.Max(top, float64(h.Max())/1000)
	})
	if len(p.Series) == 0 {
		return nil
	}
	p.X = quantileAxis(math.Max(maxX, 1))
	p.Y.Min, p.Y.Max = 0, niceCeil(top*1.05)
	fig.Caption = "Every trial's HdrHistogram merged without loss; the x-axis is log(1/(1−q)), so each step right is ten times rarer."
	fig.SVG = template.HTML(p.svg(title))
	return fig
}

// mergeHists merges the trials' histograms that get returns; nil when none.
func mergeHists(trials []result.Trial, get func(result.Trial) string) *hdrhistogram.Histogram {
	var all *hdrhistogram.Histogram
	for _, t := range trials {
		enc := get(t)
		if enc == "" {
			continue
		}
		h, err := result.DecodeHistogram(enc)
		if err != nil {
			continue // reported by compare; the chart shows what decodes
		}
		if all == nil {
			all = result.NewHistogram()
		}
		_ = result.Merge(all, h) // same bounds: nothing is dropped
	}
	return all
}

// trialsFigure draws each trial's P99 as a dot per side, the baseline's
// P99 as a line and the confidence interval of the change mapped onto the
// PR's column (baseline × (1 + interval)), with the gate's threshold.
func trialsFigure(s sides, m *compare.Metric) *figure {
	fig := &figure{Kind: "trials", Title: "P99 per trial"}
	p := &plot{X: axis{Min: 0.4, Max: 2.6, Ticks: []tick{}}, Y: axis{Label: "P99 (ms)"}}
	top := 0.0
	col := 0.0
	s.each(func(r *result.Result, class, label string) {
		col++
		if len(r.Trials) == 0 {
			return
		}
		p.X.Ticks = append(p.X.Ticks, tick{At: col, Label: label})
		sr := series{Label: label, Class: class, Dots: true}
		n := float64(len(r.Trials))
		for i, t := range r.Trials {
			x := col + (float64(i)-(n-1)/2)*math.Min(0.08, 0.6/n)
			sr.Pts = append(sr.Pts, pt{x, t.Latency.P99})
			sr.Open = append(sr.Open, !t.Valid)
			sr.Titles = append(sr.Titles, fmt.Sprintf("%s trial %d: P99 %s ms, %s requests%s", label, i+1, ms(t.Latency.P99), thousands(float64(t.Requests), 0), map[bool]string{true: "", false: " (invalid)"}[t.Valid]))
			top = math.Max(top, t.Latency.P99)
		}
		p.Series = append(p.Series, sr)
		fig.Legend = append(fig.Legend, legendItem{class, label + " trials (hollow: invalid)"})
	})
	if len(p.Series) == 0 {
		return nil
	}
	if s.base == nil {
		// Only the PR: one column, centred.
		p.X.Min, p.X.Max = 0.4, 1.6
	}
	if m != nil && m.Gated && m.Baseline > 0 {
		// (After a sweep the P99 is each side's at its own knee, not
		// gated: no interval is drawn for it.)
		lo, hi := m.Baseline*(1+m.CIPct[0]/100), m.Baseline*(1+m.CIPct[1]/100)
		thr := m.Baseline * (1 + m.ThresholdPct/100)
		p.HRules = append(p.HRules, rule{At: m.Baseline, Class: "base", Label: "baseline P99 " + ms(m.Baseline) + " ms", Left: true},
			rule{At: thr, Class: "threshold", Label: fmt.Sprintf("threshold +%s%%", num(m.ThresholdPct))})
		p.HSpans = append(p.HSpans, span{From: lo, To: hi, X0: 1.6, X1: 2.4, Class: string("ci " + m.Verdict),
			Label: fmt.Sprintf("the change's %s interval: %s [%+.1f%%, %+.1f%%], %s", "confidence", pct(m.DeltaPct, false), m.CIPct[0], m.CIPct[1], m.Verdict)})
		top = math.Max(top, math.Max(hi, thr))
		fig.Legend = append(fig.Legend, legendItem{string("ci " + m.Verdict), fmt.Sprintf("interval of the change %s %s: %s", pct(m.DeltaPct, false), interval(m), m.Verdict)},
			legendItem{"threshold", "the gate's threshold"})
		fig.Caption = "The shaded band over the PR column is the confidence interval of the P99 change, drawn as baseline × (1 + interval): a band straddling the threshold is inconclusive."
	}
	p.Y.Min, p.Y.Max = 0, niceCeil(top*1.1)
	fig.SVG = template.HTML(p.svg("P99 of each trial, baseline and PR"))
	return fig
}

// timelineFigures draw each side's achieved rate and P99 per second over
// its trials, back to back, so that a stall or a warm-up shows. Nil when
// no trial recorded a per-second series.
func timelineFigures(s sides) []*figure {
	rate := &plot{X: axis{Label: "seconds into the measurement (trials back to back)"}, Y: axis{Label: "achieved (requests/s)"}}
	lat := &plot{X: axis{Label: "seconds into the measurement (trials back to back)"}, Y: axis{Label: "P99 of the second (ms)"}}
	var legend []legendItem
	end, topR, topL := 0.0, 0.0, 0.0
	var bounds []float64
	scheduled := false // a side drew its schedule's sends per second
	s.each(func(r *result.Result, class, label string) {
		rs := series{Label: label + " achieved rate", Class: class, Line: true}
		ls := series{Label: label + " P99", Class: class, Line: true, Dots: true}
		// An open loop's schedule, second by second: a Poisson schedule's
		// quiet seconds dip in both lines, a stall only in the achieved
		// one. A closed loop sends as it is answered, so its sends say
		// nothing more.
		sent := series{Label: label + " offered", Class: class + " offered", Line: true}
		open := r.Load.Mode != "concurrency"
		off := 0.0
		any := false
		for ti, t := range r.Trials {
			d := t.DurationS
			if t.PerSecond.Len() == 0 || t.PerSecond.Check() != nil {
				// None recorded, or damaged (arrays of different lengths):
				// the trial's time passes without a line.
				off += d
				continue
			}
			any = true
			if ti > 0 && !slices.Contains(bounds, off) {
				bounds = append(bounds, off)
			}
			ps := t.PerSecond
			for i := range ps.Len() {
				width := math.Min(1, d-float64(i))
				if width <= 0 {
					width = 1
				}
				x := off + float64(i) + width/2
				rs.Pts = append(rs.Pts, pt{x, float64(ps.Achieved[i]) / width})
				topR = math.Max(topR, float64(ps.Achieved[i])/width)
				if open && ps.Offered != nil {
					sent.Pts = append(sent.Pts, pt{x, float64(ps.Offered[i]) / width})
					topR = math.Max(topR, float64(ps.Offered[i])/width)
				}
				if ps.P99Ms[i] > 0 {
					ls.Pts = append(ls.Pts, pt{x, ps.P99Ms[i]})
					ls.Titles = append(ls.Titles, fmt.Sprintf("%s trial %d second %d: P99 %s ms, %d responses, %d errors", label, ti+1, i+1, ms(ps.P99Ms[i]), ps.Achieved[i], ps.Errors[i]))
					topL = math.Max(topL, ps.P99Ms[i])
				}
			}
			off += d
		}
		if !any {
			return
		}
		end = math.Max(end, off)
		rate.Series = append(rate.Series, rs)
		if len(ls.Pts) > 0 {
			lat.Series = append(lat.Series, ls)
		}
		legend = append(legend, legendItem{class, label})
		if len(sent.Pts) > 0 {
			rate.Series = append(rate.Series, sent)
			scheduled = true
		} else if o := r.Summary.OfferedRPS; o > 0 {
			if len(rate.HRules) == 1 && math.Abs(rate.HRules[0].At-o) < 0.02*o {
				// Both sides offered the same: one line says so.
				rate.HRules[0] = rule{At: o, Class: "offered", Label: "offered " + qps(o) + " rps"}
			} else {
				rate.HRules = append(rate.HRules, rule{At: o, Class: class + " offered", Label: label + " offered " + qps(o) + " rps", Left: len(rate.HRules) > 0})
			}
			topR = math.Max(topR, o)
		}
	})
	if len(rate.Series) == 0 {
		return nil
	}
	for i, b := range bounds {
		r := rule{At: b, Class: "trial", Label: fmt.Sprintf("trial %d", i+2)}
		rate.VRules = append(rate.VRules, r)
		lat.VRules = append(lat.VRules, r)
	}
	for _, p := range []*plot{rate, lat} {
		p.X.Min, p.X.Max = 0, math.Max(end, 1)
	}
	rate.Y.Min, rate.Y.Max = 0, niceCeil(topR*1.1)
	caption := "Responses that arrived in each second of each trial; a dip is a stall, a ramp a warm-up that was too short."
	rateLegend := legend
	if scheduled {
		caption = "Responses that arrived in each second of each trial (solid) and the requests the schedule sent in it (dotted): a dip in both is the schedule's, achieved below offered a stall, a ramp a warm-up that was too short."
		rateLegend = append(slices.Clip(legend), legendItem{"offered", "offered (the schedule)"})
	}
	out := []*figure{{Kind: "timeline-rate", Title: "Achieved rate per second", Legend: rateLegend,
		Caption: caption,
		SVG:     template.HTML(rate.svg("achieved requests per second over the run"))}}
	if len(lat.Series) > 0 {
		lat.Y.Min, lat.Y.Max = 0, niceCeil(topL*1.1)
		out = append(out, &figure{Kind: "timeline-p99", Title: "P99 per second", Legend: legend,
			Caption: "P99 of the requests scheduled in each second (open loop: from the intended send time).",
			SVG:     template.HTML(lat.svg("P99 latency per second over the run"))})
	}
	return out
}

// llmFigures draw the TTFT, TPOT and ITL spectra of streamed runs.
func llmFigures(s sides) []*figure {
	var out []*figure
	for _, d := range []struct {
		kind, title string
		get         func(result.Trial) string
	}{
		{"ttft", "Time to first token", func(t result.Trial) string { return llmHist(t, 0) }},
		{"tpot", "Time per output token", func(t result.Trial) string { return llmHist(t, 1) }},
		{"itl", "Inter-token latency", func(t result.Trial) string { return llmHist(t, 2) }},
	} {
		if fig := spectrumFigure(s, d.kind, d.title, d.kind, d.get); fig != nil {
			fig.Caption = "Percentile spectrum of every streamed request's " + d.title + ", trials merged."
			if d.kind == "itl" && itlUntrusted(s) {
				fig.Caption += " UNTRUSTED: too many inter-token gaps were not observed (tokens read together), so this spectrum is a biased sample and ITL is not compared."
			}
			out = append(out, fig)
		}
	}
	return out
}

// itlUntrusted reports whether either side's ITL is marked untrusted.
func itlUntrusted(s sides) bool {
	bad := false
	s.each(func(r *result.Result, _, _ string) {
		bad = bad || (r.LLM != nil && r.LLM.ITLUntrusted)
	})
	return bad
}

func llmHist(t result.Trial, which int) string {
	if t.LLM == nil {
		return ""
	}
	return [...]string{t.LLM.TTFTHistogram, t.LLM.TPOTHistogram, t.LLM.ITLHistogram}[which]
}

// capacityFigures draw instances (and monthly cost, when priced) at the
// configured peak, baseline against PR, per scenario.
func (r *Report) capacityFigures() []*figure {
	inst := &barChart{Y: axis{Label: "instances at the peak"}}
	cost := &barChart{Y: axis{Label: "cost per month ($)"}}
	topI, topC := 0.0, 0.0
	peak := 0.0
	for _, p := range r.Plans {
		add := func(class, label string, instances int, c *float64, rng [2]int) {
			inst.Bars = append(inst.Bars, bar{Group: p.Scenario, Class: class, From: 0, To: float64(instances),
				Label: fmt.Sprint(instances), Lo: float64(rng[0]), Hi: float64(rng[1]), Whisker: rng[0] != rng[1],
				Title: fmt.Sprintf("%s %s: %d instances (the knee's bracket allows %d to %d)", p.Scenario, label, instances, rng[0], rng[1])})
			topI = math.Max(topI, math.Max(float64(instances), float64(rng[1])))
			if c != nil {
				cost.Bars = append(cost.Bars, bar{Group: p.Scenario, Class: class, To: *c, Label: money(*c),
					Title: fmt.Sprintf("%s %s: %s per month", p.Scenario, label, money(*c))})
				topC = math.Max(topC, *c)
			}
		}
		if b := p.Baseline; b != nil {
			add("base", "baseline", b.Instances, b.CostPerMonth, b.InstancesRange)
			peak = b.PeakQPS
		}
		if c := p.Candidate; c != nil {
			add("pr", "PR", c.Instances, c.CostPerMonth, c.InstancesRange)
			peak = c.PeakQPS
		}
	}
	if len(inst.Bars) == 0 {
		return nil
	}
	legend := []legendItem{{"base", "baseline"}, {"pr", "PR"}}
	inst.Y.Min, inst.Y.Max = 0, niceCeil(topI*1.15)
	out := []*figure{{Kind: "instances", Title: fmt.Sprintf("Instances for %s peak QPS", qps(peak)), Legend: legend,
		Caption: "ceil(peak × headroom / max QPS per instance); the whisker is the range the knee's bracket allows.",
		SVG:     template.HTML(inst.svg("instances needed at the peak, baseline and PR"))}}
	if len(cost.Bars) > 0 {
		cost.Y.Min, cost.Y.Max = 0, niceCeil(topC*1.15)
		out = append(out, &figure{Kind: "cost", Title: "Cost per month", Legend: legend,
			Caption: "instances × price per instance-hour × 730 h.",
			SVG:     template.HTML(cost.svg("cost per month, baseline and PR"))})
	}
	return out
}

// ladderFigure draws the ladder's attribution as a waterfall. Relative
// changes compound, so the bars are on an index: the first rung's P99 is
// 100, each rung's bar floats from the level the rungs before it left to
// that level × (1 + its change), its whisker the same for the ends of its
// interval, and the last bar is the whole change from the first rung.
func ladderFigure(l *compare.LadderAttribution) *figure {
	if l == nil || len(l.Steps) == 0 || len(l.Rungs) == 0 {
		return nil
	}
	c := &barChart{Y: axis{Label: "P99, first rung = 100"}}
	cls := func(ch compare.Change) string {
		switch ch.Verdict {
		case compare.Regressed:
			return "worse"
		case compare.Improved:
			return "better"
		}
		return "neutral"
	}
	level, top := 100.0, 100.0
	c.Bars = append(c.Bars, bar{Group: l.Rungs[0], Class: "base", From: 0, To: level, Label: "100",
		Title: l.Rungs[0] + ": the first rung, P99 = 100"})
	for _, st := range l.Steps {
		next := level * (1 + st.P99.DeltaPct/100)
		name := st.To
		if st.Layer != "" {
			name += " (" + st.Layer + ")"
		}
		lo, hi := level*(1+st.P99.CIPct[0]/100), level*(1+st.P99.CIPct[1]/100)
		c.Bars = append(c.Bars, bar{Group: name, Class: cls(st.P99), From: level, To: next, Label: pct(st.P99.DeltaPct, false),
			Lo: lo, Hi: hi, Whisker: true, Title: fmt.Sprintf("%s → %s (%s): P99 %s", st.From, st.To, st.Layer, change(&st.P99, false))})
		top = math.Max(top, math.Max(next, hi))
		level = next
	}
	w := l.Whole.P99
	whole := 100 * (1 + w.DeltaPct/100)
	c.Bars = append(c.Bars, bar{Group: "whole", Class: cls(w) + " whole", From: 0, To: whole, Label: pct(w.DeltaPct, false),
		Lo: 100 * (1 + w.CIPct[0]/100), Hi: 100 * (1 + w.CIPct[1]/100), Whisker: true, Title: "whole: P99 " + change(&w, false)})
	top = math.Max(top, 100*(1+w.CIPct[1]/100))
	c.Y.Min, c.Y.Max = 0, niceCeil(top*1.12)
	return &figure{Kind: "ladder", Title: "Ladder: P99 by rung",
		Legend: []legendItem{{"worse", "regressed"}, {"better", "improved"}, {"neutral", "unchanged or inconclusive"}},
		Caption: fmt.Sprintf("One layer changed per rung; P99 as an index (%s = 100). Each bar moves P99 from where the rungs before it left it (steps compound: their ratios multiply, their log ratios add up to the whole's), its whisker the interval of that step; the last bar is the whole change, %s. No interaction is estimated: that needs a factorial set of rungs.",
			l.Rungs[0], pct(w.DeltaPct, false)),
		SVG: template.HTML(c.svg("waterfall of P99 along the ladder"))}
}
