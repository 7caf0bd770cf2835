package knee

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/result"
)

// Probe measures one full window at an offered rate (requests per second)
// after its own warm-up, and returns what it saw. The knee search judges
// the point (Pass, Why); the probe only measures. An error means the probe
// could not run at all (not that requests failed: those are ErrorRate).
type Probe func(ctx context.Context, rate float64) (result.Point, error)

// Measure calls p; it lets a Probe be passed where a one-method value is
// expected.
func (p Probe) Measure(ctx context.Context, rate float64) (result.Point, error) { return p(ctx, rate) }

// Options configure a knee search. Zero values of the optional fields
// take the defaults shown in DefaultOptions.
type Options struct {
	// SLOP99 is the P99 latency objective. A probe passes only if its P99 is
	// at most this. May be zero when SLOTTFT or SLOTPOT is set.
	SLOP99 time.Duration
	// SLOTTFT and SLOTPOT make the search a goodput knee for streaming
	// generation: a probe passes only if its TTFT P99 (Point.TTFTP99Ms) and
	// TPOT P99 (Point.TPOTP99Ms) meet them too. Zero: not checked.
	SLOTTFT, SLOTPOT time.Duration
	// MaxErrorRate is the highest error fraction a passing probe may have
	// (0.001 is 0.1%). Zero means no error is tolerated.
	MaxErrorRate float64
	// MinAchieved is the fraction of the offered rate a passing probe must
	// achieve (default 0.95).
	MinAchieved float64
	// Window is the length of a probe's measurement window, if known. At
	// low rates a window holds few requests and one completing just past
	// its end looks like a shortfall; with Window set, a shortfall of up to
	// two requests is forgiven.
	Window time.Duration
	// Start is the first rate probed (default 10 rps, then the search jumps
	// by Little's Law, see Search). MaxRate caps the rates probed
	// (0: no cap). MinRate ends a search whose probes all fail (default
	// 0.1 rps).
	Start, MaxRate, MinRate float64
	// Resolution is the relative width at which the bracket
	// [highest pass, lowest fail] is narrow enough (default 0.03: the
	// reported max QPS is within 3% below the true knee).
	Resolution float64
	// Budget bounds the search's wall time (0: none). A probe that would not
	// fit is not started and Capacity.Stopped says so. A search with no
	// passing probe yet may use the budget twice: it adapts to a host
	// slower or busier than the one it was sized on.
	Budget time.Duration
	// Growth is the factor between probes before the first failure
	// (default 2).
	Growth float64
	// MaxWindows bounds the number of probes (default 12).
	MaxWindows int
	// Drain is the pause between probes that lets the target's queues empty.
	Drain time.Duration
	// NoiseBand: a passing probe whose worst latency is within this fraction
	// below its objective is probed once more before it is reported as the
	// knee, and the worse of the two counts (default 0.10).
	NoiseBand float64
	// Judge, if set, is an extra pass/fail rule applied after the built-in
	// ones (for instance a minimum goodput); why explains a failure.
	Judge func(p result.Point) (pass bool, why string)
}

// DefaultOptions returns the defaults for a search under a P99 SLO.
func DefaultOptions(sloP99 time.Duration) Options {
	return Options{
		SLOP99:       sloP99,
		MaxErrorRate: 0.001,
		MinAchieved:  0.95,
		Start:        DefaultStart,
		MinRate:      0.1,
		Resolution:   0.03,
		Growth:       2,
		MaxWindows:   12,
		Drain:        time.Second,
		NoiseBand:    0.10,
	}
}

// DefaultStart is the first rate probed when Options.Start is 0.
const DefaultStart = 10.0

