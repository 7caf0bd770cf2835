package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/ghaction"
	"github.com/perfgate/perfgate/history"
	"github.com/perfgate/perfgate/internal/githubapi"
	"github.com/perfgate/perfgate/internal/githubapi/githubapitest"
	"github.com/perfgate/perfgate/result"
)

// writeRunDir writes one complete run of scenario api at a latency scale
// (a result file and its manifest), as perfgate run leaves it.
func writeRunDir(t *testing.T, dir string, scale float64, seed uint64) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "api.json")
	writeResult(t, p, comparetest.Spec{Scenario: "api", Layer: "service", Trials: 5, Requests: 500, MedianMs: 10, Noise: 0.01, Scale: scale}, seed)
	m := result.NewManifest(fmt.Sprint("run", seed), time.Now())
	if err := m.Add("api", p); err != nil {
		t.Fatal(err)
	}
	m.Complete = true
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryFromBaselines: twelve baseline updates with --history, the
// last four 30% slower; history show prints the twelve runs and history
// changes finds the regression at the ninth.
func TestHistoryFromBaselines(t *testing.T) {
	dir := t.TempDir()
	hist, bl := filepath.Join(dir, "hist"), filepath.Join(dir, "bl")
	for i := range 12 {
		scale := 1.0
		if i >= 8 {
			scale = 1.3
		}
		from := filepath.Join(dir, fmt.Sprint("run", i))
		writeRunDir(t, from, scale, uint64(i+1))
		sha := fmt.Sprintf("%040x", i+1)
		if code, _, stderr := runCLI(t, "baseline", "update", "--from", from, "--to", bl, "--history", hist, "--git-sha", sha); code != exitPass {
			t.Fatalf("baseline update %d: exit %d\n%s", i, code, stderr)
		}
	}
	code, stdout, stderr := runCLI(t, "history", "show", "--history", hist, "--metric", "p99_ms")
	if code != exitPass {
		t.Fatalf("history show: exit %d\n%s", code, stderr)
	}
	if n := strings.Count(stdout, "baseline\n"); n != 12 {
		t.Errorf("history show printed %d baseline runs, want 12:\n%s", n, stdout)
	}
	code, stdout, stderr = runCLI(t, "history", "changes", "--history", hist, "--metric", "p99_ms", "--format", "json")
	if code != exitPass {
		t.Fatalf("history changes: exit %d\n%s", code, stderr)
	}
	var cs []history.Change
	if err := json.Unmarshal([]byte(stdout), &cs); err != nil {
		t.Fatalf("history changes --format json: %v\n%s", err, stdout)
	}
	if len(cs) != 1 || cs[0].Index != 8 || !cs[0].Regression || cs[0].After.Commit != fmt.Sprintf("%040x", 9) {
		t.Fatalf("changes = %+v, want one regression at the ninth run (commit 9)", cs)
	}
	code, stdout, _ = runCLI(t, "history", "changes", "--history", hist, "--metric", "p99_ms")
	if code != exitPass || !strings.Contains(stdout, "api p99_ms") || !strings.Contains(stdout, "regression +") {
		t.Errorf("history changes (text): exit %d\n%s", code, stdout)
	}
}

func TestHistoryUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", []string{"history"}, "want a subcommand"},
		{"unknown", []string{"history", "frob"}, `unknown subcommand "frob"`},
		{"add without from", []string{"history", "add"}, "--from DIR is required"},
		{"missing source", []string{"history", "show", "--history", "nope-not-here"}, "neither a folder nor a git revision"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("perfgate %v: exit %d, stderr %q; want exit %d with %q", tt.args, code, stderr, exitUsage, tt.want)
			}
		})
	}
}

