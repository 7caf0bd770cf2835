// Package githubapitest is a local fake of the part of GitHub's REST API that
// package githubapi uses, for tests: issue comments, listed page by page,
// created and edited. Like net/http/httptest it serves on 127.0.0.1.
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

	"github.com/perfgate/perfgate/githubapi"
)

// Bot is the identity the fake's token writes as.
var Bot = githubapi.User{Login: "github-actions[bot]", Type: "Bot"}

// Request is one request the fake received.
type Request struct {
	Method, Path, Query string
	// Body is the "body" field of a POST or PATCH.
	Body string
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
	listPath = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/([0-9]+)/comments$`)
	editPath = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/([0-9]+)$`)
	pullPath = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/([0-9]+)$`)
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
		var in struct {
			Body *string `json:"body"`
		}
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			s.t.Errorf("%s %s: Content-Type = %q, want application/json", r.Method, r.URL.Path, ct)
		}
		if err := dec.Decode(&in); err != nil || in.Body == nil {
			s.t.Errorf("%s %s: body is not {\"body\": string}: %v", r.Method, r.URL.Path, err)
			return http.StatusUnprocessableEntity, apiError{Message: "Invalid request"}, nil
		}
		rec.Body = *in.Body
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
