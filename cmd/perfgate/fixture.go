package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"strings"

	"github.com/perfgate/perfgate/refserver"
)

// cmdFixture is `perfgate fixture serve`: the reference inference server.
func cmdFixture(ctx context.Context, e *env, args []string) error {
	if len(args) > 0 && isHelpArg(args[0]) {
		fmt.Fprintln(e.stdout, "usage: perfgate fixture serve [flags]   (perfgate fixture serve -h lists them)")
		return nil
	}
	if len(args) == 0 || args[0] != "serve" {
		return usageErr("fixture: want `perfgate fixture serve [flags]`")
	}
	fs := flag.NewFlagSet("fixture serve", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	setUsage(fs, "fixture")
	d := refserver.DefaultOptions()
	var o refserver.Options
	addr := fs.String("addr", "127.0.0.1:8000", "HTTP listen address (KServe v2, OpenAI, /metrics); port 0 picks one")
	grpcAddr := fs.String("grpc-addr", "", "gRPC listen address (KServe v2); empty: no gRPC")
	fs.StringVar(&o.Model, "model", d.Model, "KServe model variant: mlp, sim (declared cost model) or large (3x224x224 input)")
	fs.StringVar(&o.Precision, "precision", d.Precision, "fp32 or int8")
	fs.Uint64Var(&o.Seed, "seed", 0, "seed of the weights and the LLM's tokens")
	fs.IntVar(&o.MaxBatch, "max-batch", d.MaxBatch, "dynamic batching: most requests per batch (1: off)")
	fs.DurationVar(&o.BatchWindow, "batch-window", 0, "dynamic batching: how long a batch waits for more requests")
	fs.DurationVar(&o.BatchOverhead, "batch-overhead", 0, "dynamic batching (--max-batch > 1): CPU time spent on every batch besides the model (a planted regression of the service layer)")
	fs.DurationVar(&o.ItemOverhead, "item-overhead", 0, "dynamic batching (--max-batch > 1): CPU time spent on every item put in a batch besides the model (the planted regression `perfgate demo` catches: a slower batcher that no batch amortises)")
	fs.IntVar(&o.Instances, "instances", d.Instances, "model workers running batches in parallel")
	fs.IntVar(&o.Queue, "queue", d.Queue, "requests allowed to wait; more are rejected (HTTP 429, gRPC RESOURCE_EXHAUSTED)")
	fs.BoolVar(&o.Cache, "cache", false, "exact-match response cache")
	fs.IntVar(&o.CacheEntries, "cache-entries", d.CacheEntries, "response cache size")
	fs.StringVar(&o.Codec, "codec", d.Codec, "HTTP infer body when Content-Type does not say: json or protobuf")
	fs.DurationVar(&o.SimFixed, "sim-fixed", d.SimFixed, "sim model: fixed cost per batch")
	fs.DurationVar(&o.SimPerItem, "sim-per-item", d.SimPerItem, "sim model: cost per item in a batch")
	fs.BoolVar(&o.SimCPU, "sim-cpu", false, "sim model: spend the cost computing on one core (a CPU-bound service) instead of sleeping")
	fs.Float64Var(&o.Int8Factor, "int8-factor", d.Int8Factor, "sim model and sim-llm: cost factor in int8")
	fs.IntVar(&o.LLMMaxSeqs, "max-num-seqs", d.LLMMaxSeqs, "tiny-llm and sim-llm: most sequences decoded together (1: continuous batching off)")
	fs.IntVar(&o.LLMMaxSeqs, "llm-max-seqs", d.LLMMaxSeqs, "the same as --max-num-seqs")
	fs.IntVar(&o.LLMMaxBatchedTokens, "max-num-batched-tokens", 0, "tiny-llm: most tokens one step computes, prompts prefilled in chunks (0: no bound, no chunking)")
	fs.DurationVar(&o.LLMStep, "llm-step", d.LLMStep, "sim-llm: fixed cost of a decode step")
	fs.DurationVar(&o.LLMStepPerSeq, "llm-step-per-seq", d.LLMStepPerSeq, "sim-llm: step cost per running sequence")
	fs.DurationVar(&o.LLMPrefillPerToken, "llm-prefill-per-token", d.LLMPrefillPerToken, "sim-llm: prefill cost per prompt token")
	fs.IntVar(&o.LLMMaxTokens, "llm-max-tokens", d.LLMMaxTokens, "tiny-llm and sim-llm: completion length when a request gives no max_tokens")
	// Every flag may also come from FIXTURE_<NAME> in the environment (a
	// scenario's env variant, e.g. FIXTURE_PRECISION=int8); flags win.
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := "FIXTURE_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := e.getenv(name); v != "" && envErr == nil {
			if err := fs.Set(f.Name, v); err != nil {
				envErr = fmt.Errorf("%s=%q: %w", name, v, err)
			}
		}
	})
	if envErr != nil {
		return usageErr("fixture serve: %v", envErr)
	}
	if err := fs.Parse(args[1:]); err != nil {
		return usageErr("fixture serve: %v", err)
	}
	if fs.NArg() > 0 {
		return usageErr("fixture serve: unexpected argument %q", fs.Arg(0))
	}
	if err := checkFlagRanges("fixture serve", fs); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return usageErr("fixture serve: %v", err)
	}
	srv, err := refserver.NewServer(o)
	if err != nil {
		return withCode(exitRunFailed, err)
	}
	hl, err := net.Listen("tcp", *addr)
	if err != nil {
		srv.Close()
		return withCode(exitRunFailed, fmt.Errorf("fixture serve: %w", err))
	}
	var gl net.Listener
	grpcShown := "off"
	if *grpcAddr != "" {
		if gl, err = net.Listen("tcp", *grpcAddr); err != nil {
			hl.Close()
			srv.Close()
			return withCode(exitRunFailed, fmt.Errorf("fixture serve: %w", err))
		}
		grpcShown = gl.Addr().String()
	}
	sim := ""
	if srv.Simulated() {
		sim = " simulated=true"
	}
	fmt.Fprintf(e.stdout, "perfgate fixture: ready http=http://%s grpc=%s model=%s precision=%s max_batch=%d batch_window=%s instances=%d max_num_seqs=%d max_num_batched_tokens=%d%s\n",
		hl.Addr(), grpcShown, srv.ModelName(), srv.Options().Precision, srv.Options().MaxBatch,
		srv.Options().BatchWindow, srv.Options().Instances, srv.Options().LLMMaxSeqs, srv.Options().LLMMaxBatchedTokens, sim)
	if err := srv.Serve(ctx, hl, gl); err != nil {
		return withCode(exitRunFailed, err)
	}
	return nil
}