func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	writeRunDir(t, dir, 1, 1)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "bmf"}, `"p99_ms": {`},
		{[]string{"--format", "github-action-benchmark", "--tool", "customBiggerIsBetter"}, `"name": "api achieved_rps"`},
		{[]string{"--format", "openmetrics"}, "# EOF\n"},
	} {
		code, stdout, stderr := runCLI(t, append(append([]string{"export"}, tt.args...), dir)...)
		if code != exitPass || !strings.Contains(stdout, tt.want) {
			t.Errorf("export %v: exit %d, stdout lacks %q:\n%s%s", tt.args, code, tt.want, stdout, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "export", "--format", "csv", dir); code != exitUsage || !strings.Contains(stderr, `format "csv"`) {
		t.Errorf("export --format csv: exit %d, %s", code, stderr)
	}
}

// TestActionHistory is baseline mode's history on a real remote: twelve
// baseline jobs push their records to perfgate-data of a bare repository
// (the last four 30% slower); exactly one job's step summary lists the new
// change point of p99, naming the first slower commit, and the gate's
// fetch finds the branch.
func TestActionHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	// With history-issue on, the job that finds the change opens one issue
	// on the fake GitHub (and no other job calls it); with it off, nothing
	// is called although the summary lists the change.
	for _, issue := range []bool{true, false} {
		t.Run(fmt.Sprintf("history-issue=%v", issue), func(t *testing.T) { testActionHistory(t, issue) })
	}
}

func testActionHistory(t *testing.T, issue bool) {
	root := t.TempDir()
	bare, clone := filepath.Join(root, "remote.git"), filepath.Join(root, "clone")
	for _, args := range [][]string{{"init", "-q", "--bare", bare}, {"clone", "-q", bare, clone}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	const tok = "ghs_history0issue0token"
	gh := githubapitest.NewServer(t, "acme", "svc", tok)
	summary := filepath.Join(root, "summary.md")
	var listed, reported []int
	opened := false
	for i := range 12 {
		scale := 1.0
		if i >= 8 {
			scale = 1.3
		}
		dir := filepath.Join(root, fmt.Sprint("bl", i))
		writeRunDir(t, dir, scale, uint64(i+1))
		sha := fmt.Sprintf("%02x%038d", i+1, 0)
		vars := map[string]string{"GITHUB_SHA": sha, "GITHUB_STEP_SUMMARY": summary, "GITHUB_REPOSITORY": "acme/svc",
			"GITHUB_API_URL": gh.URL, "GITHUB_REF": "refs/heads/main", "GITHUB_RUN_ID": "77"}
		var out, errb strings.Builder
		e := &env{getenv: func(k string) string { return vars[k] }, stdout: &out, stderr: &errb, workdir: clone}
		os.Remove(summary)
		calls := len(gh.Log())
		in := ghaction.Inputs{HistoryBranch: "perfgate-data", HistoryIssue: issue, Token: tok}
		if err := actionHistory(context.Background(), e, in, []string{filepath.Join(dir, "api.json")}); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, errb.String())
		}
		if strings.Contains(out.String(), "::warning") {
			t.Errorf("run %d: a warning: %s", i, out.String())
		}
		b, _ := os.ReadFile(summary)
		newCalls := gh.Log()[calls:]
		if strings.Contains(string(b), "| `api` | p99_ms | regression +") {
			listed = append(listed, i)
			if !strings.Contains(string(b), "`080000000000`…`090000000000`") {
				t.Errorf("run %d: the change point's window is not commits 8…9:\n%s", i, b)
			}
		}
		switch {
		case !strings.Contains(string(b), "| `api` |"): // no new change point
			if len(newCalls) > 0 {
				t.Errorf("run %d: no new change point, but GitHub was called: %+v", i, newCalls)
			}
		case !issue:
			if len(newCalls) > 0 {
				t.Errorf("run %d: history-issue is off, but GitHub was called: %+v", i, newCalls)
			}
		default:
			// The first job with new change points opens the issue; a
			// later one comments on it.
			want := "/repos/acme/svc/issues"
			if opened {
				want = "/repos/acme/svc/issues/1/comments"
			}
			if len(newCalls) != 2 || newCalls[0].Method != "GET" || newCalls[0].Path != "/repos/acme/svc/issues" ||
				newCalls[1].Method != "POST" || newCalls[1].Path != want {
				t.Fatalf("run %d: calls %+v, want GET /repos/acme/svc/issues then POST %s", i, newCalls, want)
			}
			post := newCalls[1]
			rows := strings.Count(string(b), "| `api` |")
			if strings.Count(post.Body, "| `api` |") != rows || !strings.Contains(post.Body, "commit "+sha) ||
				!strings.Contains(post.Body, "/actions/runs/77") {
				t.Errorf("run %d: the body posted does not hold the summary's %d change point(s), the commit and the run:\n%s", i, rows, post.Body)
			}
			if !opened {
				if post.Title != "perfgate: performance change points on main" ||
					!slices.Equal(post.Labels, []string{githubapi.ChangePointLabel}) ||
					!strings.HasPrefix(post.Body, githubapi.ChangePointMarker) {
					t.Errorf("run %d: the issue opened: %+v", i, post)
				}
				if !strings.Contains(errb.String(), "opened issue #1") {
					t.Errorf("run %d: stderr does not say the issue was opened:\n%s", i, errb.String())
				}
			}
			opened = true
			reported = append(reported, i)
		}
	}
	t.Logf("GitHub was told by the job(s) of run(s) %v (0-based)", reported)
	if issue && len(reported) == 0 {
		t.Error("history-issue is on, but no job reported a change point")
	}
	t.Logf("the p99 change at commit 9 was listed by the job of run(s) %v (0-based)", listed)
	if len(listed) != 1 || listed[0] < 8 {
		t.Errorf("the p99 change point was listed by runs %v, want once, by a run after the change", listed)
	}
	if want := map[bool]int{true: 1, false: 0}[issue]; len(gh.Issues()) != want {
		t.Errorf("%d issue(s) opened, want %d", len(gh.Issues()), want)
	}
	ref, err := fetchHistory(context.Background(), &env{getenv: func(string) string { return "" }, stderr: io.Discard, workdir: clone}, "perfgate-data")
	if err != nil || ref == "" {
		t.Fatalf("fetchHistory = %q, %v", ref, err)
	}
	src, err := history.Open(context.Background(), ref, clone)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := src.Read(context.Background())
	if err != nil || len(recs) != 12 {
		t.Fatalf("the branch holds %d records (%v), want 12", len(recs), err)
	}
}

