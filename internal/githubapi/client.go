package githubapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// APIVersion is the REST API version every request asks for.
const APIVersion = "2022-11-28"

// DefaultBaseURL is github.com's API, used when the base URL is empty.
const DefaultBaseURL = "https://api.github.com"

// maxResponseBytes bounds how much of a response body is read.
const maxResponseBytes = 16 << 20

// ErrForbidden is returned (wrapped in *APIError) for a 403 that is not a rate
// limit: the token may not do this, typically because the pull request comes
// from a fork and the workflow's token is read-only.
var ErrForbidden = errors.New("forbidden")

// ErrNotFound is returned (wrapped in *APIError) for a 404.
var ErrNotFound = errors.New("not found")

// Retry is the retry policy for server errors and secondary rate limits.
type Retry struct {
	// MaxAttempts is the number of attempts per request, including the first;
	// 0 means DefaultRetry's, 1 disables retries.
	MaxAttempts int
	// BaseDelay is the first backoff; each later one doubles, up to MaxDelay.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxWait is the longest Retry-After or rate-limit reset waited for; a
	// longer one fails the request at once.
	MaxWait time.Duration
}

// DefaultRetry is the policy of a Client whose Retry is zero: 5 attempts,
// 1 s, 2 s, 4 s, 8 s apart (with jitter), waiting at most 60 s for a rate limit.
var DefaultRetry = Retry{MaxAttempts: 5, BaseDelay: time.Second, MaxDelay: 30 * time.Second, MaxWait: 60 * time.Second}

