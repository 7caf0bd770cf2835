package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/githubapi"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/sethvargo/go-githubactions"
)

// gateOutcome is what the gate pipeline (run, compare, size) hands the
// action: the report to render, the comparison JSON it wrote, the verdict
// (a compare top-level verdict) and one line per regression.
type gateOutcome struct {
	Report         *report.Report
	ComparisonPath string
	Verdict        string
	Regressions    []string
	// FailOnInconclusive: gate.on_inconclusive (or the input) is fail.
	FailOnInconclusive bool
}

// pipelines are the stages the action drives. cmdAction uses the real ones;
// tests pass their own.
type pipelines struct {
	gate func(ctx context.Context, e *env, cfgPath, baselinesDir string, allowEnvMismatch bool) (*gateOutcome, error)
	// baseline runs the suite and stores its results as baselines,
	// returning the files it wrote.
	baseline func(ctx context.Context, e *env, cfgPath, baselinesDir string) ([]string, error)
	// ab runs the same-runner A/B gate against git revision ref, writing
	// into out (compare-with: base or both).
	ab func(ctx context.Context, e *env, cfgPath, ref, out string, allowEnvMismatch bool) (*gateOutcome, error)
}

// cmdAction is the GitHub Action's entry point: it reads INPUT_* and
// GITHUB_*, runs the gate (or stores baselines, or posts the comment of a
// fork's run), and reports through the step summary, annotations, outputs
// and one sticky pull request comment.
func cmdAction(ctx context.Context, e *env, args []string) error {
	return runAction(ctx, e, args, pipelines{gate: runGatePipeline, baseline: runBaselinePipeline, ab: runABPipeline})
}

// actionUsage is `perfgate action -h`: what the entry point reads, and how
// to run it on a laptop.
const actionUsage = `usage: perfgate action [--comment-from DIR]

The GitHub Action's entry point (action.yml runs it). It reads its inputs
from INPUT_* variables and the run from GITHUB_* variables, as the runner
sets them:

  INPUT_CONFIG              perfgate.yaml to run (default perfgate.yaml)
  INPUT_MODE                gate (default), baseline, or comment
  INPUT_COMPARE-WITH        baselines (default), base (same-runner A/B against the PR's base commit), or both
  INPUT_GITHUB-TOKEN        token for the PR comment (INPUT_GITHUB_TOKEN also read)
  INPUT_BASELINES           baseline folder (default: the config's baselines:)
  INPUT_FAIL-ON-REGRESSION  true (default) | false
  INPUT_COMMENT             true (default) | false: keep one sticky PR comment
  INPUT_ALLOW-ENV-MISMATCH  false (default) | true
  INPUT_COMMENT-DIR         gate mode: write the comment bundle here (fork-safe pair)
  INPUT_COMMENT-FROM        comment mode: post the bundle from here
  INPUT_RESULTS             gate mode: gate the results in this folder instead of running
  INPUT_ON-INCONCLUSIVE     pass | fail | rerun (default: the config's gate.on_inconclusive)
  INPUT_COMMENT-AUTHOR      login whose marked comment is edited (default github-actions[bot])
  GITHUB_ACTIONS            "true" on a runner; it or GITHUB_EVENT_NAME must be set
  GITHUB_EVENT_NAME         pull_request, push, release, workflow_run, ...
  GITHUB_EVENT_PATH         the event payload (JSON): the PR number and head sha
  GITHUB_REPOSITORY         owner/name, for the comment
  GITHUB_API_URL            default https://api.github.com
  GITHUB_SERVER_URL         default https://github.com
  GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT   to link the run's page
  GITHUB_SHA, GITHUB_REF, GITHUB_REF_NAME, GITHUB_REF_TYPE   provenance of baselines
  GITHUB_OUTPUT             file the outputs are appended to (verdict, report, comment-url)
  GITHUB_STEP_SUMMARY       file the report is appended to

A local run of gate mode, without commenting (copy and paste):

  echo '{"pull_request": {"number": 1, "head": {"sha": "'$(git rev-parse HEAD)'"}}}' > /tmp/event.json
  GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH=/tmp/event.json \
  GITHUB_REPOSITORY=me/svc GITHUB_OUTPUT=/tmp/out GITHUB_STEP_SUMMARY=/tmp/summary.md \
  INPUT_CONFIG=perfgate.yaml INPUT_COMMENT=false perfgate action
  cat /tmp/out /tmp/summary.md

Flags:
`

