package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/compare/comparetest"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/ghaction"
	"github.com/perfgate/perfgate/internal/githubapi"
	"github.com/perfgate/perfgate/internal/githubapi/githubapitest"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"go.yaml.in/yaml/v3"
)

const (
	actionToken = "ghs_TESTTOKEN_0123456789abcdefSECRET"
	prHead      = "4f2c1e0d9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e"
	forkHead    = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d"
	mergeSHA    = "1111111111111111111111111111111111111111"
)

// actionRun is one in-process run of perfgate action against a fake API.
type actionRun struct {
	t      *testing.T
	dir    string
	vars   map[string]string
	srv    *githubapitest.Server
	stdout bytes.Buffer
	stderr bytes.Buffer
}

// newActionRun prepares the runner's variables for event (a file under
// testdata/events) and a fake GitHub API for acme/svc.
func newActionRun(t *testing.T, srv *githubapitest.Server, event string) *actionRun {
	t.Helper()
	dir := t.TempDir()
	r := &actionRun{t: t, dir: dir, srv: srv, vars: map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_API_URL": srv.URL, "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_REPOSITORY": "acme/svc", "GITHUB_RUN_ID": "42", "GITHUB_RUN_ATTEMPT": "1",
		"GITHUB_EVENT_NAME": strings.TrimSuffix(event, "_fork"), "GITHUB_SHA": mergeSHA,
		"GITHUB_EVENT_PATH":   filepath.Join("testdata", "events", event+".json"),
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
		"INPUT_GITHUB-TOKEN":  actionToken,
	}}
	return r
}

// run runs the action with p and returns the exit code main would use.
func (r *actionRun) run(p pipelines, args ...string) int {
	r.t.Helper()
	wd, _ := os.Getwd()
	e := &env{getenv: func(k string) string { return r.vars[k] }, stdin: strings.NewReader(""),
		stdout: &r.stdout, stderr: &r.stderr, workdir: wd}
	err := runAction(context.Background(), e, args, p)
	return exitCode(err, &r.stderr)
}

func (r *actionRun) file(name string) string {
	b, _ := os.ReadFile(filepath.Join(r.dir, name))
	return string(b)
}

