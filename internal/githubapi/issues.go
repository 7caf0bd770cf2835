package githubapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// ChangePointLabel is the label of perfgate's change-point issue: the
// baseline job with history-issue comments on the open issue carrying it,
// and opens one (with it) only when there is none.
const ChangePointLabel = "perfgate-change-point"

// ChangePointMarker is the hidden text in the body of the issue perfgate
// opens; among several open issues with ChangePointLabel, one carrying it
// is preferred.
const ChangePointMarker = "<!-- perfgate:change-points -->"

// Label is an issue's label.
type Label struct {
	Name string `json:"name"`
}

// Issue is the part of an issue perfgate reads.
type Issue struct {
	Number  int     `json:"number"`
	Title   string  `json:"title"`
	Body    string  `json:"body"`
	State   string  `json:"state"`
	HTMLURL string  `json:"html_url"`
	Labels  []Label `json:"labels"`
	// PullRequest is set when the "issue" is a pull request: GitHub's
	// issue list holds both.
	PullRequest *struct {
		URL string `json:"url"`
	} `json:"pull_request,omitempty"`
}

// NewIssue is the body of a request to open an issue.
type NewIssue struct {
	Title  string   `json:"title"`
	Body   string   `json:"body"`
	Labels []string `json:"labels,omitempty"`
}

// ListOpenIssues returns the open issues of repo carrying label (pull
// requests left out), newest first, following the Link header's pages.
func (c *Client) ListOpenIssues(ctx context.Context, repo Repo, label string) ([]Issue, error) {
	req := request{
		method:     http.MethodGet,
		path:       repo.path("issues"),
		query:      url.Values{"state": {"open"}, "labels": {label}, "per_page": {"100"}},
		idempotent: true,
	}
	list, err := listPages[Issue](ctx, c, req, fmt.Sprintf("listing the open issues of %s labelled %s", repo, label))
	if err != nil {
		return nil, err
	}
	var issues []Issue
	for _, is := range list {
		if is.PullRequest == nil {
			issues = append(issues, is)
		}
	}
	return issues, nil
}

// CreateIssue opens an issue. It is not retried after a server error (the
// issue may have been opened).
func (c *Client) CreateIssue(ctx context.Context, repo Repo, is NewIssue) (*Issue, error) {
	if strings.TrimSpace(is.Title) == "" {
		return nil, fmt.Errorf("opening an issue on %s: empty title", repo)
	}
	if err := checkBody(is.Body); err != nil {
		return nil, fmt.Errorf("opening an issue on %s: %w", repo, err)
	}
	var out Issue
	if _, err := c.do(ctx, request{method: http.MethodPost, path: repo.path("issues"), body: is}, &out); err != nil {
		return nil, fmt.Errorf("opening an issue on %s: %w", repo, err)
	}
	return &out, nil
}

// ChangePointReport is what ReportChangePoints did.
type ChangePointReport struct {
	// Issue is the issue written to; Opened is true when it was opened
	// now, false when it was commented on.
	Issue  int
	Opened bool
	// URL is the new issue's, or the new comment's.
	URL string
}

// ReportChangePoints tells repo about new change points: it comments body on
// the open issue labelled ChangePointLabel (the one carrying
// ChangePointMarker when several are open, else the newest), or, when none
// is open, opens one with title, body (marked) and the label. So a team
// gets one running issue per stretch of changes instead of one issue a
// change; closing it lets the next change open a new one.
func (c *Client) ReportChangePoints(ctx context.Context, repo Repo, title, body string) (*ChangePointReport, error) {
	if body == "" {
		return nil, errors.New("reporting change points: empty body")
	}
	open, err := c.ListOpenIssues(ctx, repo, ChangePointLabel)
	if err != nil {
		return nil, err
	}
	if len(open) > 0 {
		target := open[0]
		for _, is := range open {
			if strings.Contains(is.Body, ChangePointMarker) {
				target = is
				break
			}
		}
		cm, err := c.CreateIssueComment(ctx, repo, target.Number, body)
		if err != nil {
			return nil, err
		}
		return &ChangePointReport{Issue: target.Number, URL: cm.HTMLURL}, nil
	}
	is, err := c.CreateIssue(ctx, repo, NewIssue{Title: title, Body: ChangePointMarker + "\n" + body, Labels: []string{ChangePointLabel}})
	if err != nil {
		return nil, err
	}
	return &ChangePointReport{Issue: is.Number, Opened: true, URL: is.HTMLURL}, nil
}
