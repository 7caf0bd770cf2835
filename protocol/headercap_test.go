package protocol

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/harness"
)

// A response's headers are capped at harness.MaxResponseHeaderBytes on
// every net/http client perfgate runs, the openai one here (issue 43: Go's default let a server
// hold 10 MiB of headers on each connection, 393 MB at 32): 1 MiB of
// headers fails the request, as a protocol or connection error, at once.
func TestResponseHeaderCap(t *testing.T) {
	flood := func(w http.ResponseWriter) {
		v := strings.Repeat("x", 1000)
		for i := range 1100 {
			w.Header().Set(fmt.Sprintf("X-Flood-%d", i), v)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
			fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
		default:
			flood(w)
			w.WriteHeader(http.StatusOK)
		}
	}))
	t.Cleanup(srv.Close)
	for _, o := range []Options{
		{Protocol: OpenAI, URL: srv.URL, Model: "m"},
	} {
		t.Run(o.Protocol, func(t *testing.T) {
			c := newClient(t, o)
			s := c.Do(context.Background(), harness.Hit{})
			if s.OK() || !strings.Contains(s.Err, "exceeded") {
				t.Errorf("Do against 1 MiB of headers = class %q err %q, want the request failed: headers exceeded", s.Class, s.Err)
			}
		})
	}
}
