package report

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/perfgate/perfgate/history"
)

// trendInfo is what the page reports about one trend panel.
type trendInfo struct {
	Title   string  `json:"title"`
	Width   float64 `json:"width"`
	Height  float64 `json:"height"`
	Visible bool    `json:"visible"` // displayed, and on top at its centre
	// History and PR are the x (CSS px) of each drawn history dot and of
	// the PR's dot; Line: the history's line is drawn.
	History []float64 `json:"history"`
	PR      []float64 `json:"pr"`
	Line    bool      `json:"line"`
	// Rules are the change points' vertical lines.
	Rules []struct {
		X      float64 `json:"x"`
		Height float64 `json:"height"`
		Label  string  `json:"label"`
	} `json:"rules"`
}

// TestTrendPanelInBrowser renders a report with a history (twelve runs of
// service/batching, P99 up 25% and max QPS down 23% from the seventh run,
// each a change point) in headless Chromium and checks each trend panel as
// drawn: visible with a real size, twelve history dots left to right on a
// drawn line, the change point's rule between the sixth and seventh dots
// with its size, and the PR's dot last. A screenshot of each panel (in the
// test's temp dir, and $PERFGATE_SCREENSHOT_DIR when set) must be the
// panel's size and hold the PR's and the change point's colours.
func TestTrendPanelInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the browser test starts Chromium")
	}
	bin := browserPath()
	if bin == "" {
		t.Skip("no Chromium or Chrome on PATH: install Debian's chromium (apt-get install -y chromium) or set PERFGATE_CHROME")
	}
	const n = 12
	r := htmlReport(t)
	cand := find(r.Candidate, "service/batching")
	tr := trendOf("service/batching", cand.Environment, n)
	qps := history.Series{Key: history.Key{Scenario: "service/batching", Runner: tr.Series[0].Runner, Metric: history.MetricMaxQPS}}
	for i, p := range tr.Series[0].Points {
		v := 1300.0
		if i >= n/2 {
			v = 1000
		}
		p.Value, p.Lo, p.Hi = v, v*0.96, v*1.04
		qps.Points = append(qps.Points, p)
	}
	tr.Series = append(tr.Series, qps)
	tr.Changes = append(tr.Changes, history.Change{Key: qps.Key, Index: n / 2, Before: qps.Points[n/2-1], After: qps.Points[n/2], SizePct: -23.1, Confidence: 0.99})
	r.Trend = tr

	dir := t.TempDir()
	var b bytes.Buffer
	if err := HTML(&b, r, HTMLOptions{Version: "v0.1.0-test"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, bctx := newBrowser(t, bin, dir)
	const sel = `figure.chart[data-kind="trend"]`
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+file), chromedp.WaitReady(chromedp.CSS("footer"))); err != nil {
		t.Fatalf("opening the report in %s: %v", bin, err)
	}
	panels, err := chromedp.Run(bctx, chromedp.Evaluate[[]trendInfo](`[...document.querySelectorAll('`+sel+`')].map(f => {
		f.scrollIntoView({block: "center"});
		const svg = f.querySelector("svg"), r = svg.getBoundingClientRect(), st = getComputedStyle(f);
		const box = el => el.getBoundingClientRect();
		const drawn = el => { const b = box(el); return b.width > 0 && b.height > 0; };
		const cx = el => { const b = box(el); return b.left + b.width / 2; };
		const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
		const line = f.querySelector(".series.base .line");
		return {
			title: f.querySelector("h3").textContent, width: r.width, height: r.height,
			visible: st.display !== "none" && st.visibility === "visible" && f.offsetParent !== null && f.contains(hit),
			history: [...f.querySelectorAll(".series.base .dot")].filter(drawn).map(cx),
			pr: [...f.querySelectorAll(".series.pr .dot")].filter(drawn).map(cx),
			line: !!line && drawn(line),
			rules: [...f.querySelectorAll(".rule.threshold")].map(g => { const l = g.querySelector("line"), b = box(l);
				return {x: b.left + b.width / 2, height: b.height, label: g.textContent}; }),
		};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	wantRule := map[string]string{"P99": "+25.0%", "max QPS": "−23.1%"}
	if len(panels) != len(wantRule) {
		t.Fatalf("%d trend panels drawn, want %d (P99 and max QPS): %+v", len(panels), len(wantRule), panels)
	}
	for i, p := range panels {
		t.Logf("panel %q: %.0f×%.0f px, %d history dots, PR at x=%v, change point rules %+v", p.Title, p.Width, p.Height, len(p.History), p.PR, p.Rules)
		if !p.Visible || p.Width < 200 || p.Height < 100 {
			t.Errorf("panel %d (%s) is not visibly drawn: %+v", i+1, p.Title, p)
		}
		if len(p.History) != n || !p.Line {
			t.Errorf("panel %d (%s): %d history dots drawn (line drawn: %v), want %d on a line", i+1, p.Title, len(p.History), p.Line, n)
			continue
		}
		for j := 1; j < n; j++ {
			if p.History[j] <= p.History[j-1] {
				t.Errorf("panel %d (%s): run %d is drawn at x=%.1f, not right of run %d (%.1f)", i+1, p.Title, j+1, p.History[j], j, p.History[j-1])
			}
		}
		if len(p.PR) != 1 || p.PR[0] <= p.History[n-1] {
			t.Errorf("panel %d (%s): the PR's dot at %v, want one, right of the last run (%.1f)", i+1, p.Title, p.PR, p.History[n-1])
		}
		want := ""
		for k, v := range wantRule {
			if strings.Contains(p.Title, k) {
				want = v
			}
		}
		if len(p.Rules) != 1 || p.Rules[0].Height <= 0 || !strings.Contains(p.Rules[0].Label, want) ||
			p.Rules[0].X <= p.History[n/2-1] || p.Rules[0].X >= p.History[n/2] {
			t.Errorf("panel %d (%s): change point rules %+v, want one labelled %s between runs %d (x=%.1f) and %d (x=%.1f)",
				i+1, p.Title, p.Rules, want, n/2, p.History[n/2-1], n/2+1, p.History[n/2])
		}
	}

	nodes, err := chromedp.Run(bctx, chromedp.Nodes(chromedp.CSSAll(sel)))
	if err != nil {
		t.Fatal(err)
	}
	for i, node := range nodes {
		if i >= len(panels) {
			break
		}
		shot, err := chromedp.Run(bctx, chromedp.ScreenshotNodes([]*chromedp.Node{node}, 1))
		if err != nil {
			t.Fatalf("screenshot of trend panel %d: %v", i+1, err)
		}
		name := fmt.Sprintf("trend-%d.png", i+1)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
		if out := os.Getenv("PERFGATE_SCREENSHOT_DIR"); out != "" {
			if err := os.WriteFile(filepath.Join(out, name), shot, 0o644); err != nil {
				t.Error(err)
			}
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatalf("screenshot of trend panel %d is not a PNG: %v", i+1, err)
		}
		bw, bh := img.Bounds().Dx(), img.Bounds().Dy()
		if float64(bw) < panels[i].Width || bh < 100 {
			t.Errorf("screenshot of trend panel %d is %d×%d px, smaller than its %.0f×%.0f SVG", i+1, bw, bh, panels[i].Width, panels[i].Height)
		}
		// The light theme's PR blue (#0969da) and change-point orange
		// (#bc4c00), as drawn: the PR's dot and the change point's rule.
		for _, c := range []struct {
			name    string
			r, g, b int
		}{{"the PR's blue", 0x09, 0x69, 0xda}, {"the change point's orange", 0xbc, 0x4c, 0x00}} {
			if got := near(img, c.r, c.g, c.b); got < 10 {
				t.Errorf("screenshot of trend panel %d has %d pixels of %s, want at least 10", i+1, got, c.name)
			}
		}
	}
}

// near counts the pixels of img within a small distance of the colour.
func near(img image.Image, r, g, b int) int {
	n := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			dr, dg, db := int(pr>>8)-r, int(pg>>8)-g, int(pb>>8)-b
			if dr*dr+dg*dg+db*db < 24*24 {
				n++
			}
		}
	}
	return n
}