// TestChangeIssue covers history-issue's other paths: an open change-point
// issue is commented on (no second one), and a missing token or a
// read-only one is a warning with no issue.
func TestChangeIssue(t *testing.T) {
	const tok = "ghs_change0issue0token"
	const md = "| `api` | p99_ms | regression +30% |\n"
	tests := []struct {
		name     string
		token    string
		readOnly bool
		existing bool
		wantLog  []string
		wantWarn string
	}{
		{name: "comments on the open issue", token: tok, existing: true,
			wantLog: []string{"GET /repos/acme/svc/issues", "POST /repos/acme/svc/issues/1/comments"}},
		{name: "no token", wantWarn: "no github-token"},
		{name: "read-only token", token: tok, readOnly: true,
			wantLog: []string{"GET /repos/acme/svc/issues", "POST /repos/acme/svc/issues"}, wantWarn: "issues: write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := githubapitest.NewServer(t, "acme", "svc", tok)
			gh.ReadOnly = tt.readOnly
			if tt.existing {
				gh.AddIssue("perfgate: performance change points on main", githubapi.ChangePointMarker, []string{githubapi.ChangePointLabel}, false)
			}
			vars := map[string]string{"GITHUB_REPOSITORY": "acme/svc", "GITHUB_API_URL": gh.URL, "GITHUB_SHA": strings.Repeat("ab", 20)}
			var out, errb strings.Builder
			e := &env{getenv: func(k string) string { return vars[k] }, stdout: &out, stderr: &errb}
			changeIssue(context.Background(), e, ghaction.Inputs{Token: tt.token, HistoryBranch: "perfgate-data"}, md, 1)
			var got []string
			for _, r := range gh.Log() {
				got = append(got, r.Method+" "+r.Path)
			}
			if !slices.Equal(got, tt.wantLog) {
				t.Errorf("calls %q, want %q", got, tt.wantLog)
			}
			if tt.wantWarn == "" && out.Len() > 0 || tt.wantWarn != "" && !strings.Contains(out.String(), "::warning") ||
				!strings.Contains(out.String(), tt.wantWarn) {
				t.Errorf("output %q, want a warning with %q", out.String(), tt.wantWarn)
			}
			if tt.existing {
				if cs := gh.Comments(1); len(cs) != 1 || !strings.Contains(cs[0].Body, md) || len(gh.Issues()) != 1 {
					t.Errorf("comments %+v, issues %d: want one comment on #1 and no new issue", cs, len(gh.Issues()))
				}
			}
		})
	}
}