// actionInputs are the action's inputs (action.yml).
type actionInputs struct {
	config, token, mode, baselines string
	failOnRegression, comment      bool
	allowEnvMismatch               bool
	// commentDir is where gate mode writes the comment bundle for the
	// fork-safe workflow_run job; commentFrom is where comment mode reads it.
	commentDir, commentFrom string
	// commentAuthor is the login whose marked comment is ours to edit
	// (githubapi.DefaultBotLogin when empty).
	commentAuthor string
	// compareWith is what gate mode compares with: baselines, base (an
	// A/B run against the pull request's base commit) or both.
	compareWith string
}

// actionInput reads an action input: INPUT_GITHUB-TOKEN as the runner sets it for
// JavaScript and Docker actions, or INPUT_GITHUB_TOKEN as a composite
// action's env: can spell it.
func actionInput(gha *githubactions.Action, getenv func(string) string, name string) string {
	if v := gha.GetInput(name); v != "" {
		return v
	}
	return strings.TrimSpace(getenv("INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))))
}

// readInputs reads and checks the inputs other than the token.
func readInputs(gha *githubactions.Action, getenv func(string) string, token string) (actionInputs, error) {
	in := actionInputs{token: token, config: actionInput(gha, getenv, "config"), mode: actionInput(gha, getenv, "mode"),
		baselines: actionInput(gha, getenv, "baselines"), commentDir: actionInput(gha, getenv, "comment-dir"),
		commentFrom: actionInput(gha, getenv, "comment-from"), commentAuthor: actionInput(gha, getenv, "comment-author")}
	if in.config == "" {
		in.config = "perfgate.yaml"
	}
	if in.mode == "" {
		in.mode = "gate"
	}
	if v := actionInput(gha, getenv, "on-inconclusive"); v != "" && !slices.Contains([]string{"pass", "fail", "rerun"}, v) {
		return in, fmt.Errorf("input on-inconclusive is %q, want pass, fail or rerun", v)
	}
	if err := in.readCompareWith(actionInput(gha, getenv, "compare-with")); err != nil {
		return in, err
	}
	if !slices.Contains([]string{"gate", "baseline", "comment"}, in.mode) {
		return in, fmt.Errorf("input mode is %q, want gate, baseline or comment", in.mode)
	}
	for _, b := range []struct {
		name string
		dst  *bool
		def  bool
	}{{"fail-on-regression", &in.failOnRegression, true}, {"comment", &in.comment, true}, {"allow-env-mismatch", &in.allowEnvMismatch, false}} {
		v := actionInput(gha, getenv, b.name)
		if v == "" {
			*b.dst = b.def
			continue
		}
		x, err := strconv.ParseBool(v)
		if err != nil {
			return in, fmt.Errorf("input %s is %q, want true or false", b.name, v)
		}
		*b.dst = x
	}
	return in, nil
}

// runAction is cmdAction with its pipelines given.
func runAction(ctx context.Context, e *env, args []string, p pipelines) error {
	// The action's own workflow commands go straight to stdout; everything
	// else it and its pipelines print passes a guard that keeps lines of
	// pull-request text from acting as commands.
	gha := githubactions.New(githubactions.WithGetenv(e.getenv), githubactions.WithWriter(unguarded(e.stdout)))
	guarded := *e
	guarded.stdout, guarded.stderr = guardCommands(e.stdout), guardCommands(e.stderr)
	e = &guarded
	// The token is masked before anything else is printed.
	token := actionInput(gha, e.getenv, "github-token")
	if token != "" {
		gha.AddMask(token)
	}
	fs := flag.NewFlagSet("action", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	commentFrom := fs.String("comment-from", "", "post the comment bundle in `DIR` (written by a gate run with comment-dir) on its pull request")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), actionUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageErr("action: %v", err)
	}
	if e.getenv("GITHUB_ACTIONS") != "true" && e.getenv("GITHUB_EVENT_NAME") == "" {
		return usageErr("action: no GitHub Actions environment (GITHUB_ACTIONS and GITHUB_EVENT_NAME are unset): " +
			"this command is the Action's entry point. Outside Actions use `perfgate gate --config perfgate.yaml`, " +
			"or set the variables `perfgate action -h` lists to run it locally")
	}
	in, err := readInputs(gha, e.getenv, token)
	if err != nil {
		gha.Errorf("%s", err.Error())
		return usageErr("action: %w", err)
	}
	if *commentFrom != "" {
		in.mode, in.commentFrom = "comment", *commentFrom
	}
	gh, err := readGitHub(e)
	if err != nil {
		gha.Errorf("%s", err.Error())
		return usageErr("action: %w", err)
	}
	a := &action{e: e, gha: gha, in: in, gh: gh}
	switch in.mode {
	case "baseline":
		return a.baseline(ctx, p)
	case "comment":
		return a.commentFromBundle(ctx)
	}
	return a.gate(ctx, p)
}

// action is one run of the action.
type action struct {
	e   *env
	gha *githubactions.Action
	in  actionInputs
	gh  ghContext
}

// path resolves p against the working directory.
func (a *action) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(a.e.workdir, p)
}

