// Package demo is the policy of `perfgate demo`: the reference server's
// variant pairs it compares, per layer, within one run; the planted
// regression it asks the gate to catch; its planned time and its --quick
// windows; and what it stores as baselines, with the config that gates
// against them.
//
// Config is the embedded demo config (refserver.DemoConfig), shrunk for
// --quick (Shrink); Planned is its planned time. The config declares its
// layer pairs (config.Pair), and Measure measures each by the engine
// `gate --ab` uses (ab.MeasurePairs: interleaved, paired, fresh processes
// every block, adaptive stopping), so a pair's verdict comes from paired
// evidence, never from two runs measured one after the other;
// PairedReport is its report, with the capacity plans of both sides.
// MeasurePlanted measures the planted regression (Planted: the service
// layer's candidate against the same server with a slowed batcher) by the
// same engine. Store stores what can be a baseline and writes the config
// to gate with, and returns what it stored and what it skipped and why
// (Stored). Nothing here prints: cmd/perfgate renders.
package demo