// outputs parses $GITHUB_OUTPUT the way the runner does: name<<DELIM lines
// up to DELIM, or name=value.
func (r *actionRun) outputs() map[string]string {
	r.t.Helper()
	out := map[string]string{}
	lines := strings.Split(r.file("output"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		if name, delim, ok := strings.Cut(l, "<<"); ok {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			if i == len(lines) {
				r.t.Fatalf("output %s: delimiter %q never closed", name, delim)
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		name, val, _ := strings.Cut(l, "=")
		out[name] = val
	}
	return out
}

// checkNoToken fails when the token appears anywhere but the add-mask
// command, which must come before any other output.
func (r *actionRun) checkNoToken() {
	r.t.Helper()
	stdout := r.stdout.String()
	if strings.Contains(stdout, actionToken) && !strings.HasPrefix(stdout, "::add-mask::"+actionToken+"\n") {
		r.t.Errorf("the token is printed before it is masked:\n%s", stdout)
	}
	stdout = strings.TrimPrefix(stdout, "::add-mask::"+actionToken+"\n")
	places := map[string]string{"stdout": stdout, "stderr": r.stderr.String(), "outputs": r.file("output"), "summary": r.file("summary")}
	for _, c := range r.srv.Comments(17) {
		places["comment"] += c.Body
	}
	for _, c := range r.srv.Comments(23) {
		places["comment"] += c.Body
	}
	filepath.Walk(r.dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			places[p] = string(b)
		}
		return nil
	})
	for where, s := range places {
		if strings.Contains(s, actionToken) {
			r.t.Errorf("the token appears in %s", where)
		}
	}
}

// gateReport is a comparison with the given verdict; a regression when
// verdict is fail. Its names carry markdown and HTML, as a PR could.
func gateReport(verdict compare.Verdict) *report.Report {
	sc := compare.ScenarioComparison{Scenario: "svc|<b>batching</b>", Layer: "service", Verdict: compare.Unchanged, BaseTrials: 3, CandTrials: 3,
		Metrics: []compare.Metric{{Metric: compare.MetricP99, Baseline: 10, Candidate: 10.2, DeltaPct: 2, CIPct: [2]float64{-1, 4}, Verdict: compare.Unchanged, Gated: true}}}
	if verdict == compare.Fail {
		sc.Verdict, sc.Metrics[0].Candidate, sc.Metrics[0].DeltaPct, sc.Metrics[0].CIPct, sc.Metrics[0].Verdict =
			compare.Regressed, 11.8, 18, [2]float64{12, 23}, compare.Regressed
	}
	c := &compare.Comparison{Schema: compare.Schema, Verdict: verdict, Scenarios: []compare.ScenarioComparison{sc}, Settings: compare.DefaultSettings()}
	if verdict == compare.Incomparable {
		c.Reason = "gpu model: A100 ≠ H200"
	}
	return &report.Report{Title: "perfgate.yaml", Comparison: c,
		Candidate: []*result.Result{{Schema: result.Schema, Scenario: sc.Scenario, Layer: "service", Valid: true}}}
}

// fakeGate is a gate pipeline answering with gateReport(verdict).
func fakeGate(t *testing.T, verdict compare.Verdict, compPath string) pipelines {
	return pipelines{gate: func(ctx context.Context, e *env, in ghaction.Inputs) (*gateOutcome, error) {
		if in.Config != "perfgate.yaml" {
			t.Errorf("gate pipeline got config %q, want the default perfgate.yaml", in.Config)
		}
		r := gateReport(verdict)
		out := &gateOutcome{Report: r, Paths: gate.Paths{Comparison: compPath}}
		if verdict == compare.Fail {
			out.Regressions = []string{"svc|<b>batching</b>: p99_ms +18.0% [+12.0, +23.0]"}
		}
		return out, nil
	}}
}

func TestActionGate(t *testing.T) {
	tests := []struct {
		name        string
		event       string
		verdict     compare.Verdict
		inputs      map[string]string
		readOnly    bool
		wantCode    int
		wantComment bool
		wantStdout  []string
	}{
		{name: "regression fails the step", event: "pull_request", verdict: compare.Fail, wantCode: exitRegression, wantComment: true,
			wantStdout: []string{"::error title=perfgate regression::svc|<b>batching</b>: p99_ms +18.0%25"}},
		{name: "pass", event: "pull_request", verdict: compare.Pass, wantCode: exitPass, wantComment: true},
		{name: "fail-on-regression false reports without failing", event: "pull_request", verdict: compare.Fail,
			inputs: map[string]string{"INPUT_FAIL-ON-REGRESSION": "false"}, wantCode: exitPass, wantComment: true,
			wantStdout: []string{"::warning::perfgate: 1 regression; fail-on-regression is false"}},
		// Incomparable exits 1, as gate and compare do (exitcode.ForVerdict).
		{name: "incomparable fails the step", event: "pull_request", verdict: compare.Incomparable, wantCode: exitRegression, wantComment: true,
			wantStdout: []string{"::error::perfgate: the baselines were measured on a different environment: gpu model"}},
		{name: "comment false posts nothing", event: "pull_request", verdict: compare.Pass, inputs: map[string]string{"INPUT_COMMENT": "false"}, wantCode: exitPass},
		// On a fork's pull request the token is read-only: a warning, and
		// the verdict (here a failure) is unchanged.
		{name: "read-only token of a fork", event: "pull_request_fork", verdict: compare.Fail, readOnly: true, wantCode: exitRegression,
			wantStdout: []string{"::warning::perfgate: could not comment on #23: the token may not write comments"}},
		{name: "push event has no pull request", event: "push", verdict: compare.Pass, wantCode: exitPass,
			wantStdout: []string{`::notice::perfgate: the "push" event is not a pull request: no comment posted`}},
		{name: "composite spelling of the token input", event: "pull_request", verdict: compare.Pass, wantCode: exitPass, wantComment: true,
			inputs: map[string]string{"INPUT_GITHUB-TOKEN": "", "INPUT_GITHUB_TOKEN": actionToken}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
			srv.ReadOnly = tt.readOnly
			marker := githubapi.Marker("")
			human := srv.AddComment(17, githubapi.User{Login: "mallory", Type: "User"}, "fake report "+marker)
			r := newActionRun(t, srv, tt.event)
			for k, v := range tt.inputs {
				r.vars[k] = v
			}
			comp := filepath.Join(r.dir, "comparison.json")
			if code := r.run(fakeGate(t, tt.verdict, comp)); code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tt.wantCode, r.stderr.String())
			}
			out := r.outputs()
			if out["verdict"] != string(tt.verdict) || out["report"] != comp {
				t.Errorf("outputs = %v, want verdict %s and report %s", out, tt.verdict, comp)
			}
			var ours []githubapi.Comment
			for _, c := range srv.Comments(17) {
				if c.User.IsBot() {
					ours = append(ours, c)
				}
			}
			if got := len(ours) == 1; got != tt.wantComment {
				t.Fatalf("commented = %v (%d bot comments), want %v; stdout:\n%s", got, len(ours), tt.wantComment, r.stdout.String())
			}
			if tt.wantComment {
				if out["comment-url"] != ours[0].HTMLURL {
					t.Errorf("comment-url = %q, want %q", out["comment-url"], ours[0].HTMLURL)
				}
				body := ours[0].Body
				for _, want := range []string{marker, "`" + prHead[:12] + "`", "svc\\|&lt;b&gt;batching&lt;/b&gt;", "https://github.com/acme/svc/actions/runs/42"} {
					if !strings.Contains(body, want) {
						t.Errorf("comment lacks %q:\n%s", want, body)
					}
				}
				if strings.Contains(body, mergeSHA[:12]) || strings.Contains(body, "<b>") {
					t.Errorf("comment names the merge commit or holds raw HTML:\n%s", body)
				}
			} else if out["comment-url"] != "" {
				t.Errorf("comment-url = %q, want none", out["comment-url"])
			}
			if got := srv.Comments(17)[0]; got.Body != human.Body {
				t.Errorf("the human's comment was changed to %q", got.Body)
			}
			if s := r.file("summary"); !strings.Contains(s, "svc\\|&lt;b&gt;batching") || strings.Contains(s, "This report was shortened") {
				t.Errorf("step summary lacks the full report:\n%s", s)
			}
			for _, want := range tt.wantStdout {
				if !strings.Contains(r.stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, r.stdout.String())
				}
			}
			r.checkNoToken()
		})
	}
}

