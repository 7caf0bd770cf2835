package report

import (
	"bytes"
	"encoding/json"
	goldenfile "github.com/perfgate/perfgate/internal/golden"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) { t.Helper(); goldenfile.Check(t, name, got) }

const marker = "<!-- perfgate:comment -->"

func TestGolden(t *testing.T) {
	tests := []struct {
		name   string
		render func(*bytes.Buffer, *Report) error
	}{
		{name: "comment.md", render: func(b *bytes.Buffer, r *Report) error {
			return Markdown(b, r, Options{MaxBytes: CommentMaxBytes, Marker: marker})
		}},
		{name: "report.txt", render: func(b *bytes.Buffer, r *Report) error { return Text(b, r) }},
		{name: "report.html", render: func(b *bytes.Buffer, r *Report) error { return HTML(b, r, HTMLOptions{Version: "v0.1.0-test"}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.render(&b, sampleReport(t)); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, b.Bytes())
		})
	}
}

func TestMarkdownContent(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, sampleReport(t), Options{Marker: marker}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## ❌ perfgate · perfgate.yaml: **fail**",
		"**1 regressed, 1 improved, 1 new of 3 scenarios** · next: fix it, or re-baseline if intended · regressions from layer **service**",
		"| 🔴 | service/batching | service | 11.8 → 13.9 ms | **+18.0%** [+12.1%, +23.5%] | 1,234 → 963 | **-22.0%** [-25.6%, -18.3%] | regressed |",
		"6 → 7 (**+1**)",
		"(**+$1,825.00**)",
		"xychart-beta",
		"<details><summary>Verdict, environment, method and warnings</summary>",
		"- **service/batching**: server-side: queue time",
		"[Full report](https://github.com/acme/svc/actions/runs/42/attempts/1#summary)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	if !strings.HasSuffix(md, marker+"\n") {
		t.Errorf("markdown does not end with the marker")
	}
	// The regression is listed before the improvement.
	if i, j := strings.Index(md, "| 🔴 |"), strings.Index(md, "| 🟢 |"); i < 0 || j < 0 || i > j {
		t.Errorf("regressed row at %d, improved at %d: want the regression first", i, j)
	}
}

func TestMarkdownOverLimit(t *testing.T) {
	tests := []struct {
		name      string
		r         func(t *testing.T) *Report
		max       int
		wantRows  bool // some scenario rows survive
		wantWords []string
	}{
		{name: "details dropped only", r: func(t *testing.T) *Report { return sampleReport(t) }, max: 5600, wantRows: true,
			wantWords: []string{"the environment, method and warnings left out", "xychart-beta"}},
		{name: "many scenarios", r: func(t *testing.T) *Report { return manyScenarios(t, 1500) }, max: CommentMaxBytes, wantRows: true,
			wantWords: []string{"the details and the charts and ", "of 1503 scenarios (the least severe) left out", "| 🔴 | service/batching |"}},
		// A title larger than the limit leaves nothing to drop but text.
		{name: "enormous title", r: func(t *testing.T) *Report {
			r := sampleReport(t)
			r.Title = strings.Repeat("é", CommentMaxBytes)
			return r
		}, max: CommentMaxBytes, wantWords: []string{"The full report is in the [step summary]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.r(t)
			var full, b bytes.Buffer
			if err := Markdown(&full, r, Options{Marker: marker}); err != nil {
				t.Fatal(err)
			}
			if full.Len() <= tt.max {
				t.Fatalf("the full report is %d bytes, not over the %d limit: the test proves nothing", full.Len(), tt.max)
			}
			if err := Markdown(&b, r, Options{MaxBytes: tt.max, Marker: marker}); err != nil {
				t.Fatal(err)
			}
			md := b.String()
			if len(md) > tt.max {
				t.Errorf("shortened report is %d bytes, over %d", len(md), tt.max)
			}
			if !utf8.ValidString(md) {
				t.Errorf("shortened report is not valid UTF-8")
			}
			if !strings.HasSuffix(md, marker+"\n") {
				t.Errorf("shortened report lost its marker: ends %q", md[max(0, len(md)-80):])
			}
			if strings.Contains(md, "<details>") {
				t.Errorf("shortened report kept the details")
			}
			if got := strings.Contains(md, "| 🔴 |"); got != tt.wantRows {
				t.Errorf("regressed row present = %v, want %v", got, tt.wantRows)
			}
			for _, w := range tt.wantWords {
				if !strings.Contains(md, w) {
					t.Errorf("shortened report lacks %q", w)
				}
			}
			if len(md) < tt.max*3/4 {
				t.Errorf("shortened report is %d bytes: it threw away more than it needed of %d", len(md), tt.max)
			}
		})
	}
	// The step summary's limit holds the whole of the big report.
	var b bytes.Buffer
	if err := Markdown(&b, manyScenarios(t, 1500), Options{MaxBytes: SummaryMaxBytes}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "This report was shortened") || !strings.Contains(b.String(), "variant-1499") {
		t.Errorf("the step summary (%d bytes) was shortened; it should carry the full report", b.Len())
	}
}