// gate runs the gate pipeline and reports its outcome.
func (a *action) gate(ctx context.Context, p pipelines) error {
	out, err := a.gateWith(ctx, p)
	if err != nil {
		a.gha.Errorf("%s", err.Error())
		a.outputs([2]string{"verdict", "error"})
		return err
	}
	r := out.Report
	r.Commit, r.RunURL, r.SummaryURL = a.gh.event.headSHA(), a.gh.runURL(), a.gh.runURL()
	a.printText(r)
	a.summary(r)
	for _, reg := range out.Regressions {
		a.gha.WithFieldsMap(map[string]string{"title": "perfgate regression"}).Errorf("%s", reg)
	}
	if a.in.commentDir != "" {
		if err := writeBundle(a.path(a.in.commentDir), r, a.gh.event.prNumber(), a.gh.event.headSHA()); err != nil {
			a.gha.Warningf("%s", err.Error())
		}
	}
	url := ""
	if n := a.gh.event.prNumber(); a.in.comment && n > 0 {
		url = a.comment(ctx, n, r)
	} else if a.in.comment {
		a.gha.Noticef("%s", fmt.Sprintf("perfgate: the %q event is not a pull request: no comment posted", a.gh.eventName))
	}
	a.outputs([2]string{"verdict", out.Verdict}, [2]string{"report", out.ComparisonPath}, [2]string{"comment-url", url})
	switch out.Verdict {
	case compare.Fail:
		if !a.in.failOnRegression {
			a.gha.Warningf("perfgate: %s; fail-on-regression is false, so the step passes", countNoun(len(out.Regressions), "regression"))
			return nil
		}
		return withCode(exitRegression, errSilentFail)
	case compare.Incomparable:
		msg := "the baselines were measured on a different environment: " + r.Comparison.Reason
		if !a.in.failOnRegression {
			a.gha.Warningf("%s", "perfgate: "+msg)
			return nil
		}
		a.gha.Errorf("%s", "perfgate: "+msg)
		return withCode(exitUsage, errSilentFail)
	case compare.Undecided:
		if out.FailOnInconclusive {
			a.gha.Errorf("%s", "perfgate: inconclusive, and on-inconclusive is fail: "+r.Comparison.Reason)
			return withCode(exitRegression, errSilentFail)
		}
		a.gha.Warningf("%s", "perfgate: inconclusive: "+r.Comparison.Reason)
	}
	return nil
}

// countNoun is n with its noun, pluralized with s.
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// printText prints the text report in a log group. The group is fenced by
// stop-commands with a random token, so that a scenario name (which the pull
// request controls) at the start of a line cannot act as a workflow command.
func (a *action) printText(r *report.Report) {
	var b strings.Builder
	if err := report.Text(&b, r); err != nil {
		a.gha.Warningf("%s", err.Error())
		return
	}
	tok := randomToken()
	a.gha.Group("perfgate report")
	a.gha.IssueCommand(&githubactions.Command{Name: "stop-commands", Message: tok})
	fmt.Fprint(a.e.stdout, b.String())
	fmt.Fprintf(unguarded(a.e.stdout), "::%s::\n", tok)
	a.gha.EndGroup()
}

// summary appends the full markdown report to the step summary.
func (a *action) summary(r *report.Report) {
	path := a.e.getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return
	}
	var b strings.Builder
	if err := report.Markdown(&b, r, report.Options{MaxBytes: report.SummaryMaxBytes}); err != nil {
		a.gha.Warningf("%s", err.Error())
		return
	}
	if err := appendFile(path, b.String()); err != nil {
		a.gha.Warningf("perfgate: writing the step summary: %s", err.Error())
	}
}

