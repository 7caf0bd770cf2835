package githubapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/githubapi"
	"github.com/perfgate/perfgate/internal/githubapi/githubapitest"
)

// TestReportChangePoints covers both paths against the fake REST server:
// no open change-point issue (one is opened, with the label and marker),
// and one open (it is commented on; no second issue). Pull requests and
// issues without the label are never taken for it.
func TestReportChangePoints(t *testing.T) {
	repo := githubapi.Repo{Owner: "acme", Name: "svc"}
	const title, body = "perfgate: change points on main", "| `api` | p99_ms | regression +30% |"
	listQuery := "labels=" + githubapi.ChangePointLabel + "&per_page=100&state=open"
	tests := []struct {
		name string
		// setup adds issues before the call.
		setup      func(s *githubapitest.Server)
		wantLog    []githubapitest.Request
		wantIssue  int
		wantOpened bool
	}{
		{
			name: "none open: opens one",
			setup: func(s *githubapitest.Server) {
				s.AddIssue("unrelated", "", []string{"bug"}, false)
				s.AddIssue("a PR with the label", githubapi.ChangePointMarker, []string{githubapi.ChangePointLabel}, true)
			},
			wantLog: []githubapitest.Request{
				{Method: http.MethodGet, Path: "/repos/acme/svc/issues", Query: listQuery, Status: http.StatusOK},
				{Method: http.MethodPost, Path: "/repos/acme/svc/issues", Title: title,
					Body: githubapi.ChangePointMarker + "\n" + body, Labels: []string{githubapi.ChangePointLabel}, Status: http.StatusCreated},
			},
			wantIssue: 3, wantOpened: true,
		},
		{
			name: "one open: comments on it",
			setup: func(s *githubapitest.Server) {
				s.AddIssue("perfgate: change points on main", githubapi.ChangePointMarker+"\nolder", []string{githubapi.ChangePointLabel, "perf"}, false)
				s.AddIssue("labelled by a person", "no marker", []string{githubapi.ChangePointLabel}, false)
			},
			wantLog: []githubapitest.Request{
				{Method: http.MethodGet, Path: "/repos/acme/svc/issues", Query: listQuery, Status: http.StatusOK},
				{Method: http.MethodPost, Path: "/repos/acme/svc/issues/1/comments", Body: body, Status: http.StatusCreated},
			},
			wantIssue: 1,
		},
		{
			name: "only a person's labelled issue: comments on it",
			setup: func(s *githubapitest.Server) {
				s.AddIssue("p99 moved?", "no marker", []string{githubapi.ChangePointLabel}, false)
			},
			wantLog: []githubapitest.Request{
				{Method: http.MethodGet, Path: "/repos/acme/svc/issues", Query: listQuery, Status: http.StatusOK},
				{Method: http.MethodPost, Path: "/repos/acme/svc/issues/1/comments", Body: body, Status: http.StatusCreated},
			},
			wantIssue: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := githubapitest.NewServer(t, "acme", "svc", token)
			tt.setup(srv)
			before := len(srv.Issues())
			got, err := newClient(t, srv).ReportChangePoints(context.Background(), repo, title, body)
			if err != nil {
				t.Fatal(err)
			}
			if got.Issue != tt.wantIssue || got.Opened != tt.wantOpened || got.URL == "" {
				t.Errorf("report = %+v, want issue %d opened %v with a URL", got, tt.wantIssue, tt.wantOpened)
			}
			if diff := cmp.Diff(tt.wantLog, srv.Log()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			added := len(srv.Issues()) - before
			if want := map[bool]int{true: 1, false: 0}[tt.wantOpened]; added != want {
				t.Errorf("%d issue(s) opened, want %d", added, want)
			}
			if !tt.wantOpened {
				cs := srv.Comments(tt.wantIssue)
				if len(cs) != 1 || cs[0].Body != body {
					t.Errorf("comments on #%d = %+v, want the one body", tt.wantIssue, cs)
				}
			}
		})
	}
}

// TestReportChangePointsErrors: a wrong token is refused and a read-only
// one (no issues: write) is ErrForbidden, with nothing opened.
func TestReportChangePointsErrors(t *testing.T) {
	repo := githubapi.Repo{Owner: "acme", Name: "svc"}
	srv := githubapitest.NewServer(t, "acme", "svc", token)
	bad, err := githubapi.New(srv.URL, "ghs_wrong")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.ReportChangePoints(context.Background(), repo, "t", "b"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("wrong token: err = %v, want a 401", err)
	}
	srv.ReadOnly = true
	_, err = newClient(t, srv).ReportChangePoints(context.Background(), repo, "t", "b")
	if !errors.Is(err, githubapi.ErrForbidden) {
		t.Errorf("read-only token: err = %v, want ErrForbidden", err)
	}
	if n := len(srv.Issues()); n != 0 {
		t.Errorf("%d issue(s) opened, want none", n)
	}
	if _, err := newClient(t, srv).ReportChangePoints(context.Background(), repo, "t", ""); err == nil {
		t.Error("an empty body was accepted")
	}
}
