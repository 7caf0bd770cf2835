package githubapi

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNextLink(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   string
	}{
		{name: "none", values: nil, want: ""},
		{name: "github shape", values: []string{`<https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=2>; rel="next", <https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=5>; rel="last"`},
			want: "https://api.github.com/repositories/1/issues/2/comments?per_page=100&page=2"},
		{name: "last page has only prev", values: []string{`<https://x/a?page=1>; rel="first", <https://x/a?page=4>; rel="prev"`}, want: ""},
		{name: "next not first", values: []string{`<https://x/a?page=1>; rel="prev", <https://x/a?page=3>; rel="next"`}, want: "https://x/a?page=3"},
		// RFC 8288 allows several relation types in one rel and unquoted values.
		{name: "multi rel unquoted", values: []string{`<https://x/b>; title="t"; rel=next`}, want: "https://x/b"},
		{name: "multi rel", values: []string{`<https://x/c>; rel="next last"`}, want: "https://x/c"},
		{name: "two header lines", values: []string{`<https://x/a>; rel="prev"`, `<https://x/d>; rel="next"`}, want: "https://x/d"},
		{name: "malformed target", values: []string{`https://x/a; rel="next"`}, want: ""},
		{name: "nextish rel", values: []string{`<https://x/a>; rel="nextpage"`}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextLink(tt.values); got != tt.want {
				t.Errorf("nextLink(%q) = %q, want %q", tt.values, got, tt.want)
			}
		})
	}
}

func FuzzNextLink(f *testing.F) {
	f.Add(`<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"`)
	f.Add(`<>; rel=next`)
	f.Add(`<a>;;;,,rel="next`)
	f.Fuzz(func(t *testing.T, v string) {
		got := nextLink([]string{v})
		// Whatever it returns was between angle brackets in the header.
		if got != "" && !strings.Contains(v, "<"+got+">") {
			t.Errorf("nextLink(%q) = %q, not a bracketed target of the input", v, got)
		}
	})
}

func TestRateLimitWait(t *testing.T) {
	now := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		status int
		header http.Header
		want   time.Duration
	}{
		{name: "plain 403 is permissions", status: 403, want: 0},
		{name: "500 is not a rate limit", status: 500, header: http.Header{"Retry-After": {"5"}}, want: 0},
		{name: "retry-after seconds", status: 403, header: http.Header{"Retry-After": {"7"}}, want: 7 * time.Second},
		{name: "retry-after date", status: 429, header: http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, want: 90 * time.Second},
		{name: "remaining 0 until reset", status: 403, header: http.Header{"X-Ratelimit-Remaining": {"0"},
			"X-Ratelimit-Reset": {"1795996860"}}, want: time.Unix(1795996860, 0).Sub(now)},
		{name: "remaining 0 without reset", status: 403, header: http.Header{"X-Ratelimit-Remaining": {"0"}}, want: time.Minute},
		{name: "remaining 12 is permissions", status: 403, header: http.Header{"X-Ratelimit-Remaining": {"12"}}, want: 0},
		{name: "bare 429 waits a minute", status: 429, want: time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: tt.status, Header: tt.header}
			if resp.Header == nil {
				resp.Header = http.Header{}
			}
			if got := rateLimitWait(resp, now); got != tt.want {
				t.Errorf("rateLimitWait = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	p := Retry{MaxAttempts: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, MaxWait: time.Minute}
	for attempt, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 5: time.Second, 40: time.Second} {
		got := backoff(p, attempt)
		if got > want || got < want*3/4 {
			t.Errorf("backoff(attempt %d) = %v, want in [%v, %v]", attempt, got, want*3/4, want)
		}
	}
}

func TestMarker(t *testing.T) {
	tests := []struct{ key, want string }{
		{"", "<!-- perfgate:comment -->"},
		{"gpu.yaml", "<!-- perfgate:comment key=gpu.yaml -->"},
		{"a -->b<!--", "<!-- perfgate:comment key=a-b- -->"},
		{"x--y", "<!-- perfgate:comment key=x-y -->"},
	}
	for _, tt := range tests {
		if got := Marker(tt.key); got != tt.want {
			t.Errorf("Marker(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestParseRepo(t *testing.T) {
	for in, ok := range map[string]bool{"acme/svc": true, "acme": false, "/svc": false, "acme/": false, "a/b/c": false} {
		if _, err := ParseRepo(in); (err == nil) != ok {
			t.Errorf("ParseRepo(%q) error = %v, want ok %v", in, err, ok)
		}
	}
}
