package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfgate/perfgate/result"
)

// Load modes.
const (
	ModeRate        = "rate"
	ModeConcurrency = "concurrency"
	ModeReplay      = "replay"
	ModeSweep       = "sweep"
)

// Arrival processes for open-loop runs.
const (
	ArrivalConstant = "constant"
	ArrivalPoisson  = "poisson"
)

// DefaultMaxConns caps the open-loop connection pool: enough to hold any
// schedule a single generator can drive, bounded so that an overloaded
// target cannot make perfgate open connections without end.
const DefaultMaxConns = 4096

// PoolSize is the connection pool a load needs when the user gave no cap
// (connections 0): the concurrency in closed loop, so that every worker
// has a connection of its own, and DefaultMaxConns in open loop (or the
// concurrency, if larger). Pools open connections lazily, so an open loop
// opens only as many as its requests keep busy at once: the pool is sized
// by the load. A user's cap is returned as given; one below a closed
// loop's concurrency makes requests queue inside perfgate, which Run
// warns about and measures (Sample.Wait, MaxWaitShare).
func PoolSize(mode string, concurrency, connections int) int {
	if connections > 0 {
		return connections
	}
	if mode == ModeConcurrency {
		return max(concurrency, 1)
	}
	return max(DefaultMaxConns, concurrency)
}

// TrialObserver samples telemetry around each measurement window. The
// engine calls BeginTrial when trial i's window opens and EndTrial when it
// closes, from one goroutine.
type TrialObserver interface {
	BeginTrial(i int)
	EndTrial(i int) *result.Telemetry
}

// Options configure one run. The zero value is not runnable: Client and
// either Rate, Concurrency or Schedule are required.
type Options struct {
	Client Client
	// Mode is ModeRate (open loop), ModeConcurrency (closed loop) or
	// ModeReplay (open loop on Schedule, usually a trace).
	Mode string
	// Rate and Arrival define the open-loop schedule when Schedule is nil.
	Rate    float64
	Arrival string
	Seed    int64
	// Schedule overrides Rate/Arrival (replay traces).
	Schedule Schedule
	// Concurrency is the number of in-flight requests in closed loop.
	Concurrency int
	// Warmup is run first and excluded from every figure.
	Warmup time.Duration
	// Duration is one trial's measurement window; Trials windows follow the
	// warm-up back to back.
	Duration time.Duration
	Trials   int
	// MaxConns caps concurrent requests in open loop (default DefaultMaxConns).
	// It should be the client's connection pool too (see PoolSize); in
	// closed loop a cap below Concurrency gets a warning.
	MaxConns int
	// MaxRequests bounds the number of requests sent (0: bounded by time
	// only, plus a safety cap of 50 million).
	MaxRequests int64
	// Drain is how long in-flight requests may run past the last window
	// before they are abandoned (default 10 s); they still count, as
	// timeouts, so a stall at the end is never hidden.
	Drain time.Duration
	// SLOTTFT and SLOTPOT define goodput for streaming runs.
	SLOTTFT, SLOTPOT time.Duration
	// Observer, if set, samples telemetry per trial.
	Observer TrialObserver
	// Progress, if set, is called about four times a second and at each
	// phase change, from one goroutine.
	Progress func(Progress)
	// Engine chooses and tunes the open-loop engine (the zero value: the
	// event loop where it can run, with its default burst).
	Engine EngineSettings
	// Start, if set, is the wall-clock instant the warm-up begins and the
	// schedule's offsets count from, so that generators on several
	// machines cover the same windows; zero starts now.
	Start time.Time
}

// Progress is a snapshot of a running load.
type Progress struct {
	// Phase is "warmup", "trial" or "drain".
	Phase string
	// Trial is the 1-based trial number during "trial".
	Trial, Trials int
	// PhaseDone is true on the last call of a phase (a trial ended).
	PhaseDone bool
	Elapsed   time.Duration
	Total     time.Duration
	Sent      int64
	// PhaseSent, on a phase's last call, is how many hits due in that
	// phase (by intended send time, as the result counts a trial's
	// requests) were sent by then.
	PhaseSent int64
	Done      int64
	Errors    int64
	InFlight  int64
}