// Client talks to GitHub's REST API with one token. Use New; the zero value
// has no token.
type Client struct {
	base  *url.URL
	token string
	// HTTP is the client requests go through; http.DefaultClient when nil.
	HTTP *http.Client
	// Retry is the retry policy; the zero value means DefaultRetry.
	Retry Retry
	// UserAgent is sent with each request (GitHub rejects requests without).
	UserAgent string
	// sleep waits d or until ctx is done; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// New returns a client for the API at baseURL (GITHUB_API_URL; "" means
// DefaultBaseURL) authenticating with token.
func New(baseURL, token string) (*Client, error) {
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil {
		return nil, fmt.Errorf("parsing API URL %q: %w", baseURL, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("API URL %q: want an http(s) URL with a host", baseURL)
	}
	if token == "" {
		return nil, errors.New("no GitHub token given")
	}
	return &Client{base: u, token: token, UserAgent: "perfgate", sleep: sleepCtx}, nil
}

// String describes c without its token.
func (c *Client) String() string { return "githubapi.Client{" + c.base.String() + "}" }

// GoString is String, so %#v does not print the token either.
func (c *Client) GoString() string { return c.String() }

// APIError is a response GitHub answered with an error status.
type APIError struct {
	Method string
	// Path is the request's path, without host or query.
	Path       string
	StatusCode int
	// Message and DocumentationURL are from GitHub's error body.
	Message          string `json:"message"`
	DocumentationURL string `json:"documentation_url"`
	// kind is ErrForbidden, ErrNotFound or nil.
	kind error
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if e.kind == ErrForbidden {
		msg += " (the token may not write here: on a pull request from a fork the workflow token is read-only; use the fork-safe workflow_run pair)"
	}
	return msg
}

// Unwrap lets errors.Is match ErrForbidden and ErrNotFound.
func (e *APIError) Unwrap() error { return e.kind }

// request is one API call.
type request struct {
	method string
	// url is absolute (pagination) or nil, then path is joined to the base.
	url   *url.URL
	path  string
	query url.Values
	body  any
	// idempotent requests are retried on server errors; all are retried
	// on rate limits, which GitHub answers before doing anything.
	idempotent bool
}

// do sends req, retrying per c.Retry, and decodes a 2xx body into out (when
// non-nil). It returns the final response's headers.
func (c *Client) do(ctx context.Context, req request, out any) (http.Header, error) {
	pol := c.policy()
	u := req.url
	if u == nil {
		u = c.base.JoinPath(req.path)
		u.RawQuery = req.query.Encode()
	}
	var payload []byte
	if req.body != nil {
		var err error
		if payload, err = json.Marshal(req.body); err != nil {
			return nil, fmt.Errorf("encoding %s %s body: %w", req.method, u.Path, err)
		}
	}
	for attempt := 1; ; attempt++ {
		h, wait, err := c.once(ctx, req.method, u, payload, out)
		if err == nil {
			return h, nil
		}
		var apiErr *APIError
		retryable := errors.As(err, &apiErr) && (wait > 0 || apiErr.StatusCode >= 500 && req.idempotent)
		if !retryable || attempt >= pol.MaxAttempts {
			if attempt > 1 {
				return nil, fmt.Errorf("after %d attempts: %w", attempt, err)
			}
			return nil, err
		}
		d := backoff(pol, attempt)
		if wait > 0 {
			if wait > pol.MaxWait {
				return nil, fmt.Errorf("rate limited for %v, longer than %v: %w", wait, pol.MaxWait, err)
			}
			d = max(d, wait)
		}
		if err := c.sleep(ctx, d); err != nil {
			return nil, fmt.Errorf("%s %s: waiting to retry: %w", req.method, u.Path, err)
		}
	}
}

// once sends one request. For a secondary rate limit it returns how long
// GitHub asks to wait (at least 1 ns), else 0.
func (c *Client) once(ctx context.Context, method string, u *url.URL, payload []byte, out any) (http.Header, time.Duration, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, 0, fmt.Errorf("%s %s: %w", method, u.Path, err)
	}
	hreq.Header.Set("Accept", "application/vnd.github+json")
	hreq.Header.Set("X-GitHub-Api-Version", APIVersion)
	hreq.Header.Set("Authorization", "Bearer "+c.token)
	if c.UserAgent != "" {
		hreq.Header.Set("User-Agent", c.UserAgent)
	}
	if payload != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hreq)
	if err != nil {
		// url.Error holds the URL, never the headers: the token stays out.
		return nil, 0, fmt.Errorf("%s %s: %w", method, u.Path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, 0, fmt.Errorf("%s %s: reading response: %w", method, u.Path, err)
	}
	if resp.StatusCode/100 == 2 {
		if out != nil && len(data) > 0 {
			if err := json.Unmarshal(data, out); err != nil {
				return nil, 0, fmt.Errorf("%s %s: decoding response: %w", method, u.Path, err)
			}
		}
		return resp.Header, 0, nil
	}
	apiErr := &APIError{Method: method, Path: u.Path, StatusCode: resp.StatusCode}
	_ = json.Unmarshal(data, apiErr) // the body is advisory; a non-JSON one leaves Message empty
	apiErr.Method, apiErr.Path, apiErr.StatusCode = method, u.Path, resp.StatusCode
	wait := rateLimitWait(resp, time.Now())
	switch {
	case wait > 0:
	case resp.StatusCode == http.StatusForbidden:
		apiErr.kind = ErrForbidden
	case resp.StatusCode == http.StatusNotFound:
		apiErr.kind = ErrNotFound
	}
	return nil, wait, apiErr
}

// rateLimitWait reads a (secondary) rate limit from a 403 or 429: the
// Retry-After seconds, or the time until x-ratelimit-reset when
// x-ratelimit-remaining is 0. A 429 without either waits a minute, as
// GitHub's guidance says. It returns 0 when resp is not a rate limit.
func rateLimitWait(resp *http.Response, now time.Time) time.Duration {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return 0
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
			return max(time.Duration(n)*time.Second, 1)
		}
		if t, err := http.ParseTime(s); err == nil {
			return max(t.Sub(now), 1)
		}
	}
	if resp.Header.Get("X-Ratelimit-Remaining") == "0" {
		if n, err := strconv.ParseInt(resp.Header.Get("X-Ratelimit-Reset"), 10, 64); err == nil {
			return max(time.Unix(n, 0).Sub(now), 1)
		}
		return time.Minute
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return time.Minute
	}
	return 0
}

// policy is c.Retry with zero fields filled from DefaultRetry.
func (c *Client) policy() Retry {
	p := c.Retry
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultRetry.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultRetry.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultRetry.MaxDelay
	}
	if p.MaxWait <= 0 {
		p.MaxWait = DefaultRetry.MaxWait
	}
	return p
}

// backoff is the delay after the given failed attempt (1-based):
// base × 2^(attempt−1), capped at MaxDelay, less up to 25% jitter so that
// parallel jobs do not retry in step.
func backoff(p Retry, attempt int) time.Duration {
	d := p.BaseDelay << min(attempt-1, 30)
	if d <= 0 || d > p.MaxDelay {
		d = p.MaxDelay
	}
	return d - time.Duration(rand.Int64N(int64(d)/4+1))
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
