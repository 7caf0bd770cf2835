package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// The HTML report's charts are SVG drawn here, in Go, at render time: the
// page then needs no script to show its pictures (it opens in any browser,
// offline, prints as vectors, and a mail client or an artifact viewer shows
// it as well), colours come from CSS classes (so one stylesheet gives the
// light, dark and print themes), and the output is deterministic text that
// golden tests can pin. Every mark that stands for a measurement carries
// the class "data", which is what the browser test counts.

// Chart geometry, in SVG user units (the SVG scales to its container).
const (
	chartW   = 560.0
	chartH   = 300.0
	padLeft  = 58.0
	padRight = 14.0
	padTop   = 14.0
	padBot   = 42.0
)

// pt is one data point.
type pt struct{ X, Y float64 }

// series is one line and/or set of dots. Class names its colour ("base" or
// "pr") and any modifier ("p50" draws dashed).
type series struct {
	Label string
	Class string
	Pts   []pt
	Line  bool
	Dots  bool
	// Open marks points drawn hollow (a failed probe), by index; nil for none.
	Open []bool
	// Titles are per-point tooltips; nil for none.
	Titles []string
}

// rule is a horizontal or vertical reference line (an SLO, a knee).
type rule struct {
	At    float64
	Label string
	Class string
	// Left puts a horizontal rule's label at the left end (so that two
	// close rules do not write over each other).
	Left bool
}

// span is a shaded range of x (a knee's bracket) or y (an interval).
type span struct {
	From, To float64
	Label    string
	Class    string
	// X0 and X1 restrict a horizontal span to a range of x columns when set
	// (a y-span over one column of a dot plot); zero means the full plot.
	X0, X1 float64
}

// tick is one labelled axis position.
type tick struct {
	At    float64
	Label string
}

// axis is one axis: its range, label and ticks (computed when nil).
type axis struct {
	Label    string
	Min, Max float64
	Ticks    []tick
}

// plot is an x–y chart.
type plot struct {
	X, Y   axis
	Series []series
	VRules []rule // vertical lines at x
	HRules []rule // horizontal lines at y
	VSpans []span // shaded x ranges
	HSpans []span // shaded y ranges (restricted to [X0, X1] when set)
	// Clip draws values above Y.Max at the top as upward triangles.
	Clip bool
}

// sx and sy map data to SVG coordinates.
func (p *plot) sx(x float64) float64 {
	if p.X.Max == p.X.Min {
		return padLeft + (chartW-padLeft-padRight)/2
	}
	return padLeft + (x-p.X.Min)/(p.X.Max-p.X.Min)*(chartW-padLeft-padRight)
}

func (p *plot) sy(y float64) float64 {
	if p.Y.Max == p.Y.Min {
		return chartH - padBot
	}
	return chartH - padBot - (y-p.Y.Min)/(p.Y.Max-p.Y.Min)*(chartH-padTop-padBot)
}

