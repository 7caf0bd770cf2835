package refserver

import (
	"cmp"
	"errors"
	"fmt"
	"time"
)

// The model variants a Server can serve as its KServe model.
const (
	// ModelMLP is the real MLP (package mlp): small input, 4096 × 4096 hidden
	// layer, computed on the CPU.
	ModelMLP = "mlp"
	// ModelSim is the declared cost model: it sleeps for
	// SimFixed + SimPerItem × batch (× Int8Factor in int8) and says so in
	// every response.
	ModelSim = "sim"
	// ModelLarge takes an image-sized input (3 × 224 × 224 FP32) and reduces
	// it with a cheap pooling step before a small MLP, so serialization
	// dominates a request.
	ModelLarge = "large"
)

// Served model names. Every KServe variant also answers to "mlp", the name
// the documentation's examples use, so a config can switch variants
// without changing paths.
const (
	NameMLP      = "mlp"
	NameSim      = "mlp-sim"
	NameLarge    = "mlp-large"
	NameTinyLLM  = "tiny-llm" // the real transformer (package tinyllm)
	NameSimLLM   = "sim-llm"  // the LLM cost model
	modelVersion = "1"
)

// Codecs for the HTTP infer endpoint's bodies.
const (
	CodecJSON     = "json"
	CodecProtobuf = "protobuf"
)

// Options configures a Server. The zero value is usable: every zero field
// means the default documented on it, and [DefaultOptions] spells them out.
type Options struct {
	// Model is the KServe variant: ModelMLP ("" means mlp), ModelSim or
	// ModelLarge.
	Model string
	// Precision is "fp32" ("" means fp32) or "int8". For the MLP it selects
	// the arithmetic of the hidden layer, for the tiny-llm that of every
	// linear layer; for the cost models (sim, sim-llm) it scales their cost
	// by Int8Factor.
	Precision string
	// Seed generates the weights (the MLP's and the tiny-llm's) and seeds
	// the LLMs' sampling when a request gives no seed.
	Seed uint64

	// MaxBatch is the most requests (items) dynamic batching puts in one
	// model execution; 0 or 1 turns batching off.
	MaxBatch int
	// BatchWindow is how long a batch may wait, from the arrival of its
	// first request, for more requests; 0 takes only what is already
	// queued when an instance becomes free.
	BatchWindow time.Duration
	// BatchOverhead is CPU time the dynamic batcher spends on every batch
	// it forms when batching is on (MaxBatch > 1), on top of the model's
	// compute: a planted regression confined to the service layer (a
	// slower batcher), which `perfgate demo` asks the gate to catch.
	// 0: none.
	BatchOverhead time.Duration
	// ItemOverhead is CPU time the dynamic batcher spends on every item
	// it puts in a batch (copying it in) when batching is on (MaxBatch >
	// 1): a planted regression confined to the service layer, like
	// BatchOverhead, but one no batch amortises, so that it lowers the
	// batched knee as well as slowing requests at a light load. `perfgate
	// demo` plants it. 0: none.
	ItemOverhead time.Duration
	// Instances is the number of model workers running batches in parallel;
	// 0 means 1.
	Instances int
	// Queue bounds the requests waiting for a worker (KServe) or for a
	// sequence slot (LLM); a request beyond it is rejected with HTTP 429 /
	// gRPC RESOURCE_EXHAUSTED. 0 means 1024.
	Queue int
	// Cache turns on the exact-match response cache (KServe).
	Cache bool
	// CacheEntries bounds the cache; 0 means 4096.
	CacheEntries int
	// Codec is how the HTTP infer endpoint reads a body whose Content-Type
	// names neither JSON nor protobuf: CodecJSON ("" means json) or
	// CodecProtobuf (a serialized ModelInferRequest).
	Codec string

	// SimFixed and SimPerItem are the sim model's cost per batch; zero
	// means 2ms and 500µs.
	SimFixed, SimPerItem time.Duration
	// SimCPU spends the sim model's cost computing on one core (a fixed
	// amount of integer work, calibrated once at start to take the cost
	// on an idle core) instead of sleeping: a CPU-bound service, whose
	// latency grows when other work takes its core.
	SimCPU bool
	// Int8Factor scales the cost models' (sim, sim-llm) costs in int8; 0
	// means 0.5.
	Int8Factor float64

	// LLMMaxSeqs is the most sequences decoded together (vLLM's
	// --max-num-seqs; 1 turns continuous batching off); 0 means 32.
	LLMMaxSeqs int
	// LLMMaxBatchedTokens bounds the tokens one step of the tiny-llm
	// computes (vLLM's --max-num-batched-tokens with chunked prefill):
	// decode tokens first, then prompts in chunks that fit. 0 means no
	// bound: a prompt is prefilled in one step. When set it must be at
	// least LLMMaxSeqs.
	LLMMaxBatchedTokens int
	// LLMStep is a sim-llm decode step's fixed cost, LLMStepPerSeq what
	// each running sequence adds to it and LLMPrefillPerToken what each
	// prompt token of a newly admitted sequence adds; zero means 4ms, 250µs
	// and 50µs.
	LLMStep, LLMStepPerSeq, LLMPrefillPerToken time.Duration
	// LLMMaxTokens is the completion length when a request gives none; 0
	// means 64.
	LLMMaxTokens int
}

