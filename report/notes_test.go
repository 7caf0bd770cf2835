package report

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/perfgate/perfgate/compare"
)

// TestNoteTextEveryCode fails when compare declares a note code that
// NoteText has no words for (it would show the bare code).
func TestNoteTextEveryCode(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "../compare/notes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(file, func(x ast.Node) bool {
		vs, ok := x.(*ast.ValueSpec)
		if !ok {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "NoteCode" {
			return true
		}
		for _, v := range vs.Values {
			lit := v.(*ast.BasicLit)
			code := compare.NoteCode(strings.Trim(lit.Value, `"`))
			n++
			if _, ok := noteTexts[code]; !ok {
				t.Errorf("note code %q has no words in noteTexts", code)
			}
		}
		return true
	})
	if n < 30 || n != len(noteTexts) {
		t.Errorf("compare declares %d note codes, noteTexts has %d", n, len(noteTexts))
	}
}

func TestNoteText(t *testing.T) {
	tests := []struct {
		name string
		n    compare.Note
		want string
	}{
		{"trial left out", compare.Note{Code: compare.NoteTrialLeftOut, Side: "candidate", Trial: 3, Text: "the generator was saturated"},
			"candidate trial 3 left out: the generator was saturated"},
		// A ladder's rung is named after its side.
		{"rung trial", compare.Note{Code: compare.NoteTrialNoRequests, Side: "rung", Scenario: "int8", Trial: 2},
			"rung int8 trial 2 has no successful request: left out of latency"},
		{"noise floor", compare.Note{Code: compare.NoteNoiseFloorRaised, Metric: compare.MetricP99, Pct: 5, FloorPct: 40},
			"p99_ms: threshold for a regression raised from 5% to the baseline's noise floor 40% (how far independent runs of the baseline disagreed); unchanged still means within 5%"},
		{"bracket, either side", compare.Note{Code: compare.NoteKneeBracket, Side: "either", BaseRange: &[2]float64{1000, 1100}, CandRange: &[2]float64{800, 900}, Pct: 5, Need: 3},
			"max_qps: one knee per run (no independent estimates on either side), so no test: the interval is what the knee brackets allow (baseline [1000, 1100], candidate [800, 900]) and a change beyond 5% is inconclusive; confirm the knee (load.estimates >= 3) to test it"},
		{"bracket, the baseline", compare.Note{Code: compare.NoteKneeBracket, Side: "baseline", BaseRange: &[2]float64{1000, 1100}, CandRange: &[2]float64{800, 900}, Pct: 5, Need: 3},
			"max_qps: one knee per run (no independent estimates on the baseline), so no test: the interval is what the knee brackets allow (baseline [1000, 1100], candidate [800, 900]) and a change beyond 5% is inconclusive; confirm the knee (load.estimates >= 3) to test it"},
		{"ladder busy", compare.Note{Code: compare.NoteLadderBusy, From: "fp16", To: "int8", Metric: compare.MetricMaxQPS, Verdict: compare.Regressed, Count: 2, Total: 9},
			"ladder step fp16 → int8: its max QPS regressed rests on 2 of 9 measurements taken while the host was busy with other work: inconclusive (host busy)"},
		{"load modes", compare.Note{Code: compare.NoteLoadModes, Names: []string{"open", "closed"}},
			"load modes differ (baseline open, candidate closed): latencies are not like for like"},
		{"more pairs", compare.Note{Code: compare.NoteMorePairs, Metric: compare.MetricP99, Count: 20, Need: 38},
			"p99_ms: undecided after 20 pairs; at this estimate and spread about 38 pairs would decide it (raise ab.max_trials, and ab.budget where it ended the run)"},
		{"more pairs, none would", compare.Note{Code: compare.NoteMorePairs, Metric: compare.MetricP99, Count: 20},
			"p99_ms: undecided after 20 pairs, and at this estimate no number of pairs would decide it"},
		// An A/B knee's units are its confirmation rounds, and its lever
		// the scenario's load.estimates.
		{"more rounds", compare.Note{Code: compare.NoteMorePairs, Metric: compare.MetricMaxQPS, Count: 8, Need: 14},
			"max_qps: undecided after 8 confirmation rounds; at this estimate and spread about 14 rounds would decide it (raise the scenario's load.estimates: an A/B knee measures up to twice the rounds it plans)"},
		{"futile rounds", compare.Note{Code: compare.NoteFutile, Metric: compare.MetricMaxQPS, Count: 4, Need: 30, Pct: 6},
			"max_qps: stopped after 4 confirmation rounds: the rounds left had a 6% chance to decide it (about 30 would; raise the scenario's load.estimates for more)"},
		{"futile pairs", compare.Note{Code: compare.NoteFutile, Metric: compare.MetricP99, Count: 12, Pct: 4},
			"p99_ms: stopped after 12 pairs: the pairs left had a 4% chance to decide it (no number of pairs would at this estimate; raise ab.max_trials for more)"},
		// A tail undecided by its own sampling, and one by the runner.
		{"tail sampling", compare.Note{Code: compare.NoteTailSampling, Metric: compare.MetricP99, Need: 300, Pct: 17.7, FloorPct: 16.9},
			"p99_ms: a unit's ratio varies by 17.7% (standard deviation) where sampling 300 requests a side gives 16.9% alone (a P99 rests on its 3 slowest): a quieter runner would not narrow it; more requests a unit would (a longer window or a higher rate), or more pairs"},
		{"tail runner", compare.Note{Code: compare.NoteTailSampling, Metric: compare.MetricP50, Need: 300, Pct: 8.2, FloorPct: 2.1},
			"p50_ms: a unit's ratio varies by 8.2% (standard deviation), of which sampling 300 requests a side gives 2.1%: the rest moves with the runner or the service from unit to unit (other work, scheduling, its own state), which more requests a unit would not remove"},
		// A warm-up that ended before the target was steady.
		{"first trial", compare.Note{Code: compare.NoteFirstTrial, Metric: compare.MetricP50, Side: "base", Count: 6, Pct: 23.4, CIPct: &[2]float64{12.1, 35.8}},
			"base side: a target process's first trial read its P50 +23.4% [+12.1%, +35.8%] above the same process's later trials, over 6 processes: its warm-up ended before it was steady; the paired estimate cancels the bias, but a longer load.warmup, or a service steady sooner (memory and caches set up before it is ready), would narrow the interval"},
		// A code from a newer perfgate is shown, not dropped.
		{"unknown code", compare.Note{Code: "from-the-future"}, "from-the-future"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NoteText(tt.n); got != tt.want {
				t.Errorf("NoteText(%+v) =\n%q, want\n%q", tt.n, got, tt.want)
			}
		})
	}
}

