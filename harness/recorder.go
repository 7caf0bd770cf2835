package harness

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/perfgate/perfgate/result"
)

// Validity thresholds.
const (
	// MinAchievedRatio: a trial whose achieved rate is below this share of
	// the offered rate did not apply the load it claims.
	MinAchievedRatio = 0.95
	// SaturatedCPUShare: a generator using at least this share of its cores
	// is saturated and its timings are suspect.
	SaturatedCPUShare = 0.90
	// MaxLagP99 is the schedule lag (actual send − intended send) above which
	// a trial gets a warning when the connection pool was not the cause.
	MaxLagP99 = 10 * time.Millisecond
	// MaxWaitShare: a trial whose successful requests spent more than this
	// share of their latency waiting inside perfgate for a connection
	// (Σ Sample.Wait / Σ latency), with the connections capped by the
	// user (Options.MaxConns), is invalid: the pool, not the target,
	// shaped its figures.
	MaxWaitShare = 0.05
	// MaxSchedP99 is the scheduling delay of the generator's goroutines
	// (runnable → running, P99 over a trial) past which the times it
	// records are late by more than the figures can bear. With the
	// generator busy (BusyCPUShare of its cores or more) the trial is
	// generator-bound and the run invalid; with the generator mostly idle
	// the cores were taken by other processes and the trial is invalid
	// (the machine was busy) but not generator-bound.
	MaxSchedP99 = 5 * time.Millisecond
	// BusyCPUShare is the share of its cores above which a generator
	// whose goroutines queue is the cause of its own delays.
	BusyCPUShare = 0.5
)

// trialStats are measured by the clock at a trial's end.
type trialStats struct {
	cpuCores float64
	schedP99 time.Duration
	// runQueue is the mean time the generator's threads waited in the
	// kernel's run queue per time they ran; runQueueSet when measured.
	runQueue    time.Duration
	runQueueSet bool
	exhausted   int64
	telemetry   *result.Telemetry
	set         bool
}

// window accumulates one trial. The recorder is its single writer.
type window struct {
	latency, service, lag *hdrhistogram.Histogram
	// wait is the time successful requests waited for a connection;
	// waitSum and latSum give its share of their latency.
	wait             *hdrhistogram.Histogram
	waitSum, latSum  time.Duration
	requests, errors int64
	completed        int64 // responses whose End fell inside the window
	errorsBy         map[string]int64
	llm              *LLMRecorder
	streamed         int64
	// busy is the total time requests spent in flight inside the window:
	// busy / window length is the mean number in flight (Little's L).
	busy time.Duration
}

// recorder holds every histogram of a run. Workers hand it their samples
// through record, one at a time under its lock.
type recorder struct {
	o            *Options
	measureStart time.Time
	trialDur     time.Duration
	windows      []*window
	done, errs   atomic.Int64
	canceled     int64 // outstanding at the end, counted as timeouts
	// capped is true when the user capped the connections (MaxConns):
	// only then can the pool, rather than the load, shape the figures.
	capped bool
	warmup int64
	// mu serializes add (every worker records its own samples) and guards
	// stats (written once a trial by the clock goroutine).
	mu        sync.Mutex
	stats     []trialStats
	firstErrs map[string]string // first error text per class; the consumer's own
	allLLM    *LLMRecorder      // every measured streaming sample, for the summary
	timelines []*seconds        // per trial, second by second (persecond.go)
	// due counts the hits sent by the phase they were due in: [0] the
	// warm-up, [i+1] trial i (the progress lines' counts).
	due []atomic.Int64
}

// countDue counts a hit sent that was due at t.
func (r *recorder) countDue(t time.Time) {
	if i := r.index(t); i < len(r.windows) {
		r.due[i+1].Add(1)
	}
}

// dueSent is how many hits due in trial i (-1: the warm-up) were sent.
func (r *recorder) dueSent(i int) int64 {
	if i+1 < 0 || i+1 >= len(r.due) {
		return 0
	}
	return r.due[i+1].Load()
}

func newRecorder(o *Options, measureStart time.Time, trialDur time.Duration, trials int) *recorder {
	r := &recorder{o: o, measureStart: measureStart, trialDur: trialDur,
		stats: make([]trialStats, trials), firstErrs: map[string]string{}, due: make([]atomic.Int64, trials+1),
		allLLM: NewLLMRecorder(o.SLOTTFT, o.SLOTPOT)}
	for range trials {
		w := &window{latency: result.NewHistogram(), service: result.NewHistogram(),
			lag: result.NewHistogram(), wait: result.NewHistogram(), errorsBy: map[string]int64{}}
		w.llm = NewLLMRecorder(o.SLOTTFT, o.SLOTPOT)
		r.windows = append(r.windows, w)
	}
	return r
}

