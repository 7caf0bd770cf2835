package githubapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"testing"

	"github.com/perfgate/perfgate/internal/githubapi/githubapitest"
)

// landingProxy forwards to the fake but answers the first POST with 502
// after the fake has created the comment: a write that landed although the
// client saw a server error.
type landingProxy struct {
	srv  *githubapitest.Server
	once sync.Once
}

func (p *landingProxy) start(t *testing.T) string {
	t.Helper()
	u, _ := url.Parse(p.srv.URL)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		if resp.Request.Method == http.MethodPost {
			p.once.Do(func() { resp.StatusCode = http.StatusBadGateway })
		}
		return nil
	}
	front := httptest.NewServer(rp)
	t.Cleanup(front.Close)
	return front.URL
}
