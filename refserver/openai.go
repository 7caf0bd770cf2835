package refserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/perfgate/perfgate/refserver/tinyllm"
)

// maxCompletionTokens bounds max_tokens.
const maxCompletionTokens = 8192

// openAIRequest is the part of a chat or completions request the tiny-llm
// reads.
type openAIRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Seed        *int64   `json:"seed"`
	Temperature *float64 `json:"temperature"`
}

// chatMessage holds a message whose content is a string or a list of
// {"type": "text", "text": ...} parts.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text returns the message's text, parts joined by spaces.
func (m chatMessage) text() (string, error) {
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", fmt.Errorf("message content: want a string or a list of text parts: %w", err)
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
		b.WriteByte(' ')
	}
	return b.String(), nil
}

// promptText returns the chat messages' or the completion prompt's text.
func (r *openAIRequest) promptText(chat bool) (string, error) {
	if chat {
		if len(r.Messages) == 0 {
			return "", errors.New("messages: want at least one")
		}
		var b strings.Builder
		for i, m := range r.Messages {
			t, err := m.text()
			if err != nil {
				return "", fmt.Errorf("messages[%d]: %w", i, err)
			}
			b.WriteString(t)
			b.WriteByte('\n')
		}
		return b.String(), nil
	}
	var s string
	if err := json.Unmarshal(r.Prompt, &s); err == nil {
		return s, nil
	}
	var ss []string
	if err := json.Unmarshal(r.Prompt, &ss); err != nil {
		return "", errors.New("prompt: want a string or a list of strings")
	}
	return strings.Join(ss, "\n"), nil
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func (s *Server) openAIChat(w http.ResponseWriter, r *http.Request) { s.openAI(w, r, true) }

func (s *Server) openAICompletions(w http.ResponseWriter, r *http.Request) { s.openAI(w, r, false) }

// openAIModel is a model's /v1/models entry: perfgate_simulated says
// whether its timing is simulated.
func (s *Server) openAIModel(name string) map[string]any {
	m := map[string]any{"id": name, "object": "model", "owned_by": "perfgate",
		"perfgate_simulated": name == NameSimLLM, "max_num_seqs": s.opts.LLMMaxSeqs}
	if name == NameTinyLLM {
		c := s.tiny.Config()
		m["max_model_len"] = c.MaxContext
		m["precision"] = c.Precision
		m["vocab_size"] = s.tiny.VocabSize()
		m["max_num_batched_tokens"] = s.opts.LLMMaxBatchedTokens
	}
	return m
}

func (s *Server) openAIModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list",
		"data": []map[string]any{s.openAIModel(NameTinyLLM), s.openAIModel(NameSimLLM)}})
}

// openAIModelInfo is GET /v1/models/{model}; for sim-llm it carries
// SimulatedHeader, which is how perfgate learns that a target's timing
// is simulated.
func (s *Server) openAIModelInfo(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("model")
	switch name {
	case NameSimLLM:
		w.Header().Set(SimulatedHeader, "1")
	case NameTinyLLM:
	default:
		writeOpenAIError(w, http.StatusNotFound, fmt.Sprintf("model %q: this server serves %q and %q", name, NameTinyLLM, NameSimLLM))
		return
	}
	writeJSON(w, http.StatusOK, s.openAIModel(name))
}

