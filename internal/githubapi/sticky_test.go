package githubapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/internal/githubapi"
	"github.com/perfgate/perfgate/internal/githubapi/githubapitest"
)

const token = "ghs_test0000SECRET0000token"

var human = githubapi.User{Login: "mallory", Type: "User"}

// newClient returns a client of srv with millisecond backoff.
func newClient(t *testing.T, srv *githubapitest.Server) *githubapi.Client {
	t.Helper()
	c, err := githubapi.New(srv.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	c.Retry = githubapi.Retry{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxWait: 3 * time.Second}
	return c
}

func sticky(n int) githubapi.Sticky {
	return githubapi.Sticky{Repo: githubapi.Repo{Owner: "acme", Name: "svc"}, Number: n, Marker: githubapi.Marker("")}
}

func TestUpsertPaginatesAndNeverEditsHumans(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", token)
	srv.PageSize = 3
	marker := githubapi.Marker("")
	// Page 1 holds a human's comment that quotes our marker: it must be
	// skipped. Our own comment is on page 3, so all three pages are read.
	srv.AddComment(7, human, "look: "+marker+" haha")
	for i := range 5 {
		srv.AddComment(7, githubapi.User{Login: fmt.Sprintf("dev%d", i), Type: "User"}, "lgtm")
	}
	srv.AddComment(7, githubapi.User{Login: "dependabot[bot]", Type: "Bot"}, "bump")
	ours := srv.AddComment(7, githubapitest.Bot, "old report\n"+marker)
	c := newClient(t, srv)

	got, created, err := c.Upsert(context.Background(), sticky(7), "new report\n"+marker)
	if err != nil {
		t.Fatal(err)
	}
	if created || got.ID != ours.ID {
		t.Errorf("Upsert = comment %d (created %v), want comment %d edited", got.ID, created, ours.ID)
	}
	var calls []string
	for _, r := range srv.Log() {
		calls = append(calls, r.Method+" "+r.Path+"?"+r.Query)
	}
	want := []string{
		"GET /repos/acme/svc/issues/7/comments?per_page=100",
		"GET /repos/acme/svc/issues/7/comments?page=2&per_page=100",
		"GET /repos/acme/svc/issues/7/comments?page=3&per_page=100",
		fmt.Sprintf("PATCH /repos/acme/svc/issues/comments/%d?", ours.ID),
	}
	if d := cmp.Diff(want, calls); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	all := srv.Comments(7)
	if all[0].Body != "look: "+marker+" haha" {
		t.Errorf("human's comment changed to %q", all[0].Body)
	}
	if all[len(all)-1].Body != "new report\n"+marker {
		t.Errorf("our comment = %q, want the new report", all[len(all)-1].Body)
	}
}

func TestUpsertCreatesWhenOnlyAHumanHasTheMarker(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", token)
	srv.AddComment(3, human, githubapi.Marker(""))
	c := newClient(t, srv)
	got, created, err := c.Upsert(context.Background(), sticky(3), "report")
	if err != nil {
		t.Fatal(err)
	}
	if !created {
		t.Errorf("Upsert created = false, want a new comment beside the human's")
	}
	if !strings.HasSuffix(got.Body, githubapi.Marker("")+"\n") {
		t.Errorf("created body %q lacks the marker", got.Body)
	}
	// A second run edits the comment it made, rather than adding another.
	again, created, err := c.Upsert(context.Background(), sticky(3), "report v2")
	if err != nil {
		t.Fatal(err)
	}
	if created || again.ID != got.ID {
		t.Errorf("second Upsert = %d (created %v), want %d edited", again.ID, created, got.ID)
	}
	if n := len(srv.Comments(3)); n != 2 {
		t.Errorf("%d comments on the PR, want 2 (the human's and ours)", n)
	}
}

func TestUpsertKeysAreSeparate(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", token)
	c := newClient(t, srv)
	for _, key := range []string{"", "gpu", "cpu"} {
		s := sticky(1)
		s.Marker = githubapi.Marker(key)
		if _, created, err := c.Upsert(context.Background(), s, "report "+key); err != nil || !created {
			t.Fatalf("Upsert(key %q) = created %v, %v; want a new comment", key, created, err)
		}
	}
	if n := len(srv.Comments(1)); n != 3 {
		t.Errorf("%d comments, want one per key (3)", n)
	}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name    string
		fail    []githubapitest.Failure
		wantErr error // nil: Upsert succeeds
		wantN   int   // requests the fake saw
	}{
		{name: "502 on list", fail: []githubapitest.Failure{{Method: "GET", Status: 502}}, wantN: 3},
		{name: "503 twice on create", fail: []githubapitest.Failure{{Method: "POST", Status: 503}, {Method: "POST", Status: 503}},
			wantErr: errAny, wantN: 4},
		{name: "secondary rate limit with retry-after", fail: []githubapitest.Failure{{Method: "GET", Status: 403,
			Header: http.Header{"Retry-After": {"1"}}, Message: "You have exceeded a secondary rate limit"}}, wantN: 3},
		{name: "429 with ratelimit-remaining 0", fail: []githubapitest.Failure{{Method: "POST", Status: 429,
			Header: http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"0"}}}}, wantN: 3},
		// A plain 403 is a permission problem (a fork's read-only token):
		// retrying cannot help, and the caller must see ErrForbidden.
		{name: "403 forbidden", fail: []githubapitest.Failure{{Method: "POST", Status: 403, Message: "Resource not accessible by integration"}},
			wantErr: githubapi.ErrForbidden, wantN: 2},
		{name: "persistent 500 is bounded", fail: []githubapitest.Failure{{Method: "GET", Status: 500}, {Method: "GET", Status: 500},
			{Method: "GET", Status: 500}, {Method: "GET", Status: 500}, {Method: "GET", Status: 500}}, wantErr: errAny, wantN: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := githubapitest.NewServer(t, "acme", "svc", token)
			for _, f := range tt.fail {
				srv.Fail(f)
			}
			c := newClient(t, srv)
			start := time.Now()
			_, _, err := c.Upsert(context.Background(), sticky(9), "report")
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("Upsert: %v", err)
			case tt.wantErr == errAny && err == nil, tt.wantErr != nil && tt.wantErr != errAny && !errors.Is(err, tt.wantErr):
				t.Fatalf("Upsert error = %v, want %v", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), token) {
				t.Errorf("error %q holds the token", err)
			}
			if n := len(srv.Log()); n != tt.wantN {
				t.Errorf("fake saw %d requests, want %d: %+v", n, tt.wantN, srv.Log())
			}
			for _, f := range tt.fail {
				if f.Header.Get("Retry-After") == "1" && time.Since(start) < 900*time.Millisecond {
					t.Errorf("retried after %v, before Retry-After's 1 s", time.Since(start))
				}
			}
			if tt.wantErr == nil && len(srv.Comments(9)) != 1 {
				t.Errorf("%d comments after retries, want 1", len(srv.Comments(9)))
			}
		})
	}
}