// index returns the trial a time falls in, or -1 for warm-up, or len for after.
func (r *recorder) index(t time.Time) int {
	if t.Before(r.measureStart) {
		return -1
	}
	i := int(t.Sub(r.measureStart) / r.trialDur)
	if i > len(r.windows) {
		i = len(r.windows)
	}
	return i
}

// record adds one sample. Workers call it as each request ends: the
// lock makes the recorder the histograms' single writer at any moment.
func (r *recorder) record(s *Sample) {
	r.mu.Lock()
	r.add(s)
	r.mu.Unlock()
}

func (r *recorder) add(s *Sample) {
	if s.Class == ErrCanceled {
		// Still outstanding when the run ended (the drain ran out, or the
		// run was interrupted): the target never answered in time, so it
		// is a timeout in the window of its intended send, never dropped.
		r.canceled++
		s.Class = ErrTimeout
		s.Err = "still outstanding when the run ended: abandoned after the drain"
	}
	r.done.Add(1)
	if !s.OK() {
		r.errs.Add(1)
	}
	if j := r.index(s.End); j >= 0 && j < len(r.windows) {
		r.windows[j].completed++
	}
	// In flight at the target: from the send on a connection, not from
	// the start of a wait for one.
	r.addBusy(s.enter.Add(s.Wait), s.exit)
	r.perSecond(s)
	i := r.index(s.Hit.Intended)
	if i < 0 {
		r.warmup++
		return
	}
	if i >= len(r.windows) {
		return
	}
	w := r.windows[i]
	w.requests++
	if !s.OK() {
		w.errors++
		w.errorsBy[s.Class]++
		if _, ok := r.firstErrs[s.Class]; !ok && s.Err != "" {
			r.firstErrs[s.Class] = ClipErr(s.Err)
		}
		return
	}
	// Latency counts from the intended send time: a request that had to
	// wait for the generator still waited, from its user's point of view.
	lat := s.End.Sub(s.Hit.Intended)
	result.RecordDuration(w.latency, lat)
	result.RecordDuration(w.service, s.End.Sub(s.Start))
	result.RecordDuration(w.wait, s.Wait)
	w.waitSum += s.Wait
	w.latSum += lat
	// The schedule lag is the worker's, from the intended time to the
	// send: the connection wait, which Start includes, is kept apart.
	if lag := s.Start.Sub(s.Hit.Intended) - s.Wait; lag > 0 {
		result.RecordDuration(w.lag, lag)
	} else {
		_ = w.lag.RecordValue(0)
	}
	if s.Stream != nil {
		w.llm.Add(s)
		w.streamed++
		r.allLLM.Add(s)
	}
}

// addBusy adds the part of [enter, exit] that falls inside each window.
func (r *recorder) addBusy(enter, exit time.Time) {
	if enter.IsZero() || !exit.After(enter) {
		return
	}
	for i := max(r.index(enter), 0); i < len(r.windows); i++ {
		ws := r.measureStart.Add(time.Duration(i) * r.trialDur)
		we := ws.Add(r.trialDur)
		if !exit.After(ws) {
			break
		}
		lo, hi := enter, exit
		if lo.Before(ws) {
			lo = ws
		}
		if hi.After(we) {
			hi = we
		}
		if hi.After(lo) {
			r.windows[i].busy += hi.Sub(lo)
		}
	}
}

func (r *recorder) setStats(i int, st trialStats) {
	if i < 0 || i >= len(r.stats) {
		return
	}
	st.set = true
	r.mu.Lock()
	r.stats[i] = st
	r.mu.Unlock()
}

