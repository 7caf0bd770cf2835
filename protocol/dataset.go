package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/internal/capread"
	"math/rand/v2"
	"strings"
)

// Prompt is one generation request of a dataset: a plain prompt or chat
// messages, and an optional max_tokens (0: the run's default).
type Prompt struct {
	Prompt    string    `json:"prompt,omitempty"`
	Messages  []Message `json:"messages,omitempty"`
	MaxTokens int       `json:"max_tokens,omitempty"`
}

// words is the number of words of p's prompt (of all its messages).
func (p Prompt) words() int {
	n := len(strings.Fields(p.Prompt))
	for _, m := range p.Messages {
		n += len(strings.Fields(m.Content))
	}
	return n
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// LoadDataset reads a JSONL file of prompts, one JSON object per line:
//
//	{"prompt": "Translate to French: cheese", "max_tokens": 32}
//	{"messages": [{"role": "user", "content": "Hi"}]}
//
// Blank lines are skipped. A line that is not such an object (bad JSON, an
// unknown key, neither prompt nor messages, both, a negative max_tokens)
// is an error naming the file and line: "prompts.jsonl:7: ...".
func LoadDataset(path string) ([]Prompt, error) {
	f, err := capread.Open(path, capread.Lines)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	var out []Prompt
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		p, err := parsePrompt(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no prompts", path)
	}
	return out, nil
}

func parsePrompt(line []byte) (Prompt, error) {
	var p Prompt
	if err := decodeStrict(line, &p); err != nil {
		return p, err
	}
	switch {
	case p.Prompt == "" && len(p.Messages) == 0:
		return p, errors.New(`want "prompt" or "messages"`)
	case p.Prompt != "" && len(p.Messages) > 0:
		return p, errors.New(`both "prompt" and "messages"; give one`)
	case p.MaxTokens < 0:
		return p, fmt.Errorf("max_tokens %d is negative", p.MaxTokens)
	}
	for i, m := range p.Messages {
		if m.Role == "" {
			return p, fmt.Errorf("message %d has no role", i)
		}
	}
	return p, nil
}

// words are short, common English words: each is one token in the usual
// BPE vocabularies (GPT-2, Llama, Qwen), so n words make about n tokens.
var words = strings.Fields(`the of and to in is you that it he was for on are as with his they at be
this have from or one had by word but not what all were we when your can said there use an each which
she do how their if will up other about out many then them these so some her would make like him into
time has look two more write go see number no way could people my than first water been call who oil
its now find long down day did get come made may part`)

// SyntheticPrompts returns n prompts of tokens words each (about tokens
// tokens, see words), drawn from a seeded generator so runs repeat. The
// prompts differ from each other from their first word, so a server's
// prefix cache cannot answer them from one another.
func SyntheticPrompts(n, tokens int, seed uint64) []Prompt {
	rng := rand.New(rand.NewPCG(seed, 0xa11ce))
	out := make([]Prompt, n)
	for i := range out {
		var b strings.Builder
		for j := range tokens {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		out[i] = Prompt{Prompt: b.String()}
	}
	return out
}

// requestBody builds the streaming request for p: chat messages for the
// chat endpoint (a plain prompt becomes one user message), a prompt for
// completions (messages' contents joined by newlines).
func requestBody(model string, chat bool, p Prompt, maxTokens int) ([]byte, error) {
	if p.MaxTokens > 0 {
		maxTokens = p.MaxTokens
	}
	body := map[string]any{
		"model":          model,
		"max_tokens":     maxTokens,
		"stream":         true,
		"stream_options": map[string]any{"include_usage": true},
	}
	switch {
	case chat && len(p.Messages) > 0:
		body["messages"] = p.Messages
	case chat:
		body["messages"] = []Message{{Role: "user", Content: p.Prompt}}
	case len(p.Messages) > 0:
		parts := make([]string, len(p.Messages))
		for i, m := range p.Messages {
			parts[i] = m.Content
		}
		body["prompt"] = strings.Join(parts, "\n")
	default:
		body["prompt"] = p.Prompt
	}
	return json.Marshal(body)
}
