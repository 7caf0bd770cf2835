// Package ssestub is an OpenAI-compatible streaming server of known
// timings, for measuring the measurer: every stream sends its first token
// TTFT after the request arrived and each further token TPOT after the one
// before, so a client's TTFT and TPOT can be compared with the truth.
//
// Token i (from 0) is written at arrival + TTFT + i·TPOT, an absolute
// time: a late wake-up delays one token, never the ones after it. The
// server does no other work, so its CPU cost is a write and a flush per
// token. It serves POST /v1/chat/completions and /v1/completions (the
// request's "max_tokens" sets the number of tokens, else Timings.Tokens)
// GET /health, and GET /stats (Stats: how well the server kept its own
// timings). With HangEvery = n, every n-th request is never
// answered (the handler waits until the client goes away): a target that
// hangs a fraction of its requests.
package ssestub

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Timings are the server's known figures.
type Timings struct {
	// TTFT is the delay from the request's arrival to the first token.
	TTFT time.Duration
	// TPOT is the gap between successive tokens.
	TPOT time.Duration
	// Tokens is the number of tokens per stream when the request does not
	// set max_tokens (default 100).
	Tokens int
	// HangEvery, if > 0, makes every HangEvery-th request hang.
	HangEvery int64
}

// E2E is the end-to-end time of a stream of n tokens: TTFT + (n−1)·TPOT.
func (t Timings) E2E(n int) time.Duration {
	return t.TTFT + time.Duration(max(n-1, 0))*t.TPOT
}

// Server is the handler. Its counters may be read while it serves.
type Server struct {
	t Timings
	// Requests counts requests received; Streams counts streams finished
	// with [DONE]; Hung counts requests deliberately left unanswered.
	Requests, Streams, Hung atomic.Int64
	// Tokens counts tokens written; Late those written more than
	// LateAfter after their due time, and MaxLateNs the worst lateness:
	// when Late is not small, the server did not keep its own timings and
	// a client's error against them is partly the server's.
	Tokens, Late, MaxLateNs atomic.Int64
}

// LateAfter is the lateness past which a token counts as Late.
const LateAfter = 2 * time.Millisecond

// Stats is the server's own account, served as JSON at GET /stats.
type Stats struct {
	Requests  int64   `json:"requests"`
	Streams   int64   `json:"streams"`
	Hung      int64   `json:"hung"`
	Tokens    int64   `json:"tokens"`
	Late      int64   `json:"late_tokens"`
	MaxLateMs float64 `json:"max_late_ms"`
}

// Stats returns the counters now.
func (s *Server) Stats() Stats {
	return Stats{Requests: s.Requests.Load(), Streams: s.Streams.Load(), Hung: s.Hung.Load(),
		Tokens: s.Tokens.Load(), Late: s.Late.Load(), MaxLateMs: float64(s.MaxLateNs.Load()) / 1e6}
}

// late records a token written late by d.
func (s *Server) late(d time.Duration) {
	if d <= LateAfter {
		return
	}
	s.Late.Add(1)
	for {
		m := s.MaxLateNs.Load()
		if int64(d) <= m || s.MaxLateNs.CompareAndSwap(m, int64(d)) {
			return
		}
	}
}

// New returns a server of timings t.
func New(t Timings) *Server {
	if t.Tokens <= 0 {
		t.Tokens = 100
	}
	return &Server{t: t}
}

// Pre-built chunks: the content of every token is the same short word.
var (
	chatChunk = []byte(`data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" tok"}}]}` + "\n\n")
	textChunk = []byte(`data: {"id":"x","object":"text_completion","choices":[{"index":0,"text":" tok"}]}` + "\n\n")
	doneChunk = []byte("data: [DONE]\n\n")
)

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	switch r.URL.Path {
	case "/health":
		io.WriteString(w, "ok")
		return
	case "/stats":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.Stats())
		return
	}
	chat := r.URL.Path == "/v1/chat/completions"
	if !chat && r.URL.Path != "/v1/completions" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, `{"error":{"message":"POST only"}}`, http.StatusMethodNotAllowed)
		return
	}
	var req struct {
		MaxTokens int `json:"max_tokens"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	n := s.Requests.Add(1)
	if s.t.HangEvery > 0 && n%s.t.HangEvery == 0 {
		s.Hung.Add(1)
		<-r.Context().Done()
		return
	}
	tokens := s.t.Tokens
	if req.MaxTokens > 0 {
		tokens = req.MaxTokens
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	chunk := textChunk
	if chat {
		chunk = chatChunk
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for i := range tokens {
		due := arrived.Add(s.t.TTFT + time.Duration(i)*s.t.TPOT)
		if d := time.Until(due); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-r.Context().Done():
				return
			}
		}
		s.late(time.Since(due))
		s.Tokens.Add(1)
		if _, err := w.Write(chunk); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
	usage := `data: {"id":"x","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":` + strconv.Itoa(tokens) + `,"total_tokens":` + strconv.Itoa(tokens+1) + "}}\n\n"
	io.WriteString(w, usage)
	w.Write(doneChunk)
	if fl != nil {
		fl.Flush()
	}
	s.Streams.Add(1)
}