// firstError describes the first error of each class; call it only after
// every worker has returned.
func (r *recorder) firstError() string {
	classes := make([]string, 0, len(r.firstErrs))
	for c := range r.firstErrs {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	var b strings.Builder
	for i, c := range classes {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s: %s", c, r.firstErrs[c])
	}
	return b.String()
}

// result builds the trials and the summary.
func (r *recorder) result() *result.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := &result.Result{Valid: true}
	secs := r.trialDur.Seconds()
	all, allSvc, allLag := result.NewHistogram(), result.NewHistogram(), result.NewHistogram()
	allWait := result.NewHistogram()
	var waitSum, latSum time.Duration
	sum := &res.Summary
	sum.ErrorsBy = map[string]int64{}
	var completed int64
	var cpuSum, inflSum float64
	var nStats int
	streaming := false
	for i, w := range r.windows {
		st := r.stats[i]
		t := result.Trial{
			Requests: w.requests, Errors: w.errors, DurationS: secs,
			AchievedRPS: float64(w.completed) / secs,
			Latency:     result.LatencyOf(w.latency),
			Valid:       true,
		}
		if r.o.openLoop() {
			// The realized schedule: for Poisson arrivals or a trace this is
			// what was actually offered in this window, not the nominal rate.
			t.OfferedRPS = float64(w.requests) / secs
		}
		svc := result.LatencyOf(w.service)
		t.Service = &svc
		t.LagP99Ms = float64(w.lag.ValueAtQuantile(99)) / 1000
		t.ConnWaitP99Ms = float64(w.wait.ValueAtQuantile(99)) / 1000
		if w.latSum > 0 {
			t.ConnWaitShare = w.waitSum.Seconds() / w.latSum.Seconds()
		}
		waitSum, latSum = waitSum+w.waitSum, latSum+w.latSum
		if len(w.errorsBy) > 0 {
			t.ErrorsBy = w.errorsBy
		}
		var err error
		if t.Histogram, err = result.EncodeHistogram(w.latency); err != nil {
			res.Warnings = append(res.Warnings, err.Error())
		}
		if t.ServiceHistogram, err = result.EncodeHistogram(w.service); err != nil {
			res.Warnings = append(res.Warnings, err.Error())
		}
		if w.streamed > 0 {
			streaming = true
			t.LLM = w.llm.Result(r.trialDur)
		}
		t.InFlightMean = w.busy.Seconds() / secs
		t.PerSecond = r.timeline(i)
		inflSum += t.InFlightMean
		if st.set {
			t.GeneratorCPU = st.cpuCores
			t.GeneratorSchedP99Ms = float64(st.schedP99) / float64(time.Millisecond)
			sum.GeneratorSchedP99Ms = max(sum.GeneratorSchedP99Ms, t.GeneratorSchedP99Ms)
			if st.runQueueSet {
				t.GeneratorRunQueueMs = float64(st.runQueue) / float64(time.Millisecond)
				sum.GeneratorRunQueueMs = max(sum.GeneratorRunQueueMs, t.GeneratorRunQueueMs)
			}
			t.Telemetry = st.telemetry
			cpuSum += st.cpuCores
			nStats++
		}
		r.judge(i, &t, st, res)
		for _, h := range []struct{ dst, src *hdrhistogram.Histogram }{{all, w.latency}, {allSvc, w.service}, {allLag, w.lag}, {allWait, w.wait}} {
			if err := result.Merge(h.dst, h.src); err != nil {
				res.Warnings = append(res.Warnings, fmt.Sprintf("trial %d: %v", i+1, err))
			}
		}
		sum.Requests += w.requests
		sum.Errors += w.errors
		for c, n := range w.errorsBy {
			sum.ErrorsBy[c] += n
		}
		completed += w.completed
		res.Trials = append(res.Trials, t)
	}
	if len(sum.ErrorsBy) == 0 {
		sum.ErrorsBy = nil
	}
	if sum.Requests > 0 {
		sum.ErrorRate = float64(sum.Errors) / float64(sum.Requests)
	}
	total := secs * float64(len(r.windows))
	sum.AchievedRPS = float64(completed) / total
	if r.o.openLoop() {
		sum.OfferedRPS = float64(sum.Requests) / total
	}
	sum.Latency = result.LatencyOf(all)
	svc := result.LatencyOf(allSvc)
	sum.Service = &svc
	sum.LagP99Ms = float64(allLag.ValueAtQuantile(99)) / 1000
	sum.ConnWaitP99Ms = float64(allWait.ValueAtQuantile(99)) / 1000
	if latSum > 0 {
		sum.ConnWaitShare = waitSum.Seconds() / latSum.Seconds()
	}
	if nStats > 0 {
		sum.GeneratorCPU = cpuSum / float64(nStats)
	}
	sum.InFlightMean = inflSum / float64(len(r.windows))
	if streaming {
		res.LLM = r.allLLM.Result(time.Duration(len(r.windows)) * r.trialDur)
		// The summary's histograms are the trials' merged: kept per trial only.
		res.LLM.TTFTHistogram, res.LLM.TPOTHistogram = "", ""
		res.LLM.ITLHistogram, res.LLM.E2EHistogram = "", ""
	}
	if r.canceled > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d requests were still outstanding when the run ended: each is counted as a timeout in the window it was due in", r.canceled))
	}
	if r.warmup == 0 && r.o.Warmup > 0 {
		res.Warnings = append(res.Warnings, "no request completed during the warm-up")
	}
	return res
}

