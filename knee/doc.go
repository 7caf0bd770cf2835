// Package knee finds a service's capacity under an SLO: the highest
// offered rate (the knee) whose P99 meets the SLO with errors and achieved
// rate within limits. The search depends only on result; the probe
// that measures them is a function (Probe), and RateProbe is the one that
// drives the load engine (package harness), used by the suite and by
// `perfgate run --sweep`.
//
// # Search
//
// Search probes a first low rate, jumps toward 1/(mean latency) (Little's
// Law), grows geometrically until a probe fails, then narrows the bracket
// to a resolution with a fitted queueing curve, falling back to bisection;
// each probe is a full measurement window after its own warm-up, and a pass
// near the SLO is probed again.
//
// # Confirm
//
// Confirm re-probes the bracket in further rounds (each optionally in a
// fresh target process), so that the knee carries several estimates and
// the gate can test max QPS over them.
package knee