// withDefaults fills the zero optional fields.
func (o Options) withDefaults() Options {
	d := DefaultOptions(o.SLOP99)
	if o.MinAchieved == 0 {
		o.MinAchieved = d.MinAchieved
	}
	if o.Start == 0 {
		o.Start = d.Start
	}
	if o.MinRate == 0 {
		o.MinRate = d.MinRate
	}
	if o.Resolution == 0 {
		o.Resolution = d.Resolution
	}
	if o.Growth == 0 {
		o.Growth = d.Growth
	}
	if o.MaxWindows == 0 {
		o.MaxWindows = d.MaxWindows
	}
	if o.NoiseBand == 0 {
		o.NoiseBand = d.NoiseBand
	}
	if o.MaxRate > 0 && o.Start > o.MaxRate {
		o.Start = o.MaxRate
	}
	return o
}

// Validate reports the first invalid setting, naming it and its value.
func (o Options) Validate() error {
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) || x < 0 }
	switch {
	case o.SLOP99 <= 0 && o.SLOTTFT <= 0 && o.SLOTPOT <= 0:
		return fmt.Errorf("knee search: slo p99 is %v: set a latency objective (or ttft/tpot for a goodput knee)", o.SLOP99)
	case o.SLOP99 < 0 || o.SLOTTFT < 0 || o.SLOTPOT < 0:
		return fmt.Errorf("knee search: negative objective (p99 %v, ttft %v, tpot %v)", o.SLOP99, o.SLOTTFT, o.SLOTPOT)
	case bad(o.MaxErrorRate) || o.MaxErrorRate >= 1:
		return fmt.Errorf("knee search: max error rate is %v, want a fraction in [0, 1)", o.MaxErrorRate)
	case bad(o.MinAchieved) || o.MinAchieved > 1:
		return fmt.Errorf("knee search: min achieved is %v, want a fraction in (0, 1]", o.MinAchieved)
	case bad(o.Start) || bad(o.MaxRate) || bad(o.MinRate):
		return fmt.Errorf("knee search: rates must be finite and >= 0 (start %v, max %v, min %v)", o.Start, o.MaxRate, o.MinRate)
	case o.MaxRate > 0 && o.MinRate > o.MaxRate:
		return fmt.Errorf("knee search: min rate %v is above max rate %v", o.MinRate, o.MaxRate)
	case bad(o.Resolution) || o.Resolution > 0.5:
		return fmt.Errorf("knee search: resolution is %v, want a fraction in (0, 0.5] (0.03 is ±3%%)", o.Resolution)
	case bad(o.Growth) || (o.Growth != 0 && o.Growth <= 1):
		return fmt.Errorf("knee search: growth is %v, want > 1", o.Growth)
	case o.MaxWindows < 0 || o.MaxWindows == 1:
		return fmt.Errorf("knee search: max windows is %d, want >= 2", o.MaxWindows)
	case o.Budget < 0 || o.Drain < 0 || o.Window < 0:
		return fmt.Errorf("knee search: budget %v, drain %v and window %v must be >= 0", o.Budget, o.Drain, o.Window)
	case bad(o.NoiseBand) || o.NoiseBand >= 1:
		return fmt.Errorf("knee search: noise band is %v, want a fraction in [0, 1)", o.NoiseBand)
	}
	return nil
}