// f formats an SVG coordinate with one decimal.
func f(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// svg renders the plot. aria is the chart's accessible description.
func (p *plot) svg(aria string) string {
	if p.X.Ticks == nil {
		p.X.Ticks = niceTicks(p.X.Min, p.X.Max, 6)
	}
	if p.Y.Ticks == nil {
		p.Y.Ticks = niceTicks(p.Y.Min, p.Y.Max, 5)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg viewBox="0 0 %s %s" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`, f(chartW), f(chartH), html.EscapeString(aria))
	top, bot, left, right := padTop, chartH-padBot, padLeft, chartW-padRight
	// Shaded spans under everything.
	for _, s := range p.VSpans {
		x0, x1 := p.sx(math.Max(s.From, p.X.Min)), p.sx(math.Min(s.To, p.X.Max))
		fmt.Fprintf(&b, `<rect class="span %s" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
			s.Class, f(x0), f(top), f(math.Max(x1-x0, 1)), f(bot-top), html.EscapeString(s.Label))
	}
	for _, s := range p.HSpans {
		x0, x1 := left, right
		if s.X1 > s.X0 {
			x0, x1 = p.sx(s.X0), p.sx(s.X1)
		}
		y0, y1 := p.sy(math.Min(s.To, p.Y.Max)), p.sy(math.Max(s.From, p.Y.Min))
		fmt.Fprintf(&b, `<rect class="span %s" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
			s.Class, f(x0), f(y0), f(x1-x0), f(math.Max(y1-y0, 1)), html.EscapeString(s.Label))
	}
	// Grid and axes.
	b.WriteString(`<g class="grid">`)
	for _, t := range p.Y.Ticks {
		y := p.sy(t.At)
		fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f(left), f(right), f(y), f(y))
	}
	for _, t := range p.X.Ticks {
		x := p.sx(t.At)
		fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f(x), f(x), f(top), f(bot))
	}
	b.WriteString(`</g><g class="axis">`)
	fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f(left), f(right), f(bot), f(bot))
	fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, f(left), f(left), f(top), f(bot))
	for _, t := range p.Y.Ticks {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`, f(left-5), f(p.sy(t.At)), html.EscapeString(t.Label))
	}
	for _, t := range p.X.Ticks {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`, f(p.sx(t.At)), f(bot+15), html.EscapeString(t.Label))
	}
	fmt.Fprintf(&b, `<text class="label" x="%s" y="%s" text-anchor="middle">%s</text>`, f((left+right)/2), f(chartH-6), html.EscapeString(p.X.Label))
	fmt.Fprintf(&b, `<text class="label" transform="translate(13 %s) rotate(-90)" text-anchor="middle">%s</text>`, f((top+bot)/2), html.EscapeString(p.Y.Label))
	b.WriteString(`</g>`)
	// Reference lines.
	for _, r := range p.HRules {
		if r.At < p.Y.Min || r.At > p.Y.Max {
			continue
		}
		y := p.sy(r.At)
		tx, anchor := right-3, "end"
		if r.Left {
			tx, anchor = left+3, "start"
		}
		fmt.Fprintf(&b, `<g class="rule %s"><line x1="%s" x2="%s" y1="%s" y2="%s"/><text x="%s" y="%s" text-anchor="%s">%s</text></g>`,
			r.Class, f(left), f(right), f(y), f(y), f(tx), f(y-4), anchor, html.EscapeString(r.Label))
	}
	for _, r := range p.VRules {
		if r.At < p.X.Min || r.At > p.X.Max {
			continue
		}
		x := p.sx(r.At)
		fmt.Fprintf(&b, `<g class="rule %s"><line x1="%s" x2="%s" y1="%s" y2="%s"/><text x="%s" y="%s" text-anchor="end" transform="rotate(-90 %s %s)">%s</text></g>`,
			r.Class, f(x), f(x), f(top), f(bot), f(x-3), f(top+4), f(x-3), f(top+4), html.EscapeString(r.Label))
	}
	// Data.
	for _, s := range p.Series {
		fmt.Fprintf(&b, `<g class="series %s">`, s.Class)
		if s.Line && len(s.Pts) > 1 {
			var d strings.Builder
			for i, q := range s.Pts {
				cmd := "L"
				if i == 0 {
					cmd = "M"
				}
				fmt.Fprintf(&d, "%s%s %s", cmd, f(p.sx(q.X)), f(p.sy(p.clip(q.Y))))
			}
			fmt.Fprintf(&b, `<path class="data line" d="%s"><title>%s</title></path>`, d.String(), html.EscapeString(s.Label))
		}
		if s.Dots {
			for i, q := range s.Pts {
				cls := "data dot"
				if s.Open != nil && s.Open[i] {
					cls += " open"
				}
				title := s.Label
				if s.Titles != nil {
					title = s.Titles[i]
				}
				x, y := p.sx(q.X), p.sy(p.clip(q.Y))
				if p.Clip && q.Y > p.Y.Max {
					fmt.Fprintf(&b, `<path class="%s clipped" d="M%s %sl4 7h-8z"><title>%s (above the chart)</title></path>`, cls, f(x), f(y), html.EscapeString(title))
					continue
				}
				fmt.Fprintf(&b, `<circle class="%s" cx="%s" cy="%s" r="3.5"><title>%s</title></circle>`, cls, f(x), f(y), html.EscapeString(title))
			}
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// clip holds y at the top of the plot when Clip is set.
func (p *plot) clip(y float64) float64 {
	if p.Clip && y > p.Y.Max {
		return p.Y.Max
	}
	return y
}

// niceTicks returns about n ticks at round numbers covering [lo, hi].
func niceTicks(lo, hi float64, n int) []tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return []tick{{At: lo, Label: axisLabel(lo)}}
	}
	step := niceStep((hi - lo) / float64(n))
	var ts []tick
	for v := math.Ceil(lo/step-1e-9) * step; v <= hi+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ts = append(ts, tick{At: v, Label: axisLabel(v)})
	}
	return ts
}

// niceStep rounds a raw step to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// axisLabel formats an axis value compactly: 0.25, 12, 1.5k, 2M.
func axisLabel(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return strconv.FormatFloat(round3(v/1e6), 'f', -1, 64) + "M"
	case a >= 1e3:
		return strconv.FormatFloat(round3(v/1e3), 'f', -1, 64) + "k"
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(round3(v), 'f', -1, 64)
}

// round3 rounds to three significant digits.
func round3(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// bar is one bar of a bar chart: from From to To (a waterfall's bar floats),
// with an optional interval whisker [Lo, Hi].
type bar struct {
	Group, Label string
	Class        string
	From, To     float64
	Lo, Hi       float64
	Whisker      bool
	Title        string
}

// barChart is a vertical bar chart over categories (groups of bars).
type barChart struct {
	Y    axis
	Bars []bar
}

// svg renders the bars; groups appear in order of first use.
func (c *barChart) svg(aria string) string {
	var groups []string
	count := map[string]int{}
	for _, b := range c.Bars {
		if count[b.Group] == 0 {
			groups = append(groups, b.Group)
		}
		count[b.Group]++
	}
	p := &plot{X: axis{Min: 0, Max: float64(len(groups)), Ticks: []tick{}}, Y: c.Y}
	if p.Y.Ticks == nil {
		p.Y.Ticks = niceTicks(p.Y.Min, p.Y.Max, 5)
	}
	// The grid, axes and y labels come from an empty plot.
	inner := p.svg(aria)
	inner = strings.TrimSuffix(inner, `</svg>`)
	var b strings.Builder
	b.WriteString(inner)
	slot := (chartW - padLeft - padRight) / float64(len(groups))
	seen := map[string]int{}
	for gi, g := range groups {
		fmt.Fprintf(&b, `<text class="cat" x="%s" y="%s" text-anchor="middle">%s</text>`, f(padLeft+slot*(float64(gi)+0.5)), f(chartH-padBot+15), html.EscapeString(shorten(g, int(slot/6.5))))
	}
	for _, br := range c.Bars {
		gi := indexOf(groups, br.Group)
		n := count[br.Group]
		k := seen[br.Group]
		seen[br.Group]++
		w := slot * 0.7 / float64(n)
		x := padLeft + slot*float64(gi) + slot*0.15 + w*float64(k)
		y0, y1 := p.sy(math.Max(br.From, br.To)), p.sy(math.Min(br.From, br.To))
		fmt.Fprintf(&b, `<g class="series %s"><rect class="data bar" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
			br.Class, f(x+1), f(y0), f(w-2), f(math.Max(y1-y0, 1)), html.EscapeString(br.Title))
		if br.Label != "" {
			// At the bar's far end from where it starts: above a bar that
			// rises, below one that falls (above it when that would reach
			// the axis).
			ly := y0 - 4
			if br.To < br.From && y1+12 < chartH-padBot-2 {
				ly = y1 + 12
			}
			fmt.Fprintf(&b, `<text class="barlabel" x="%s" y="%s" text-anchor="middle">%s</text>`, f(x+w/2), f(ly), html.EscapeString(br.Label))
		}
		if br.Whisker {
			xm := x + w/2
			fmt.Fprintf(&b, `<path class="whisker" d="M%s %sV%sM%s %sh8M%s %sh8"/>`, f(xm), f(p.sy(br.Lo)), f(p.sy(br.Hi)), f(xm-4), f(p.sy(br.Lo)), f(xm-4), f(p.sy(br.Hi)))
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// shorten cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if n < 4 {
		n = 4
	}
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