// openAI serves one chat (chat true) or completions request, streaming
// Server-Sent Events when asked.
func (s *Server) openAI(w http.ResponseWriter, r *http.Request, chat bool) {
	var req openAIRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(&req); err != nil {
		writeOpenAIError(w, http.StatusBadRequest, fmt.Sprintf("request body: %v", err))
		return
	}
	var engine llmServing
	switch req.Model {
	case NameTinyLLM:
		engine = s.llm
	case NameSimLLM:
		engine = s.simLLM
		w.Header().Set(SimulatedHeader, "1")
	default:
		writeOpenAIError(w, http.StatusNotFound, fmt.Sprintf("model %q: this server serves %q and %q", req.Model, NameTinyLLM, NameSimLLM))
		return
	}
	prompt, err := req.promptText(chat)
	if err != nil {
		writeOpenAIError(w, http.StatusBadRequest, err.Error())
		return
	}
	maxTok := s.opts.LLMMaxTokens
	if req.MaxCompletionTokens != nil {
		maxTok = *req.MaxCompletionTokens
	} else if req.MaxTokens != nil {
		maxTok = *req.MaxTokens
	}
	if maxTok < 1 || maxTok > maxCompletionTokens {
		writeOpenAIError(w, http.StatusBadRequest, fmt.Sprintf("max_tokens %d: want 1 to %d", maxTok, maxCompletionTokens))
		return
	}
	seed := s.opts.Seed
	if req.Seed != nil {
		seed = uint64(*req.Seed)
	}
	seq := &llmSeq{ctx: r.Context(), prompt: promptTokens(prompt), max: maxTok, seed: seedFor(seed, prompt)}
	if req.Model == NameTinyLLM {
		temp := 1.0 // OpenAI's default
		if req.Temperature != nil {
			temp = *req.Temperature
		}
		if temp < 0 || temp > 2 {
			writeOpenAIError(w, http.StatusBadRequest, fmt.Sprintf("temperature %v: want 0 (greedy) to 2", temp))
			return
		}
		toks := s.tiny.Tokenizer().Encode(prompt)
		if ctxLen := s.tiny.Config().MaxContext; len(toks) == 0 || len(toks)+maxTok > ctxLen {
			writeOpenAIError(w, http.StatusBadRequest, fmt.Sprintf(
				"prompt of %d tokens and max_tokens %d: want at least one prompt token and at most %d in all (the model's context length)",
				len(toks), maxTok, ctxLen))
			return
		}
		seq.prompt = len(toks)
		seq.tiny = tinySeq{tokens: toks, sampler: tinyllm.NewSampler(temp, seq.seed)}
	}
	switch err := engine.submit(seq); {
	case errors.Is(err, ErrQueueFull):
		writeOpenAIError(w, http.StatusTooManyRequests, fmt.Sprintf("model %s: %v", req.Model, err))
		return
	case err != nil:
		writeOpenAIError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	c := completion{id: fmt.Sprintf("cmpl-%d", s.ids.Add(1)), created: time.Now().Unix(), chat: chat, model: req.Model}
	if chat {
		c.id = "chat" + c.id
	}
	u := usage{PromptTokens: seq.prompt}
	if req.Stream {
		s.stream(w, r, seq, c, &u, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
		return
	}
	var text strings.Builder
	finish := ""
	for finish == "" {
		select {
		case <-r.Context().Done():
			return
		case t := <-seq.events:
			if t.err != nil {
				writeOpenAIError(w, http.StatusServiceUnavailable, t.err.Error())
				return
			}
			text.WriteString(t.text)
			u.CompletionTokens++
			finish = t.finish
		}
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	writeJSON(w, http.StatusOK, c.whole(text.String(), finish, u))
}

// stream writes each token as an SSE chunk as soon as the scheduler makes
// it, then the usage chunk when asked, then [DONE].
func (s *Server) stream(w http.ResponseWriter, r *http.Request, seq *llmSeq, c completion, u *usage, includeUsage bool) {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	var buf bytes.Buffer
	send := func(v any) bool {
		buf.Reset()
		buf.WriteString("data: ")
		b, _ := json.Marshal(v)
		buf.Write(b)
		buf.WriteString("\n\n")
		if _, err := w.Write(buf.Bytes()); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	for finish := ""; finish == ""; {
		select {
		case <-r.Context().Done():
			return
		case t := <-seq.events:
			if t.err != nil {
				send(map[string]any{"error": map[string]any{"message": t.err.Error(), "type": "server_error"}})
				return
			}
			u.CompletionTokens++
			finish = t.finish
			if !send(c.chunk(t.text, finish, u.CompletionTokens == 1)) {
				return
			}
		}
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	if includeUsage {
		if !send(c.usageChunk(*u)) {
			return
		}
	}
	w.Write([]byte("data: [DONE]\n\n"))
	if fl != nil {
		fl.Flush()
	}
}

// completion builds the response objects of one request.
type completion struct {
	id      string
	created int64
	chat    bool
	model   string
}

func (c completion) object(chunk bool) string {
	switch {
	case c.chat && chunk:
		return "chat.completion.chunk"
	case c.chat:
		return "chat.completion"
	}
	return "text_completion"
}

func (c completion) head(chunk bool) map[string]any {
	return map[string]any{"id": c.id, "object": c.object(chunk), "created": c.created, "model": c.model}
}

// chunk is one streamed token; the first chat delta carries the role.
func (c completion) chunk(text, finish string, first bool) map[string]any {
	var fr any
	if finish != "" {
		fr = finish
	}
	choice := map[string]any{"index": 0, "finish_reason": fr}
	if c.chat {
		delta := map[string]any{"content": text}
		if first {
			delta["role"] = "assistant"
		}
		choice["delta"] = delta
	} else {
		choice["text"] = text
	}
	m := c.head(true)
	m["choices"] = []any{choice}
	return m
}

// usageChunk is the last chunk when stream_options.include_usage is set:
// no choices, the usage.
func (c completion) usageChunk(u usage) map[string]any {
	m := c.head(true)
	m["choices"] = []any{}
	m["usage"] = u
	return m
}

// whole is the non-streamed response.
func (c completion) whole(text, finish string, u usage) map[string]any {
	choice := map[string]any{"index": 0, "finish_reason": finish}
	if c.chat {
		choice["message"] = map[string]any{"role": "assistant", "content": text}
	} else {
		choice["text"] = text
	}
	m := c.head(false)
	m["choices"] = []any{choice}
	m["usage"] = u
	return m
}

func writeOpenAIError(w http.ResponseWriter, code int, msg string) {
	typ := "invalid_request_error"
	if code == http.StatusTooManyRequests || code >= 500 {
		typ = "server_error"
	}
	writeJSON(w, code, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code}})
}
