package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/perfgate/perfgate/harness"
)

// RepeatLag is how many distinct inputs back a repeated input reaches: far
// enough that the original has been answered (and cached) before it is
// sent again, near enough to stay in a cache of a few thousand entries.
const RepeatLag = 256

// RepeatClient makes every hit's input distinct except for a fraction of
// repeats, so a server's cache sees a known hit rate. Of hits 0..i, exactly
// floor((i+1) × fraction) are repeats (spread evenly); hit i is a repeat
// when that count steps. A fresh hit sends input u = i − floor(i ×
// fraction), the number of fresh hits before it; a repeat resends input
// max(0, u − 1 − RepeatLag). Inputs are made from the wrapped client's
// request:
//
//   - kserve-http and kserve-grpc: the random tensor with its first value
//     replaced by u (exact in FP32 up to 2^24), so inputs differ and the
//     rest of the payload, its size and its shape stay the same (gRPC
//     converts each hit's JSON payload to protobuf, as for a trace);
//   - openai: a synthetic prompt of the configured length seeded with u.
//
// With a cache large enough to hold RepeatLag inputs, and every original
// answered before its repeat, the hit rate is fraction.
type RepeatClient struct {
	inner    harness.Client
	fraction float64
	input    func(u uint64) []byte
	n        atomic.Uint64
}

var (
	_ harness.Client = (*RepeatClient)(nil)
	_ harness.Closer = (*RepeatClient)(nil)
)

// ErrRepeat is wrapped by NewRepeat's errors: the protocol or payload
// cannot be varied.
var ErrRepeat = errors.New("cannot repeat a fraction of inputs")

// NewRepeat wraps c, a client built by New from o, to repeat fraction (0
// to 1) of its inputs. Only KServe with a random tensor (no body) and
// openai with synthetic prompts (no dataset) can be varied.
func NewRepeat(c harness.Client, o Options, fraction float64) (*RepeatClient, error) {
	if !(fraction >= 0 && fraction < 1) {
		return nil, fmt.Errorf("%w: fraction %v, want 0 to 1 (exclusive: a body file repeats every request)", ErrRepeat, fraction)
	}
	r := &RepeatClient{inner: c, fraction: fraction}
	switch kc := c.(type) {
	case *KServeHTTPClient:
		if len(o.Body) > 0 {
			return nil, fmt.Errorf("%w: a body file is one input; drop it to send random tensors", ErrRepeat)
		}
		prefix, suffix, err := splitFirstValue(kc.Body())
		if err != nil {
			return nil, err
		}
		r.input = numbered(prefix, suffix)
	case *KServeGRPCClient:
		if len(o.Body) > 0 {
			return nil, fmt.Errorf("%w: a body file is one input; drop it to send random tensors", ErrRepeat)
		}
		js, err := json.Marshal(kc.Request())
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrRepeat, err)
		}
		prefix, suffix, err := splitFirstValue(js)
		if err != nil {
			return nil, err
		}
		r.input = numbered(prefix, suffix) // converted to protobuf per hit
	case *OpenAIClient:
		if o.Dataset != "" {
			return nil, fmt.Errorf("%w: a dataset's prompts are sent as given; drop dataset to send synthetic prompts", ErrRepeat)
		}
		tokens, seed := o.PromptTokens, o.Seed
		if tokens == 0 {
			tokens = DefaultPromptTokens
		}
		r.input = func(u uint64) []byte {
			b, _ := json.Marshal(SyntheticPrompts(1, tokens, seed+u)[0].Prompt)
			return b
		}
	default:
		return nil, fmt.Errorf("%w: protocol %q: only kserve-http, kserve-grpc and openai inputs can be varied", ErrRepeat, o.Protocol)
	}
	return r, nil
}

// numbered returns the inputs prefix + u + suffix.
func numbered(prefix, suffix []byte) func(u uint64) []byte {
	return func(u uint64) []byte {
		b := make([]byte, 0, len(prefix)+len(suffix)+20)
		b = append(b, prefix...)
		b = strconv.AppendUint(b, u, 10)
		return append(b, suffix...)
	}
}

// splitFirstValue splits a KServe JSON request around the first value of
// its first tensor's data.
func splitFirstValue(body []byte) (prefix, suffix []byte, err error) {
	i := bytes.Index(body, []byte(`"data":[`))
	if i < 0 {
		return nil, nil, fmt.Errorf("%w: the request has no \"data\" array", ErrRepeat)
	}
	start := i + len(`"data":[`)
	for start < len(body) && body[start] == '[' { // nested arrays
		start++
	}
	end := start
	for end < len(body) && body[end] != ',' && body[end] != ']' {
		end++
	}
	if end == start || end == len(body) {
		return nil, nil, fmt.Errorf("%w: the request's data holds no number", ErrRepeat)
	}
	if _, err := strconv.ParseFloat(string(body[start:end]), 64); err != nil {
		return nil, nil, fmt.Errorf("%w: the request's data is not numeric (%q)", ErrRepeat, body[start:end])
	}
	return body[:start:start], body[end:], nil
}

// Pick returns, for hit i, whether it repeats and the input it sends.
func (r *RepeatClient) Pick(i uint64) (repeat bool, input uint64) {
	reps := func(n uint64) uint64 { return uint64(math.Floor(float64(n) * r.fraction)) }
	fresh := i - reps(i) // fresh hits before i
	if reps(i+1) > reps(i) {
		last := fresh - 1 // the latest fresh input
		return true, last - min(last, RepeatLag)
	}
	return false, fresh
}

// Do implements harness.Client: the hit carries its input as payload.
func (r *RepeatClient) Do(ctx context.Context, h harness.Hit) harness.Sample {
	if h.Payload == nil {
		_, u := r.Pick(r.n.Add(1) - 1)
		h.Payload = r.input(u)
	}
	return r.inner.Do(ctx, h)
}

// Close closes the wrapped client.
func (r *RepeatClient) Close() error {
	if c, ok := r.inner.(harness.Closer); ok {
		return c.Close()
	}
	return nil
}