// Validate reports the first problem with o.
func (o *Options) Validate() error {
	if o.Client == nil {
		return errors.New("no client")
	}
	switch o.Mode {
	case ModeRate:
		if o.Schedule == nil && !(o.Rate > 0) {
			return fmt.Errorf("rate %v: must be > 0 requests per second", o.Rate)
		}
		if o.Arrival != "" && o.Arrival != ArrivalConstant && o.Arrival != ArrivalPoisson {
			return fmt.Errorf("arrival %q: want constant or poisson", o.Arrival)
		}
	case ModeConcurrency:
		if o.Concurrency < 1 {
			return fmt.Errorf("concurrency %d: must be >= 1", o.Concurrency)
		}
	case ModeReplay:
		if o.Schedule == nil {
			return errors.New("replay needs a trace schedule")
		}
	default:
		return fmt.Errorf("mode %q: want rate, concurrency or replay", o.Mode)
	}
	if o.Duration <= 0 {
		return fmt.Errorf("duration %v: must be > 0", o.Duration)
	}
	if o.Warmup < 0 {
		return fmt.Errorf("warmup %v: must be >= 0", o.Warmup)
	}
	if o.Trials < 1 {
		return fmt.Errorf("trials %d: must be >= 1", o.Trials)
	}
	return o.Engine.Validate()
}

// openLoop reports whether o sends on a schedule.
func (o *Options) openLoop() bool { return o.Mode != ModeConcurrency }

// ErrAllFailed is returned (with the result) when no request succeeded.
var ErrAllFailed = errors.New("every request failed")

