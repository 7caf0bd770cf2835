package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/perfgate/perfgate/internal/sameorigin"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/harness/http1"
	"github.com/perfgate/perfgate/kserve"
)

// poster sends a prepared POST and appends the response body to dst.
// http1.Client is one; netPoster (net/http, for https) is the other.
type poster interface {
	// DoAppendWait also returns how long the request waited for a free
	// connection before it was sent (see harness.Sample.Wait).
	DoAppendWait(ctx context.Context, body, dst []byte) (status int, out []byte, wait time.Duration, err error)
	Close() error
}

// KServeHTTPClient sends KServe v2 infer requests over HTTP/JSON to
// {base}/v2/models/{model}/infer on keep-alive connections, reading each
// response body fully. A 200 whose body is not a JSON object with
// "outputs" is a protocol error; any other status is http_<code> with the
// server's {"error": ...} message.
type KServeHTTPClient struct {
	o        Options
	base     string
	inferURL string
	body     []byte
	post     poster
	setup    *http.Client // health and metadata, off the hot path
	bufs     sync.Pool    // *[]byte response buffers
}

var (
	_ harness.Client = (*KServeHTTPClient)(nil)
	_ harness.Closer = (*KServeHTTPClient)(nil)
)

// NewKServeHTTP returns a KServe HTTP client for o. Without o.Body it reads
// the model's metadata to build a random request (see the package doc).
func NewKServeHTTP(ctx context.Context, o Options) (*KServeHTTPClient, error) {
	o = o.withDefaults()
	if o.Model == "" {
		return nil, fmt.Errorf("kserve-http: %w", ErrNoModel)
	}
	base, err := baseURL(o.URL)
	if err != nil {
		return nil, fmt.Errorf("kserve-http: %w", err)
	}
	c := &KServeHTTPClient{o: o, base: base,
		inferURL: base + "/v2/models/" + url.PathEscape(o.Model) + "/infer",
		setup:    sameorigin.Client(&http.Client{Timeout: o.Timeout, Transport: &http.Transport{Proxy: nil, TLSClientConfig: o.TLS, MaxResponseHeaderBytes: harness.MaxResponseHeaderBytes}})}
	c.bufs.New = func() any { b := make([]byte, 0, 4096); return &b }
	if len(o.Body) > 0 {
		if _, err := DecodeTensors(o.BodyPath, o.Body); err != nil {
			return nil, err
		}
		c.body = o.Body
	} else {
		req, err := defaultRequest(ctx, &o, c.Metadata, c.modelNames)
		if err != nil {
			return nil, err
		}
		if c.body, err = json.Marshal(req); err != nil {
			return nil, fmt.Errorf("model %q: encoding the random request: %w", o.Model, err)
		}
	}
	headers := map[string]string{"Content-Type": "application/json"}
	for k, v := range o.Headers {
		headers[k] = v
	}
	if strings.HasPrefix(base, "http://") && !o.StdHTTP {
		c.post, err = http1.New(http1.Options{URL: c.inferURL, Method: http.MethodPost, Headers: headers,
			Body: c.body, Timeout: o.Timeout, MaxConns: o.MaxConns})
		if err != nil {
			return nil, fmt.Errorf("kserve-http: %w", err)
		}
	} else {
		c.post = newNetPoster(c.inferURL, headers, c.body, o.Timeout, o.MaxConns, o.TLS)
	}
	return c, nil
}

// baseURL checks a base address (http[s]://host[:port][/prefix]) and trims
// its trailing slash. A URL that already holds a /v2/ or /v1/ path is
// refused: the protocol adds its own paths.
func baseURL(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("url %q: %w", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("url %q: want a base address such as http://127.0.0.1:8000", s)
	}
	if strings.Contains(u.Path+"/", "/v2/") || strings.Contains(u.Path+"/", "/v1/") {
		return "", fmt.Errorf("url %q: give the base address; the protocol adds /v2/... or /v1/... itself", s)
	}
	return strings.TrimRight(s, "/"), nil
}

