// Package traits declares the protocols perfgate speaks and what each one
// is (needs a model, speaks gRPC, streams tokens, generates its inputs),
// so that the config checks, the suite and the clients ask one list
// instead of naming protocols. It imports nothing of perfgate's: package
// config reads it without depending on the clients (package protocol).
package traits

import (
	"net/url"
	"strings"
)

// Protocol names, as perfgate.yaml's scenarios.protocol and the flag
// --protocol take them.
const (
	HTTP       = "http"
	KServeHTTP = "kserve-http"
	KServeGRPC = "kserve-grpc"
	OpenAI     = "openai"
)

// Protocol is what a protocol declares about itself, so that the config
// checks and the suite ask it instead of naming protocols.
type Protocol struct {
	// Name is the protocol's name (HTTP, KServeHTTP, KServeGRPC, OpenAI).
	Name string
	// NeedsModel: requests name a model, so a scenario must give one.
	NeedsModel bool
	// GRPC: the address is host:port, not a URL, and a started target
	// must open a gRPC port ({grpc_port}).
	GRPC bool
	// WholeURL: the URL is the whole request URL (a scenario's path is
	// appended to a target's base); otherwise it is the base address and
	// the protocol adds its own paths.
	WholeURL bool
	// Metadata is the path of the model's metadata, {model} standing for
	// the escaped model name ("" when the protocol has none). A target
	// declares simulated timing in that response's headers.
	Metadata string
	// Streaming: responses stream tokens, so the protocol reports TTFT,
	// TPOT and ITL, and its SLOs (and its knee) are on those.
	Streaming bool
	// VariesInputs: without a body the protocol generates its inputs
	// (random tensors, synthetic prompts), so a fraction of them can be
	// repeated (a scenario's repeat).
	VariesInputs bool
}

// traits are the protocols perfgate speaks, in the order they are listed.
var traits = []Protocol{
	{Name: HTTP, WholeURL: true},
	{Name: KServeHTTP, NeedsModel: true, Metadata: "/v2/models/{model}", VariesInputs: true},
	{Name: KServeGRPC, NeedsModel: true, GRPC: true, Metadata: "/v2/models/{model}", VariesInputs: true},
	{Name: OpenAI, NeedsModel: true, Metadata: "/v1/models/{model}", Streaming: true, VariesInputs: true},
}

// All returns every protocol's traits, in the order they are listed.
func All() []Protocol { return append([]Protocol(nil), traits...) }

// Names returns the protocols' names, in the order they are listed.
func Names() []string {
	names := make([]string, len(traits))
	for i, t := range traits {
		names[i] = t.Name
	}
	return names
}

// Lookup returns the traits of the protocol named name ("" is http), and
// whether it is one.
func Lookup(name string) (Protocol, bool) {
	if name == "" {
		name = HTTP
	}
	for _, t := range traits {
		if t.Name == name {
			return t, true
		}
	}
	return Protocol{}, false
}

// MetadataPath is the path of model's metadata, or "" when the protocol has
// none.
func (t Protocol) MetadataPath(model string) string {
	if t.Metadata == "" {
		return ""
	}
	return strings.ReplaceAll(t.Metadata, "{model}", url.PathEscape(model))
}
