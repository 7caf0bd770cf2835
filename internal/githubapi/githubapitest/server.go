// Package githubapitest is a local fake of the part of GitHub's REST API that
// package githubapi uses, for tests: issue comments, listed page by page,
// created and edited; issues, listed by label and opened. Like net/http/httptest it serves on 127.0.0.1.
//
// The fake is strict where GitHub is: it checks each request's method, path,
// Accept, X-GitHub-Api-Version, bearer token and JSON body, refuses bodies
// over 65,536 characters, and reports through t.Errorf any attempt to edit a
// comment its token's identity did not write (a human's comment). Failures
// (5xx, secondary rate limits, the read-only token of a fork) can be queued.
package githubapitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/githubapi"
)

// Bot is the identity the fake's token writes as.
var Bot = githubapi.User{Login: "github-actions[bot]", Type: "Bot"}

// Request is one request the fake received.
type Request struct {
	Method, Path, Query string
	// Body is the "body" field of a POST or PATCH.
	Body string
	// Title and Labels are the fields of a POST that opens an issue.
	Title  string
	Labels []string
	// Status is what the fake answered.
	Status int
}

// Failure is an answer to give instead of serving a request.
type Failure struct {
	// Method matches the request's method; "" matches any.
	Method string
	Status int
	Header http.Header
	// Message is GitHub's error message in the JSON body.
	Message string
}

// Server is the fake API. Its fields may be set before the first request.
type Server struct {
	*httptest.Server
	// Token is the only bearer token accepted.
	Token string
	// Owner and Repo name the one repository served.
	Owner, Repo string
	// PageSize caps the comments per page, to force pagination.
	PageSize int
	// ReadOnly answers every write with 403, as GitHub does for the
	// read-only token of a pull request from a fork.
	ReadOnly bool
	// HeadSHA maps a pull request number to its head commit; GET
	// /repos/{owner}/{repo}/pulls/{n} answers 404 for numbers not in it.
	HeadSHA map[int]string

	t        testing.TB
	mu       sync.Mutex
	comments map[int][]githubapi.Comment
	nextID   int64
	issues   []githubapi.Issue
	failures []Failure
	log      []Request
}

// NewServer starts a fake for owner/repo accepting token; it is closed when
// the test ends.
func NewServer(t testing.TB, owner, repo, token string) *Server {
	s := &Server{Token: token, Owner: owner, Repo: repo, PageSize: 100, t: t,
		comments: map[int][]githubapi.Comment{}, nextID: 1000, HeadSHA: map[int]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// AddComment stores a comment on issue number as if user had written it.
func (s *Server) AddComment(number int, user githubapi.User, body string) githubapi.Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(number, user, body)
}

func (s *Server) add(number int, user githubapi.User, body string) githubapi.Comment {
	s.nextID++
	c := githubapi.Comment{ID: s.nextID, Body: body, User: user,
		HTMLURL: fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", s.Owner, s.Repo, number, s.nextID)}
	s.comments[number] = append(s.comments[number], c)
	return c
}

// AddIssue stores an open issue (a pull request when pr is set) and
// returns it; issues and pull requests share their numbers, from 1.
func (s *Server) AddIssue(title, body string, labels []string, pr bool) githubapi.Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addIssue(title, body, labels, pr)
}

func (s *Server) addIssue(title, body string, labels []string, pr bool) githubapi.Issue {
	n := len(s.issues) + 1
	is := githubapi.Issue{Number: n, Title: title, Body: body, State: "open",
		HTMLURL: fmt.Sprintf("https://github.com/%s/%s/issues/%d", s.Owner, s.Repo, n)}
	for _, l := range labels {
		is.Labels = append(is.Labels, githubapi.Label{Name: l})
	}
	if pr {
		is.PullRequest = &struct {
			URL string `json:"url"`
		}{URL: fmt.Sprintf("https://api.github.com/repos/%s/%s/pulls/%d", s.Owner, s.Repo, n)}
	}
	s.issues = append(s.issues, is)
	return is
}

// Issues returns a copy of the issues and pull requests, oldest first.
func (s *Server) Issues() []githubapi.Issue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]githubapi.Issue(nil), s.issues...)
}

// Comments returns a copy of the comments on issue number.
func (s *Server) Comments(number int) []githubapi.Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]githubapi.Comment(nil), s.comments[number]...)
}

