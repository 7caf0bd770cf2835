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

// An open loop's timeline draws the schedule's sends per second beside
// the responses, so that a quiet second of the schedule is not read as a
// stall; a closed loop's does not, and neither does a result without them.
func TestTimelineOffered(t *testing.T) {
	res := func(mode string, offered []int64) *result.Result {
		ps := &result.PerSecond{Achieved: []int64{80, 19}, Errors: []int64{0, 0}, P99Ms: []float64{40, 30}, Offered: offered}
		return &result.Result{Load: result.Load{Mode: mode}, Summary: result.Summary{OfferedRPS: 80},
			Trials: []result.Trial{{DurationS: 1.4, PerSecond: ps}}}
	}
	for _, tt := range []struct {
		name    string
		r       *result.Result
		offered bool
	}{
		{"open loop", res("rate", []int64{81, 19}), true},
		{"closed loop", res("concurrency", []int64{81, 19}), false},
		{"recorded before offered", res("rate", nil), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			figs := timelineFigures(sides{base: tt.r, cand: tt.r})
			if len(figs) == 0 || figs[0].Kind != "timeline-rate" {
				t.Fatalf("figures %v: want the rate timeline first", figs)
			}
			f := figs[0]
			svg := string(f.SVG)
			drawn := strings.Contains(svg, `class="series base offered"`) && strings.Contains(svg, `class="series pr offered"`)
			said := strings.Contains(f.Caption, "the requests the schedule sent")
			if drawn != tt.offered || said != tt.offered {
				t.Errorf("offered drawn %v, caption says so %v; want %v (caption %q)", drawn, said, tt.offered, f.Caption)
			}
			flat := strings.Contains(svg, "offered 80.0 rps")
			if flat == tt.offered {
				t.Errorf("the flat offered line drawn %v; want it only without the per-second sends", flat)
			}
		})
	}
}
