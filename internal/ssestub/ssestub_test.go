package ssestub

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestStream reads one stream and checks its shape and its timing: the
// first token no earlier than TTFT, the last no earlier than E2E.
func TestStream(t *testing.T) {
	tm := Timings{TTFT: 30 * time.Millisecond, TPOT: 5 * time.Millisecond, Tokens: 4}
	s := New(tm)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	tests := []struct {
		name, path, body string
		tokens           int
	}{
		{"chat with max_tokens", "/v1/chat/completions", `{"max_tokens": 6}`, 6},
		{"completions with the default length", "/v1/completions", `{}`, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			resp, err := http.Post(srv.URL+tt.path, "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var first, last time.Duration
			tokens, done, usage := 0, false, false
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				line := sc.Text()
				switch {
				case line == "data: [DONE]":
					done = true
				case strings.Contains(line, `"usage"`):
					usage = true
				case strings.Contains(line, " tok"):
					if tokens == 0 {
						first = time.Since(start)
					}
					last = time.Since(start)
					tokens++
				}
			}
			if tokens != tt.tokens || !done || !usage {
				t.Errorf("%d tokens, [DONE] %v, usage %v; want %d, true, true", tokens, done, usage, tt.tokens)
			}
			if first < tm.TTFT || last < tm.E2E(tt.tokens) {
				t.Errorf("first token at %v, last at %v; want no earlier than %v and %v", first, last, tm.TTFT, tm.E2E(tt.tokens))
			}
		})
	}
	if st := s.Stats(); st.Requests != 2 || st.Streams != 2 || st.Tokens != 10 {
		t.Errorf("Stats() = %+v, want 2 requests, 2 streams, 10 tokens", st)
	}
}

// TestHangEvery: every n-th request is never answered until the client
// gives up.
func TestHangEvery(t *testing.T) {
	s := New(Timings{Tokens: 1, HangEvery: 2})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	post := func(timeout time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/completions", strings.NewReader(`{}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = bufio.NewReader(resp.Body).ReadString(0)
		if err != nil && err.Error() == "EOF" {
			err = nil
		}
		return err
	}
	if err := post(5 * time.Second); err != nil {
		t.Fatalf("first request: %v", err)
	}
	if err := post(200 * time.Millisecond); err == nil {
		t.Error("second request answered, want it to hang")
	}
	if st := s.Stats(); st.Hung != 1 || st.Streams != 1 {
		t.Errorf("Stats() = %+v, want 1 hung, 1 stream", st)
	}
}