// Run applies the load o describes and returns what it measured. The result
// has Load, Summary, Trials, LLM and validity filled in; the caller adds the
// scenario's name, environment and git information. When ctx is cancelled
// the load stops, in-flight requests are abandoned, and the partial result
// is returned marked Interrupted with ctx's error.
func Run(ctx context.Context, o Options) (*result.Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	capped := o.MaxConns > 0 // the user's cap, not the default
	var capWarning string
	if o.Mode == ModeConcurrency && o.MaxConns > 0 && o.MaxConns < o.Concurrency {
		capWarning = fmt.Sprintf("connections %d is below concurrency %d: %d requests at a time wait inside perfgate for a connection; the wait is measured (conn_wait_*) and a trial where it exceeds %.0f%% of latency is invalid",
			o.MaxConns, o.Concurrency, o.Concurrency-o.MaxConns, 100*MaxWaitShare)
	}
	if o.MaxConns <= 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.Drain <= 0 {
		o.Drain = 10 * time.Second
	}
	if o.MaxRequests <= 0 {
		o.MaxRequests = 50_000_000
	}
	sched := o.Schedule
	if sched == nil && o.openLoop() {
		if o.Arrival == ArrivalPoisson {
			sched = NewPoissonSchedule(o.Rate, o.Seed)
		} else {
			sched = &ConstantSchedule{Rate: o.Rate}
		}
	}

	// reqCtx outlives ctx's load phase by the drain period so that requests
	// in flight at the end complete (or time out) and are counted.
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()

	start := time.Now().Add(2 * time.Millisecond)
	if !o.Start.IsZero() {
		start = o.Start
	}
	measureStart := start.Add(o.Warmup)
	end := measureStart.Add(time.Duration(o.Trials) * o.Duration)

	rec := newRecorder(&o, measureStart, o.Duration, o.Trials)
	rec.capped = capped
	e := &engine{o: o, start: start, end: end, selfTimed: selfTimedClient(o.Client), rec: rec}

	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	clockDone := make(chan struct{})
	go func() { e.clock(loadCtx, rec, measureStart); close(clockDone) }()

	engineName := EngineWorkers
	if o.openLoop() {
		if e.eventLoops(loadCtx, reqCtx, sched) {
			engineName = EngineEventLoop
		} else {
			e.openLoop(loadCtx, reqCtx, sched)
		}
	} else {
		e.closedLoop(loadCtx, reqCtx)
	}
	// Wait for in-flight requests, at most Drain past the end of the last
	// window, then abandon them. The closed loop's workers return only at
	// the end, so the drain must be counted from there, not from now: a
	// drain counted from the launch of the workers cancelled every request
	// of a run longer than it, mid-run.
	waitDone := make(chan struct{})
	go func() { e.workers.Wait(); close(waitDone) }()
	drain := time.NewTimer(max(time.Until(end), 0) + o.Drain)
	defer drain.Stop()
	select {
	case <-waitDone:
	case <-drain.C:
		cancelReqs()
		<-waitDone
	case <-ctx.Done():
		cancelReqs()
		<-waitDone
	}
	stopLoad()
	<-clockDone

	res := rec.result()
	if capWarning != "" {
		res.Warnings = append([]string{capWarning}, res.Warnings...)
	}
	res.Schema = result.Schema
	res.StartedAt = start.UTC()
	res.Load = result.Load{
		Mode: o.Mode, Rate: o.Rate, Concurrency: o.Concurrency,
		DurationS: o.Duration.Seconds(), WarmupS: o.Warmup.Seconds(), Trials: o.Trials,
		Engine: engineName,
	}
	if engineName == EngineEventLoop {
		res.Load.BurstMs = float64(e.burst.Microseconds()) / 1000
	}
	if o.openLoop() && o.Schedule == nil {
		res.Load.Arrival = ArrivalConstant
		if o.Arrival == ArrivalPoisson {
			res.Load.Arrival, res.Load.Seed = ArrivalPoisson, o.Seed
		}
	}
	if ctx.Err() != nil {
		res.Interrupted = true
		res.Valid = false
		res.Warnings = append(res.Warnings, InterruptedWarning)
		return res, ctx.Err()
	}
	if res.Summary.Requests > 0 && res.Summary.Errors == res.Summary.Requests {
		return res, fmt.Errorf("%w (%d of %d): %s", ErrAllFailed, res.Summary.Errors, res.Summary.Requests, rec.firstError())
	}
	if res.Summary.Requests == 0 {
		return res, errors.New("no request completed in any measurement window")
	}
	return res, nil
}

// InterruptedWarning is the warning of a result whose run's context was
// cancelled before it ended. A caller that cancelled the run itself for a
// reason of its own (the target died) removes it and says that reason.
const InterruptedWarning = "the run was interrupted: figures cover only what ran"

// engine holds the shared state of one run.
type engine struct {
	o Options
	// burst is the event loops' least time between bursts of sends
	// (BatchEnv), set when the open loop runs on them.
	burst      time.Duration
	start, end time.Time
	rec        *recorder
	workers    sync.WaitGroup
	sent       atomic.Int64
	inFlight   atomic.Int64
	nworkers   atomic.Int64
	exhausted  atomic.Int64 // hits due while every connection was busy at the cap
	// capHit is 1 + the number of the last hit found without a taker
	// with MaxConns workers (0: none): if it is late when taken, it
	// waited for a connection.
	capHit    atomic.Uint64
	selfTimed bool // the client sets samples' enter and exit (selfTimedClient)
	// lateSpawn is when (monotonic nanoseconds since monoBase) a worker
	// behind its schedule last started another (see spare).
	lateSpawn atomic.Int64
	// onTimeHigh is the most workers there were after a spare started by
	// a worker on time.
	onTimeHigh atomic.Int64
	// inFlightTime is the smoothed time requests spend in the client, in
	// nanoseconds.
	inFlightTime atomic.Int64
	// wakeLag is how late workers' timers woke them, smoothed over about
	// 8 sleeps, in nanoseconds: the generator's own delay, apart from the
	// lag of hits taken when already due (a backlog).
	wakeLag atomic.Int64
}

// sentHit counts a hit sent, in all and in the phase it was due in.
func (e *engine) sentHit(intended time.Time) {
	e.sent.Add(1)
	e.rec.countDue(intended)
}

