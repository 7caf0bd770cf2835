// Package result holds perfgate's result file, perfgate.result/v1: what one
// scenario's run measured, trial by trial, in a form that every later stage
// (baselines, compare, sizing, report) reads without re-measuring.
//
// Latencies are in milliseconds in the JSON and in microseconds inside the
// HdrHistograms, which are stored per trial in HdrHistogram's V2 compressed
// base64 encoding so that any HdrHistogram tool can read them and trials
// merge without loss. Parts that were not measured (capacity, llm,
// telemetry) are nil and omitted from the JSON, never zero-filled.
//
// The format owns its rules (format.go): FileName names a scenario's file,
// Parse (and Decode, ReadFile, ReadResults) is the one decoder, and Check
// says what every well-formed result holds; Fingerprint is what must match
// between two environments for their numbers to be comparable; a run's
// Manifest records the files it wrote. What a reader then trusts (a
// baseline must be a valid, complete run) is the reader's policy.
//
// A trial may also carry a per-second timeline (PerSecond: responses,
// errors and P99 in each second of its window), optional and additive, so
// a stall or a short warm-up can be seen; docs/html-report.md describes it.
package result