func TestActionUpdatesItsComment(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
	srv.PageSize = 2
	for range 5 {
		srv.AddComment(17, githubapi.User{Login: "bob", Type: "User"}, "lgtm")
	}
	for _, verdict := range []compare.Verdict{compare.Fail, compare.Pass} {
		r := newActionRun(t, srv, "pull_request")
		r.run(fakeGate(t, verdict, "c.json"))
		r.checkNoToken()
	}
	var bodies []string
	for _, c := range srv.Comments(17) {
		if c.User.IsBot() {
			bodies = append(bodies, c.Body)
		}
	}
	if len(bodies) != 1 || !strings.Contains(bodies[0], "**pass**") {
		t.Errorf("bot comments after two runs = %q, want one, updated to pass", bodies)
	}
}

func TestActionOutputsCannotBeForged(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
	r := newActionRun(t, srv, "push")
	// A path with newlines and go-githubactions' fixed delimiter must stay
	// one value, never a second "verdict".
	evil := "x\n_GitHubActionsFileCommandDelimeter_\nverdict=pass\nverdict<<EOF\npass\nEOF"
	r.run(fakeGate(t, compare.Fail, evil))
	want := map[string]string{"verdict": string(compare.Fail), "report": evil, "comment-url": ""}
	if d := cmp.Diff(want, r.outputs()); d != "" {
		t.Errorf("outputs (-want +got):\n%s", d)
	}
}