// do sends one hit and records its sample, in the calling worker: the
// recorder is shared under a lock (recorder.record), so a request costs
// no hand-off to another goroutine. The times the request entered and
// left the generator are kept so that the recorder can integrate the
// number in flight exactly (Little's L), independently of the client's
// own Start and End.
//
// A self-timed client (selfTimed) sets enter and exit itself, from the
// clock reads it makes for the sample's Start and End.
func (e *engine) do(ctx context.Context, h Hit) {
	e.inFlight.Add(1)
	var s Sample
	if e.selfTimed {
		s = e.o.Client.Do(ctx, h)
	} else {
		enter := now()
		s = e.o.Client.Do(ctx, h)
		s.exit, s.enter = now(), enter
	}
	e.inFlight.Add(-1)
	s.Hit = h
	// The mean time in flight, smoothed over about 16 requests (lost
	// updates between workers are harmless): spare weighs a late wake-up
	// against it.
	e.inFlightTime.Store(smooth(e.inFlightTime.Load(), int64(s.exit.Sub(s.enter)), 16))
	e.rec.record(&s)
}

// smooth moves an average old a 1/n step toward x; the first x (old 0)
// is taken whole.
func smooth(old, x, n int64) int64 {
	if old == 0 {
		return max(x, 1)
	}
	return old + (x-old)/n
}

// feed hands out the schedule's hits, in order, to the workers that ask.
type feed struct {
	mu         sync.Mutex
	sched      Schedule
	start, end time.Time
	max        int64
	// claimed counts the hits handed out (written under mu): the next
	// hit to hand out is number claimed.
	claimed atomic.Uint64
	done    atomic.Bool
}

// next returns the next hit, or false when the schedule has ended (no
// more hits, the next one due after the run's end, or MaxRequests).
func (f *feed) next() (Hit, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	seq := f.claimed.Load()
	if f.done.Load() || int64(seq) >= f.max {
		f.done.Store(true)
		return Hit{}, false
	}
	off, payload, ok := f.sched.Next()
	due := f.start.Add(off)
	if !ok || !due.Before(f.end) {
		f.done.Store(true)
		return Hit{}, false
	}
	f.claimed.Store(seq + 1)
	return Hit{Seq: seq, Intended: due, Payload: payload}, true
}

// Spawning while behind schedule (see spare).
const (
	// lateSpawnLag is how far behind its hit's intended time a worker is
	// counted late.
	lateSpawnLag = time.Millisecond
	// lateSpawnEvery is the least time between two workers started by
	// late workers.
	lateSpawnEvery = time.Millisecond
	// lateSpawnShare: a late worker is not held to the on-time need while
	// requests take more than this many times the lateness of the
	// workers' timers (wakeLag): the target, not the generator's delay,
	// keeps the workers busy.
	lateSpawnShare = 2
)

// openLoop sends the hits on the schedule from a pool of workers that
// each take the next hit due and sleep until its intended time
// themselves: one wake-up per request, with no dispatcher between the
// clock and the connection.
//
// A worker that wakes for hit k while nobody has taken hit k+1 (every
// other worker is inside a request) starts one more worker (spare) to
// take it, up to MaxConns; at the cap, hit k+1 waits for the first worker
// to finish, and the wait shows in latency because latency counts from
// the intended time. Workers are not connections: a worker holds one of
// the client's connections only while inside a request, and the client
// opens one only when none is idle, so the pool is still sized by the
// number of requests in flight.
func (e *engine) openLoop(ctx, reqCtx context.Context, sched Schedule) {
	f := &feed{sched: sched, start: e.start, end: e.end, max: e.o.MaxRequests}
	e.onTimeHigh.Store(1)
	e.nworkers.Add(1)
	e.workers.Add(1)
	go e.openWorker(ctx, reqCtx, f)
}