// Search finds the highest offered rate at which a probe passes: P99 at
// most the SLO (and TTFT/TPOT for a goodput knee), error rate at most
// MaxErrorRate, achieved rate at least MinAchieved of the offered one.
//
// It searches as an engineer would. The first probe runs at Start. If it
// passes, its mean latency s gives, by Little's Law, the rate one worker
// can serve (1/s); the search jumps there when that is beyond the normal
// growth step, and otherwise grows the rate geometrically (×Growth) until a
// probe fails. If the first probe fails, the rate shrinks (÷Growth, or to
// 90% of the achieved rate when the target saturated) until one passes.
//
// The bracket [highest pass, lowest fail] is then narrowed to Resolution.
// Each next rate is where a queueing curve fitted to the probes so far puts
// the knee (see fitKnee), kept inside the bracket and aimed just below the
// estimate, so that one more probe at highest pass × (1+Resolution) closes
// the bracket. When two probes in a row did not halve the bracket the
// search bisects it (geometric midpoint) instead, and for good from the
// second time: a target whose latency does not follow a queue's curve is
// bisected. A passing probe whose latency is within NoiseBand of the
// objective is probed again before it is reported, and the worse result
// counts. Between probes the search sleeps Drain.
//
// The returned Capacity lists every probe in order in Points, the number of
// windows used, MaxQPS and Bracket (Bracket[1] is 0 when no probe failed),
// Found (false when no probe passed: MaxQPS is then 0 and must not be used),
// and Stopped when the search ended before converging (time budget, window
// cap, MaxRate, MinRate). When ctx ends or a probe errors, the partial
// Capacity is returned with the error.
func Search(ctx context.Context, probe Probe, o Options) (*result.Capacity, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	s := &kneeSearch{o: o.withDefaults(), probe: probe, begin: time.Now()}
	rate := s.o.Start
	for {
		if why := s.mustStop(); why != "" {
			s.stopped = why
			break
		}
		if err := s.measure(ctx, rate); err != nil {
			c := s.capacity()
			c.Stopped = "interrupted: " + err.Error()
			return c, fmt.Errorf("knee search: probe at %s rps: %w", fmtRate(rate), err)
		}
		if p := s.points[0]; len(s.points) == 1 && p.ErrorRate >= 1 && !onlyTimeouts(p) {
			s.stopped = fmt.Sprintf("every request failed at the first probe (%s rps): is the target up?", fmtRate(p.OfferedRPS))
			break
		}
		next, done := s.next()
		if done {
			break
		}
		rate = next
	}
	return s.capacity(), nil
}

// onlyTimeouts reports whether every failed request of p timed out: the
// target took them, only slower than the client waits, so a first probe
// that failed this way is a failing probe (the search goes on down), not a
// target that is not up. A probe without classes is not known to be so.
func onlyTimeouts(p result.Point) bool {
	n := int64(0)
	for class, c := range p.ErrorsBy {
		if class != harness.ErrTimeout && c > 0 {
			return false
		}
		n += c
	}
	return n > 0
}

// kneeSearch is the state of one search.
type kneeSearch struct {
	o         Options
	probe     Probe
	begin     time.Time
	points    []result.Point
	longest   time.Duration // the longest probe so far, to plan the budget
	widths    []float64     // log(hi/lo) after each probe with a bracket
	slowSteps int           // how often the model failed to halve the bracket
	stopped   string
	// reachedMax is set when the search stopped at its max rate, passing.
	reachedMax bool
	// genBound is set when the knee or the bracket's top would rest on a
	// probe where the generator was saturated.
	genBound bool
}

// mustStop says why no further probe may start, or "".
func (s *kneeSearch) mustStop() string {
	n := len(s.points)
	if n >= s.o.MaxWindows {
		return fmt.Sprintf("window cap reached: %d windows%s", n, s.bracketNote())
	}
	if s.o.Budget > 0 && n > 0 {
		// Until a probe passes, the search has no lower side of the
		// bracket and nothing to report: it gets the budget once more to
		// find one. A slow or busy host spends a budget sized on a quiet
		// one before the search is anywhere, and the suite has nothing to
		// gate on without a passing probe.
		budget, again := s.o.Budget, ""
		if _, _, okLo, _ := s.bracket(); !okLo {
			budget, again = 2*s.o.Budget, ", and as much again to find a passing probe,"
		}
		if el := time.Since(s.begin); el+s.longest+s.o.Drain > budget {
			return fmt.Sprintf("time budget %v spent%s after %d windows (%v)%s%s", s.o.Budget, again, n, el.Round(time.Second), s.bracketNote(), s.busyNote())
		}
	}
	return ""
}

