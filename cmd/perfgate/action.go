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
	"time"

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
}

// pipelines are the stages the action drives. cmdAction uses the real ones;
// tests pass their own.
type pipelines struct {
	gate     func(ctx context.Context, e *env, cfgPath, baselinesDir string, allowEnvMismatch bool) (*gateOutcome, error)
	baseline func(ctx context.Context, e *env, cfgPath, baselinesDir string) error
}

// cmdAction is the GitHub Action's entry point: it reads INPUT_* and
// GITHUB_*, runs the gate (or stores baselines, or posts the comment of a
// fork's run), and reports through the step summary, annotations, outputs
// and one sticky pull request comment.
func cmdAction(ctx context.Context, e *env, args []string) error {
	return runAction(ctx, e, args, pipelines{gate: runGatePipeline, baseline: runBaselinePipeline})
}

// actionInputs are the action's inputs (action.yml).
type actionInputs struct {
	config, token, mode, baselines string
	failOnRegression, comment      bool
	allowEnvMismatch               bool
	// commentDir is where gate mode writes the comment bundle for the
	// fork-safe workflow_run job; commentFrom is where comment mode reads it.
	commentDir, commentFrom string
}

// input reads an action input: INPUT_GITHUB-TOKEN as the runner sets it for
// JavaScript and Docker actions, or INPUT_GITHUB_TOKEN as a composite
// action's env: can spell it.
func input(gha *githubactions.Action, getenv func(string) string, name string) string {
	if v := gha.GetInput(name); v != "" {
		return v
	}
	return strings.TrimSpace(getenv("INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))))
}

// readInputs reads and checks the inputs other than the token.
func readInputs(gha *githubactions.Action, getenv func(string) string, token string) (actionInputs, error) {
	in := actionInputs{token: token, config: input(gha, getenv, "config"), mode: input(gha, getenv, "mode"),
		baselines: input(gha, getenv, "baselines"), commentDir: input(gha, getenv, "comment-dir"),
		commentFrom: input(gha, getenv, "comment-from")}
	if in.config == "" {
		in.config = "perfgate.yaml"
	}
	if in.mode == "" {
		in.mode = "gate"
	}
	if !slices.Contains([]string{"gate", "baseline", "comment"}, in.mode) {
		return in, fmt.Errorf("input mode is %q, want gate, baseline or comment", in.mode)
	}
	for _, b := range []struct {
		name string
		dst  *bool
		def  bool
	}{{"fail-on-regression", &in.failOnRegression, true}, {"comment", &in.comment, true}, {"allow-env-mismatch", &in.allowEnvMismatch, false}} {
		v := input(gha, getenv, b.name)
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
	gha := githubactions.New(githubactions.WithGetenv(e.getenv), githubactions.WithWriter(e.stdout))
	// The token is masked before anything else is printed.
	token := input(gha, e.getenv, "github-token")
	if token != "" {
		gha.AddMask(token)
	}
	fs := flag.NewFlagSet("action", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	commentFrom := fs.String("comment-from", "", "post the comment bundle in `DIR` (written by a gate run with comment-dir) on its pull request")
	if err := fs.Parse(args); err != nil {
		return usageErr("action: %v", err)
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
	out, err := p.gate(ctx, a.e, a.in.config, a.in.baselines, a.in.allowEnvMismatch)
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
		a.gha.WithFieldsMap(map[string]string{"title": "perfgate: performance regression"}).Errorf("%s", reg)
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
			a.gha.Warningf("perfgate: %s; fail-on-regression is false, so the step passes", plural(len(out.Regressions), "regression"))
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
	}
	return nil
}

// plural is n with its noun, pluralized with s.
func plural(n int, noun string) string {
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
	fmt.Fprintf(a.e.stdout, "::%s::\n", tok)
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
	c, created, err := client.Upsert(ctx, githubapi.Sticky{Repo: repo, Number: number, Marker: a.marker()}, body.String())
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
