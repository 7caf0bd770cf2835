package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/perfgate/perfgate/harness"
)

// OpenAIClient sends OpenAI-compatible streaming generation requests
// ("stream": true, "stream_options": {"include_usage": true}) to
// {base}/v1/chat/completions or {base}/v1/completions and times the
// stream. Per request it fills harness.Sample.Stream:
//
//	Start        when the request was sent
//	FirstToken   arrival of the first chunk with content (delta.content or
//	             delta.reasoning_content for chat, text for completions);
//	             a role-only first chunk is not content
//	ITL          the gaps between successive content chunks (a chunk that
//	             carries several tokens is one gap) that were observed:
//	             a gap with a chunk at either end that arrived in one read
//	             with another content chunk is counted (Stream.Unobserved)
//	             but left out
//	PromptTokens usage.prompt_tokens, when the server sends it
//	End          arrival of "data: [DONE]"
//	OutputTokens usage.completion_tokens from the final usage chunk when
//	             the server sends one, else the number of content chunks
//
// TTFT = FirstToken − Start and TPOT = (End − Start − TTFT) / (tokens − 1)
// are computed by harness.LLMRecorder. The prompt for hit h is prompt
// h.Seq mod the number of prompts, or the hit's payload (a trace prompt or
// request body).
type OpenAIClient struct {
	o      Options
	url    string
	chat   bool
	bodies [][]byte
	words  []int // words of each body's prompt
	header http.Header
	client *http.Client
	tr     *http.Transport
	pool   *harness.PoolCount
}

var (
	_ harness.Client = (*OpenAIClient)(nil)
	_ harness.Closer = (*OpenAIClient)(nil)
)

// syntheticVariety is how many distinct synthetic prompts are cycled.
const syntheticVariety = 64

// NewOpenAI returns a streaming client for o, with prompts from o.Dataset
// or synthetic ones of o.PromptTokens words.
func NewOpenAI(o Options) (*OpenAIClient, error) {
	o = o.withDefaults()
	if o.Model == "" {
		return nil, fmt.Errorf("openai: %w", ErrNoModel)
	}
	base, err := baseURL(o.URL)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	c := &OpenAIClient{o: o, chat: o.Endpoint != "completions", header: http.Header{},
		pool: &harness.PoolCount{Max: int64(o.MaxConns)}}
	c.url = base + "/v1/completions"
	if c.chat {
		c.url = base + "/v1/chat/completions"
	}
	var prompts []Prompt
	if o.Dataset != "" {
		if prompts, err = LoadDataset(o.Dataset); err != nil {
			return nil, err
		}
	} else {
		prompts = SyntheticPrompts(syntheticVariety, o.PromptTokens, o.Seed)
	}
	for _, p := range prompts {
		b, err := requestBody(o.Model, c.chat, p, o.MaxTokens)
		if err != nil {
			return nil, fmt.Errorf("openai: %w", err)
		}
		c.bodies = append(c.bodies, b)
		c.words = append(c.words, p.words())
	}
	for k, v := range o.Headers {
		c.header.Set(k, v)
	}
	c.header.Set("Content-Type", "application/json")
	c.header.Set("Accept", "text/event-stream")
	c.tr = &http.Transport{Proxy: nil, MaxIdleConns: o.MaxConns, MaxIdleConnsPerHost: o.MaxConns,
		MaxConnsPerHost: o.MaxConns, IdleConnTimeout: 90 * time.Second,
		DisableCompression:     true, // a gzipped stream would arrive in bursts
		TLSClientConfig:        o.TLS,
		MaxResponseHeaderBytes: harness.MaxResponseHeaderBytes}
	c.client = &http.Client{Transport: c.tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return c, nil
}

// body returns the request body for h and the words of its prompt (0
// for a whole request body from a trace).
func (c *OpenAIClient) body(h harness.Hit) ([]byte, int, error) {
	if h.Payload == nil {
		i := h.Seq % uint64(len(c.bodies))
		return c.bodies[i], c.words[i], nil
	}
	if p, ok := harness.PromptFromPayload(h.Payload); ok {
		pr := Prompt{Prompt: p}
		b, err := requestBody(c.o.Model, c.chat, pr, c.o.MaxTokens)
		return b, pr.words(), err
	}
	// A whole request body: keep it, but make it stream with usage.
	var m map[string]any
	if err := json.Unmarshal(h.Payload, &m); err != nil {
		return nil, 0, fmt.Errorf("trace payload: %w", err)
	}
	if _, ok := m["model"]; !ok {
		m["model"] = c.o.Model
	}
	m["stream"] = true
	m["stream_options"] = map[string]any{"include_usage": true}
	b, err := json.Marshal(m)
	return b, 0, err
}

// Do implements harness.Client.
func (c *OpenAIClient) Do(ctx context.Context, h harness.Hit) harness.Sample {
	body, words, err := c.body(h)
	if err != nil {
		now := time.Now()
		return harness.Sample{Hit: h, Start: now, End: now, Class: harness.ErrProtocol, Err: err.Error()}
	}
	rctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	cw := harness.ConnWait{Pool: c.pool}
	req, err := http.NewRequestWithContext(cw.WithConnWait(rctx), http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		now := time.Now()
		return harness.Sample{Hit: h, Start: now, End: now, Class: harness.ErrProtocol, Err: err.Error()}
	}
	req.Header = c.header
	c.pool.Enter()
	defer c.pool.Leave()
	s := harness.Sample{Hit: h, Start: time.Now()}
	resp, err := c.client.Do(req)
	// A request that queued for a connection (a pool smaller than the
	// load) was sent when it got one: the queue is perfgate's, measured
	// apart as Wait, not the server's time to first token.
	s.Wait = cw.Wait()
	s.Start = s.Start.Add(s.Wait)
	if err != nil {
		s.End = time.Now()
		s.Class, s.Err = streamClass(ctx, rctx, err), err.Error()
		return s
	}
	defer resp.Body.Close()
	s.Code = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		s.End = time.Now()
		s.Class, s.Err = harness.HTTPClass(resp.StatusCode), fmt.Sprintf("status %d: %s", resp.StatusCode, openAIError(b))
		return s
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		s.End = time.Now()
		s.Class, s.Err = harness.ErrProtocol, "answered "+ct+", not an event stream (is \"stream\": true supported?): "+clip(b)
		return s
	}
	readStream(ctx, rctx, resp.Body, &s)
	if s.Stream != nil {
		s.Stream.PromptWords = words
	}
	// Drain what follows [DONE] (usually nothing) so the connection is reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return s
}