// busyNote says how many probes were measured while other work used the
// host (Point.Host), or "".
func (s *kneeSearch) busyNote() string {
	busy := 0
	for _, p := range s.points {
		if p.Host != nil && p.Host.Busy {
			busy++
		}
	}
	if busy == 0 {
		return ""
	}
	return fmt.Sprintf("; %d of %d probes ran while the host was busy with other work", busy, len(s.points))
}

func (s *kneeSearch) bracketNote() string {
	lo, hi, okLo, okHi := s.bracket()
	switch {
	case okLo && okHi && hi.OfferedRPS <= lo.OfferedRPS*(1+s.o.Resolution)*(1+1e-9):
		return fmt.Sprintf(", bracket [%s, %s] within %.0f%% but the highest pass not re-probed", fmtRate(lo.OfferedRPS), fmtRate(hi.OfferedRPS), 100*s.o.Resolution)
	case okLo && okHi:
		return fmt.Sprintf(", bracket [%s, %s] not yet within %.0f%%", fmtRate(lo.OfferedRPS), fmtRate(hi.OfferedRPS), 100*s.o.Resolution)
	case okLo:
		return ", no probe failed yet"
	}
	return ", no probe passed yet"
}

// measure probes rate, judges the point and records it; a failure that
// rests on a thin tail (thinTail) is measured once more, the two windows
// judged together (poolTail), when the budget allows.
func (s *kneeSearch) measure(ctx context.Context, rate float64) error {
	p, err := s.probeOnce(ctx, rate)
	if err != nil {
		return err
	}
	// p is not recorded yet: the window cap counts it.
	var again func() (result.Point, error)
	if len(s.points)+1 < s.o.MaxWindows && s.mustStop() == "" {
		again = func() (result.Point, error) { return s.probeOnce(ctx, rate) }
	}
	ps, err := retryThin(p, s.o, again)
	s.points = append(s.points, ps...)
	return err
}

// probeOnce drains, probes rate and judges the point.
func (s *kneeSearch) probeOnce(ctx context.Context, rate float64) (result.Point, error) {
	if len(s.points) > 0 {
		if err := pause(ctx, s.o.Drain); err != nil {
			return result.Point{}, err
		}
	}
	t0 := time.Now()
	p, err := probeJudged(ctx, s.probe, rate, s.o)
	s.longest = max(s.longest, time.Since(t0))
	return p, err
}

// pause waits d (nothing when d ≤ 0) unless ctx ends first.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// probeJudged probes rate and judges the point.
func probeJudged(ctx context.Context, probe Probe, rate float64, o Options) (result.Point, error) {
	p, err := probe(ctx, rate)
	if err != nil {
		return result.Point{}, err
	}
	if err := ctx.Err(); err != nil {
		return result.Point{}, err
	}
	p.OfferedRPS = rate
	p.Pass, p.Why = judgePoint(p, o)
	return p, nil
}

// retryThin returns p alone, or, when p's failure rests on a thin tail
// (thinTail) and again is not nil, p and a second window at its rate
// (again's), the two judged together (poolTail). On again's error p is
// returned alone with it.
func retryThin(p result.Point, o Options, again func() (result.Point, error)) ([]result.Point, error) {
	if again == nil || !thinTail(p, o) {
		return []result.Point{p}, nil
	}
	q, err := again()
	if err != nil {
		return []result.Point{p}, err
	}
	poolTail(&p, &q, o)
	return []result.Point{p, q}, nil
}

// ThinTailP is the least chance, were the rate's true P99 exactly the
// SLO, of seeing as many requests slower than the SLO as a failing probe
// saw, for which the probe is measured once more (thinTail). A window of
// 200 requests fails on its third-slowest request, so one or two requests
// caught by a scheduling stall can fail a probe far below the knee, and
// that probe would become a round's knee
// (bench/RESULTS-rules.md#kneethintailp).
const ThinTailP = 0.05