// openWorker is one open-loop worker: take the next hit, sleep until it
// is due, make sure the following hit has a taker, send, record, again.
func (e *engine) openWorker(ctx, reqCtx context.Context, f *feed) {
	defer e.workers.Done()
	for {
		h, ok := f.next()
		if !ok {
			return
		}
		late, ok := sleepUntil(ctx, h.Intended)
		if !ok {
			return
		}
		if !late { // it slept: how late did its timer wake it?
			e.wakeLag.Store(smooth(e.wakeLag.Load(), int64(now().Sub(h.Intended)), 8))
		}
		if late && e.capHit.Load() == h.Seq+1 {
			e.exhausted.Add(1) // due while every connection was busy at the cap
		}
		e.sentHit(h.Intended)
		if f.claimed.Load() == h.Seq+1 && !f.done.Load() && e.inFlight.Load() >= e.nworkers.Load()-1 {
			e.spare(ctx, reqCtx, f, h)
		}
		e.do(reqCtx, h)
	}
}

// spare starts a worker to take the hit after h, which no worker has
// taken: every other one is inside a request. At MaxConns it starts none
// and marks that hit as one that may wait for a connection (capHit).
//
// A worker that is late for h (by lateSpawnLag or more) may be so because
// the generator is short of CPU: then the workers counted inside a request
// may be ones whose response has arrived but which have not run yet, and a
// worker per late hit would open connections toward the cap without need,
// each one more for a starved process to serve. So a late worker starts a
// spare only while there are fewer than twice as many workers (plus two)
// as on-time workers ever needed
// (onTimeHigh), or while requests take lateSpawnShare times as long as
// the workers' timers are late (inFlightTime against wakeLag) or longer:
// then the target keeps the workers busy, not the generator's delay (300 ms
// requests on a machine that wakes the generator 5 ms late, whose backlog
// makes every hit late); and late spares begin work lateSpawnEvery apart
// (each is started at once, so that the chain of takers goes on, and
// waits for its turn). A worker sleeps on its own timer, so a target
// that stalls while the generator keeps time still gets one new worker
// per hit, without bound below MaxConns; one that stalls while the
// generator is late gets up to one a millisecond, and its hits wait, their
// latency counted from the intended time (and the lag) showing it.
func (e *engine) spare(ctx, reqCtx context.Context, f *feed, h Hit) {
	late := false
	t := now()
	for {
		n := e.nworkers.Load()
		if n >= int64(e.o.MaxConns) {
			e.capHit.Store(h.Seq + 2) // hit h.Seq+1, plus one
			return
		}
		if t.Sub(h.Intended) >= lateSpawnLag {
			late = true
			if n >= 2*e.onTimeHigh.Load()+2 && lateSpawnShare*e.wakeLag.Load() >= e.inFlightTime.Load() {
				return
			}
		}
		if e.nworkers.CompareAndSwap(n, n+1) {
			if !late {
				for {
					high := e.onTimeHigh.Load()
					if n+1 <= high || e.onTimeHigh.CompareAndSwap(high, n+1) {
						break
					}
				}
			}
			break
		}
	}
	// A late spare starts lateSpawnEvery after the one before: it is
	// started now, so that the hit after h has a taker that will itself
	// start the next, but it waits for its turn.
	var at time.Time
	if late {
		for {
			last, tn := e.lateSpawn.Load(), int64(t.Sub(monoBase))
			next := max(tn, last+int64(lateSpawnEvery))
			if e.lateSpawn.CompareAndSwap(last, next) {
				at = monoBase.Add(time.Duration(next))
				break
			}
		}
	}
	e.workers.Add(1)
	go func() {
		if !at.IsZero() {
			if _, ok := sleepUntil(ctx, at); !ok {
				e.workers.Done()
				return
			}
		}
		e.openWorker(ctx, reqCtx, f)
	}()
}

// maxPlainSleep is the longest wait a worker makes with time.Sleep, which
// needs no timer of its own but cannot be interrupted: a longer one
// (sparse traces) also watches the context.
const maxPlainSleep = 10 * time.Millisecond

