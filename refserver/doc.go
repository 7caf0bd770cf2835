// Package refserver is perfgate's reference inference server: a real load
// target whose layers each change performance for a real reason, so the
// harness, the comparison and the layer attribution have something honest
// to measure. `perfgate fixture serve` runs it (the command keeps the word
// "fixture", a documented contract; the package was fixtures/ before it was
// named for what it is); tests embed it with httptest.NewServer(srv.Handler())
// and Server.RegisterGRPC. The GPU reference target (Python) is not here: it
// is in bench/gpu.
//
// # Protocols
//
// One Server serves, on one HTTP handler and one gRPC service:
//
//   - KServe v2 (Open Inference Protocol) for the model "mlp": POST
//     /v2/models/mlp/infer (JSON, or a serialized ModelInferRequest with
//     Content-Type application/x-protobuf), GET /v2/models/mlp,
//     /v2/models/mlp/ready, /v2/health/live, /v2/health/ready, and the same
//     over gRPC (kservepb.GRPCInferenceService, raw_output_contents).
//     The variant's own name (mlp-sim, mlp-large) is served too.
//   - OpenAI-compatible completions for the models "tiny-llm" (a real
//     transformer, package tinyllm) and "sim-llm" (a cost model):
//     POST /v1/chat/completions and /v1/completions, streamed as
//     Server-Sent Events ("data: {...}" chunks, a usage chunk when
//     stream_options.include_usage, then "data: [DONE]"), or whole;
//     GET /v1/models and /v1/models/{model}.
//   - GET /metrics: Prometheus text from the server's own registry, with
//     Triton's metric names for the KServe model (nv_inference_request_success,
//     nv_inference_queue_duration_us, nv_inference_compute_infer_duration_us,
//     nv_inference_exec_count, ...) and vLLM's for the LLM
//     (vllm:num_requests_running, vllm:time_to_first_token_seconds, ...).
//
// # Layers
//
// model: Options.Model "mlp" is a real MLP on the CPU (package mlp) whose
// 4096 × 4096 hidden layer makes batch 1 memory-bound; Precision "int8"
// quantizes it and moves a quarter of the bytes through an AVX2 kernel.
//
// engine: Model "sim" is a declared cost model for tests that need exact
// expectations: a batch of n sleeps SimFixed + n × SimPerItem (× Int8Factor
// in int8). Every response says so: the parameter "simulated": true, the
// header X-Perfgate-Simulated: 1, and the metadata.
//
// service: requests go through a bounded queue (Queue; a full queue answers
// 429 / RESOURCE_EXHAUSTED at once) to Instances workers, each forming
// batches Triton's way: up to MaxBatch items, waiting at most BatchWindow
// from the first request's arrival. A batch is one forward call: one
// matrix product per layer. Cache answers repeated inputs exactly.
//
// system: Model "large" takes a 3 × 224 × 224 FP32 input and reduces it
// cheaply, so decoding the request dominates: JSON over HTTP against
// protobuf over gRPC shows the serialization cost.
//
// LLM: tiny-llm is a small decoder-only transformer computed on the CPU
// (package tinyllm: byte-level BPE, multi-head attention with a KV cache,
// an MLP; weights from Seed; Precision int8 quantizes its linear layers)
// behind a vLLM-style continuous-batching engine: each step admits waiting
// requests while fewer than LLMMaxSeqs run and computes the next token of
// every running sequence, and the prompts of newly admitted ones, in one
// forward pass whose linear layers are one matrix product for the batch;
// LLMMaxBatchedTokens bounds a step's tokens and prefills long prompts in
// chunks. TTFT and TPOT are measured, not modelled (docs/tiny-llm.md).
// sim-llm is the former cost model, for fast tests: the same scheduler
// over declared costs (every step costs LLMStep + LLMStepPerSeq × running
// sequences + LLMPrefillPerToken × the prompt tokens it admits), its
// responses marked simulated, its tokens words drawn from the seed and
// the prompt.
package refserver
