package harness

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/harness/http1"
)

// MaxResponseHeaderBytes caps the headers of one response on every
// net/http client perfgate runs (the load clients over net/http, the
// openai client, the setup and readiness calls): Go's default, 10 MiB a
// response, let a server hold 10 MiB on each of a run's connections.
// A real server sends a few KiB.
const MaxResponseHeaderBytes = 64 << 10

// HTTPOptions configure the plain HTTP client.
type HTTPOptions struct {
	// URL is the whole request URL.
	URL string
	// Method defaults to GET without a body and POST with one.
	Method  string
	Headers map[string]string
	Body    []byte
	// Timeout bounds each request (default 30 s).
	Timeout time.Duration
	// MaxConns bounds open connections to the host (default DefaultMaxConns).
	MaxConns int
	// Std uses net/http instead of the lean HTTP/1.1 client (package http1),
	// which plain http:// URLs get by default; https always uses net/http.
	Std bool
	// TLS is the https client configuration (nil: the system's roots).
	TLS *tls.Config
}

// HTTPClient sends one fixed request (or a hit's payload as its body) over
// keep-alive connections. Redirects are not followed: a 3xx is recorded as
// its status class, so a misrouted benchmark never measures the wrong page.
type HTTPClient struct {
	o      HTTPOptions
	url    *url.URL
	client *http.Client
	tr     *http.Transport
	pool   *PoolCount
	// lean is the http1 client, when used: one pre-built request written per
	// hit and the response parsed in place, with no allocation per request.
	lean *http1.Client
}

var _ Client = (*HTTPClient)(nil)

// NewHTTPClient checks o and returns a client.
func NewHTTPClient(o HTTPOptions) (*HTTPClient, error) {
	u, err := url.Parse(o.URL)
	if err != nil {
		return nil, fmt.Errorf("url %q: %w", o.URL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("url %q: scheme must be http or https", o.URL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("url %q: no host", o.URL)
	}
	if o.Method == "" {
		o.Method = http.MethodGet
		if len(o.Body) > 0 {
			o.Method = http.MethodPost
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	if u.Scheme == "http" && !o.Std {
		lean, err := http1.New(http1.Options{URL: o.URL, Method: o.Method, Headers: o.Headers, Body: o.Body,
			Timeout: o.Timeout, MaxConns: o.MaxConns})
		if err != nil {
			return nil, err
		}
		return &HTTPClient{o: o, url: u, lean: lean}, nil
	}
	tr := &http.Transport{
		Proxy:               nil, // load goes straight to the target
		DialContext:         (&net.Dialer{Timeout: o.Timeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        o.MaxConns,
		MaxIdleConnsPerHost: o.MaxConns,
		MaxConnsPerHost:     o.MaxConns,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		TLSClientConfig:     o.TLS,
		// Go's default admits 10 MiB of headers a response.
		MaxResponseHeaderBytes: MaxResponseHeaderBytes,
	}
	c := &http.Client{
		Transport: tr,
		Timeout:   o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return &HTTPClient{o: o, url: u, client: c, tr: tr, pool: &PoolCount{Max: int64(o.MaxConns)}}, nil
}

// Do implements Client.
func (c *HTTPClient) Do(ctx context.Context, h Hit) Sample {
	if c.lean != nil {
		t0 := now()
		code, wait, err := c.lean.DoWait(ctx, h.Payload)
		s := Sample{Start: t0.Add(wait), Wait: wait}
		s.End, s.Code = now(), code
		s.enter, s.exit = t0, s.End // timesItsSamples
		switch {
		case err != nil:
			s.Class, s.Err = ClassifyError(ctx, err), err.Error()
		case code >= 300:
			s.Class, s.Err = HTTPClass(code), httpStatusText(code)
		}
		return s
	}
	body := c.o.Body
	if h.Payload != nil {
		body = h.Payload
	}
	req := &http.Request{
		Method:     c.o.Method,
		URL:        c.url,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     make(http.Header, len(c.o.Headers)+1),
		Host:       c.url.Host,
	}
	for k, v := range c.o.Headers {
		req.Header.Set(k, v)
	}
	if len(body) > 0 {
		req.ContentLength = int64(len(body))
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		if req.Header.Get("Content-Type") == "" {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	cw := ConnWait{Pool: c.pool}
	req = req.WithContext(cw.WithConnWait(ctx))
	c.pool.Enter()
	defer c.pool.Leave()
	s := Sample{Start: time.Now()}
	resp, err := c.client.Do(req)
	s.Wait = cw.Wait()
	s.Start = s.Start.Add(s.Wait)
	if err != nil {
		s.End = time.Now()
		s.Class, s.Err = ClassifyError(ctx, err), err.Error()
		return s
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	s.End = time.Now()
	s.Code = resp.StatusCode
	switch {
	case err != nil:
		s.Class, s.Err = ClassifyError(ctx, err), err.Error()
	case resp.StatusCode >= 300:
		s.Class, s.Err = HTTPClass(resp.StatusCode), resp.Status
		if loc := resp.Header.Get("Location"); loc != "" {
			s.Err += " (redirect to " + loc + " not followed)"
		}
	}
	return s
}

// timesItsSamples implements selfTimed: the lean client's samples carry
// enter and exit, from the clock reads made for Start and End.
func (c *HTTPClient) timesItsSamples() bool { return c.lean != nil }

// Close releases the connections.
func (c *HTTPClient) Close() error {
	if c.lean != nil {
		return c.lean.Close()
	}
	c.tr.CloseIdleConnections()
	return nil
}

// httpStatusText is the Err of an HTTP status failure: "503 Service
// Unavailable".
func httpStatusText(code int) string {
	return strconv.Itoa(code) + " " + http.StatusText(code)
}

// HTTPClass is the error class of an HTTP status: "http_503".
func HTTPClass(code int) string { return "http_" + strconv.Itoa(code) }

// ClassifyError maps a transport error to an error class: ErrCanceled when
// ctx was cancelled (the run was stopped), ErrTimeout, ErrConnection for
// dial, reset and EOF, else ErrProtocol.
func ClassifyError(ctx context.Context, err error) string {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return ErrCanceled
	}
	var ne net.Error
	switch {
	case http1.IsTimeout(err):
		return ErrTimeout
	case errors.Is(err, http1.ErrProtocol):
		return ErrProtocol
	case errors.Is(err, http1.ErrConnection), errors.Is(err, http1.ErrClosed):
		return ErrConnection
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return ErrTimeout
	case errors.As(err, &ne) && ne.Timeout():
		return ErrTimeout
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed):
		return ErrConnection
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return ErrConnection
	}
	return ErrProtocol
}
