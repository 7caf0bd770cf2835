package refserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sseEvent is one parsed chunk of a stream.
type sseChunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Delta struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"delta"`
		Text         string  `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

// streamResult is what a client saw of one streamed completion.
type streamResult struct {
	chunks []sseChunk
	done   bool          // [DONE] arrived last
	ttft   time.Duration // request sent to first token
	total  time.Duration
	text   string
}

// streamCompletion posts a streaming request and parses its SSE events.
func streamCompletion(t testing.TB, c *http.Client, base, path string, body map[string]any) streamResult {
	t.Helper()
	body["stream"] = true
	b, _ := json.Marshal(body)
	start := time.Now()
	resp, err := c.Post(base+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("POST %s: status %d, content type %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var r streamResult
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("SSE line %q: want data: prefix", line)
		}
		if r.done {
			t.Fatalf("event after [DONE]: %q", line)
		}
		if data == "[DONE]" {
			r.done = true
			continue
		}
		var ch sseChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("SSE data %q: %v", data, err)
		}
		if len(ch.Choices) > 0 {
			if r.ttft == 0 {
				r.ttft = time.Since(start)
			}
			r.text += ch.Choices[0].Delta.Content + ch.Choices[0].Text
		}
		r.chunks = append(r.chunks, ch)
	}
	r.total = time.Since(start)
	return r
}

func TestChatStreaming(t *testing.T) {
	_, hs := newTestServer(t, Options{Model: ModelSim, LLMStep: time.Millisecond, LLMStepPerSeq: time.Microsecond})
	body := func() map[string]any {
		return map[string]any{"model": NameSimLLM, "max_tokens": 5,
			"messages":       []map[string]any{{"role": "user", "content": "three little words"}},
			"stream_options": map[string]any{"include_usage": true}}
	}
	r := streamCompletion(t, hs.Client(), hs.URL, "/v1/chat/completions", body())
	if !r.done {
		t.Fatalf("stream did not end with [DONE]")
	}
	if len(r.chunks) != 6 {
		t.Fatalf("%d chunks, want 5 tokens and a usage chunk", len(r.chunks))
	}
	if r.chunks[0].Object != "chat.completion.chunk" || r.chunks[0].Choices[0].Delta.Role != "assistant" {
		t.Errorf("first chunk %+v: want a chat.completion.chunk with the assistant role", r.chunks[0])
	}
	last := r.chunks[4].Choices[0].FinishReason
	if last == nil || *last != "length" {
		t.Errorf("fifth chunk finish_reason %v, want length", last)
	}
	want := usage{PromptTokens: 3, CompletionTokens: 5, TotalTokens: 8}
	if d := cmp.Diff(&want, r.chunks[5].Usage); d != "" || len(r.chunks[5].Choices) != 0 {
		t.Errorf("usage chunk (-want +got):\n%s", d)
	}
	again := streamCompletion(t, hs.Client(), hs.URL, "/v1/chat/completions", body())
	if again.text != r.text || len(strings.Fields(r.text)) != 5 {
		t.Errorf("texts %q and %q: want the same 5 words (deterministic from the seed)", r.text, again.text)
	}
}

func TestCompletions(t *testing.T) {
	_, hs := newTestServer(t, Options{Model: ModelSim, LLMStep: time.Millisecond})
	r := streamCompletion(t, hs.Client(), hs.URL, "/v1/completions",
		map[string]any{"model": NameSimLLM, "prompt": "hello", "max_tokens": 3})
	if !r.done || len(r.chunks) != 3 || r.chunks[0].Object != "text_completion" {
		t.Errorf("stream %+v: want 3 text_completion chunks (no usage unless asked) and [DONE]", r)
	}
	code, h, body := postJSON(t, hs.Client(), hs.URL+"/v1/completions",
		map[string]any{"model": NameSimLLM, "prompt": []string{"one two", "three"}, "max_tokens": 4})
	if code != http.StatusOK || h.Get(SimulatedHeader) != "1" {
		t.Fatalf("non-streamed: status %d, %s %q: %s", code, SimulatedHeader, h.Get(SimulatedHeader), body)
	}
	var resp struct {
		Choices []struct {
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage usage `json:"usage"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(usage{PromptTokens: 3, CompletionTokens: 4, TotalTokens: 7}, resp.Usage); d != "" {
		t.Errorf("usage (-want +got):\n%s", d)
	}
	for _, tt := range []struct {
		name string
		body map[string]any
		want int
	}{
		{"unknown model", map[string]any{"model": "gpt", "prompt": "x"}, http.StatusNotFound},
		{"zero max_tokens", map[string]any{"model": NameSimLLM, "prompt": "x", "max_tokens": 0}, http.StatusBadRequest},
		{"prompt not text", map[string]any{"model": NameSimLLM, "prompt": 3}, http.StatusBadRequest},
	} {
		if code, _, body := postJSON(t, hs.Client(), hs.URL+"/v1/completions", tt.body); code != tt.want {
			t.Errorf("%s: status %d (%s), want %d", tt.name, code, body, tt.want)
		}
	}
}

// TestLLMCosts checks the direction of each cost in the scheduler: a
// longer prompt delays the first token (prefill), more running sequences
// slow every token (decode), and a full batch makes newcomers wait
// (queueing is in TTFT).
func TestLLMCosts(t *testing.T) {
	// Costs large enough that a busy machine's timer lateness (a few ms a
	// step) cannot reverse a direction.
	o := Options{Model: ModelSim, LLMStep: 5 * time.Millisecond, LLMStepPerSeq: 20 * time.Millisecond,
		LLMPrefillPerToken: 2 * time.Millisecond, LLMMaxSeqs: 4}
	_, hs := newTestServer(t, o)
	req := func(words, tokens int) map[string]any {
		return map[string]any{"model": NameSimLLM, "prompt": strings.Repeat("w ", words), "max_tokens": tokens}
	}
	short := streamCompletion(t, hs.Client(), hs.URL, "/v1/completions", req(1, 1))
	long := streamCompletion(t, hs.Client(), hs.URL, "/v1/completions", req(100, 1))
	// 100 prompt tokens at 2ms each: about 200ms more.
	if long.ttft < short.ttft+100*time.Millisecond {
		t.Errorf("TTFT with 100 prompt tokens %v, with 1 %v: want the long prompt ≥ 100ms later", long.ttft, short.ttft)
	}
	alone := streamCompletion(t, hs.Client(), hs.URL, "/v1/completions", req(1, 10))
	// 8 sequences against 4 slots: 4 run (each step 5+4×20 = 85ms, not
	// 25ms), 4 wait for a whole generation.
	results := make([]streamResult, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = streamCompletion(t, hs.Client(), hs.URL, "/v1/completions", req(1, 10))
		}()
	}
	wg.Wait()
	minTotal, maxTTFT := time.Hour, time.Duration(0)
	for _, r := range results {
		minTotal, maxTTFT = min(minTotal, r.total), max(maxTTFT, r.ttft)
	}
	if minTotal < alone.total*3/2 {
		t.Errorf("10 tokens alone %v, with 4 running at best %v: want decoding ≥ 1.5× slower", alone.total, minTotal)
	}
	if maxTTFT < alone.total {
		t.Errorf("worst TTFT with 8 requests on 4 slots %v: want at least a whole generation (%v) of queueing", maxTTFT, alone.total)
	}
}
