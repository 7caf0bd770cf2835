package report

import (
	"slices"
	"strings"
	"testing"
)

// TestSections checks the one section model both formats walk: which
// sections a report has, in order, and that the text and the markdown
// report show them in that order.
func TestSections(t *testing.T) {
	ladder := func(t testing.TB) *Report {
		r := sampleReport(t)
		r.Comparison.Layers = nil
		r.Comparison.Ladder = htmlReport(t).Comparison.Ladder
		return r
	}
	for _, tt := range []struct {
		name string
		r    func(testing.TB) *Report
		want []sectionKind
		// text and md: a line of each section the format shows, in order.
		text, md []string
	}{
		{"sample", sampleReport,
			[]sectionKind{secHeadline, secScenarios, secCapacity, secLayers, secBottleneck, secCharts, secDetails, secLinks},
			[]string{"perfgate: FAIL · 1 regressed", "SCENARIO", "capacity:", "by layer:", "bottleneck service/batching:", "verdict:", "environment:"},
			[]string{"## ❌ perfgate", "| | scenario |", "### Capacity at", "### By layer", "**Bottleneck**", "### P99 against offered load", "<details>", "[Full report]"}},
		{"ladder without layers", ladder,
			[]sectionKind{secHeadline, secScenarios, secCapacity, secLadder, secBottleneck, secCharts, secDetails, secLinks},
			[]string{"perfgate: FAIL · 1 regressed", "SCENARIO", "capacity:", "ladder (one layer changed per rung):", "bottleneck service/batching:", "verdict:", "environment:"},
			[]string{"## ❌ perfgate", "| | scenario |", "### Capacity at", "**Ladder**", "**Bottleneck**", "### P99 against offered load", "<details>", "[Full report]"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.r(t)
			var kinds []sectionKind
			for _, s := range r.sections() {
				kinds = append(kinds, s.kind)
			}
			if !slices.Equal(kinds, tt.want) {
				t.Errorf("sections %v, want %v", kinds, tt.want)
			}
			var txt, md strings.Builder
			if err := Text(&txt, r); err != nil {
				t.Fatal(err)
			}
			if err := Markdown(&md, r, Options{}); err != nil {
				t.Fatal(err)
			}
			inOrder(t, "text", txt.String(), tt.text)
			inOrder(t, "markdown", md.String(), tt.md)
			// One blank line between sections, never two (a ladder
			// without layers had two).
			if i := strings.Index(md.String(), "**Ladder**"); i >= 0 && strings.HasSuffix(md.String()[:i], "\n\n\n") {
				t.Errorf("two blank lines before the ladder:\n%s", md.String())
			}
		})
	}
}

// inOrder fails unless every want occurs in out, each after the one before.
func inOrder(t *testing.T, format, out string, want []string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Errorf("%s report lacks %q after byte %d:\n%s", format, w, at, out)
			return
		}
		at += i + len(w)
	}
}

// TestTextCapacityOrder checks that the text report's capacity rows follow
// the scenario table (most severe first), as the markdown table's do,
// whatever the order of the plans.
func TestTextCapacityOrder(t *testing.T) {
	r := sampleReport(t)
	slices.Reverse(r.Plans)
	var txt strings.Builder
	if err := Text(&txt, r); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "text", txt.String(), []string{"capacity:", "  service/batching:", "  model/int8:", "  system/grpc:"})
}

// TestComparisonSections checks that a comparison's text and markdown
// walk the same sections in order, and that markdown escapes layer names
// in the per-layer and ladder tables, as it does everywhere else (they
// were written raw).
func TestComparisonSections(t *testing.T) {
	c := sampleComparison(t)
	c.Layers[0].Layer = "model|<b>"
	c.Ladder.Steps[0].Layer = "model|<b>"
	var kinds []sectionKind
	for _, s := range comparisonSections(c) {
		kinds = append(kinds, s.kind)
	}
	want := []sectionKind{secHeadline}
	for range c.Scenarios {
		want = append(want, secScenario)
	}
	want = append(want, secLayers, secLadder, secLegend)
	if !slices.Equal(kinds, want) {
		t.Errorf("sections %v, want %v", kinds, want)
	}
	var txt, md strings.Builder
	if err := ComparisonText(&txt, c); err != nil {
		t.Fatal(err)
	}
	if err := ComparisonMarkdown(&md, c); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "text", txt.String(), []string{"perfgate compare: FAIL", "kserve-int8 (model)", "grpc-new (system)", "by layer", "ladder fp16", "* gated"})
	inOrder(t, "markdown", md.String(), []string{"### perfgate compare:", "#### kserve-int8 (model)", "#### grpc-new (system)", "#### By layer", "#### Ladder fp16", "<sub>\\* gated"})
	if strings.Contains(md.String(), "model|<b>") || !strings.Contains(md.String(), `| model\|&lt;b&gt; |`) {
		t.Errorf("markdown writes a layer name unescaped:\n%s", md.String())
	}
}