// marker is the hidden marker of this config's comment: one comment per
// config file on a pull request.
func (a *action) marker() string {
	if a.in.config == "perfgate.yaml" {
		return githubapi.Marker("")
	}
	return githubapi.Marker(a.in.config)
}

// comment keeps the pull request's sticky comment up to date and returns
// its URL. Any failure is a warning: the verdict stands without a comment.
func (a *action) comment(ctx context.Context, number int, r *report.Report) string {
	if a.in.token == "" {
		a.gha.Warningf("perfgate: no github-token input: the pull request comment is skipped")
		return ""
	}
	repo, err := githubapi.ParseRepo(a.gh.repository)
	if err != nil {
		a.gha.Warningf("perfgate: no comment: GITHUB_REPOSITORY: %s", err.Error())
		return ""
	}
	var body strings.Builder
	if err := report.Markdown(&body, r, report.Options{MaxBytes: githubapi.MaxCommentChars, Marker: a.marker()}); err != nil {
		a.gha.Warningf("%s", err.Error())
		return ""
	}
	client, err := githubapi.New(a.gh.apiURL, a.in.token)
	if err != nil {
		a.gha.Warningf("perfgate: no comment: %s", err.Error())
		return ""
	}
	c, created, err := client.Upsert(ctx, githubapi.Sticky{Repo: repo, Number: number, Marker: a.marker(), Login: a.in.commentAuthor}, body.String())
	switch {
	case errors.Is(err, githubapi.ErrForbidden):
		a.gha.Warningf("%s", fmt.Sprintf("perfgate: could not comment on #%d: the token may not write comments. On a pull request from a fork the workflow token is read-only: use the fork-safe pair (pull_request uploads comment-dir, a workflow_run job posts it). %v", number, err))
		return ""
	case err != nil:
		a.gha.Warningf("%s", fmt.Sprintf("perfgate: could not comment on #%d: %v", number, err))
		return ""
	}
	verb := "updated"
	if created {
		verb = "posted"
	}
	a.gha.Infof("%s", fmt.Sprintf("perfgate: %s the comment %s", verb, c.HTMLURL))
	return c.HTMLURL
}

// outputs writes step outputs to $GITHUB_OUTPUT. Each value is written as a
// heredoc with a fresh random delimiter (go-githubactions uses a fixed one,
// which a value could contain and so forge other outputs); a value holding
// its delimiter is impossible to write safely and is refused.
func (a *action) outputs(kv ...[2]string) {
	path := a.e.getenv("GITHUB_OUTPUT")
	if path == "" {
		return
	}
	var b strings.Builder
	for _, p := range kv {
		if p[0] == "verdict" && !slices.Contains(actionVerdicts(), p[1]) {
			// Only a documented value: a later step may put it in a shell.
			a.gha.Warningf("%s", fmt.Sprintf("perfgate: verdict %q is not one perfgate writes: the verdict output is \"error\"", p[1]))
			p[1] = "error"
		}
		delim := "ghadelimiter_" + randomToken()
		if strings.Contains(p[1], delim) {
			a.gha.Warningf("perfgate: output %s holds its delimiter: not written", p[0])
			continue
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", p[0], delim, p[1], delim)
	}
	if err := appendFile(path, b.String()); err != nil {
		a.gha.Warningf("perfgate: writing outputs: %s", err.Error())
	}
}

// randomToken is 16 random bytes in hex.
func randomToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

// appendFile appends s to the file at path, creating it.
func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, s); err != nil {
		f.Close()
		return fmt.Errorf("appending to %q: %w", path, err)
	}
	return f.Close()
}

// ghContext is what the action reads of the runner's GITHUB_* variables.
type ghContext struct {
	apiURL, serverURL, repository, runID, runAttempt string
	eventName                                        string
	eventPath                                        string
	event                                            *ghEvent
}

