// Package harness generates load and measures it correctly.
//
// # The pipeline
//
// A Schedule says when requests are due (ConstantSchedule, a seeded
// PoissonSchedule, or a TraceSchedule replaying production traffic). In
// open loop each idle worker takes the next Hit from the schedule and
// sleeps until its intended time itself: one wake-up per request, with no
// dispatcher goroutine between the clock and the connection. A worker that
// wakes while no other has taken the next hit (all are inside requests)
// starts one more worker (one connection's worth of concurrency), up to
// Options.MaxConns; a worker that wakes late (a generator short of CPU)
// does so only within a bound (engine.spare). Each worker calls the
// protocol Client, which reports a Sample; failures are data (Sample.Class),
// never errors. Clients' connection pools are sized from the load
// (PoolSize: the concurrency in closed loop) unless the user caps them; a
// request that waits for a connection reports the wait (Sample.Wait).
// Each worker records its own samples into the recorder, which owns every
// HdrHistogram, under its lock: no hand-off to another goroutine.
//
// On Linux an open loop whose client is the http1 HTTPClient runs instead on
// event loops (evloop_linux.go): one goroutine per generator core with an
// epoll of its own and non-blocking sockets, waking for due hits at most
// once a millisecond and sending all that are due, reading responses with
// http1.Parser as they arrive. The timing and accounting rules are the same.
// Options.Engine (EngineSettings, filled in by the command line from
// perfgate.yaml, its flags and PERFGATE_ENGINE) can keep the workers; see
// docs/event-loop.md.
//
// # Timing
//
// In open loop (rate, replay) latency is End − Intended: counted from when
// the schedule meant the request to be sent, not from when it was sent. A
// stalled server, or a generator that could not send on time, therefore
// shows in the tail instead of hiding in fewer samples (no coordinated
// omission). The uncorrected service time, End − Start, is recorded beside
// it, and so is the schedule lag, Start − Intended. In closed loop
// (concurrency) there is no schedule and latency is End − Start.
//
// # Windows
//
// A run is a warm-up followed by Trials back-to-back windows of Duration.
// A request belongs to the window its intended (open loop) or actual
// (closed loop) send time falls in; warm-up requests count nowhere. Each
// window has its own histograms (microseconds, 3 significant digits),
// stored in the result in HdrHistogram's V2 compressed encoding and merged
// for the summary. The achieved rate counts responses that arrived inside
// the window.
//
// # Accounting
//
// Every request sent is in exactly one window's requests, as a success or
// an error with a class: a request still outstanding when the run ends
// (the drain, counted from the end of the last window, ran out, or the run
// was interrupted) is a timeout in the window of its intended send time.
//
// # Validity
//
// A trial is invalid when its achieved rate is significantly under 95% of
// the offered rate, when every connection was busy (the target was not
// keeping up), or when the generator's process used 90% of its cores; the
// last makes the whole result invalid (generator-bound), and an invalid
// result never passes or fails a gate. Sends late by more than MaxLagP99 at
// P99 get a warning: they stay correctly timed from their intended time.
// A trial whose requests spent more than MaxWaitShare of their latency
// waiting for a connection is invalid (the pool shaped it), and one whose
// goroutines waited more than MaxSchedP99 at P99 to run while the
// generator was busy is generator-bound (its timestamps are late); see
// docs/streaming.md.
//
// # What is not here
//
// Starting, supervising and stopping the target processes is package
// targetproc; the CPU sets perfgate and its targets run on are
// internal/cpuset; the commit a run measured is package provenance; the
// /proc reading behind the host-load sampler (HostSampler) is
// internal/procfs. This package takes its engine settings
// (EngineSettings) from its caller and reads no environment.
//
// The knee search that drives this engine probe by probe is package knee.
package harness