// thinTail reports whether p failed on its P99 alone (errors, throughput,
// streaming SLOs and the Judge all met) with so few requests over the SLO
// that the failure is no evidence against it: at least a ThinTailP chance
// of as many, or more, were 1% of the requests over it (Poisson). Only
// points that counted their requests (RateProbe.SLOP99) qualify.
func thinTail(p result.Point, o Options) bool {
	if p.Pass || p.Requests <= 0 || o.SLOP99 <= 0 || p.GeneratorBound {
		return false
	}
	q := p
	q.Latency.P99 = 0
	if pass, _ := judgePoint(q, o); !pass {
		return false
	}
	return poissonAtLeast(0.01*float64(p.Requests), p.OverSLO) >= ThinTailP
}

// poissonAtLeast is P(K ≥ k) for K Poisson with mean lambda.
func poissonAtLeast(lambda float64, k int64) float64 {
	if k <= 0 {
		return 1
	}
	term, below := math.Exp(-lambda), 0.0
	for j := int64(0); j < k; j++ {
		below += term
		term *= lambda / float64(j+1)
	}
	return math.Max(0, 1-below)
}

// poolTail judges a thin-tailed failure a and its second window b
// together: when b fails on nothing but its P99 (or passes), both pass
// exactly when the two windows' requests over the SLO are at most 1% of
// their requests, the P99 of the two windows merged. Otherwise both stand
// as judged.
func poolTail(a, b *result.Point, o Options) {
	if b.Requests <= 0 || b.GeneratorBound {
		return
	}
	q := *b
	q.Latency.P99 = 0
	if pass, _ := judgePoint(q, o); !pass {
		return
	}
	n, k := a.Requests+b.Requests, a.OverSLO+b.OverSLO
	share := 100 * float64(k) / float64(n)
	pass := 100*k <= n
	why := fmt.Sprintf("two windows together: %d of %d requests (%.2f%%) slower than the SLO %v", k, n, share, o.SLOP99)
	if pass {
		why += ", so their P99 met it (the first window's failure rested on a request or two)"
	} else {
		why = "P99 over the SLO in " + why
	}
	a.Pass, b.Pass = pass, pass
	a.Why, b.Why = why, why
}

// judgePoint applies the pass rules to p.
func judgePoint(p result.Point, o Options) (bool, string) {
	if p.GeneratorBound {
		return false, "the load generator was saturated: this probe measured perfgate, so it neither passes nor fails"
	}
	var why []string
	if p.ErrorRate > o.MaxErrorRate {
		w := fmt.Sprintf("error rate %.2f%% > %.2f%%", 100*p.ErrorRate, 100*o.MaxErrorRate)
		if p.ErrorRate >= 1 && onlyTimeouts(p) {
			w += " (every request timed out)"
		}
		why = append(why, w)
	}
	if shortOf(p, o) {
		why = append(why, fmt.Sprintf("achieved %s rps < %.0f%% of offered %s rps",
			fmtRate(p.AchievedRPS), 100*o.MinAchieved, fmtRate(p.OfferedRPS)))
	}
	check := func(name string, got float64, slo time.Duration) {
		if ms := durMs(slo); slo > 0 && got > ms {
			why = append(why, fmt.Sprintf("%s %s ms > SLO %s ms", name, fmtMs(got), fmtMs(ms)))
		}
	}
	check("P99", p.Latency.P99, o.SLOP99)
	check("TTFT P99", p.TTFTP99Ms, o.SLOTTFT)
	check("TPOT P99", p.TPOTP99Ms, o.SLOTPOT)
	if o.Judge != nil && len(why) == 0 {
		if ok, w := o.Judge(p); !ok {
			if w == "" {
				w = "failed the custom judge"
			}
			why = append(why, w)
		}
	}
	return len(why) == 0, strings.Join(why, "; ")
}

// shortOf reports whether p achieved less than MinAchieved of its offered
// rate, beyond the two requests of edge effect forgiven when Window is set.
func shortOf(p result.Point, o Options) bool {
	short := o.MinAchieved*p.OfferedRPS - p.AchievedRPS
	if o.Window > 0 {
		short -= 2 / o.Window.Seconds()
	}
	return short > 0
}

