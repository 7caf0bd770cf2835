// Package tinyllm is the reference server's LLM: a small decoder-only
// transformer computed on the CPU, with weights drawn from a seed (nothing
// is downloaded), so its time to first token and time per output token
// come from the work done, not from a cost model.
//
// # The network
//
// A byte-level BPE tokenizer (Tokenizer; 256 bytes and 3,840 merges trained
// on English text, embedded as merges.txt) feeds
//
//	x₀ = E[token] + PE(position)                       E: Vocab × Dim, PE sinusoidal
//	for each of Layers blocks:
//	  q, k, v = RMSNorm(x)·W_qkvᵀ                       W_qkv: 3·Dim × Dim
//	  x += softmax(q·Kᵀ/√hd, causal)·V · W_oᵀ          per head, K and V from the cache
//	  x += ReLU(RMSNorm(x)·W_upᵀ)·W_downᵀ               W_up: FFN × Dim, W_down: Dim × FFN
//	logits = RMSNorm(x)·Eᵀ / √Dim                      the output layer is tied to E
//
// with Dim 384, 6 heads of 64, 6 layers, FFN 1536 and a vocabulary of
// about 4,000 tokens by default: 12.2 M weights in the linear layers,
// 46.5 MiB in fp32, more than the last-level cache of most CPUs (32 MiB
// here), so that a decode step is bound by reading them, as an LLM's is on
// a GPU. A decode step reads every weight once, for 24 MFLOP a token; a
// prompt of n tokens is about n × 21 MFLOP (the output layer runs for its
// last token only) plus the attention, which grows with n². The KV cache
// holds 18 KiB a token (6 layers × keys and values × 384 floats).
//
// # Batches, caches and the steps of a server
//
// Forward takes a batch of Items, each a sequence's Cache (the keys and
// values of every layer for each position so far) and the tokens to append
// to it: a whole prompt, a chunk of one, or the single token of a decode
// step. The rows of all items form one activation matrix, so every linear
// layer is one matrix product for the whole batch, and a continuous-batching
// server (the refserver package) computes the decode steps of different
// requests, and prompts beside them, in one call. Attention is per
// sequence, over its own cache. A sequence's logits do not depend on the
// batch it is computed in, nor on whether its prompt was prefilled whole
// or in chunks: exactly in int8, and in fp32 with the AVX2 kernels (heads of
// 64); within float rounding in gonum's fallback.
//
// # Precision
//
// FP32 computes the linear layers in AVX2 assembly (fp32.go) where the CPU
// has it, weight-stationary: each weight row is read once for all the
// rows of the batch (four weight rows against three activation rows per
// kernel call, the next rows prefetched), so a decode step of 8 sequences
// reads the weights as often as a step of one and costs about 2.2× its CPU,
// not 8× (TestDecodeBatchingPays holds it to 3×; BenchmarkDecode has the
// figures). The same kernels serve prefill, rows in blocks that stay in
// L2, at several times gonum's Sgemm on these shapes. Each output is one
// accumulator summed in a fixed order, so a row's result does not depend on
// its batch, bit for bit. Without AVX2 and FMA (or built with -tags
// purego) the layers go through gonum (Sgemm from 32 rows, Sgemv a row
// below), and batching pays little. Attention runs in the same kernels
// (heads of 64), each new position against the keys up to its own, over
// each head's keys and values stored contiguously.
//
// Int8 quantizes each weight row symmetrically,
// s_w[j] = max_k |W[j,k]| / 127, and each activation row at run time to
// 7 bits, s_x = max_k |x[k]| / 63, stored offset by 64 in [1, 127] so that
// the AVX2 kernel of package mlp that multiplies unsigned by signed bytes
// can take four activation rows per weight load:
//
//	y[i,j] = s_w[j]·s_x[i]·(Σ_k q_w[j,k]·u[i,k] − 64·Σ_k q_w[j,k])
//
// exact in int32. Weights are a quarter of the bytes (12.2 MB), which fit
// in the last-level cache: an int8 step is bound by the kernel's arithmetic
// and its calls (one per weight row and four activation rows), not by
// memory, so batching pays less than in fp32 (a step of 8 costs 5 to 6×
// a step of one) while a step of one is 3 to 4× cheaper than fp32's.
// Attention, norms and the embedding stay in fp32.
//
// # Sampling
//
// Sampler picks the largest logit at temperature 0 and otherwise draws from
// softmax(logits / T) with its own seeded generator: the same prompt, seed
// and temperature give the same tokens whatever else runs beside them.
package tinyllm
