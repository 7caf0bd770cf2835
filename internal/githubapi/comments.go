package githubapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxCommentChars is GitHub's limit on a comment body, in characters.
const MaxCommentChars = 65536

// maxPages bounds pagination: 100 pages of 100 comments.
const maxPages = 100

// Comment is an issue (or pull request conversation) comment.
type Comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
	User    User   `json:"user"`
}

// User is a comment's author.
type User struct {
	Login string `json:"login"`
	// Type is "User", "Bot" or "Organization".
	Type string `json:"type"`
}

// IsBot reports whether u is a bot account: a GitHub App (the GITHUB_TOKEN's
// github-actions[bot] among them). A human account is never a bot, whatever
// its login.
func (u User) IsBot() bool {
	return u.Type == "Bot"
}

// Repo names a repository.
type Repo struct {
	Owner, Name string
}

// ParseRepo splits "owner/name" (GITHUB_REPOSITORY).
func ParseRepo(s string) (Repo, error) {
	owner, name, ok := strings.Cut(s, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return Repo{}, fmt.Errorf("repository %q: want owner/name", s)
	}
	return Repo{Owner: owner, Name: name}, nil
}

// String is "owner/name".
func (r Repo) String() string { return r.Owner + "/" + r.Name }

// issuePath is /repos/{owner}/{repo}/issues with each name escaped.
func (r Repo) path(parts ...string) string {
	p := "repos/" + url.PathEscape(r.Owner) + "/" + url.PathEscape(r.Name)
	for _, s := range parts {
		p += "/" + s
	}
	return p
}

// ListIssueComments returns every comment of issue (or pull request) number,
// oldest first, following the Link header's rel="next" pages.
func (c *Client) ListIssueComments(ctx context.Context, repo Repo, number int) ([]Comment, error) {
	req := request{
		method:     http.MethodGet,
		path:       repo.path("issues", strconv.Itoa(number), "comments"),
		query:      url.Values{"per_page": {"100"}},
		idempotent: true,
	}
	return listPages[Comment](ctx, c, req, fmt.Sprintf("listing comments of %s#%d", repo, number))
}

// listPages gets req and every page after it that the Link header's
// rel="next" names (at most maxPages, and only on the API's own host,
// where the token may go), and returns their items in order. what names
// the listing in errors.
func listPages[T any](ctx context.Context, c *Client, req request, what string) ([]T, error) {
	var all []T
	for page := 1; ; page++ {
		var batch []T
		h, err := c.do(ctx, req, &batch)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		all = append(all, batch...)
		next := nextLink(h.Values("Link"))
		if next == "" {
			return all, nil
		}
		if page >= maxPages {
			return nil, fmt.Errorf("%s: more than %d pages", what, maxPages)
		}
		u, err := c.base.Parse(next)
		if err != nil {
			return nil, fmt.Errorf("%s: next page %q: %w", what, next, err)
		}
		// The token goes only to the API's own host.
		if u.Scheme != c.base.Scheme || u.Host != c.base.Host {
			return nil, fmt.Errorf("%s: next page %q is not on %s", what, next, c.base.Host)
		}
		req.url = u
	}
}

// CreateIssueComment posts a new comment on issue (or pull request) number.
// It is not retried after a server error (the comment may have been made);
// UpsertSticky handles that case.
func (c *Client) CreateIssueComment(ctx context.Context, repo Repo, number int, body string) (*Comment, error) {
	if err := checkBody(body); err != nil {
		return nil, fmt.Errorf("commenting on %s#%d: %w", repo, number, err)
	}
	var out Comment
	_, err := c.do(ctx, request{
		method: http.MethodPost,
		path:   repo.path("issues", strconv.Itoa(number), "comments"),
		body:   map[string]string{"body": body},
	}, &out)
	if err != nil {
		return nil, fmt.Errorf("commenting on %s#%d: %w", repo, number, err)
	}
	return &out, nil
}

// UpdateIssueComment replaces the body of comment id.
func (c *Client) UpdateIssueComment(ctx context.Context, repo Repo, id int64, body string) (*Comment, error) {
	if err := checkBody(body); err != nil {
		return nil, fmt.Errorf("editing comment %d of %s: %w", id, repo, err)
	}
	var out Comment
	_, err := c.do(ctx, request{
		method:     http.MethodPatch,
		path:       repo.path("issues", "comments", strconv.FormatInt(id, 10)),
		body:       map[string]string{"body": body},
		idempotent: true,
	}, &out)
	if err != nil {
		return nil, fmt.Errorf("editing comment %d of %s: %w", id, repo, err)
	}
	return &out, nil
}

// checkBody rejects a body GitHub would refuse for its length.
func checkBody(body string) error {
	if n := utf8.RuneCountInString(body); n > MaxCommentChars {
		return fmt.Errorf("body is %d characters, GitHub allows %d", n, MaxCommentChars)
	}
	return nil
}

// nextLink returns the rel="next" target of Link header values, or "".
//
//	Link: <https://api.github.com/…?page=2>; rel="next", <…?page=5>; rel="last"
func nextLink(values []string) string {
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			target, params, ok := strings.Cut(part, ";")
			if !ok {
				continue
			}
			target = strings.TrimSpace(target)
			if len(target) < 2 || target[0] != '<' || target[len(target)-1] != '>' {
				continue
			}
			for _, p := range strings.Split(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				if strings.EqualFold(strings.TrimSpace(k), "rel") {
					for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(val), `"`)) {
						if rel == "next" {
							return target[1 : len(target)-1]
						}
					}
				}
			}
		}
	}
	return ""
}

// PullRequest is the part of a pull request perfgate reads.
type PullRequest struct {
	Number int    `json:"number"`
	State  string `json:"state"`
	Head   struct {
		SHA string `json:"sha"`
	} `json:"head"`
}

// GetPullRequest reads pull request number. The fork-safe comment job uses
// it to check that the pull request an artifact names is the one whose run
// produced it (same head commit).
func (c *Client) GetPullRequest(ctx context.Context, repo Repo, number int) (*PullRequest, error) {
	var out PullRequest
	_, err := c.do(ctx, request{
		method:     http.MethodGet,
		path:       repo.path("pulls", strconv.Itoa(number)),
		idempotent: true,
	}, &out)
	if err != nil {
		return nil, fmt.Errorf("reading pull request %s#%d: %w", repo, number, err)
	}
	return &out, nil
}
