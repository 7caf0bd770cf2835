// Package sameorigin keeps perfgate's HTTP clients on the host they were
// pointed at.
//
// perfgate sends requests with headers from the configuration (an
// X-Api-Key, a bearer token) to the target's readiness URL, its model
// metadata, kserve-http's setup calls and the metrics endpoint. Go's
// http.Client follows up to ten redirects, to any host, and forwards
// custom headers there (it drops only Authorization, Cookie and
// WWW-Authenticate across domains). A target, or anything on its path,
// could then send a key to another host, or let another host's 200 stand
// for the target's readiness. CheckRedirect refuses that.
package sameorigin

import (
	"fmt"
	"net/http"
)

// maxRedirects is how many redirects on the same host a client follows,
// as net/http's default.
const maxRedirects = 10

// CheckRedirect is an http.Client CheckRedirect that follows a redirect
// only to the same scheme and host (with port) as the first request, and
// at most ten; anything else is an error naming where the redirect
// pointed, which the client returns wrapped in a *url.Error.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return fmt.Errorf("redirected to %s, another host than %s://%s: perfgate follows redirects only on the host it was given",
			req.URL.Redacted(), first.Scheme, first.Host)
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects (the last to %s)", maxRedirects, req.URL.Redacted())
	}
	return nil
}

// Client returns c with CheckRedirect set (a new client when c is nil).
func Client(c *http.Client) *http.Client {
	if c == nil {
		c = &http.Client{}
	}
	c.CheckRedirect = CheckRedirect
	return c
}
