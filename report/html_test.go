package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

func TestHTMLFigures(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, htmlReport(t), HTMLOptions{Version: "v0.1.0-test"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if dir := os.Getenv("PERFGATE_HTML_OUT"); dir != "" {
		os.WriteFile(filepath.Join(dir, "report.html"), b.Bytes(), 0o644)
	}
	kinds := map[string]int{}
	for _, m := range regexp.MustCompile(`data-kind="([a-z0-9-]+)"`).FindAllStringSubmatch(page, -1) {
		kinds[m[1]]++
	}
	// Four scenarios: three swept (curves), one streamed (TTFT, TPOT, ITL).
	want := map[string]int{"curve": 3, "spectrum": 4, "trials": 4, "timeline-rate": 4, "timeline-p99": 4,
		"ttft": 1, "tpot": 1, "itl": 1, "instances": 1, "cost": 1, "ladder": 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("HTML has %d %q charts, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	// Self-contained: nothing is loaded from anywhere (links are followed
	// only when clicked).
	for _, bad := range []string{" src=", "<link", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("the page would fetch something: it contains %q", bad)
		}
	}
}

// BenchmarkHTML renders the four-scenario report with every chart kind.
func BenchmarkHTML(b *testing.B) {
	r := htmlReport(b)
	var buf bytes.Buffer
	for range b.N {
		buf.Reset()
		if err := HTML(&buf, r, HTMLOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "page-bytes")
}

// Names come from perfgate.yaml, which a pull request controls: they must
// reach the page as text, never as markup.
func TestHTMLEscapesNames(t *testing.T) {
	r := htmlReport(t)
	evil := `<script>alert(1)</script><img src=x onerror=alert(2)>`
	for _, rs := range [][]*result.Result{r.Baseline, r.Candidate} {
		for _, res := range rs {
			if res.Scenario == "model/int8" {
				res.Scenario = evil
			}
		}
	}
	for i := range r.Comparison.Scenarios {
		if r.Comparison.Scenarios[i].Scenario == "model/int8" {
			r.Comparison.Scenarios[i].Scenario = evil
		}
	}
	for i := range r.Plans {
		if r.Plans[i].Scenario == "model/int8" {
			r.Plans[i].Scenario = evil
		}
	}
	// A damaged timeline (arrays of different lengths) is skipped, not a panic.
	r.Candidate[0].Trials[0].PerSecond.P99Ms = r.Candidate[0].Trials[0].PerSecond.P99Ms[:1]
	var b bytes.Buffer
	if err := HTML(&b, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<img") {
		t.Errorf("a scenario name reached the page as markup")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the escaped name is missing from the page")
	}
}
