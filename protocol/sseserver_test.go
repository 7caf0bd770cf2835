package protocol

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// sseServer is a real OpenAI-compatible streaming server: after ttft it
// sends tokens content chunks tokenDelay apart, then a usage chunk (when
// usage is set) and [DONE]. mode makes it fail in one of the ways the
// client must classify.
type sseServer struct {
	ttft, tokenDelay time.Duration
	tokens           int
	usage            bool
	crlf             bool // end lines with CRLF and add comments
	mode             string

	mu      sync.Mutex
	last    map[string]any
	path    string
	prompts []string // every prompt received, in order
}

// Failure modes of sseServer.
const (
	modeTruncate   = "truncate"    // end the body cleanly after 2 tokens, without [DONE]
	modeAbort      = "abort"       // drop the connection after 2 tokens
	modeMalformed  = "malformed"   // a data line that is not JSON
	modeErrorEvent = "error-event" // "event: error"
	modeErrorData  = "error-data"  // a chunk with an "error" object
	modeEmpty      = "empty"       // [DONE] without any content
	modeStatus     = "status"      // 429 before streaming
	modeHang       = "hang"        // stall after the first token
	modeJSON       = "json"        // ignore "stream" and answer one JSON body
)

func (s *sseServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(b, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.last, s.path = req, r.URL.Path
	s.prompts = append(s.prompts, promptOf(req))
	s.mu.Unlock()
	chat := r.URL.Path == "/v1/chat/completions"
	if !chat && r.URL.Path != "/v1/completions" {
		http.NotFound(w, r)
		return
	}
	if s.mode == modeStatus {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"error":{"message":"slow down","type":"rate_limit"}}`)
		return
	}
	if s.mode == modeJSON {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"content":"all at once"}}]}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	nl := "\n"
	if s.crlf {
		nl = "\r\n"
	}
	send := func(data string) {
		if s.crlf {
			io.WriteString(w, ": keep-alive"+nl)
		}
		io.WriteString(w, "data: "+data+nl+nl)
		fl.Flush()
	}
	if chat {
		send(`{"choices":[{"index":0,"delta":{"role":"assistant"}}]}`) // not content
	} else {
		fl.Flush()
	}
	time.Sleep(s.ttft)
	switch s.mode {
	case modeMalformed:
		send(`{"choices":[{"delta":{"content":"a"}`)
		return
	case modeErrorEvent:
		io.WriteString(w, "event: error"+nl+`data: {"message":"engine died"}`+nl+nl)
		fl.Flush()
		return
	case modeErrorData:
		send(`{"error":{"message":"overloaded","code":503}}`)
		return
	case modeEmpty:
		send("[DONE]")
		return
	}
	for i := range s.tokens {
		if i > 0 {
			time.Sleep(s.tokenDelay)
		}
		if chat {
			send(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":"tok%d "}}]}`, i))
		} else {
			send(fmt.Sprintf(`{"choices":[{"index":0,"text":"tok%d "}]}`, i))
		}
		switch {
		case i == 1 && s.mode == modeTruncate:
			return
		case i == 1 && s.mode == modeAbort:
			panic(http.ErrAbortHandler) // the connection is dropped mid-body
		case i == 0 && s.mode == modeHang:
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
			return
		}
	}
	if s.usage {
		send(fmt.Sprintf(`{"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":%d,"total_tokens":%d}}`, s.tokens, s.tokens+7))
	}
	send("[DONE]")
}

func (s *sseServer) lastRequest() (string, map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path, s.last
}

func startSSE(t *testing.T, s *sseServer) string {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// promptOf returns the prompt a request carried, chat or completions.
func promptOf(req map[string]any) string {
	if p, ok := req["prompt"].(string); ok {
		return p
	}
	msgs, _ := req["messages"].([]any)
	var parts []string
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		c, _ := mm["content"].(string)
		parts = append(parts, c)
	}
	return strings.Join(parts, "\n")
}