// chunk is the part of a streamed completion chunk that is timed.
type chunk struct {
	Choices []struct {
		Text  string `json:"text"`
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		CompletionTokens int64 `json:"completion_tokens"`
		PromptTokens     int64 `json:"prompt_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

func (ch *chunk) hasContent() bool {
	for _, c := range ch.Choices {
		if c.Text != "" || c.Delta.Content != "" || c.Delta.ReasoningContent != "" {
			return true
		}
	}
	return false
}

var done = []byte("[DONE]")

// Bounds on what one stream may hold (docs/streaming.md): a hostile or
// broken server cannot grow a request's memory without bound.
const (
	// MaxStreamEvents is the most events one stream may send before it is
	// failed as a protocol error (2^20: far above any max_tokens).
	MaxStreamEvents = 1 << 20
	// MaxUsageTokens is the largest token count a usage chunk may report
	// (2^24); a larger or negative one is a protocol error, never a figure.
	MaxUsageTokens = 1 << 24
)

// gapTracker keeps the inter-token gaps the client could observe. A
// content chunk's time is the moment the read that completed it returned;
// when two content chunks were completed by the same read (the reader was
// late, or the server wrote them together), neither time is the chunk's
// arrival, so every gap with such a chunk at either end is left out and
// counted as unobserved.
type gapTracker struct {
	chunks     int
	last       time.Time
	lastRead   uint64
	lastShared bool          // the last chunk shared its read with the one before
	pending    time.Duration // the gap ending at the last chunk, if observable
	hasPending bool
	maxITL     int // gaps kept at most
	st         *harness.Stream
}

// add records a content chunk completed by read number read at time now.
func (g *gapTracker) add(now time.Time, read uint64) {
	if g.chunks == 0 {
		g.st.FirstToken = now
		g.chunks, g.last, g.lastRead = 1, now, read
		return
	}
	g.st.Gaps++
	shared := read == g.lastRead
	if shared {
		// The last chunk shares its read with this one: the gap ending at
		// it, still pending, was not observable after all.
		if g.hasPending {
			g.st.Unobserved++
			g.hasPending = false
		}
		g.st.Unobserved++ // the gap ending here
	} else {
		g.commit()
		if g.lastShared {
			g.st.Unobserved++
		} else {
			g.pending, g.hasPending = now.Sub(g.last), true
		}
	}
	g.chunks++
	g.last, g.lastRead, g.lastShared = now, read, shared
}

// commit keeps the pending gap, whose chunks were each alone in their read.
func (g *gapTracker) commit() {
	if !g.hasPending {
		return
	}
	g.hasPending = false
	if len(g.st.ITL) < g.maxITL {
		g.st.ITL = append(g.st.ITL, g.pending)
	}
}

// streamLimits bound what one stream may hold: MaxStreamEvents events and
// harness.MaxITLPerStream gaps kept, unless a test lowers them.
type streamLimits struct{ events, itl int }

var defaultStreamLimits = streamLimits{events: MaxStreamEvents, itl: harness.MaxITLPerStream}

// readStream reads the SSE body into s: Stream on success, Class and Err
// on failure. s.End is set either way.
func readStream(ctx, rctx context.Context, body io.Reader, s *harness.Sample) {
	readStreamLimited(ctx, rctx, body, s, defaultStreamLimits)
}

func readStreamLimited(ctx, rctx context.Context, body io.Reader, s *harness.Sample, lim streamLimits) {
	st := &harness.Stream{}
	rd := NewSSEReader(body, 0)
	g := gapTracker{st: st, maxITL: lim.itl}
	var (
		events int
		usage  int64 = -1
	)
	fail := func(class, msg string) {
		s.End = time.Now()
		s.Class, s.Err = class, msg
	}
	for {
		ev, err := rd.Next()
		now := time.Now()
		if err != nil {
			switch {
			case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
				if rctx.Err() != nil { // the read ended because the request did
					fail(streamClass(ctx, rctx, err), err.Error())
					return
				}
				fail(ClassStreamTruncated, fmt.Sprintf("stream closed before [DONE] after %d content chunks", g.chunks))
			case errors.Is(err, ErrLineTooLong), errors.Is(err, ErrEventTooLarge):
				fail(harness.ErrProtocol, err.Error())
			default:
				fail(streamClass(ctx, rctx, err), err.Error())
			}
			return
		}
		if events++; events > lim.events {
			fail(harness.ErrProtocol, fmt.Sprintf("stream sent over %d events without [DONE]", lim.events))
			return
		}
		if ev.Name == "error" {
			fail(ClassStreamError, "error event: "+clip(ev.Data))
			return
		}
		if bytes.Equal(bytes.TrimSpace(ev.Data), done) {
			break
		}
		var ch chunk
		if err := json.Unmarshal(ev.Data, &ch); err != nil {
			fail(harness.ErrProtocol, fmt.Sprintf("malformed event %q: %v", clip(ev.Data), err))
			return
		}
		if len(ch.Error) > 0 && !bytes.Equal(ch.Error, []byte("null")) {
			fail(ClassStreamError, "error in stream: "+clip(ch.Error))
			return
		}
		if ch.hasContent() {
			g.add(now, rd.Reads())
		}
		if u := ch.Usage; u != nil {
			for _, f := range []struct {
				name string
				n    int64
			}{{"completion_tokens", u.CompletionTokens}, {"prompt_tokens", u.PromptTokens}} {
				if f.n < 0 || f.n > MaxUsageTokens {
					fail(harness.ErrProtocol, fmt.Sprintf("usage.%s %d is out of range (0 to %d)", f.name, f.n, MaxUsageTokens))
					return
				}
			}
			usage = u.CompletionTokens
			st.PromptTokens = int(u.PromptTokens)
		}
	}
	s.End = time.Now()
	if g.chunks == 0 {
		s.Class, s.Err = ClassStreamEmpty, "stream ended without a content token"
		return
	}
	if !g.lastShared {
		g.commit()
	}
	st.OutputTokens = g.chunks
	if usage > 0 {
		st.OutputTokens = int(usage)
	}
	s.Stream = st
}

// streamClass classes a transport error of a stream: a request whose own
// deadline passed is a timeout whatever error the read reported.
func streamClass(ctx, rctx context.Context, err error) string {
	if cerr := ctx.Err(); cerr != nil { // the run ended the request
		if errors.Is(cerr, context.DeadlineExceeded) {
			return harness.ErrTimeout
		}
		return harness.ErrCanceled
	}
	if errors.Is(rctx.Err(), context.DeadlineExceeded) {
		return harness.ErrTimeout
	}
	return classify(ctx, err)
}

// openAIError extracts {"error": {"message": ...}} or {"error": "..."}.
func openAIError(b []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && len(e.Error) > 0 {
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &m) == nil && m.Message != "" {
			return clip([]byte(m.Message))
		}
		var s string
		if json.Unmarshal(e.Error, &s) == nil {
			return clip([]byte(s))
		}
	}
	return clip(b)
}

// Close closes idle connections.
func (c *OpenAIClient) Close() error {
	c.tr.CloseIdleConnections()
	return nil
}
