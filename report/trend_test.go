package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/result"
)

// trendOf is a history of scenario on the runner of env: n runs whose P99
// steps from 10 to 12.5 ms at run n/2 (one change point there), every
// third a baseline update.
func trendOf(scenario string, env result.Environment, n int) *Trend {
	runner := history.FingerprintID(result.FingerprintOf(env))
	s := history.Series{Key: history.Key{Scenario: scenario, Runner: runner, Metric: history.MetricP99}}
	for i := range n {
		v := 10.0
		if i >= n/2 {
			v = 12.5
		}
		s.Points = append(s.Points, history.Point{Commit: fmt.Sprintf("%040x", i+1), Baseline: i%3 == 0,
			Date: time.Date(2026, 11, 1+i, 0, 0, 0, 0, time.UTC), Value: v, Lo: v * 0.97, Hi: v * 1.03})
	}
	return &Trend{Series: []history.Series{s}, Changes: []history.Change{{Key: s.Key, Index: n / 2,
		Before: s.Points[n/2-1], After: s.Points[n/2], SizePct: 25, Confidence: 0.995, Regression: true}}}
}

func TestTrendPanel(t *testing.T) {
	r := sampleReport(t)
	cand := find(r.Candidate, "service/batching")
	r.Trend = trendOf("service/batching", cand.Environment, 12)
	var b bytes.Buffer
	if err := HTML(&b, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, `data-kind="trend"`); n != 1 {
		t.Fatalf("%d trend panels, want 1 (only service/batching has a history)", n)
	}
	i := strings.Index(page, `data-kind="trend"`)
	panel := page[i:]
	if j := strings.Index(panel[1:], "data-kind="); j > 0 {
		panel = panel[:j]
	}
	// Twelve runs of history and the PR: thirteen data marks; the change
	// point is drawn with its size and commit.
	if n := len(regexp.MustCompile(`class="[^"]*\bdata\b`).FindAllString(panel, -1)); n < 13 {
		t.Errorf("trend panel has %d data marks, want at least 13 (12 runs and the PR)", n)
	}
	for _, want := range []string{"+25.0%", "this PR: 13.92", "(baseline update)", "12 run(s) of service/batching"} {
		if !strings.Contains(panel, want) {
			t.Errorf("trend panel lacks %q", want)
		}
	}
	var md bytes.Buffer
	r.RunURL = "https://github.com/o/r/actions/runs/1"
	if err := Markdown(&md, r, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "[Trend](https://github.com/o/r/actions/runs/1#artifacts)") {
		t.Errorf("the comment does not link the trend:\n%s", md.String())
	}
}