// severity is p's worst latency relative to its objective: <= 1 meets all.
func severity(p result.Point, o Options) float64 {
	r := 0.0
	if o.SLOP99 > 0 {
		r = max(r, p.Latency.P99/durMs(o.SLOP99))
	}
	if o.SLOTTFT > 0 {
		r = max(r, p.TTFTP99Ms/durMs(o.SLOTTFT))
	}
	if o.SLOTPOT > 0 {
		r = max(r, p.TPOTP99Ms/durMs(o.SLOTPOT))
	}
	return r
}

// rateStat is every probe at one rate, merged the pessimistic way: the rate
// passes only if every probe at it passed, and its severity is the worst.
type rateStat struct {
	rate     float64
	pass     bool
	n        int
	sev      float64
	achieved float64
	meanMs   float64
	latOK    bool // latency is meaningful: the target kept up and answered
	// saturated is true when some probe at this rate achieved less than
	// MinAchieved of it: the target's throughput is about achieved.
	saturated bool
}

// rates merges the points by offered rate, in increasing order.
func (s *kneeSearch) rates() []rateStat { return ratesOf(s.points, s.o) }

// ratesOf gathers points by offered rate (see rateStat): a rate passes
// only when every window at it passed; generator-bound windows carry
// nothing.
func ratesOf(points []result.Point, o Options) []rateStat {
	by := map[float64]*rateStat{}
	var out []rateStat
	for _, p := range points {
		if p.GeneratorBound {
			continue // neither pass nor fail
		}
		r := by[p.OfferedRPS]
		if r == nil {
			r = &rateStat{rate: p.OfferedRPS, pass: true, achieved: math.Inf(1), latOK: true}
			by[p.OfferedRPS] = r
		}
		r.n++
		r.pass = r.pass && p.Pass
		r.sev = max(r.sev, severity(p, o))
		r.achieved = min(r.achieved, p.AchievedRPS)
		m := p.Latency.Mean
		if m == 0 {
			m = p.Latency.P50
		}
		r.meanMs = max(r.meanMs, m)
		sat := shortOf(p, o)
		r.saturated = r.saturated || sat
		r.latOK = r.latOK && !sat && p.ErrorRate <= max(o.MaxErrorRate, 0.01)
	}
	for _, r := range by {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rate < out[j].rate })
	return out
}

// bracket returns the bracket as points.
func (s *kneeSearch) bracket() (lo, hi result.Point, okLo, okHi bool) {
	l, h, okLo, okHi := bracketOf(s.rates())
	return result.Point{OfferedRPS: l.rate}, result.Point{OfferedRPS: h.rate}, okLo, okHi
}

// capacity reports the search as it stands.
func (s *kneeSearch) capacity() *result.Capacity {
	c := &result.Capacity{
		SLOP99Ms:       durMs(s.o.SLOP99),
		SLOTTFTMs:      durMs(s.o.SLOTTFT),
		SLOTPOTMs:      durMs(s.o.SLOTPOT),
		Points:         append([]result.Point{}, s.points...),
		Windows:        len(s.points),
		Stopped:        s.stopped,
		ReachedMaxRate: s.reachedMax,

		GeneratorBound: s.genBound,
	}
	lo, hi, okLo, okHi := s.bracket()
	if okLo {
		c.Found, c.MaxQPS, c.Bracket[0] = true, lo.OfferedRPS, lo.OfferedRPS
	}
	if okHi {
		c.Bracket[1] = hi.OfferedRPS
	}
	return c
}

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fmtRate formats a rate with at most one decimal.
func fmtRate(x float64) string { return trimZeros(fmt.Sprintf("%.1f", x)) }

// fmtMs formats milliseconds with at most two decimals.
func fmtMs(x float64) string { return trimZeros(fmt.Sprintf("%.2f", x)) }

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
