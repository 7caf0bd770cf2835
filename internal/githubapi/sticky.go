package githubapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// markerPrefix starts every perfgate marker.
const markerPrefix = "<!-- perfgate:comment"

// Marker returns the hidden HTML comment that identifies perfgate's comment on
// a pull request. key separates several perfgate comments on one pull request
// (one per scenario set or config file); "" is the default comment. Characters
// outside [A-Za-z0-9._/-] in key become '-', so the marker stays one valid
// HTML comment whatever the key.
//
//	Marker("")         == "<!-- perfgate:comment -->"
//	Marker("gpu.yaml") == "<!-- perfgate:comment key=gpu.yaml -->"
func Marker(key string) string {
	if key == "" {
		return markerPrefix + " -->"
	}
	var b strings.Builder
	prevDash := false
	for _, r := range key {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '/'
		if !ok {
			// A run of other characters is one dash, so "--" (which ends
			// nothing, but is invalid inside an HTML comment) never appears.
			if !prevDash {
				b.WriteByte('-')
			}
			prevDash = true
			continue
		}
		b.WriteRune(r)
		prevDash = false
	}
	return markerPrefix + " key=" + b.String() + " -->"
}

// Sticky finds and keeps up to date one comment on a pull request.
type Sticky struct {
	Repo   Repo
	Number int
	// Marker is the hidden text (see Marker) the comment carries.
	Marker string
	// Login is the login of the account that writes the comment: the
	// token's identity (DefaultBotLogin, the GITHUB_TOKEN's, when empty).
	// A marked comment by anyone else, another bot or app included, is
	// never taken for ours.
	Login string
	// Owned, when set, replaces the Login check: it reports whether an
	// author may own the comment. Whatever it says, only comments
	// carrying Marker match.
	Owned func(User) bool
}

// DefaultBotLogin is the login of the GITHUB_TOKEN's comments.
const DefaultBotLogin = "github-actions[bot]"

// Find returns the first (oldest) comment among comments that carries s.Marker
// and is written by s.Login (or an author s.Owned accepts), or nil.
func (s Sticky) Find(comments []Comment) *Comment {
	owned := s.Owned
	if owned == nil {
		login := s.Login
		if login == "" {
			login = DefaultBotLogin
		}
		owned = func(u User) bool { return strings.EqualFold(u.Login, login) }
	}
	for i := range comments {
		c := &comments[i]
		if strings.Contains(c.Body, s.Marker) && owned(c.User) {
			return c
		}
	}
	return nil
}

// Upsert makes body the sticky comment: it edits our existing comment in
// place, or creates one when there is none. The marker is appended to body
// when body lacks it. created reports whether a new comment was made.
//
// When creating fails with a server error the comment may exist anyway, so
// Upsert lists the comments again and edits it if it is there, posting again
// only if it is not.
func (c *Client) Upsert(ctx context.Context, s Sticky, body string) (comment *Comment, created bool, err error) {
	if s.Marker == "" || !strings.HasPrefix(s.Marker, markerPrefix) {
		return nil, false, fmt.Errorf("sticky comment marker %q: want one made by Marker", s.Marker)
	}
	if !strings.Contains(body, s.Marker) {
		body = strings.TrimRight(body, "\n") + "\n\n" + s.Marker + "\n"
	}
	const tries = 2
	for try := 1; ; try++ {
		all, err := c.ListIssueComments(ctx, s.Repo, s.Number)
		if err != nil {
			return nil, false, err
		}
		if old := s.Find(all); old != nil {
			if old.Body == body {
				return old, false, nil
			}
			upd, err := c.UpdateIssueComment(ctx, s.Repo, old.ID, body)
			return upd, false, err
		}
		made, err := c.CreateIssueComment(ctx, s.Repo, s.Number, body)
		var apiErr *APIError
		if err != nil && try < tries && errors.As(err, &apiErr) && apiErr.StatusCode >= 500 {
			if err := c.sleep(ctx, backoff(c.policy(), try)); err != nil {
				return nil, false, fmt.Errorf("commenting on %s#%d: waiting to retry: %w", s.Repo, s.Number, err)
			}
			continue
		}
		return made, err == nil, err
	}
}