func TestActionInputErrors(t *testing.T) {
	tests := []struct {
		name   string
		inputs map[string]string
		want   string
	}{
		{name: "unknown mode", inputs: map[string]string{"INPUT_MODE": "deploy"}, want: `input mode is "deploy"`},
		{name: "bad boolean", inputs: map[string]string{"INPUT_FAIL-ON-REGRESSION": "maybe"}, want: `input fail-on-regression is "maybe"`},
		{name: "comment mode without a bundle", inputs: map[string]string{"INPUT_MODE": "comment"}, want: "needs the comment-from input"},
		{name: "unknown on-inconclusive", inputs: map[string]string{"INPUT_ON-INCONCLUSIVE": "retry"}, want: `input on-inconclusive is "retry"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
			r := newActionRun(t, srv, "pull_request")
			for k, v := range tt.inputs {
				r.vars[k] = v
			}
			called := false
			p := pipelines{gate: func(context.Context, *env, ghaction.Inputs) (*gateOutcome, error) {
				called = true
				return nil, errors.New("not reached")
			}}
			if code := r.run(p); code != exitUsage {
				t.Errorf("exit code %d, want %d", code, exitUsage)
			}
			if called || !strings.Contains(r.stderr.String(), tt.want) {
				t.Errorf("pipeline called %v; stderr %q, want %q", called, r.stderr.String(), tt.want)
			}
			r.checkNoToken()
		})
	}
}

// The gate pipeline gets every input the runner set, results and
// on-inconclusive among them, in either spelling.
func TestActionGateGetsInputs(t *testing.T) {
	for _, sep := range []string{"-", "_"} {
		t.Run("INPUT_ON"+sep+"INCONCLUSIVE", func(t *testing.T) {
			srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
			r := newActionRun(t, srv, "pull_request")
			r.vars["INPUT_RESULTS"] = "perfgate-out/merged"
			r.vars["INPUT_ON"+sep+"INCONCLUSIVE"] = "fail"
			r.vars["INPUT_COMMENT"] = "false"
			var got ghaction.Inputs
			p := fakeGate(t, compare.Pass, "")
			gate := p.gate
			p.gate = func(ctx context.Context, e *env, in ghaction.Inputs) (*gateOutcome, error) {
				got = in
				return gate(ctx, e, in)
			}
			if code := r.run(p); code != exitPass {
				t.Fatalf("exit %d, want 0\nstderr:\n%s", code, r.stderr.String())
			}
			if got.Results != "perfgate-out/merged" || got.OnInconclusive != "fail" {
				t.Errorf("gate got results %q, on-inconclusive %q; want perfgate-out/merged and fail", got.Results, got.OnInconclusive)
			}
		})
	}
}

func TestActionPipelineErrorKeepsItsCode(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
	r := newActionRun(t, srv, "pull_request")
	p := pipelines{gate: func(context.Context, *env, ghaction.Inputs) (*gateOutcome, error) {
		return nil, withCode(exitRunFailed, errors.New("target did not start: exit status 1"))
	}}
	if code := r.run(p); code != exitRunFailed {
		t.Errorf("exit code %d, want %d", code, exitRunFailed)
	}
	if out := r.outputs(); out["verdict"] != "error" {
		t.Errorf("verdict output = %q, want error", out["verdict"])
	}
	if len(srv.Log()) != 0 {
		t.Errorf("the API was called after a failed run: %+v", srv.Log())
	}
}

func TestActionBaselineMode(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
	r := newActionRun(t, srv, "release")
	bl := filepath.Join(r.dir, "baselines")
	os.MkdirAll(bl, 0o755)
	old := filepath.Join(bl, "untouched.json")
	os.WriteFile(old, []byte("{}"), 0o644)
	past := time.Now().Add(-time.Hour)
	os.Chtimes(old, past, past)
	r.vars["INPUT_MODE"] = "baseline"
	r.vars["INPUT_BASELINES"] = bl
	var gotDir string
	p := pipelines{baseline: func(ctx context.Context, e *env, cfg, dir string) ([]string, error) {
		gotDir = dir
		var written []string
		for i, n := range []string{"service-batching", "model-int8"} {
			path := filepath.Join(dir, n+".json")
			writeResult(t, path, comparetest.Spec{Scenario: n, Layer: "service"}, uint64(i+1))
			written = append(written, path)
		}
		return written, nil
	}}
	if code := r.run(p); code != exitPass {
		t.Fatalf("exit code %d; stderr %s", code, r.stderr.String())
	}
	if gotDir != bl {
		t.Errorf("baseline pipeline got folder %q, want %q", gotDir, bl)
	}
	s := r.file("summary")
	for _, want := range []string{"2 baseline files written", "model-int8.json", "service-batching.json", "not committed",
		"| P99 ms |", "| `model-int8.json` | model-int8 | service |"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "untouched.json") {
		t.Errorf("summary lists a file this run did not write:\n%s", s)
	}
	if d := cmp.Diff(map[string]string{"verdict": "baseline", "baselines": bl}, r.outputs()); d != "" {
		t.Errorf("outputs (-want +got):\n%s", d)
	}
	if len(srv.Log()) != 0 {
		t.Errorf("baseline mode called the API: %+v", srv.Log())
	}
	r.checkNoToken()
}

func TestActionForkSafePair(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
	srv.HeadSHA[23] = forkHead
	srv.HeadSHA[17] = prHead
	// The untrusted half: pull_request on the fork's code, read-only
	// token, no comment; it writes the bundle.
	pr := newActionRun(t, srv, "pull_request_fork")
	bundle := filepath.Join(pr.dir, "bundle")
	pr.vars["INPUT_COMMENT"] = "false"
	pr.vars["INPUT_COMMENT-DIR"] = bundle
	delete(pr.vars, "INPUT_GITHUB-TOKEN")
	if code := pr.run(fakeGate(t, compare.Fail, "c.json")); code != exitRegression {
		t.Fatalf("pull_request half: exit code %d, want %d", code, exitRegression)
	}
	if len(srv.Log()) != 0 {
		t.Fatalf("the pull_request half called the API: %+v", srv.Log())
	}

	tests := []struct {
		name     string
		tamper   func(dir string)
		wantCode int
		wantOn   int // the PR that gets the comment; 0 for none
		want     string
	}{
		{name: "posts on the measured pull request", wantOn: 23},
		// A bundle aimed at another pull request: its head is not the
		// measured commit, so nothing is posted.
		{name: "bundle names another pull request", tamper: func(dir string) {
			os.WriteFile(filepath.Join(dir, "pr.json"), []byte(`{"number": 17, "head_sha": "`+forkHead+`"}`), 0o644)
		}, want: "#17's head is now " + prHead},
		{name: "bundle for another commit than the run", tamper: func(dir string) {
			os.WriteFile(filepath.Join(dir, "pr.json"), []byte(`{"number": 23, "head_sha": "`+prHead+`"}`), 0o644)
		}, wantCode: exitUsage, want: "the bundle is for commit " + prHead},
		{name: "damaged report", tamper: func(dir string) {
			os.WriteFile(filepath.Join(dir, "report.json"), []byte(`{"schema": "perfgate.report/v1"}`), 0o644)
		}, wantCode: exitUsage, want: "report has no comparison"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv2 := githubapitest.NewServer(t, "acme", "svc", actionToken)
			srv2.HeadSHA = srv.HeadSHA
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(bundle)); err != nil {
				t.Fatal(err)
			}
			if tt.tamper != nil {
				tt.tamper(dir)
			}
			r := newActionRun(t, srv2, "workflow_run")
			if code := r.run(pipelines{}, "--comment-from", dir); code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr %s", code, tt.wantCode, r.stderr.String())
			}
			for _, n := range []int{17, 23} {
				got := len(srv2.Comments(n)) == 1
				if got != (n == tt.wantOn) {
					t.Errorf("comment on #%d = %v, want it only on #%d", n, got, tt.wantOn)
				}
			}
			if tt.wantOn != 0 {
				body := srv2.Comments(tt.wantOn)[0].Body
				for _, want := range []string{"**fail**", "svc\\|&lt;b&gt;batching", "`" + forkHead[:12] + "`", "https://github.com/acme/svc/actions/runs/987654321"} {
					if !strings.Contains(body, want) {
						t.Errorf("comment lacks %q:\n%s", want, body)
					}
				}
				if r.outputs()["comment-url"] == "" {
					t.Errorf("comment-url output is empty")
				}
			}
			if tt.want != "" && !strings.Contains(r.stdout.String()+r.stderr.String(), tt.want) {
				t.Errorf("output lacks %q:\n%s%s", tt.want, r.stdout.String(), r.stderr.String())
			}
			r.checkNoToken()
		})
	}
}

func TestActionMasksFirst(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", actionToken)
	r := newActionRun(t, srv, "pull_request")
	r.run(fakeGate(t, compare.Fail, "c.json"))
	first, _, _ := strings.Cut(r.stdout.String(), "\n")
	if first != "::add-mask::"+actionToken {
		t.Errorf("first line = %q, want the add-mask command", first)
	}
	// A scenario name cannot issue workflow commands: the text report is
	// fenced by stop-commands.
	if !regexp.MustCompile(`(?s)::stop-commands::([0-9a-f]{32})\n.*\n::([0-9a-f]{32})::\n`).MatchString(r.stdout.String()) {
		t.Errorf("the text report is not fenced by stop-commands:\n%s", r.stdout.String())
	}
}

// TestActionYAML checks action.yml against the program: every input is
// passed to perfgate as the INPUT_* variable it reads (composite actions do
// not do it), no input is interpolated into the script, and the outputs are
// the ones the program writes.
func TestActionYAML(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Inputs  map[string]struct{ Default string } `yaml:"inputs"`
		Outputs map[string]struct{ Value string }   `yaml:"outputs"`
		Runs    struct {
			Using string
			Steps []struct {
				ID   string            `yaml:"id"`
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
				Env  map[string]string `yaml:"env"`
				Run  string            `yaml:"run"`
			}
		}
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", meta.Runs.Using)
	}
	var run *struct {
		ID   string            `yaml:"id"`
		Uses string            `yaml:"uses"`
		With map[string]string `yaml:"with"`
		Env  map[string]string `yaml:"env"`
		Run  string            `yaml:"run"`
	}
	for i, st := range meta.Runs.Steps {
		if strings.Contains(st.Run, "${{") {
			t.Errorf("step %d interpolates an expression into its script: %q", i, st.Run)
		}
		if strings.HasPrefix(st.Uses, "actions/setup-go@") && st.With["go-version-file"] != "${{ github.action_path }}/go.mod" {
			t.Errorf("setup-go go-version-file = %q, want the action's own go.mod", st.With["go-version-file"])
		}
		if st.ID == "perfgate" {
			run = &meta.Runs.Steps[i]
		}
	}
	if run == nil || !strings.Contains(run.Run, " action") {
		t.Fatalf("no step with id perfgate running perfgate action")
	}
	wantDefaults := map[string]string{"config": "perfgate.yaml", "mode": "gate", "fail-on-regression": "true", "comment": "true"}
	for name, in := range meta.Inputs {
		env := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if got, want := run.Env[env], "${{ inputs."+name+" }}"; got != want {
			t.Errorf("input %s: env %s = %q, want %q", name, env, got, want)
		}
		if d, ok := wantDefaults[name]; ok && in.Default != d {
			t.Errorf("input %s default = %q, want %q", name, in.Default, d)
		}
	}
	for _, name := range []string{"config", "github-token", "mode", "baselines", "fail-on-regression", "comment"} {
		if _, ok := meta.Inputs[name]; !ok {
			t.Errorf("action.yml lacks the input %s that docs/action.md documents", name)
		}
	}
	for _, name := range []string{"verdict", "report", "comment-url"} {
		if got, want := meta.Outputs[name].Value, "${{ steps.perfgate.outputs."+name+" }}"; got != want {
			t.Errorf("output %s = %q, want %q", name, got, want)
		}
	}
}

// `perfgate action -h` lists every input action.yml declares for the Go
// step, and no other: the install step's own inputs (read by
// ghaction/steps/resolve.sh) are not the command's.
func TestActionUsageListsInputs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	install := map[string]bool{"perfgate-version": true, "allow-newer-version": true, "build-from-source": true, "release-url": true}
	var want []string
	for name := range meta.Inputs {
		if !install[name] {
			want = append(want, "INPUT_"+strings.ToUpper(name))
		}
	}
	got := regexp.MustCompile(`(?m)^  (INPUT_[A-Z-]+)\s`).FindAllStringSubmatch(actionUsage, -1)
	var listed []string
	for _, m := range got {
		listed = append(listed, m[1])
	}
	slices.Sort(want)
	slices.Sort(listed)
	if d := cmp.Diff(want, listed); d != "" {
		t.Errorf("perfgate action -h's inputs against action.yml's (-want +got):\n%s", d)
	}
}
