// Package suite runs the scenarios of a perfgate.yaml: for each one it
// starts the target variant (or uses the given URL), builds the protocol
// client, applies the load (a fixed rate, a concurrency, a replayed trace,
// or a knee search), samples telemetry, and returns perfgate.result/v1
// results with the environment and git information filled in.
//
// It is the one place where config, harness, protocol and telemetry meet;
// the command, the demo, the gate and the GitHub Action all run scenarios
// through it.
package suite