// sleepUntil waits until t; late reports that t had passed already, ok
// is false when ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) (late, ok bool) {
	d := t.Sub(now())
	switch {
	case d <= 0:
		late = true
	case d <= maxPlainSleep:
		time.Sleep(d)
	default:
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-ctx.Done():
			return false, false
		}
	}
	return late, ctx.Err() == nil
}

// closedLoop keeps Concurrency requests in flight until the end.
func (e *engine) closedLoop(ctx, reqCtx context.Context) {
	var seq atomic.Uint64
	for range e.o.Concurrency {
		e.workers.Add(1)
		go func() {
			defer e.workers.Done()
			if d := time.Until(e.start); d > 0 {
				time.Sleep(d)
			}
			for ctx.Err() == nil {
				n := seq.Add(1)
				if int64(n) > e.o.MaxRequests {
					return
				}
				t := now()
				if !t.Before(e.end) {
					return
				}
				e.sentHit(t)
				e.do(reqCtx, Hit{Seq: n - 1, Intended: t})
			}
		}()
	}
}

// clock marks trial boundaries: it samples in-flight counts for Little's
// Law, the generator's CPU, calls the observer, and reports progress.
func (e *engine) clock(ctx context.Context, rec *recorder, measureStart time.Time) {
	o := e.o
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	trial := -1 // -1: warm-up
	cpu0, wall0 := cpuTime(), time.Now()
	sched0 := readSched()
	rq0 := readRunQueue()
	lastProgress := time.Time{}
	report := func(now time.Time, phase string, done bool) {
		if o.Progress == nil {
			return
		}
		p := Progress{Phase: phase, Trial: trial + 1, Trials: o.Trials, PhaseDone: done,
			Elapsed: now.Sub(e.start), Total: e.end.Sub(e.start), Sent: e.sent.Load(),
			Done: rec.done.Load(), Errors: rec.errs.Load(), InFlight: e.inFlight.Load()}
		if done {
			p.PhaseSent = rec.dueSent(trial)
		}
		o.Progress(p)
	}
	closeTrial := func(now time.Time) {
		cpu := cpuTime()
		st := trialStats{cpuCores: (cpu - cpu0).Seconds() / now.Sub(wall0).Seconds()}
		st.schedP99, _ = schedP99Since(sched0)
		if rq1 := readRunQueue(); rq0 != nil && rq1 != nil {
			st.runQueue, st.runQueueSet = since(rq0, rq1).meanWait(), true
		}
		st.exhausted = e.exhausted.Swap(0)
		if o.Observer != nil {
			st.telemetry = o.Observer.EndTrial(trial)
		}
		rec.setStats(trial, st)
		report(now, "trial", true)
	}
	openTrial := func(now time.Time, i int) {
		trial = i
		cpu0, wall0 = cpuTime(), now
		sched0 = readSched()
		rq0 = readRunQueue()
		e.exhausted.Store(0)
		if o.Observer != nil {
			o.Observer.BeginTrial(i)
		}
	}
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			if trial >= 0 && trial < o.Trials {
				closeTrial(time.Now())
			}
			return
		case now = <-tick.C:
		}
		// Which window is now in? Trials follow the warm-up back to back.
		cur := -1
		if !now.Before(measureStart) {
			cur = int(now.Sub(measureStart) / o.Duration)
		}
		for trial < cur && trial < o.Trials {
			if trial >= 0 {
				closeTrial(measureStart.Add(time.Duration(trial+1) * o.Duration))
			} else if o.Progress != nil {
				report(now, "warmup", true)
			}
			if trial+1 >= o.Trials {
				trial = o.Trials
				break
			}
			openTrial(now, trial+1)
		}
		if now.Sub(lastProgress) >= 250*time.Millisecond {
			lastProgress = now
			switch {
			case trial < 0:
				report(now, "warmup", false)
			case trial < o.Trials:
				report(now, "trial", false)
			default:
				report(now, "drain", false)
			}
		}
	}
}

// generatorCores is the number of cores the generator may use.
func generatorCores() int { return runtime.GOMAXPROCS(0) }
