package sameorigin

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A redirect to another host is an error naming it, and the other host
// sees no request (so no header from the configuration); a redirect on
// the same host is followed.
func TestCheckRedirect(t *testing.T) {
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "ready")
	}))
	t.Cleanup(other.Close)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
		case "/here":
			http.Redirect(w, r, "/ready", http.StatusMovedPermanently)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			io.WriteString(w, "ready")
		}
	}))
	t.Cleanup(target.Close)
	c := Client(nil)
	tests := []struct {
		name, path, wantErr string
	}{
		{"another host", "/away", "redirected to " + other.URL + "/steal, another host"},
		{"same host", "/here", ""},
		{"a loop", "/loop", "stopped after 10 redirects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, target.URL+tt.path, nil)
			req.Header.Set("X-Api-Key", "secret")
			resp, err := c.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			switch {
			case tt.wantErr == "" && (err != nil || resp.StatusCode != 200):
				t.Errorf("GET %s = %v, want 200", tt.path, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("GET %s = %v, want an error with %q", tt.path, err, tt.wantErr)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the other host got %d requests, want none", n)
	}
}
