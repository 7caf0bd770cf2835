package ghaction

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/internal/githubapi"
	"github.com/perfgate/perfgate/report"
	"github.com/sethvargo/go-githubactions"
)

// printText prints the text report in a log group. The group is fenced by
// stop-commands with a random token, so that a scenario name (which the pull
// request controls) at the start of a line cannot act as a workflow command.
func (a *Action) printText(r *report.Report) {
	var b strings.Builder
	if err := report.Text(&b, r); err != nil {
		a.gha.Warningf("%s", err.Error())
		return
	}
	tok := randomToken()
	a.gha.Group("perfgate report")
	a.gha.IssueCommand(&githubactions.Command{Name: "stop-commands", Message: tok})
	fmt.Fprint(a.env.Stdout, b.String())
	fmt.Fprintf(a.env.commands(), "::%s::\n", tok)
	a.gha.EndGroup()
}

// summary appends the full markdown report to the step summary.
func (a *Action) summary(r *report.Report) {
	var b strings.Builder
	if err := report.Markdown(&b, r, report.Options{MaxBytes: report.SummaryMaxBytes}); err != nil {
		a.gha.Warningf("%s", err.Error())
		return
	}
	a.appendSummary(b.String())
}

// appendSummary appends s to the step summary, if the runner names one.
func (a *Action) appendSummary(s string) {
	path := a.env.Getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return
	}
	if err := appendFile(path, s); err != nil {
		a.gha.Warningf("perfgate: writing the step summary: %s", err.Error())
	}
}

// outputs writes step outputs.
func (a *Action) outputs(outs ...Output) { Outputs(a.gha, a.env.Getenv, outs...) }

// marker is the hidden marker of this config's comment: one comment per
// config file on a pull request.
func (a *Action) marker() string {
	if a.in.Config == DefaultConfig {
		return githubapi.Marker("")
	}
	return githubapi.Marker(a.in.Config)
}

// comment keeps the pull request's sticky comment up to date and returns
// its URL. Any failure is a warning: the verdict stands without a comment.
func (a *Action) comment(ctx context.Context, number int, r *report.Report) string {
	if a.in.Token == "" {
		a.gha.Warningf("perfgate: no github-token input: the pull request comment is skipped")
		return ""
	}
	repo, err := githubapi.ParseRepo(a.gh.Repository)
	if err != nil {
		a.gha.Warningf("perfgate: no comment: GITHUB_REPOSITORY: %s", err.Error())
		return ""
	}
	var body strings.Builder
	if err := report.Markdown(&body, r, report.Options{MaxBytes: githubapi.MaxCommentChars, Marker: a.marker()}); err != nil {
		a.gha.Warningf("%s", err.Error())
		return ""
	}
	client, err := githubapi.New(a.gh.APIURL, a.in.Token)
	if err != nil {
		a.gha.Warningf("perfgate: no comment: %s", err.Error())
		return ""
	}
	c, created, err := client.Upsert(ctx, githubapi.Sticky{Repo: repo, Number: number, Marker: a.marker(), Login: a.in.CommentAuthor}, body.String())
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

// checkedComment posts the bundle's comment after checking with the API
// that pull request info.Number's head is info.HeadSHA, so that a bundle
// cannot aim its comment at another pull request.
func (a *Action) checkedComment(ctx context.Context, info BundlePR, r *report.Report) string {
	repo, err := githubapi.ParseRepo(a.gh.Repository)
	if err != nil || a.in.Token == "" {
		a.gha.Warningf("perfgate: no comment: a github-token and GITHUB_REPOSITORY are needed")
		return ""
	}
	client, err := githubapi.New(a.gh.APIURL, a.in.Token)
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