func TestUntrustedNames(t *testing.T) {
	evil := []string{
		"a|b | c",
		"<script>alert(1)</script>",
		"<img src=x onerror=alert(1)>",
		"`code` **bold** _it_ [link](javascript:alert(1))",
		"line\n## injected heading\n| x | y |",
		"@acme/security-team please look",
		"-->\n```\n<!-- perfgate:comment -->",
		"$\\sqrt{x}$ ~~strike~~ #12",
		"esc\x1b[31mred\x1b[0m",
	}
	r := sampleReport(t)
	for i, name := range evil {
		r.Comparison.Scenarios[i%3].Scenario = name
		r.Comparison.Scenarios[i%3].Layer = name
		r.Candidate[i%3].Scenario = name
		if i < 2 {
			r.Baseline[i].Scenario = name
		}
		r.Title = name
		r.Comparison.Reason = name
		r.Comparison.Warnings = append(r.Comparison.Warnings, name)
		r.Candidate[0].Telemetry.Bottleneck.Evidence = []string{name}

		var b bytes.Buffer
		if err := Markdown(&b, r, Options{Marker: marker}); err != nil {
			t.Fatal(err)
		}
		md := b.String()
		body := strings.TrimSuffix(md, marker+"\n")
		for _, bad := range []string{"<script", "<img", "javascript:alert(1))", "\n## injected", "@acme", "```\n<!--", "\x1b"} {
			if strings.Contains(body, bad) {
				t.Errorf("name %q: markdown holds %q", name, bad)
			}
		}
		if strings.Count(body, marker) != 0 {
			t.Errorf("name %q: a second marker got into the body", name)
		}
		// Every row of the scenario table has exactly 9 unescaped pipes.
		pipe := regexp.MustCompile(`(^|[^\\])\|`)
		for _, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(line, "| 🔴") || strings.HasPrefix(line, "| 🟢") || strings.HasPrefix(line, "| ➖") {
				if n := len(pipe.FindAllString(line, -1)); n != 9 {
					t.Errorf("name %q: row %q has %d cell separators, want 9", name, line, n)
				}
			}
		}
		// Inside Mermaid blocks, titles hold only safe characters.
		for _, m := range regexp.MustCompile(`title "([^"\n]*)"`).FindAllStringSubmatch(md, -1) {
			if strings.ContainsAny(m[1], "`<>|\\\"") {
				t.Errorf("name %q: chart title %q holds markup", name, m[1])
			}
		}
		var txt bytes.Buffer
		if err := Text(&txt, r); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(txt.String(), "\x1b") {
			t.Errorf("name %q: the text report holds an escape character", name)
		}
	}
}

func TestJSON(t *testing.T) {
	r := sampleReport(t)
	var b bytes.Buffer
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Schema     string `json:"schema"`
		Title      string `json:"title"`
		Comparison struct {
			Verdict string `json:"verdict"`
		} `json:"comparison"`
		Plans []struct {
			Scenario string `json:"scenario"`
			Diff     *struct {
				InstancesDelta int `json:"instances_delta"`
			} `json:"diff"`
		} `json:"plans"`
		Candidate any `json:"candidate"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Schema != Schema || got.Comparison.Verdict != "fail" || got.Title != "perfgate.yaml" || got.Candidate != nil {
		t.Errorf("JSON = %+v, want schema %s, verdict fail, no results", got, Schema)
	}
	if len(got.Plans) != 3 || got.Plans[0].Diff == nil || got.Plans[0].Diff.InstancesDelta != 1 {
		t.Errorf("JSON plans = %+v, want 3 with +1 instance first", got.Plans)
	}
}

func TestNilComparison(t *testing.T) {
	var b bytes.Buffer
	for _, err := range []error{Markdown(&b, &Report{}, Options{}), Text(&b, &Report{}), Markdown(&b, nil, Options{})} {
		if err == nil {
			t.Errorf("rendering a report without a comparison: got nil error")
		}
	}
}

func FuzzEsc(f *testing.F) {
	for _, s := range []string{"a|b", "<b>", "x\ny", "`*_[]", "@who", "\\|", "fixes #123", "acme/svc#9", "@org/team", "GH-12", "https://github.com/o/r/issues/1", "wwW.x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := esc(s)
		if strings.ContainsAny(got, "<>\n\r\"") {
			t.Errorf("esc(%q) = %q holds a raw metacharacter", s, got)
		}
		// No mention, no issue link: '@' and '#' are always joined to a
		// zero-width joiner.
		for i, r := range got {
			if (r == '@' || r == '#') && !strings.HasPrefix(got[i+1:], zwj) {
				t.Errorf("esc(%q) = %q leaves %q unjoined at %d", s, got, r, i)
			}
		}
		// No GH-N, URL or www. reference either.
		if regexp.MustCompile(`(?i)gh-[0-9]|://|www\.`).MatchString(got) {
			t.Errorf("esc(%q) = %q leaves a reference GitHub recognises", s, got)
		}
		// Every pipe is escaped by an odd run of backslashes.
		for i := 0; i < len(got); i++ {
			if got[i] != '|' {
				continue
			}
			n := 0
			for j := i - 1; j >= 0 && got[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				t.Errorf("esc(%q) = %q leaves a pipe unescaped at %d", s, got, i)
			}
		}
	})
}

