package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/result"
)

// palette colours the chart's lines in order: baseline, PR, SLO.
const palette = "#8c8c8c, #1f6feb, #2da44e"

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
	pts := slices.Clone(r.Capacity.Points)
	slices.SortStableFunc(pts, func(a, b result.Point) int {
		switch {
		case a.OfferedRPS < b.OfferedRPS:
			return -1
		case a.OfferedRPS > b.OfferedRPS:
			return 1
		}
		return 0
	})
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

// chart draws P99 against offered load for the baseline and the PR as a
// Mermaid xychart-beta, or returns "" when neither side swept.
//
// xychart-beta puts every line on the same categorical x-axis, one value per
// category, so the axis is the union of both sides' probe rates and each
// line is read off its own probes there (see curve.at); the caption says so.
// Values above four times the SLO are drawn at that height, so one timed-out
// probe does not flatten the rest of the curve.
func chart(name string, base, cand *result.Result) string {
	bc, cc := curveOf(base), curveOf(cand)
	if bc == nil && cc == nil {
		return ""
	}
	var xs []float64
	for _, c := range []*curve{bc, cc} {
		if c != nil {
			xs = append(xs, c.x...)
		}
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	slo := 0.0
	for _, r := range []*result.Result{cand, base} {
		if r != nil && r.Capacity != nil && r.Capacity.SLOP99Ms > 0 {
			slo = r.Capacity.SLOP99Ms
			break
		}
	}
	ceiling := math.Inf(1)
	if slo > 0 {
		ceiling = 4 * slo
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
	colours := []string{"grey", "blue", "green"}
	var lines, legend []string
	add := func(vals, what string) {
		legend = append(legend, colours[len(lines)]+": "+what)
		lines = append(lines, "    line "+vals)
	}
	if bc != nil {
		add(line(bc), "baseline")
	}
	if cc != nil {
		add(line(cc), "PR")
	}
	if slo > 0 {
		flat := make([]string, len(xs))
		for i := range flat {
			flat[i] = strconv.FormatFloat(round2(slo), 'f', -1, 64)
		}
		add("["+strings.Join(flat, ", ")+"]", fmt.Sprintf("the SLO (P99 %s ms)", ms(slo)))
	}
	cats := make([]string, len(xs))
	for i, x := range xs {
		cats[i] = strconv.Quote(strconv.FormatFloat(math.Round(x), 'f', -1, 64))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**: %s.", esc(name), strings.Join(legend, ", "))
	b.WriteString(" Between probes a line is read off linearly; beyond a side's last probe it holds that probe's value")
	if clipped {
		b.WriteString("; values above 4× the SLO are drawn at 4×")
	}
	b.WriteString(".\n\n```mermaid\n---\nconfig:\n  themeVariables:\n    xyChart:\n      plotColorPalette: \"" + palette + "\"\n---\n")
	b.WriteString("xychart-beta\n")
	fmt.Fprintf(&b, "    title \"%s\"\n", mermaidText(name))
	fmt.Fprintf(&b, "    x-axis \"offered load (rps)\" [%s]\n", strings.Join(cats, ", "))
	fmt.Fprintf(&b, "    y-axis \"P99 (ms)\" 0 --> %s\n", strconv.FormatFloat(niceCeil(top*1.1), 'f', -1, 64))
	b.WriteString(strings.Join(lines, "\n") + "\n```\n")
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