// ghEvent is the part of the event payload (GITHUB_EVENT_PATH) read.
type ghEvent struct {
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
		// Base is the commit the pull request merges into (compare-with base).
		Base struct {
			SHA string `json:"sha"`
		} `json:"base"`
	} `json:"pull_request"`
	// WorkflowRun is set for workflow_run events (the fork-safe comment job).
	WorkflowRun *struct {
		HeadSHA    string `json:"head_sha"`
		HTMLURL    string `json:"html_url"`
		Event      string `json:"event"`
		Conclusion string `json:"conclusion"`
	} `json:"workflow_run"`
}

// prNumber is the pull request's number, 0 when the event is not one.
func (ev *ghEvent) prNumber() int {
	if ev == nil || ev.PullRequest == nil {
		return 0
	}
	return ev.PullRequest.Number
}

// headSHA is the pull request's head commit (not GITHUB_SHA, which for a
// pull_request event is the temporary merge commit), or "".
func (ev *ghEvent) headSHA() string {
	if ev == nil || ev.PullRequest == nil {
		return ""
	}
	return ev.PullRequest.Head.SHA
}

// maxEventBytes bounds the event payload read.
const maxEventBytes = 32 << 20

// readGitHub reads the GITHUB_* variables and the event payload.
func readGitHub(e *env) (ghContext, error) {
	gh := ghContext{apiURL: e.getenv("GITHUB_API_URL"), serverURL: e.getenv("GITHUB_SERVER_URL"),
		repository: e.getenv("GITHUB_REPOSITORY"), runID: e.getenv("GITHUB_RUN_ID"),
		runAttempt: e.getenv("GITHUB_RUN_ATTEMPT"), eventName: e.getenv("GITHUB_EVENT_NAME"), event: &ghEvent{}}
	if gh.serverURL == "" {
		gh.serverURL = "https://github.com"
	}
	path := e.getenv("GITHUB_EVENT_PATH")
	gh.eventPath = path
	if path == "" {
		return gh, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return gh, fmt.Errorf("reading the event payload: %w", err)
	}
	defer f.Close()
	if err := json.NewDecoder(io.LimitReader(f, maxEventBytes)).Decode(gh.event); err != nil {
		return gh, fmt.Errorf("decoding the event payload %q: %w", path, err)
	}
	if sha := gh.event.headSHA(); sha != "" && !isSHA(sha) {
		return gh, fmt.Errorf("event payload %q: pull_request.head.sha %q is not a commit id", path, sha)
	}
	return gh, nil
}

// runURL links to this workflow run (its page shows the step summaries).
func (gh ghContext) runURL() string {
	if gh.repository == "" || gh.runID == "" {
		return ""
	}
	u := fmt.Sprintf("%s/%s/actions/runs/%s", strings.TrimRight(gh.serverURL, "/"), gh.repository, gh.runID)
	if gh.runAttempt != "" && gh.runAttempt != "1" {
		u += "/attempts/" + gh.runAttempt
	}
	return u
}

var shaRE = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// isSHA reports whether s is a full SHA-1 or SHA-256 commit id.
func isSHA(s string) bool { return shaRE.MatchString(s) }