func TestDecodeRoundTrip(t *testing.T) {
	r := sampleReport(t)
	var b bytes.Buffer
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := *r
	want.Baseline, want.Candidate = nil, nil
	if d := cmp.Diff(&want, got); d != "" {
		t.Errorf("Decode(JSON(r)) (-want +got):\n%s", d)
	}
	for _, in := range []string{`{}`, `{"schema":"perfgate.report/v1"}`, `{"schema":"x","comparison":{}}`, `[`} {
		if _, err := Decode(strings.NewReader(in)); err == nil {
			t.Errorf("Decode(%s) = nil error, want one", in)
		}
	}
}

// FuzzDecode checks that any document Decode accepts renders without panic
// and that the comment stays within its limit.
func FuzzDecode(f *testing.F) {
	var b bytes.Buffer
	if err := JSON(&b, sampleReport(f)); err != nil {
		f.Fatal(err)
	}
	f.Add(b.String())
	f.Add(`{"schema":"perfgate.report/v1","comparison":{"verdict":"fail","scenarios":[{"scenario":"<x>","metrics":[{"metric":"p99_ms"}]}]}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		r, err := Decode(strings.NewReader(doc))
		if err != nil {
			return
		}
		var md, txt bytes.Buffer
		if err := Markdown(&md, r, Options{MaxBytes: CommentMaxBytes, Marker: marker}); err != nil {
			t.Fatal(err)
		}
		if md.Len() > CommentMaxBytes {
			t.Errorf("comment is %d bytes", md.Len())
		}
		if err := Text(&txt, r); err != nil {
			t.Fatal(err)
		}
	})
}

// Names from a pull request can neither mention nor link: GitHub still
// mentions after "&#64;" and links after "\#", not across a zero-width
// joiner.
func TestEscMentionsAndIssueRefs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"@octocat", "@\u200doctocat"},
		{"fixes #123", "fixes \\#\u200d123"},
		{"acme/svc#9 @org/team", "acme/svc\\#\u200d9 @\u200dorg/team"},
	}
	for _, tt := range tests {
		if got := esc(tt.in); got != tt.want {
			t.Errorf("esc(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A scenario name that GitHub would read as references (GH-12, an issue
// URL, a www. address, owner/repo#N, #N, @team) reaches the PR comment
// with none of them recognisable, wherever the name appears (tables,
// reasons, warnings).
func TestCommentMakesNoReferences(t *testing.T) {
	const hostile = "GH-12 https://github.com/o/r/issues/9 gh-3 www.example.com/o/r/pull/4 o/r#5 #6 @team"
	var doc bytes.Buffer
	if err := JSON(&doc, sampleReport(t)); err != nil {
		t.Fatal(err)
	}
	r, err := Decode(strings.NewReader(strings.ReplaceAll(doc.String(), "service/batching", hostile)))
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := Markdown(&md, r, Options{MaxBytes: CommentMaxBytes, Marker: marker}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "example") {
		t.Fatalf("the hostile name is not in the comment:\n%s", md.String())
	}
	for _, ref := range []string{`(?i)\bgh-[0-9]`, `https?://github\.com/o/`, `(?i)www\.`, `#[0-9]`, `@[a-z]`} {
		if loc := regexp.MustCompile(ref).FindStringIndex(md.String()); loc != nil {
			t.Errorf("the comment holds a reference GitHub recognises (%s): %q", ref, md.String()[max(0, loc[0]-20):min(md.Len(), loc[1]+20)])
		}
	}
}