// errAny stands for "some error" in TestRetries.
var errAny = errors.New("any error")

func TestCreateAfterServerErrorThatLanded(t *testing.T) {
	// GitHub may create the comment and still answer 502. The retry must
	// find it and edit it, not post a duplicate.
	srv := githubapitest.NewServer(t, "acme", "svc", token)
	c := newClient(t, srv)
	landed := &landingProxy{srv: srv}
	c2, _ := githubapi.New(landed.start(t), token)
	c2.Retry = c.Retry
	if _, _, err := c2.Upsert(context.Background(), sticky(4), "report"); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Comments(4)); n != 1 {
		t.Errorf("%d comments, want 1 (no duplicate after a 502 that landed)", n)
	}
}

func TestRateLimitLongerThanMaxWait(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", token)
	srv.Fail(githubapitest.Failure{Method: "GET", Status: 429, Header: http.Header{"Retry-After": {"3600"}}})
	c := newClient(t, srv)
	start := time.Now()
	_, _, err := c.Upsert(context.Background(), sticky(1), "x")
	if err == nil || !strings.Contains(err.Error(), "rate limited for 1h0m0s") {
		t.Errorf("Upsert error = %v, want a rate limit longer than MaxWait", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("waited %v for an hour-long rate limit, want no wait", time.Since(start))
	}
}

func TestBadTokenIsNotRetriedNorPrinted(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", "another")
	c := newClient(t, srv)
	_, _, err := c.Upsert(context.Background(), sticky(1), "x")
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("Upsert error = %v, want 401", err)
	}
	for _, s := range []string{err.Error(), fmt.Sprintf("%v %+v %#v %s", c, c, c, c)} {
		if strings.Contains(s, token) {
			t.Errorf("output %q holds the token", s)
		}
	}
	if n := len(srv.Log()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestBodyTooLong(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", token)
	c := newClient(t, srv)
	_, _, err := c.Upsert(context.Background(), sticky(1), strings.Repeat("é", githubapi.MaxCommentChars))
	if err == nil || !strings.Contains(err.Error(), "GitHub allows 65536") {
		t.Errorf("Upsert error = %v, want the length limit", err)
	}
}

func TestGetPullRequest(t *testing.T) {
	srv := githubapitest.NewServer(t, "acme", "svc", token)
	srv.HeadSHA[5] = "abc123"
	c := newClient(t, srv)
	pr, err := c.GetPullRequest(context.Background(), githubapi.Repo{Owner: "acme", Name: "svc"}, 5)
	if err != nil || pr.Head.SHA != "abc123" || pr.Number != 5 {
		t.Errorf("GetPullRequest(5) = %+v, %v; want head abc123", pr, err)
	}
	if _, err := c.GetPullRequest(context.Background(), githubapi.Repo{Owner: "acme", Name: "svc"}, 6); !errors.Is(err, githubapi.ErrNotFound) {
		t.Errorf("GetPullRequest(6) error = %v, want ErrNotFound", err)
	}
}

// The sticky comment is the one its author's login wrote: another bot's
// marked comment is not ours, and a configured login replaces the default.
func TestStickyFindMatchesLogin(t *testing.T) {
	m := githubapi.Marker("")
	comments := []githubapi.Comment{
		{ID: 1, Body: m, User: githubapi.User{Login: "dependabot[bot]", Type: "Bot"}},
		{ID: 2, Body: m, User: githubapi.User{Login: "github-actions", Type: "User"}},
		{ID: 3, Body: m, User: githubapi.User{Login: "perfgate-app[bot]", Type: "Bot"}},
		{ID: 4, Body: m, User: githubapi.User{Login: "github-actions[bot]", Type: "Bot"}},
	}
	tests := []struct {
		login string
		want  int64
	}{
		{"", 4},
		{"perfgate-app[bot]", 3},
		{"someone-else", 0},
	}
	for _, tt := range tests {
		var got int64
		if c := (githubapi.Sticky{Marker: m, Login: tt.login}).Find(comments); c != nil {
			got = c.ID
		}
		if got != tt.want {
			t.Errorf("Sticky{Login: %q}.Find = comment %d, want %d", tt.login, got, tt.want)
		}
	}
}