// baseline runs every scenario and writes the baselines atomically. They
// are left in the work tree, uncommitted: a following step commits them or
// opens a pull request (peter-evans/create-pull-request), so that new
// baselines are reviewed like code and the action needs no write access.
func (a *action) baseline(ctx context.Context, p pipelines) error {
	written, err := p.baseline(ctx, a.e, a.in.config, a.in.baselines)
	if err != nil {
		a.gha.Errorf("%s", err.Error())
		a.outputs([2]string{"verdict", "error"})
		return err
	}
	dir := a.in.baselines
	if dir == "" {
		if c, err := config.ReadFile(a.path(a.in.config)); err == nil {
			dir = c.Resolve(c.Baselines)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## perfgate: baselines stored\n\n%d baseline files written to `%s`:\n\n", len(written), strings.ReplaceAll(dir, "`", "'"))
	b.WriteString(baselineTable(written))
	b.WriteString("\nThey are left in the work tree, not committed: a following step commits them or opens a pull request.\n")
	if path := a.e.getenv("GITHUB_STEP_SUMMARY"); path != "" {
		if err := appendFile(path, b.String()); err != nil {
			a.gha.Warningf("perfgate: writing the step summary: %s", err.Error())
		}
	}
	a.gha.Noticef("%s", fmt.Sprintf("perfgate: %d baselines written to %s (not committed)", len(written), dir))
	a.outputs([2]string{"verdict", "baseline"}, [2]string{"baselines", dir})
	return nil
}

// baselineTable is the markdown table of the stored baselines' figures:
// what each file holds, so the summary says what was measured, not only
// where it went.
func baselineTable(paths []string) string {
	var b strings.Builder
	b.WriteString("| file | scenario | layer | load | requests | errors | P50 ms | P99 ms | max QPS under SLO |\n")
	b.WriteString("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	cell := func(s string) string { return strings.NewReplacer("|", "\\|", "`", "'", "\n", " ").Replace(s) }
	for _, p := range paths {
		r, err := result.ReadFile(p)
		if err != nil {
			fmt.Fprintf(&b, "| `%s` | unreadable: %s | | | | | | | |\n", cell(p), cell(err.Error()))
			continue
		}
		load := r.Load.Mode
		switch r.Load.Mode {
		case "rate":
			load = fmt.Sprintf("%g/s", r.Load.Rate)
		case "concurrency":
			load = fmt.Sprintf("%d in flight", r.Load.Concurrency)
		}
		knee := "–"
		if r.Capacity != nil && r.Capacity.MaxQPS > 0 {
			knee = fmt.Sprintf("%.1f", r.Capacity.MaxQPS)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %d | %d | %.2f | %.2f | %s |\n", cell(filepath.Base(p)), cell(r.Scenario), cell(r.Layer),
			cell(load), r.Summary.Requests, r.Summary.Errors, r.Summary.Latency.P50, r.Summary.Latency.P99, knee)
	}
	return b.String()
}

// The comment bundle: what a pull_request job on a fork's code hands to the
// trusted workflow_run job that posts the comment.
const (
	bundleReport    = "report.json"
	bundlePR        = "pr.json"
	bundleBaseline  = "baseline"
	bundleCandidate = "candidate"
	maxBundleFiles  = 1000
)

// bundlePRInfo is pr.json.
type bundlePRInfo struct {
	Number  int    `json:"number"`
	HeadSHA string `json:"head_sha"`
}

// writeBundle writes the comment bundle to dir: the report document, the
// pull request's number and head, and the results (for the charts).
func writeBundle(dir string, r *report.Report, number int, headSHA string) error {
	for _, sub := range []string{bundleBaseline, bundleCandidate} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return fmt.Errorf("writing the comment bundle: %w", err)
		}
	}
	err := result.WriteFileAtomic(filepath.Join(dir, bundleReport), func(w io.Writer) error { return report.JSON(w, r) })
	if err == nil {
		err = result.WriteFileAtomic(filepath.Join(dir, bundlePR), func(w io.Writer) error {
			return json.NewEncoder(w).Encode(bundlePRInfo{Number: number, HeadSHA: headSHA})
		})
	}
	for _, side := range []struct {
		sub string
		rs  []*result.Result
	}{{bundleBaseline, r.Baseline}, {bundleCandidate, r.Candidate}} {
		for i, res := range side.rs {
			if err == nil && res != nil {
				// Numbered, never named after a scenario: names come from the PR.
				err = res.WriteFile(filepath.Join(dir, side.sub, fmt.Sprintf("%04d.json", i)))
			}
		}
	}
	if err != nil {
		return fmt.Errorf("writing the comment bundle to %q: %w", dir, err)
	}
	return nil
}

// readBundle reads a comment bundle. Everything in it is untrusted (a fork's
// workflow can upload anything): the report is re-rendered here, with
// every name escaped, and the pull request it names is checked by the caller.
func readBundle(dir string) (*report.Report, bundlePRInfo, error) {
	var info bundlePRInfo
	data, err := os.ReadFile(filepath.Join(dir, bundlePR))
	if err != nil {
		return nil, info, fmt.Errorf("reading the comment bundle: %w", err)
	}
	if err := json.Unmarshal(data, &info); err != nil || info.Number <= 0 || !isSHA(info.HeadSHA) {
		return nil, info, fmt.Errorf("comment bundle %q: want {\"number\": N > 0, \"head_sha\": a commit id}", filepath.Join(dir, bundlePR))
	}
	f, err := os.Open(filepath.Join(dir, bundleReport))
	if err != nil {
		return nil, info, fmt.Errorf("reading the comment bundle: %w", err)
	}
	defer f.Close()
	r, err := report.Decode(io.LimitReader(f, 64<<20))
	if err != nil {
		return nil, info, fmt.Errorf("comment bundle %q: %w", filepath.Join(dir, bundleReport), err)
	}
	for _, side := range []struct {
		sub string
		dst *[]*result.Result
	}{{bundleBaseline, &r.Baseline}, {bundleCandidate, &r.Candidate}} {
		paths, _ := filepath.Glob(filepath.Join(dir, side.sub, "*.json"))
		if len(paths) > maxBundleFiles {
			return nil, info, fmt.Errorf("comment bundle %q: %d result files, at most %d", dir, len(paths), maxBundleFiles)
		}
		for _, p := range paths {
			res, err := result.ReadFile(p)
			if err != nil {
				return nil, info, fmt.Errorf("comment bundle: %w", err)
			}
			*side.dst = append(*side.dst, res)
		}
	}
	return r, info, nil
}

// commentFromBundle is comment mode, the trusted half of the fork-safe
// pair: it runs on workflow_run with a writable token, reads the bundle the
// pull_request run uploaded, checks that the pull request it names has the
// head commit that run measured, and posts the comment. The verdict was the
// pull_request run's; this step fails only on bad input.
func (a *action) commentFromBundle(ctx context.Context) error {
	if a.in.commentFrom == "" {
		return usageErr("action: mode comment needs the comment-from input (or --comment-from DIR)")
	}
	r, info, err := readBundle(a.path(a.in.commentFrom))
	if err != nil {
		a.gha.Errorf("%s", err.Error())
		return usageErr("action: %w", err)
	}
	wr := a.gh.event.WorkflowRun
	if wr == nil {
		if a.gh.eventName != "workflow_run" {
			return usageErr("action: mode comment runs on a workflow_run event; GITHUB_EVENT_NAME is %q", a.gh.eventName)
		}
		if a.gh.eventPath == "" {
			return usageErr("action: mode comment reads the workflow_run event payload, but GITHUB_EVENT_PATH is not set")
		}
		return usageErr("action: the event payload %s has no workflow_run object: mode comment needs the workflow_run event's payload (its head_sha and html_url)", a.gh.eventPath)
	}
	if info.HeadSHA != wr.HeadSHA {
		msg := fmt.Sprintf("the bundle is for commit %s but the triggering run measured %s: not posted", info.HeadSHA, wr.HeadSHA)
		a.gha.Errorf("%s", "perfgate: "+msg)
		return usageErr("action: %s", msg)
	}
	r.Commit, r.RunURL, r.SummaryURL = info.HeadSHA, wr.HTMLURL, wr.HTMLURL
	a.summary(r)
	url := ""
	if a.in.comment {
		url = a.checkedComment(ctx, info, r)
	}
	a.outputs([2]string{"verdict", r.Comparison.Verdict}, [2]string{"comment-url", url})
	return nil
}

// checkedComment posts the bundle's comment after checking with the API
// that pull request info.Number's head is info.HeadSHA, so that a bundle
// cannot aim its comment at another pull request.
func (a *action) checkedComment(ctx context.Context, info bundlePRInfo, r *report.Report) string {
	repo, err := githubapi.ParseRepo(a.gh.repository)
	if err != nil || a.in.token == "" {
		a.gha.Warningf("perfgate: no comment: a github-token and GITHUB_REPOSITORY are needed")
		return ""
	}
	client, err := githubapi.New(a.gh.apiURL, a.in.token)
	if err != nil {
		a.gha.Warningf("perfgate: no comment: %s", err.Error())
		return ""
	}
	pr, err := client.GetPullRequest(ctx, repo, info.Number)
	if err != nil {
		a.gha.Warningf("perfgate: no comment: %s", err.Error())
		return ""
	}
	if pr.Head.SHA != info.HeadSHA {
		a.gha.Warningf("%s", fmt.Sprintf("perfgate: no comment: #%d's head is now %s, not the measured %s (a newer run will comment)", info.Number, pr.Head.SHA, info.HeadSHA))
		return ""
	}
	return a.comment(ctx, info.Number, r)
}

// actionVerdicts are the values the action writes to its verdict output:
// a comparison's verdict, "baseline" (baseline mode) or "error". Nothing
// else is ever written there, whatever a bundle says.
func actionVerdicts() []string {
	return []string{compare.Pass, compare.Fail, compare.NoBaseline, compare.Incomparable, "inconclusive", "baseline", "error"}
}