// TestGateResultsHistory: `gate --results DIR --history H` learns the
// noise from H as a gate that runs does (run_to_run_source history (12
// runs), a 12% slowdown regressed); without --history it is assumed; and
// `gate --ab` refuses --history, saying why.
func TestGateResultsHistory(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "perfgate.yaml")
	if err := os.WriteFile(cfgPath, []byte(`version: 1
slo: {p99: 50ms}
gate: {p99_regression: 5%}
scenarios:
  - {name: api, layer: service, url: "http://127.0.0.1:1/", load: {mode: rate, rate: 10, trials: 6}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := func(scale float64) comparetest.Spec {
		return comparetest.Spec{Scenario: "api", Layer: "service", Trials: 6, Requests: 3000, MedianMs: 10, Noise: 0.005, Scale: scale}
	}
	hist := filepath.Join(dir, "history")
	for i := range 12 {
		run := filepath.Join(dir, fmt.Sprint("run", i))
		if err := os.MkdirAll(run, 0o755); err != nil {
			t.Fatal(err)
		}
		writeResult(t, filepath.Join(run, "api.json"), spec(1), uint64(100+i))
		spreadProcesses(t, filepath.Join(run, "api.json"))
		if code, _, stderr := runCLI(t, "history", "add", "--from", run, "--history", hist, "--commit", fmt.Sprintf("%040d", i)); code != exitPass {
			t.Fatalf("history add: exit %d: %s", code, stderr)
		}
	}
	base, res := filepath.Join(dir, "baselines"), filepath.Join(dir, "results")
	for d, scale := range map[string]float64{base: 1, res: 1.12} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		writeResult(t, filepath.Join(d, "api.json"), spec(scale), map[bool]uint64{true: 300, false: 301}[scale == 1])
		spreadProcesses(t, filepath.Join(d, "api.json"))
	}
	tests := []struct {
		name       string
		args       []string
		wantSource string
	}{
		{"with --history", []string{"--history", hist}, "history (12 runs)"},
		{"without", nil, "assumed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"gate", "--config", cfgPath, "--results", res, "--baselines", base, "--out", out, "--format", "json"}, tt.args...)
			code, _, stderr := runCLI(t, args...)
			b, err := os.ReadFile(filepath.Join(out, "comparison.json"))
			if err != nil {
				t.Fatalf("exit %d, %v\n%s", code, err, stderr)
			}
			var c struct {
				Verdict   string `json:"verdict"`
				Scenarios []struct {
					Verdict        string `json:"verdict"`
					RunToRunSource string `json:"run_to_run_source"`
				} `json:"scenarios"`
			}
			if err := json.Unmarshal(b, &c); err != nil {
				t.Fatal(err)
			}
			if len(c.Scenarios) != 1 || c.Scenarios[0].RunToRunSource != tt.wantSource {
				t.Fatalf("scenarios %+v, want run_to_run_source %q", c.Scenarios, tt.wantSource)
			}
			t.Logf("%s: verdict %s (%s), exit %d", tt.name, c.Verdict, c.Scenarios[0].Verdict, code)
			if tt.args != nil && (c.Verdict != "fail" || code != exitRegression) {
				t.Errorf("with the history's noise: verdict %s, exit %d; want fail, exit %d", c.Verdict, code, exitRegression)
			}
		})
	}
	code, _, stderr := runCLI(t, "gate", "--config", cfgPath, "--ab", "HEAD", "--history", hist)
	if code != exitUsage || !strings.Contains(stderr, "no run-to-run term") {
		t.Errorf("gate --ab --history: exit %d, %q; want exit %d saying the paired test has no run-to-run term", code, stderr, exitUsage)
	}
}

// spreadProcesses rewrites the result at path with each trial in its own
// process, as restarts measure it: the gate then tests over processes.
func spreadProcesses(t *testing.T, path string) {
	t.Helper()
	r, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Trials {
		r.Trials[i].Process = i + 1
	}
	r.Restarts = len(r.Trials)
	if err := r.WriteFile(path); err != nil {
		t.Fatal(err)
	}
}
