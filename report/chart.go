package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/result"
)

// curve is one side's sweep: P99 by offered rate, sorted by rate.
type curve struct {
	x, y []float64
}

// curveOf returns r's sweep points sorted by offered rate, or nil when r has
// fewer than two.
func curveOf(r *result.Result) *curve {
	if r == nil || r.Capacity == nil || len(r.Capacity.Points) < 2 {
		return nil
	}
	pts := sortedPoints(r)
	c := &curve{}
	for _, p := range pts {
		if n := len(c.x); n > 0 && c.x[n-1] == p.OfferedRPS {
			c.y[n-1] = p.Latency.P99 // a repeated probe: the later one
			continue
		}
		c.x = append(c.x, p.OfferedRPS)
		c.y = append(c.y, p.Latency.P99)
	}
	return c
}

// at reads the curve at rate x: linearly between the two probes around it,
// and the nearest probe's value beyond either end.
func (c *curve) at(x float64) float64 {
	i, found := slices.BinarySearch(c.x, x)
	switch {
	case found:
		return c.y[i]
	case i == 0:
		return c.y[0]
	case i == len(c.x):
		return c.y[len(c.y)-1]
	}
	x0, x1, y0, y1 := c.x[i-1], c.x[i], c.y[i-1], c.y[i]
	return y0 + (y1-y0)*(x-x0)/(x1-x0)
}

// gridSteps is the number of intervals of the chart's shared rate grid.
const gridSteps = 16

// rateGrid returns a uniform grid of rates covering [lo, hi] at a round
// step, about gridSteps intervals.
func rateGrid(lo, hi float64) []float64 {
	if hi <= lo {
		return []float64{lo}
	}
	step := niceStep((hi - lo) / gridSteps)
	var xs []float64
	for x := math.Floor(lo/step) * step; x < hi+step/2; x += step {
		xs = append(xs, math.Round(x/step)*step)
	}
	return xs
}

// chart draws P99 against offered load for the baseline and the PR as a
// Mermaid xychart-beta, or returns "" when neither side swept.
//
// xychart-beta spaces its x categories evenly, so the categories are a
// uniform grid of round rates (rateGrid) spanning both sides' probes: the
// axis is linear, and each line is read off its own probes at the grid's
// rates (see curve.at); the caption says so. Each side's knee is marked
// (▲ PR, △ baseline) on the grid rate nearest to it, and the caption gives
// the knee and its bracket exactly. Values above clipSLO times the SLO are
// drawn at that height, so one timed-out probe does not flatten the rest.
func chart(name string, base, cand *result.Result) string {
	bc, cc := curveOf(base), curveOf(cand)
	if bc == nil && cc == nil {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range []*curve{bc, cc} {
		if c != nil {
			lo, hi = math.Min(lo, c.x[0]), math.Max(hi, c.x[len(c.x)-1])
		}
	}
	xs := rateGrid(lo, hi)
	slo := 0.0
	for _, r := range []*result.Result{cand, base} {
		if r != nil && r.Capacity != nil && r.Capacity.SLOP99Ms > 0 {
			slo = r.Capacity.SLOP99Ms
			break
		}
	}
	ceiling := math.Inf(1)
	if slo > 0 {
		ceiling = clipSLO * slo
	}
	top, clipped := slo, false
	line := func(c *curve) string {
		vals := make([]string, len(xs))
		for i, x := range xs {
			v := c.at(x)
			if v > ceiling {
				v, clipped = ceiling, true
			}
			top = math.Max(top, v)
			vals[i] = strconv.FormatFloat(round2(v), 'f', -1, 64)
		}
		return "[" + strings.Join(vals, ", ") + "]"
	}
	// Each plot has its colour in the palette, in the same order.
	var plots, colours, legend []string
	add := func(vals, colour, name, what string) {
		plots = append(plots, "    line "+vals)
		colours = append(colours, colour)
		legend = append(legend, name+": "+what)
	}
	if bc != nil {
		add(line(bc), "#8c8c8c", "grey", "baseline")
	}
	if cc != nil {
		add(line(cc), "#1f6feb", "blue", "PR")
	}
	if slo > 0 {
		flat := make([]string, len(xs))
		for i := range flat {
			flat[i] = strconv.FormatFloat(round2(slo), 'f', -1, 64)
		}
		add("["+strings.Join(flat, ", ")+"]", "#2da44e", "green", fmt.Sprintf("the SLO (P99 %s ms)", ms(slo)))
	}
	// The knees: a mark before the grid rate nearest to each (a bar would
	// do, but xychart-beta draws a stub for every zero-height bar).
	cats := make([]string, len(xs))
	for i, x := range xs {
		cats[i] = axisLabel(x)
	}
	var knees []string
	mark := func(r *result.Result, sym, side string) {
		if r == nil || r.Capacity == nil || !r.Capacity.Found {
			return
		}
		c := r.Capacity
		near := 0
		for i, x := range xs {
			if math.Abs(x-c.MaxQPS) < math.Abs(xs[near]-c.MaxQPS) {
				near = i
			}
		}
		cats[near] = sym + cats[near]
		what := sym + " " + side + " knee " + qps(c.MaxQPS) + " rps"
		if c.Bracket[1] > c.Bracket[0] {
			what += fmt.Sprintf(" (bracket %s–%s)", qps(c.Bracket[0]), qps(c.Bracket[1]))
		}
		knees = append(knees, what)
	}
	mark(cand, "▲", "PR")
	mark(base, "△", "baseline")
	for i := range cats {
		cats[i] = strconv.Quote(cats[i])
	}
	legend = append(legend, knees...)
	axisTitle := "offered load (rps)"
	for _, k := range knees {
		axisTitle += " · " + k[:strings.Index(k, " knee")+len(" knee")]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: %s.", esc(name), strings.Join(legend, ", "))
	b.WriteString(" The rate axis is linear (a uniform grid); between probes a line is read off linearly, beyond a side's last probe it holds that probe's value")
	if clipped {
		fmt.Fprintf(&b, "; values above %g× the SLO are drawn at %g×", clipSLO, clipSLO)
	}
	b.WriteString(".\n\n```mermaid\n---\nconfig:\n  themeVariables:\n    xyChart:\n      plotColorPalette: \"" + strings.Join(colours, ", ") + "\"\n---\n")
	b.WriteString("xychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s\"\n", mermaidText(name))
	fmt.Fprintf(&b, "    x-axis \"%s\" [%s]\n", axisTitle, strings.Join(cats, ", "))
	fmt.Fprintf(&b, "    y-axis \"P99 (ms)\" 0 --> %s\n", strconv.FormatFloat(niceCeil(top*1.1), 'f', -1, 64))
	b.WriteString(strings.Join(plots, "\n") + "\n```\n")
	return b.String()
}

// round2 rounds to 2 decimals.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

// niceCeil rounds v up to a round number: 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8
// times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
