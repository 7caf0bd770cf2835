package protocol

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"time"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/harness/http1"
)

// netPoster sends a fixed POST with net/http: the https path of the KServe
// HTTP client (http1 speaks plain http only). Redirects are not followed.
type netPoster struct {
	url     string
	headers http.Header
	body    []byte
	client  *http.Client
	tr      *http.Transport
	pool    *harness.PoolCount
}

func newNetPoster(url string, headers map[string]string, body []byte, timeout time.Duration, maxConns int, tlsConf *tls.Config) *netPoster {
	h := make(http.Header, len(headers))
	for k, v := range headers {
		h.Set(k, v)
	}
	tr := &http.Transport{Proxy: nil, MaxIdleConns: maxConns, MaxIdleConnsPerHost: maxConns,
		MaxConnsPerHost: maxConns, IdleConnTimeout: 90 * time.Second, DisableCompression: true, TLSClientConfig: tlsConf,
		MaxResponseHeaderBytes: harness.MaxResponseHeaderBytes}
	return &netPoster{url: url, headers: h, body: body, tr: tr, pool: &harness.PoolCount{Max: int64(maxConns)}, client: &http.Client{
		Transport: tr, Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// DoAppendWait implements poster.
func (p *netPoster) DoAppendWait(ctx context.Context, body, dst []byte) (int, []byte, time.Duration, error) {
	if body == nil {
		body = p.body
	}
	cw := harness.ConnWait{Pool: p.pool}
	req, err := http.NewRequestWithContext(cw.WithConnWait(ctx), http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return 0, dst, 0, err
	}
	req.Header = p.headers.Clone()
	p.pool.Enter()
	defer p.pool.Leave()
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, dst, cw.Wait(), err
	}
	defer resp.Body.Close()
	buf := bytes.NewBuffer(dst)
	_, err = copyCapped(buf, resp.Body)
	return resp.StatusCode, buf.Bytes(), cw.Wait(), err
}

// Close implements poster.
func (p *netPoster) Close() error {
	p.tr.CloseIdleConnections()
	return nil
}

// copyCapped copies r to buf, keeping at most http1.MaxKeptBody bytes: the
// rest is read and counted but discarded, as the http1 client does.
func copyCapped(buf *bytes.Buffer, r io.Reader) (int64, error) {
	n, err := io.Copy(buf, io.LimitReader(r, http1.MaxKeptBody))
	if err != nil {
		return n, err
	}
	m, err := io.Copy(io.Discard, r)
	return n + m, err
}