// judge marks trial i invalid when it cannot be trusted and says why.
// Reasons that point at the generator also invalidate the whole result:
// such a run is never used to pass or fail a gate.
//
// The achieved rate counts responses that arrived inside the window, the
// offered rate requests scheduled inside it; they differ by edge effects
// (requests straddling the window's ends) and, for Poisson arrivals, by
// chance. A shortfall makes the trial invalid only when it is both over 5%
// and beyond that noise: more than 2·√n + 1 requests for n scheduled.
func (r *recorder) judge(i int, t *result.Trial, st trialStats, res *result.Result) {
	invalid := func(generator bool, format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		t.Valid = false
		t.Invalid = append(t.Invalid, msg)
		res.Warnings = append(res.Warnings, fmt.Sprintf("trial %d: %s", i+1, msg))
		if generator {
			t.GeneratorLimited = true
			res.Valid = false
		}
	}
	if t.OfferedRPS > 0 {
		n := float64(t.Requests)
		short := (t.OfferedRPS - t.AchievedRPS) * t.DurationS
		if t.AchievedRPS < MinAchievedRatio*t.OfferedRPS && short > 2*math.Sqrt(n)+1 {
			invalid(false, "achieved %.1f rps, under %.0f%% of the offered %.1f rps", t.AchievedRPS, MinAchievedRatio*100, t.OfferedRPS)
		}
	}
	// A pool sized from the load never holds a request back for long:
	// what wait it shows is a connection on its way back to the pool, or
	// a starved generator (judged below by its scheduling delay).
	if r.capped && t.ConnWaitShare > MaxWaitShare {
		invalid(false, "requests waited inside perfgate for a connection for %.1f%% of their latency (limit %.0f%%; P99 wait %.1f ms): the connection cap is below the load and shaped these figures; raise load.connections (--connections) or leave it unset",
			100*t.ConnWaitShare, 100*MaxWaitShare, t.ConnWaitP99Ms)
	}
	cores := float64(generatorCores())
	switch {
	case st.set && st.cpuCores >= SaturatedCPUShare*cores:
		invalid(true, "the generator was saturated: it used %.2f of %.0f cores", st.cpuCores, cores)
	case st.set && st.schedP99 > MaxSchedP99 && st.cpuCores >= BusyCPUShare*cores:
		invalid(true, "the generator could not keep up: its goroutines waited %.1f ms at P99 to run (limit %v) while it used %.2f of %.0f cores, so its timestamps are late; give it more cores or split the load over more generators",
			float64(st.schedP99)/float64(time.Millisecond), MaxSchedP99, st.cpuCores, cores)
	case st.set && st.schedP99 > MaxSchedP99:
		// The timestamps are as late as when the generator was the cause,
		// but the target is not to blame either: the trial is flagged,
		// not generator-bound.
		invalid(false, "the machine was busy: the generator's goroutines waited %.1f ms at P99 to run (limit %v) while it used only %.2f of %.0f cores, so its timestamps are late",
			float64(st.schedP99)/float64(time.Millisecond), MaxSchedP99, st.cpuCores, cores)
	// The process starved of CPU as a whole: its goroutines were ready
	// but none of its threads ran, which Go's scheduling latency misses.
	case st.runQueueSet && st.runQueue > MaxRunQueueWait && st.cpuCores >= BusyCPUShare*cores:
		invalid(true, "the generator could not keep up: its threads waited %.2f ms on average for a CPU each time they ran (limit %v) while it used %.2f of %.0f cores, so its timestamps are late; give it more cores or split the load over more generators",
			float64(st.runQueue)/float64(time.Millisecond), MaxRunQueueWait, st.cpuCores, cores)
	case st.runQueueSet && st.runQueue > MaxRunQueueWait:
		invalid(false, "the machine was busy: the generator's threads waited %.2f ms on average for a CPU each time they ran (limit %v) while it used only %.2f of %.0f cores, so its timestamps (token arrivals included) are late",
			float64(st.runQueue)/float64(time.Millisecond), MaxRunQueueWait, st.cpuCores, cores)
	}
	switch {
	case st.exhausted > 0:
		invalid(false, "all %d connections were busy %d times: the target was not keeping up", r.o.MaxConns, st.exhausted)
	case r.o.openLoop() && t.LagP99Ms > float64(MaxLagP99)/float64(time.Millisecond):
		// Late sends are still timed from their intended time, so the
		// figures stay honest; the warning says the generator (or the
		// machine it shares) was short of CPU.
		res.Warnings = append(res.Warnings, fmt.Sprintf("trial %d: the generator lagged its schedule: sends were %.1f ms late at P99 (is the machine busy?)", i+1, t.LagP99Ms))
	}
}
