// Package targetproc starts, supervises and stops the target processes
// perfgate measures.
//
// Start runs a Spec's command in its own process group with {port} (and
// {grpc_port}) filled by free ports (FreePort; a start whose port another
// process took first is tried again, PortAttempts times in all), in the environment
// it is given reduced to an allow-list (InheritedEnv: DefaultEnv and the
// spec's Passthrough, never NeverPassed), on the CPUs it asks
// for (internal/cpuset) from the first instruction. It waits for the
// readiness URL (Spec.ReadyTimeout, DefaultReadyTimeout when zero), keeps
// the target's log (Target.LogTail quotes it in errors), and Target.Stop
// ends the whole group with SIGTERM then, after a grace period
// (DefaultStopGrace), SIGKILL; also when the context is cancelled
// (perfgate interrupted).
//
// A target is tied to perfgate's death through a supervisor (Spec.
// Supervisor: `perfgate target-supervisor`, which runs Supervise): on
// Linux it asks for a parent-death signal and makes itself a child
// subreaper, so that when perfgate dies, however it dies, every process
// the target started is killed: no target outlives perfgate.
//
// This package knows nothing of load: package harness sends it, and
// package suite ties the two together per scenario.
package targetproc