// Body returns the request body sent when a hit has no payload.
func (c *KServeHTTPClient) Body() []byte { return c.body }

// Do implements harness.Client.
func (c *KServeHTTPClient) Do(ctx context.Context, h harness.Hit) harness.Sample {
	body := c.body
	if h.Payload != nil {
		body = h.Payload
	}
	bp := c.bufs.Get().(*[]byte)
	t0 := time.Now()
	status, out, wait, err := c.post.DoAppendWait(ctx, body, (*bp)[:0])
	s := harness.Sample{Hit: h, Start: t0.Add(wait), Wait: wait}
	s.End = time.Now()
	s.Code = status
	switch {
	case err != nil:
		s.Class, s.Err = classify(ctx, err), err.Error()
	case status != http.StatusOK:
		s.Class, s.Err = harness.HTTPClass(status), fmt.Sprintf("status %d: %s", status, errorMessage(out))
	case !isInferResponse(out):
		s.Class, s.Err = harness.ErrProtocol, "200 with a body that is not an infer response: "+clip(out)
	}
	*bp = out
	c.bufs.Put(bp)
	return s
}

// isInferResponse is the cheap check made on every 200: valid JSON, an
// object, with an "outputs" key. It allocates nothing. A body cut at
// http1.MaxKeptBody (the rest was read and discarded) cannot be valid JSON:
// its kept start is checked instead.
func isInferResponse(b []byte) bool {
	capped := len(b) >= http1.MaxKeptBody
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{' && bytes.Contains(b, []byte(`"outputs"`)) && (capped || json.Valid(b))
}

// errorMessage returns the "error" of a KServe error body, else the body.
func errorMessage(b []byte) string {
	var e kserve.ErrorResponse
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return clip([]byte(e.Error))
	}
	return clip(b)
}

// clip shortens a body for an error message.
func clip(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// Ready reports whether GET /v2/health/ready answers 200.
func (c *KServeHTTPClient) Ready(ctx context.Context) error {
	return c.get(ctx, "/v2/health/ready", nil)
}

// Live reports whether GET /v2/health/live answers 200.
func (c *KServeHTTPClient) Live(ctx context.Context) error { return c.get(ctx, "/v2/health/live", nil) }

// Metadata reads GET /v2/models/{model}.
func (c *KServeHTTPClient) Metadata(ctx context.Context) (*kserve.ModelMetadata, error) {
	var m kserve.ModelMetadata
	if err := c.get(ctx, "/v2/models/"+url.PathEscape(c.o.Model), &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// get fetches base+path, wants 200 and decodes the body into v when non-nil.
func (c *KServeHTTPClient) get(ctx context.Context, path string, v any) error {
	u := c.base + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	for k, val := range c.o.Headers {
		req.Header.Set(k, val)
	}
	resp, err := c.setup.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return &statusError{method: "GET", url: u, code: resp.StatusCode, msg: errorMessage(b)}
	}
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("GET %s: %w", u, err)
		}
	}
	return nil
}

// statusError is a setup request answered with a status other than 200.
type statusError struct {
	method, url string
	code        int
	msg         string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("%s %s: status %d: %s", e.method, e.url, e.code, e.msg)
}

// modelNames asks the server which models it serves, by Triton's
// repository index (POST /v2/repository/index; KServe v2 itself has no
// list). Nil when the server does not answer it.
func (c *KServeHTTPClient) modelNames(ctx context.Context) []string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/v2/repository/index", strings.NewReader("{}"))
	if err != nil {
		return nil
	}
	req.Header.Set("Content-Type", "application/json")
	for k, val := range c.o.Headers {
		req.Header.Set(k, val)
	}
	resp, err := c.setup.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var idx []struct {
		Name string `json:"name"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&idx) != nil {
		return nil
	}
	var names []string
	for _, m := range idx {
		names = append(names, m.Name)
	}
	return names
}

// Close closes the client's connections.
func (c *KServeHTTPClient) Close() error {
	c.setup.CloseIdleConnections()
	return c.post.Close()
}
