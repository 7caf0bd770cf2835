package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
)

// Schema is the schema tag of the JSON report.
const Schema = "perfgate.report/v1"

// Size limits of GitHub's surfaces.
const (
	// CommentMaxBytes is GitHub's limit on a comment body (65,536
	// characters; a byte count is never below the character count).
	CommentMaxBytes = 65536
	// SummaryMaxBytes is GitHub's limit on one step's job summary (1 MiB).
	SummaryMaxBytes = 1 << 20
)

// Report is everything one gate run reports. Only Comparison is required.
type Report struct {
	// Title names the report (e.g. the config file); "" means "perfgate".
	Title string `json:"title,omitempty"`
	// Comparison is the statistics' outcome: verdicts, intervals, layers.
	Comparison *compare.Comparison `json:"comparison"`
	// Plans are the capacity plans per scenario, in the comparison's order.
	Plans []Plan `json:"plans,omitempty"`
	// Baseline and Candidate are the results compared; the report reads
	// their sweep points, environments and telemetry. They are not part of
	// the JSON report (they are files of their own).
	Baseline  []*result.Result `json:"-"`
	Candidate []*result.Result `json:"-"`
	// Commit is the commit measured (the pull request's head), for the
	// headline; RunURL links to the workflow run and SummaryURL to the page
	// carrying the step summary (the full report).
	Commit     string `json:"commit,omitempty"`
	RunURL     string `json:"run_url,omitempty"`
	SummaryURL string `json:"summary_url,omitempty"`
	// Warnings are the caller's own caveats (a failed comment, say), shown
	// with the comparison's.
	Warnings []string `json:"warnings,omitempty"`
	// Trend is the run history, when the gate was given one: the HTML
	// report draws a trend panel per scenario and the comment links it.
	Trend *Trend `json:"trend,omitempty"`
	// Mode says which comparison produced the report when its comparison
	// cannot (the demo's variants measured in one run); "" derives it:
	// stored baselines, same-runner A/B, the history's learned noise.
	Mode string `json:"-"`
}

// Plan is one scenario's capacity plan on each side and the change.
type Plan struct {
	Scenario string `json:"scenario"`
	// Baseline or Candidate is nil when that side has no knee to size from.
	Baseline  *sizing.Sizing `json:"baseline,omitempty"`
	Candidate *sizing.Sizing `json:"candidate,omitempty"`
	// Diff is set when both sides have a plan and the gate's max QPS
	// test allows showing the change; else Withheld says why not.
	Diff     *sizing.Diff `json:"diff,omitempty"`
	Withheld string       `json:"withheld,omitempty"`
}

// jsonReport is the JSON document: the Report with its schema tag.
type jsonReport struct {
	Schema string `json:"schema"`
	*Report
}

// JSON writes r as an indented perfgate.report/v1 document.
func JSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	out := *r
	out.Comparison = spoken(r.Comparison)
	return enc.Encode(jsonReport{Schema: Schema, Report: &out})
}

// verdictRank orders scenario verdicts from most to least severe, so that
// truncation drops the least important rows first.
func verdictRank(v compare.Verdict) int {
	switch v {
	case compare.Regressed:
		return 0
	case compare.Inconclusive:
		return 1
	case compare.Improved:
		return 2
	case compare.Unchanged:
		return 3
	}
	return 4
}

// scenarios returns the comparison's scenarios, most severe first, keeping
// the comparison's order among equals.
func (r *Report) scenarios() []compare.ScenarioComparison {
	sc := slices.Clone(r.Comparison.Scenarios)
	slices.SortStableFunc(sc, func(a, b compare.ScenarioComparison) int {
		return verdictRank(a.Verdict) - verdictRank(b.Verdict)
	})
	return sc
}

// counts returns the number of regressed and improved scenarios.
func (r *Report) counts() (regressed, improved int) {
	for _, s := range r.Comparison.Scenarios {
		switch s.Verdict {
		case compare.Regressed:
			regressed++
		case compare.Improved:
			improved++
		}
	}
	return regressed, improved
}

// responsible names the layers whose change decided the verdict: the
// layers with a regressed attribution (or, without one, the layers of the
// regressed scenarios); on a passing run, the improved ones.
func (r *Report) responsible() (layers []string, verdict compare.Verdict) {
	for _, want := range []compare.Verdict{compare.Regressed, compare.Improved} {
		for _, la := range r.Comparison.Layers {
			if la.P99 != nil && la.P99.Verdict == want || la.MaxQPS != nil && la.MaxQPS.Verdict == want {
				layers = append(layers, la.Layer)
			}
		}
		if len(layers) == 0 {
			for _, s := range r.Comparison.Scenarios {
				if s.Verdict == want && s.Layer != "" && !slices.Contains(layers, s.Layer) {
					layers = append(layers, s.Layer)
				}
			}
		}
		if len(layers) > 0 {
			return layers, want
		}
	}
	return nil, ""
}

// metric returns the named metric of s, or nil.
func metric(s compare.ScenarioComparison, name string) *compare.Metric {
	for i := range s.Metrics {
		if s.Metrics[i].Metric == name {
			return &s.Metrics[i]
		}
	}
	return nil
}

// find returns the result of scenario name in rs, or nil.
func find(rs []*result.Result, name string) *result.Result {
	for _, r := range rs {
		if r != nil && r.Scenario == name {
			return r
		}
	}
	return nil
}

// plan returns the plan of scenario name, or nil.
func (r *Report) plan(name string) *Plan {
	for i := range r.Plans {
		if r.Plans[i].Scenario == name {
			return &r.Plans[i]
		}
	}
	return nil
}

// warnings gathers every caveat once, in order: the caller's, the
// comparison's, each scenario's, each plan's and each candidate result's.
func (r *Report) warnings() []string {
	var out []string
	seen := map[string]bool{}
	add := func(prefix string, ws []string) {
		for _, w := range ws {
			// The comparison repeats a result's own warning as
			// "candidate: …", and a plan as "the …" (the knee search
			// stopped early): the same caveat is shown once.
			key := prefix + ": " + strings.TrimPrefix(strings.TrimPrefix(w, "candidate: "), "the ")
			if prefix != "" {
				w = prefix + ": " + w
			}
			if !seen[key] {
				seen[key] = true
				out = append(out, w)
			}
		}
	}
	add("", r.Warnings)
	add("", comparisonWarnings(r.Comparison))
	for i := range r.Comparison.Scenarios {
		s := &r.Comparison.Scenarios[i]
		add(s.Scenario, scenarioWarnings(s))
	}
	for _, p := range r.Plans {
		if p.Diff != nil {
			add(p.Scenario, p.Diff.Warnings)
		}
		if p.Candidate != nil {
			add(p.Scenario, p.Candidate.Warnings)
		}
	}
	for _, c := range r.Candidate {
		if c != nil {
			add(c.Scenario, c.Warnings)
		}
	}
	return out
}

// Decode reads a perfgate.report/v1 document written by JSON, rejecting
// other schemas and a report without a comparison. The results are not part
// of the document; a caller that has them sets Baseline and Candidate.
func Decode(rd io.Reader) (*Report, error) {
	var doc struct {
		Schema string `json:"schema"`
		Report
	}
	if err := json.NewDecoder(rd).Decode(&doc); err != nil {
		return nil, fmt.Errorf("decoding report JSON: %w", err)
	}
	if doc.Schema != Schema {
		return nil, fmt.Errorf("report schema is %q, want %q", doc.Schema, Schema)
	}
	if doc.Comparison == nil {
		return nil, errors.New("report has no comparison")
	}
	unspoken(doc.Comparison)
	return &doc.Report, nil
}