// DefaultOptions returns the options every zero field stands for.
func DefaultOptions() Options {
	return Options{
		Model:              ModelMLP,
		Precision:          "fp32",
		MaxBatch:           1,
		Instances:          1,
		Queue:              1024,
		CacheEntries:       4096,
		Codec:              CodecJSON,
		SimFixed:           2 * time.Millisecond,
		SimPerItem:         500 * time.Microsecond,
		Int8Factor:         0.5,
		LLMMaxSeqs:         32,
		LLMStep:            4 * time.Millisecond,
		LLMStepPerSeq:      250 * time.Microsecond,
		LLMPrefillPerToken: 50 * time.Microsecond,
		LLMMaxTokens:       64,
	}
}

// withDefaults returns o with each zero field replaced by its default.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	def := func(p *string, v string) {
		if *p == "" {
			*p = v
		}
	}
	defInt := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	defDur := func(p *time.Duration, v time.Duration) {
		if *p == 0 {
			*p = v
		}
	}
	def(&o.Model, d.Model)
	def(&o.Precision, d.Precision)
	def(&o.Codec, d.Codec)
	defInt(&o.MaxBatch, d.MaxBatch)
	defInt(&o.Instances, d.Instances)
	defInt(&o.Queue, d.Queue)
	defInt(&o.CacheEntries, d.CacheEntries)
	defInt(&o.LLMMaxSeqs, d.LLMMaxSeqs)
	defInt(&o.LLMMaxTokens, d.LLMMaxTokens)
	defDur(&o.SimFixed, d.SimFixed)
	defDur(&o.SimPerItem, d.SimPerItem)
	defDur(&o.LLMStep, d.LLMStep)
	defDur(&o.LLMStepPerSeq, d.LLMStepPerSeq)
	defDur(&o.LLMPrefillPerToken, d.LLMPrefillPerToken)
	if o.Int8Factor == 0 {
		o.Int8Factor = d.Int8Factor
	}
	return o
}

// Validate reports every field that is out of range, joined.
func (o Options) Validate() error {
	var errs []error
	bad := func(field string, v any, want string) {
		errs = append(errs, fmt.Errorf("%s %v: %s", field, v, want))
	}
	switch o.Model {
	case "", ModelMLP, ModelSim, ModelLarge:
	default:
		bad("model", fmt.Sprintf("%q", o.Model), "want mlp, sim or large")
	}
	switch o.Precision {
	case "", "fp32", "int8":
	default:
		bad("precision", fmt.Sprintf("%q", o.Precision), "want fp32 or int8")
	}
	switch o.Codec {
	case "", CodecJSON, CodecProtobuf:
	default:
		bad("codec", fmt.Sprintf("%q", o.Codec), "want json or protobuf")
	}
	for _, f := range []struct {
		name string
		v    int
		max  int
	}{
		{"max batch", o.MaxBatch, 1024}, {"instances", o.Instances, 256},
		{"queue", o.Queue, 1 << 20}, {"cache entries", o.CacheEntries, 1 << 20},
		{"llm max seqs", o.LLMMaxSeqs, 4096}, {"llm max tokens", o.LLMMaxTokens, 1 << 16},
		{"llm max batched tokens", o.LLMMaxBatchedTokens, 1 << 20},
	} {
		if f.v < 0 || f.v > f.max {
			bad(f.name, f.v, fmt.Sprintf("want 0 (default) to %d", f.max))
		}
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{
		{"batch window", o.BatchWindow}, {"batch overhead", o.BatchOverhead}, {"item overhead", o.ItemOverhead}, {"sim fixed", o.SimFixed}, {"sim per item", o.SimPerItem},
		{"llm step", o.LLMStep}, {"llm step per seq", o.LLMStepPerSeq}, {"llm prefill per token", o.LLMPrefillPerToken},
	} {
		if f.v < 0 || f.v > time.Minute {
			bad(f.name, f.v, "want 0 to 1m")
		}
	}
	if seqs := cmp.Or(o.LLMMaxSeqs, DefaultOptions().LLMMaxSeqs); o.LLMMaxBatchedTokens > 0 && o.LLMMaxBatchedTokens < seqs {
		bad("llm max batched tokens", o.LLMMaxBatchedTokens, fmt.Sprintf("want 0 (no bound) or at least llm max seqs (%d)", seqs))
	}
	if o.Int8Factor < 0 || o.Int8Factor > 10 {
		bad("int8 factor", o.Int8Factor, "want 0 (default) to 10")
	}
	return errors.Join(errs...)
}

// precisionFactor is what cost models multiply their time by.
func (o Options) precisionFactor() float64 {
	if o.Precision == "int8" {
		return o.Int8Factor
	}
	return 1
}