// Fail queues f: the next request matching f.Method gets it instead of
// being served.
func (s *Server) Fail(f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, f)
}

// Log returns the requests received so far.
func (s *Server) Log() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

var (
	listPath   = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/([0-9]+)/comments$`)
	editPath   = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/([0-9]+)$`)
	issuesPath = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues$`)
	pullPath   = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/([0-9]+)$`)
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	status, out, hdr := s.handle(r, &rec)
	rec.Status = status
	s.log = append(s.log, rec)
	for k, v := range hdr {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(out)
}

type apiError struct {
	Message string `json:"message"`
	DocURL  string `json:"documentation_url,omitempty"`
}

// handle checks and serves one request, returning status, JSON and headers.
func (s *Server) handle(r *http.Request, rec *Request) (int, any, http.Header) {
	if got := r.Header.Get("Authorization"); got != "Bearer "+s.Token {
		return http.StatusUnauthorized, apiError{Message: "Bad credentials"}, nil
	}
	if got := r.Header.Get("Accept"); got != "application/vnd.github+json" {
		s.t.Errorf("%s %s: Accept = %q, want application/vnd.github+json", r.Method, r.URL.Path, got)
		return http.StatusBadRequest, apiError{Message: "bad Accept"}, nil
	}
	if got := r.Header.Get("X-GitHub-Api-Version"); got != githubapi.APIVersion {
		s.t.Errorf("%s %s: X-GitHub-Api-Version = %q, want %s", r.Method, r.URL.Path, got, githubapi.APIVersion)
		return http.StatusBadRequest, apiError{Message: "bad API version"}, nil
	}
	if r.Header.Get("User-Agent") == "" {
		return http.StatusForbidden, apiError{Message: "Request forbidden by administrative rules. Please make sure your request has a User-Agent header"}, nil
	}
	if r.Method == http.MethodPost || r.Method == http.MethodPatch {
		// Opening an issue takes a title and labels beside the body;
		// a comment takes only the body.
		opening := r.Method == http.MethodPost && issuesPath.MatchString(r.URL.Path)
		var in struct {
			Body   *string  `json:"body"`
			Title  *string  `json:"title,omitempty"`
			Labels []string `json:"labels,omitempty"`
		}
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			s.t.Errorf("%s %s: Content-Type = %q, want application/json", r.Method, r.URL.Path, ct)
		}
		err := dec.Decode(&in)
		switch {
		case err != nil || in.Body == nil:
			s.t.Errorf("%s %s: body is not {\"body\": string, ...}: %v", r.Method, r.URL.Path, err)
			return http.StatusUnprocessableEntity, apiError{Message: "Invalid request"}, nil
		case opening && (in.Title == nil || *in.Title == ""):
			s.t.Errorf("%s %s: opening an issue without a title", r.Method, r.URL.Path)
			return http.StatusUnprocessableEntity, apiError{Message: "Invalid request: title wasn't supplied"}, nil
		case !opening && (in.Title != nil || in.Labels != nil):
			s.t.Errorf("%s %s: a comment takes only a body, got title %v labels %v", r.Method, r.URL.Path, in.Title, in.Labels)
			return http.StatusUnprocessableEntity, apiError{Message: "Invalid request"}, nil
		}
		rec.Body, rec.Labels = *in.Body, in.Labels
		if in.Title != nil {
			rec.Title = *in.Title
		}
		if n := utf8.RuneCountInString(*in.Body); n > githubapi.MaxCommentChars {
			return http.StatusUnprocessableEntity, apiError{Message: fmt.Sprintf("Body is too long (maximum is %d characters)", githubapi.MaxCommentChars)}, nil
		}
	}
	for i, f := range s.failures {
		if f.Method == "" || f.Method == r.Method {
			s.failures = append(s.failures[:i], s.failures[i+1:]...)
			return f.Status, apiError{Message: f.Message}, f.Header
		}
	}
	if m := listPath.FindStringSubmatch(r.URL.Path); m != nil && m[1] == s.Owner && m[2] == s.Repo {
		n, _ := strconv.Atoi(m[3])
		switch r.Method {
		case http.MethodGet:
			return s.list(r, n)
		case http.MethodPost:
			if s.ReadOnly {
				return http.StatusForbidden, apiError{Message: "Resource not accessible by integration"}, nil
			}
			return http.StatusCreated, s.add(n, Bot, rec.Body), nil
		}
		return http.StatusMethodNotAllowed, apiError{Message: "method not allowed"}, nil
	}
	if m := issuesPath.FindStringSubmatch(r.URL.Path); m != nil && m[1] == s.Owner && m[2] == s.Repo {
		switch r.Method {
		case http.MethodGet:
			return s.listIssues(r)
		case http.MethodPost:
			if s.ReadOnly {
				return http.StatusForbidden, apiError{Message: "Resource not accessible by integration"}, nil
			}
			return http.StatusCreated, s.addIssue(rec.Title, rec.Body, rec.Labels, false), nil
		}
		return http.StatusMethodNotAllowed, apiError{Message: "method not allowed"}, nil
	}
	if m := pullPath.FindStringSubmatch(r.URL.Path); m != nil && m[1] == s.Owner && m[2] == s.Repo && r.Method == http.MethodGet {
		n, _ := strconv.Atoi(m[3])
		if sha, ok := s.HeadSHA[n]; ok {
			return http.StatusOK, map[string]any{"number": n, "state": "open", "head": map[string]any{"sha": sha}}, nil
		}
		return http.StatusNotFound, apiError{Message: "Not Found"}, nil
	}
	if m := editPath.FindStringSubmatch(r.URL.Path); m != nil && m[1] == s.Owner && m[2] == s.Repo {
		if r.Method != http.MethodPatch {
			return http.StatusMethodNotAllowed, apiError{Message: "method not allowed"}, nil
		}
		if s.ReadOnly {
			return http.StatusForbidden, apiError{Message: "Resource not accessible by integration"}, nil
		}
		id, _ := strconv.ParseInt(m[3], 10, 64)
		for n, cs := range s.comments {
			for i := range cs {
				if cs[i].ID != id {
					continue
				}
				if cs[i].User != Bot {
					s.t.Errorf("PATCH comment %d written by %+v: perfgate must never edit another author's comment", id, cs[i].User)
					return http.StatusForbidden, apiError{Message: "Resource not accessible by integration"}, nil
				}
				s.comments[n][i].Body = rec.Body
				return http.StatusOK, s.comments[n][i], nil
			}
		}
		return http.StatusNotFound, apiError{Message: "Not Found"}, nil
	}
	return http.StatusNotFound, apiError{Message: "Not Found"}, nil
}