// The comparison JSON carries the notes' words in warnings, before the
// callers' own, and the codes in notes; decoding it gives the notes back
// once, so that a report rendered from the JSON says each thing once.
func TestNotesInJSON(t *testing.T) {
	c := sampleComparison(t)
	c.Warnings = append(c.Warnings, "the gate's own warning")
	if len(c.Notes) == 0 {
		t.Fatal("the sample comparison has no notes")
	}
	var buf bytes.Buffer
	if err := ComparisonJSON(&buf, c); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Warnings []string `json:"warnings"`
		Notes    []struct {
			Code string `json:"code"`
		} `json:"notes"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := append(NotesText(c.Notes), "the gate's own warning")
	if d := cmp.Diff(want, doc.Warnings); d != "" {
		t.Errorf("JSON warnings (-want +got):\n%s", d)
	}
	if len(doc.Notes) != len(c.Notes) || doc.Notes[0].Code != string(c.Notes[0].Code) {
		t.Errorf("JSON notes %+v, want the comparison's %+v", doc.Notes, c.Notes)
	}
	back, err := DecodeComparison(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var before, after bytes.Buffer
	if err := ComparisonText(&before, c); err != nil {
		t.Fatal(err)
	}
	if err := ComparisonText(&after, back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before.String(), after.String()); d != "" {
		t.Errorf("text from the decoded JSON differs (-want +got):\n%s", d)
	}
	if n := strings.Count(after.String(), NoteText(c.Notes[0])); n != 1 {
		t.Errorf("the first note is said %d times, want once", n)
	}
}
