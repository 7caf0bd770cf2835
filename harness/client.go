package harness

import (
	"context"
	"time"
)

// Hit is one request the schedule asks for.
type Hit struct {
	// Seq numbers hits from 0 in schedule order.
	Seq uint64
	// Intended is when the schedule meant the request to be sent. In open
	// loop, latency is counted from here, not from the actual send.
	Intended time.Time
	// Payload is the request body chosen for this hit by the schedule (a
	// trace line or dataset row); nil means the client's own default.
	Payload []byte
}

// Error classes: failed requests are data, counted by class and never
// recorded as latencies.
const (
	ErrTimeout    = "timeout"
	ErrConnection = "connection"
	ErrProtocol   = "protocol"
	ErrCanceled   = "canceled"
	// HTTP status failures are classed "http_<code>" (see HTTPClass), gRPC
	// ones "grpc_<Code>" (for example grpc_ResourceExhausted).
)

// Sample is what one request did. A zero Class means success.
type Sample struct {
	Hit Hit
	// Start is the actual send time (after any Wait), End when the
	// response was complete.
	Start, End time.Time
	// Wait is how long the request waited inside the client for a
	// connection before it could be sent (a full pool): time inside
	// perfgate, not at the target. It is measured apart, like the
	// schedule lag, and a trial where it is a large share of the latency
	// is invalid (see MaxWaitShare).
	Wait time.Duration
	// Class is empty on success, else the error class.
	Class string
	// Err is a short description of a failure, for the first few per class
	// (at most MaxErrBytes once recorded: see ClipErr).
	Err string
	// Code is the protocol's status (HTTP status, gRPC code), when known.
	Code int
	// Stream holds the streaming figures of an LLM request, nil otherwise.
	Stream *Stream

	// enter and exit are when the engine handed the hit to the client and
	// got the sample back (the request's time in flight).
	enter, exit time.Time
}

// OK reports whether the request succeeded.
func (s *Sample) OK() bool { return s.Class == "" }

// Stream is the timing of one streamed generation.
type Stream struct {
	// FirstToken is when the first content chunk arrived.
	FirstToken time.Time
	// OutputTokens is the number of generated tokens (from the final usage
	// when the server sent it, else counted from content chunks).
	OutputTokens int
	// ITL are the gaps between successive content chunks that the client
	// observed: a gap is left out when either of its chunks arrived in one
	// read with another content chunk (its time is then the read's, not
	// the chunk's). At most MaxITLPerStream gaps are kept.
	ITL []time.Duration
	// Gaps is the number of gaps between successive content chunks
	// (chunks − 1); Unobserved of them are left out of ITL because a chunk
	// at either end shared its read with another content chunk.
	Gaps, Unobserved int
	// PromptTokens is the prompt's length in tokens as the server counted
	// it (usage.prompt_tokens), 0 when the server did not say.
	PromptTokens int
	// PromptWords is the number of words of the prompt perfgate sent (a
	// synthetic or dataset prompt), 0 when the request was a whole body.
	PromptWords int
}

// MaxITLPerStream bounds the inter-token gaps kept per stream (65,536
// gaps, 512 KiB): a stream of tiny chunks cannot grow a request's memory
// without bound. Gaps past it are counted in Stream.Gaps but not kept.
const MaxITLPerStream = 1 << 16

// Client sends one request. Implementations must be safe for concurrent
// use; a failed request is reported in the Sample, not as a panic or error.
type Client interface {
	Do(ctx context.Context, h Hit) Sample
}

// ClientFunc adapts a function to Client.
type ClientFunc func(ctx context.Context, h Hit) Sample

// Do calls f.
func (f ClientFunc) Do(ctx context.Context, h Hit) Sample { return f(ctx, h) }

// Closer is implemented by clients that hold connections to release.
type Closer interface{ Close() error }