// list serves one page of issue n's comments with GitHub's Link header.
func (s *Server) list(r *http.Request, n int) (int, any, http.Header) {
	q := r.URL.Query()
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = 30 // GitHub's default
	}
	per = min(per, 100, s.PageSize)
	page := 1
	if p := q.Get("page"); p != "" {
		if page, err = strconv.Atoi(p); err != nil || page < 1 {
			return http.StatusBadRequest, apiError{Message: "bad page"}, nil
		}
	}
	all := s.comments[n]
	lo, hi := min((page-1)*per, len(all)), min(page*per, len(all))
	out := append([]githubapi.Comment{}, all[lo:hi]...)
	hdr := http.Header{}
	last := max((len(all)+per-1)/per, 1)
	link := func(p int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		v := url.Values{"per_page": {q.Get("per_page")}, "page": {strconv.Itoa(p)}}
		u.RawQuery = v.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		hdr.Set("Link", strings.Join(links, ", "))
	}
	return http.StatusOK, out, hdr
}

// listIssues serves GET /repos/{owner}/{repo}/issues as GitHub does for the
// parameters perfgate sends: state (open by default) and labels (a comma
// list, all required), newest first, pull requests included, one page of
// up to per_page.
func (s *Server) listIssues(r *http.Request) (int, any, http.Header) {
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var want []string
	if l := q.Get("labels"); l != "" {
		want = strings.Split(l, ",")
	}
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per <= 0 {
		per = 30
	}
	out := []githubapi.Issue{}
	for i := len(s.issues) - 1; i >= 0 && len(out) < min(per, 100); i-- {
		is := s.issues[i]
		if state != "all" && is.State != state {
			continue
		}
		has := map[string]bool{}
		for _, l := range is.Labels {
			has[l.Name] = true
		}
		ok := true
		for _, w := range want {
			ok = ok && has[strings.TrimSpace(w)]
		}
		if ok {
			out = append(out, is)
		}
	}
	return http.StatusOK, out, nil
}
