// Package runnerspeed measures how fast the runner executes a fixed piece
// of work, so that a comparison can tell a slower machine from a slower
// build.
//
// Self-hosted and cloud runners are virtual machines sharing physical
// cores, caches and memory with other tenants; the same code, minutes
// apart, can run tens of percent slower, and neither the load average nor
// steal time shows it. A probe is two fixed loops run on every CPU
// perfgate may use, pinned there one after the other:
//
//   - compute: a dependent chain of 64-bit multiplies and shifts
//     (ComputeSteps steps), which moves with the core's clock and with a
//     busy hyperthread sibling;
//   - memory: a pointer chase over a random cycle in a 32 MiB table
//     (MemorySteps steps), each step a cache or DRAM miss, which moves
//     with a neighbour's pressure on the shared cache and memory.
//
// Each is timed Reps times per CPU; a sample holds, per loop, the mean
// over CPUs of each CPU's median, in nanoseconds per step. The suite
// takes a sample before a scenario's first target process and after each
// process ends, so a scenario carries restarts + 1 samples taken while
// none of its load runs; compare tests the two sides' compute samples and
// calls a regression measured on a slower runner inconclusive (runner
// slower). The memory samples are kept for the record only: their level
// depends on where a process's table landed in memory (on a virtual
// machine, up to half again from one process to the next), not only on
// the machine's state.
package runnerspeed
