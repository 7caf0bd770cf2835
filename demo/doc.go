// Package demo is the policy of `perfgate demo`: the reference server's
// variant pairs it compares, per layer, within one run; the stricter rule
// it holds those comparisons to on a busy host; its planned time and its
// --quick windows; and what it stores as baselines, with the config that
// gates against them.
//
// Config is the embedded demo config (refserver.DemoConfig), shrunk for
// --quick (Shrink); Planned is its planned time. Results gathers a run's
// results by scenario, and Compare judges each layer's candidate variant
// against its baseline variant in-run (no run-to-run noise: both were
// measured in the same run). Store stores what can be a baseline and
// writes the config to gate with, and returns what it stored and what it
// skipped and why (Stored). Nothing here prints: cmd/perfgate renders.
package demo
