package protocol

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/protocol/traits"
)

// Protocol names accepted by [New]: those package traits lists.
const (
	HTTP       = traits.HTTP
	KServeHTTP = traits.KServeHTTP
	KServeGRPC = traits.KServeGRPC
	OpenAI     = traits.OpenAI
)

// Error classes of streaming requests, beside harness's.
const (
	ClassStreamTruncated = "stream_truncated"
	ClassStreamError     = "stream_error"
	ClassStreamEmpty     = "stream_empty"
)

// Defaults for zero Options fields.
const (
	DefaultTimeout = 30 * time.Second
	// DefaultMaxConns is the pool cap when none is given: the harness's,
	// so that the pool never caps a load the engine can drive. Pools open
	// connections lazily (as many as requests are in flight at once);
	// callers size it from the load with harness.PoolSize.
	DefaultMaxConns     = harness.DefaultMaxConns
	DefaultPromptTokens = 128
	DefaultMaxTokens    = 64
	// DefaultGRPCConns is the most gRPC connections a client opens; each
	// carries many concurrent streams.
	DefaultGRPCConns = 4
)

// ErrNoModel is returned when a protocol that needs a model has none.
var ErrNoModel = errors.New("no model name (--model)")

// Options configures a protocol client. The zero value of each field means
// its default; URL and, except for http, Model are required.
type Options struct {
	// Protocol is one of http, kserve-http, kserve-grpc, openai; empty is http.
	Protocol string
	// URL: the whole URL for http, the base address (http://host:port)
	// for kserve-http and openai, host:port for kserve-grpc.
	URL string
	// Model is the model name (KServe) or the "model" field (OpenAI).
	Model string
	// Endpoint selects the OpenAI API: "chat" (default) or "completions".
	Endpoint string
	// Method and Headers apply to HTTP-based protocols (Method only to http).
	Method  string
	Headers map[string]string
	// Body is a payload file's contents; BodyPath names it in errors.
	Body     []byte
	BodyPath string
	// Shape and Datatype describe the random tensor sent when there is no
	// Body; without them the model's metadata decides. Datatype defaults
	// to the metadata's, or FP32.
	Shape    []int64
	Datatype string
	// Dataset is a JSONL file of prompts for openai (see LoadDataset).
	Dataset string
	// PromptTokens is the length of synthetic prompts when there is no
	// Dataset (default DefaultPromptTokens); MaxTokens caps generation
	// (default DefaultMaxTokens; a dataset line's max_tokens wins).
	PromptTokens, MaxTokens int
	// Timeout bounds each request, a whole stream included (default
	// DefaultTimeout).
	Timeout time.Duration
	// MaxConns bounds open connections (default DefaultMaxConns); gRPC
	// opens min(DefaultGRPCConns, MaxConns).
	MaxConns int
	// Seed seeds random tensors and synthetic prompts (0 means 1).
	Seed uint64
	// StdHTTP makes http and kserve-http use net/http instead of the lean
	// HTTP/1.1 client (http1) that plain http:// URLs get by default.
	StdHTTP bool
	// TLS configures https and gRPC over TLS (a private CA, a client
	// certificate for mTLS, verification off); nil means the system's
	// roots for https and plaintext for gRPC. See TLSConfig.
	TLS *tls.Config
}

// Validate checks the options without touching the network.
func (o *Options) Validate() error {
	switch o.Protocol {
	case "", HTTP, KServeHTTP, KServeGRPC, OpenAI:
	default:
		return fmt.Errorf("protocol %q: want http, kserve-http, kserve-grpc or openai", o.Protocol)
	}
	if o.URL == "" {
		return errors.New("no url (--url)")
	}
	if o.Protocol != "" && o.Protocol != HTTP && o.Model == "" {
		return fmt.Errorf("protocol %s: %w", o.Protocol, ErrNoModel)
	}
	switch o.Endpoint {
	case "", "chat", "completions":
	default:
		return fmt.Errorf("endpoint %q: want chat or completions", o.Endpoint)
	}
	if o.Timeout < 0 || o.MaxConns < 0 || o.PromptTokens < 0 || o.MaxTokens < 0 {
		return errors.New("timeout, max conns, prompt tokens and max tokens must not be negative")
	}
	for i, d := range o.Shape {
		if d <= 0 {
			return fmt.Errorf("shape %v: dimension %d must be positive", o.Shape, i)
		}
	}
	return nil
}

func (o *Options) withDefaults() Options {
	c := *o
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxConns == 0 {
		c.MaxConns = DefaultMaxConns
	}
	if c.PromptTokens == 0 {
		c.PromptTokens = DefaultPromptTokens
	}
	if c.MaxTokens == 0 {
		c.MaxTokens = DefaultMaxTokens
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.BodyPath == "" {
		c.BodyPath = "body"
	}
	return c
}

// New validates o and builds the client for o.Protocol. KServe clients
// read the model's metadata when they need it to build a request, so New
// may use the network (bounded by ctx). A client that holds connections
// also implements harness.Closer; the caller closes it.
func New(ctx context.Context, o Options) (harness.Client, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	c := o.withDefaults()
	switch c.Protocol {
	case KServeHTTP:
		return NewKServeHTTP(ctx, c)
	case KServeGRPC:
		return NewKServeGRPC(ctx, c)
	case OpenAI:
		return NewOpenAI(c)
	}
	return harness.NewHTTPClient(harness.HTTPOptions{URL: c.URL, Method: c.Method, Headers: c.Headers,
		Body: c.Body, Timeout: c.Timeout, MaxConns: c.MaxConns, Std: c.StdHTTP, TLS: c.TLS})
}
