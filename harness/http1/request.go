package http1

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// request is the wire form of the client's request, built once by New.
type request struct {
	// addr is the host:port to dial.
	addr string
	// head is everything up to, not including, the Content-Length header
	// and the blank line: the request line and the fixed headers.
	head []byte
	// full is head, the framing of the default body, and the body itself:
	// the bytes one Write sends when Do is given no body of its own.
	full []byte
	// bodyless reports whether the method has no body when none is given
	// (GET, HEAD, ...): no Content-Length header is sent then.
	bodyless bool
	// isHead reports a HEAD request, whose response never has a body.
	isHead bool
}

// newRequest validates o and builds the request's bytes.
func newRequest(o *Options) (*request, error) {
	u, err := url.Parse(o.URL)
	if err != nil {
		return nil, fmt.Errorf("http1: url %q: %w", o.URL, err)
	}
	switch u.Scheme {
	case "http":
	case "https":
		return nil, fmt.Errorf("http1: url %q: https is not supported (plain http only; use net/http)", o.URL)
	default:
		return nil, fmt.Errorf("http1: url %q: scheme %q is not http", o.URL, u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("http1: url %q: no host", o.URL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("http1: url %q: user info is not supported (set an Authorization header)", o.URL)
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	method := o.Method
	if method == "" {
		method = "GET"
	}
	if !validToken(method) {
		return nil, fmt.Errorf("http1: method %q is not a valid token", method)
	}
	target := u.RequestURI()

	r := &request{
		addr:     net.JoinHostPort(u.Hostname(), port),
		isHead:   method == "HEAD",
		bodyless: !slices.Contains([]string{"POST", "PUT", "PATCH"}, method),
	}
	hdr := map[string]string{"Host": u.Host, "User-Agent": "perfgate"}
	for k, v := range o.Headers {
		if !validToken(k) {
			return nil, fmt.Errorf("http1: header name %q is not a valid token", k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return nil, fmt.Errorf("http1: header %q: value contains CR, LF or NUL", k)
		}
		switch strings.ToLower(k) {
		case "content-length", "transfer-encoding":
			return nil, fmt.Errorf("http1: header %q is set by the client from the body", k)
		case "host":
			k = "Host"
		case "user-agent":
			k = "User-Agent"
		}
		hdr[k] = v
	}
	keys := make([]string, 0, len(hdr))
	for k := range hdr {
		if k != "Host" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	b := fmt.Appendf(nil, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, target, hdr["Host"])
	for _, k := range keys {
		b = fmt.Appendf(b, "%s: %s\r\n", k, hdr[k])
	}
	r.head = b
	r.full = r.appendRequest(nil, o.Body)
	return r, nil
}

// appendRequest appends to dst the whole request with the given body:
// the head, the Content-Length (unless a bodyless method has no body), the
// blank line and the body.
func (r *request) appendRequest(dst, body []byte) []byte {
	dst = append(dst, r.head...)
	if len(body) > 0 || !r.bodyless {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(body)), 10)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "\r\n"...)
	return append(dst, body...)
}

// validToken reports whether s is a non-empty RFC 9110 token (a method or
// header field name).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
