// Package protocol holds perfgate's protocol clients: each is a
// harness.Client that sends one kind of request and reports what happened
// in a harness.Sample. [New] builds the client a run asks for:
//
//	http         harness.HTTPClient: the URL is the whole request URL
//	kserve-http  KServe v2 over HTTP/JSON: URL is the base address;
//	             POST {URL}/v2/models/{model}/infer
//	kserve-grpc  KServe v2 over gRPC (inference.GRPCInferenceService):
//	             URL is host:port; ModelInfer on a small connection pool
//	openai       OpenAI-compatible streaming over SSE: URL is the base
//	             address; POST {URL}/v1/chat/completions, or
//	             {URL}/v1/completions with Endpoint "completions"
//
// # Payloads
//
// The KServe clients send Options.Body when given (a KServe infer request
// in JSON, {"inputs": [...]}, checked when the client is built; gRPC
// converts it to the protobuf request once, raw_input_contents
// little-endian). Without a body they build a random tensor per model
// input from the model's metadata (GET /v2/models/{model} or
// ModelMetadata), or from Options.Shape and Options.Datatype. The request
// is built once and reused: the send path allocates as little as it can.
// A hit's Payload (a trace line, see harness.TraceSchedule) replaces the
// body for that request.
//
// The OpenAI client takes its prompts from a JSONL dataset (Options.Dataset)
// or makes synthetic ones of about Options.PromptTokens tokens, and fills
// harness.Sample.Stream; see openai.go for how each figure is measured.
//
// # Errors
//
// Failed requests are data, classed as harness documents (timeout,
// connection, protocol, http_<code>, grpc_<Code>), plus, for streams:
//
//	stream_truncated  the server closed the stream before "data: [DONE]"
//	stream_error      the server sent an error event in the stream
//	stream_empty      the stream ended without a single content token
//
// None of them is ever recorded as a latency. Only setup failures (a bad
// option, an unreadable payload, a server whose metadata cannot be read)
// are returned as errors by New.
package protocol
