// Package merge combines results measured in pieces into the results one
// machine would have written.
//
// Two kinds of pieces exist. Generator shards are one scenario's load sent
// by N generators together (perfgate run --generator I/N): Shards adds
// them into one result, trial by trial. The merge is exact because every
// trial keeps its latency distribution as an HdrHistogram, and adding
// histograms bucket by bucket gives the histogram of all the samples:
//
//	merged trial j = Σ_shards trial j   (histograms, counts, rates, in-flight)
//
// so every percentile of a merged trial equals the percentile of all its
// requests recorded in one histogram. Rates add because every shard's
// trial j covers the same window (the shards agreed on --start-at); how
// far their starts actually spread, the start skew, is recorded and
// bounded: a merged result whose skew exceeds the bound is invalid, and an
// invalid result never passes or fails a gate. A merged trial is valid
// only when every shard's trial j was.
//
// Parts are whole scenarios measured by different jobs of a partitioned
// suite (perfgate run --part I/N): Gather puts them into one folder,
// refusing a scenario measured twice or parts of different configurations.
//
// Anything that would make the sum meaningless (shards of different
// configurations, loads, trial counts or scenarios, a missing or
// duplicated shard, a knee search) is refused with an error wrapping
// ErrMismatch.
package merge
