package knee

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

// queueModel is a deterministic stand-in for a server: c workers of
// service time s behind one queue, with an M/D/1-like tail:
//
//	ρ = λ/μ, μ = c/s
//	P99  = s + K·ρ/(1−ρ),      K = 2.3·s/c (ln 100 / 2, the M/D/1 wait tail)
//	mean = s + (s/c)·ρ/(2(1−ρ))  (Pollaczek–Khinchine)
//
// Past saturation (ρ >= 1) the queue grows for the whole window: achieved
// is μ and P99 is a thousand tails. Its knee under an SLO solves
// s + K·ρ/(1−ρ) = SLO: ρ* = a/(1+a), a = (SLO − s)/K.
type queueModel struct {
	s     time.Duration
	c     int
	noise float64 // relative sd of the P99, 0: deterministic
	rng   *rand.Rand
}

func (q queueModel) mu() float64 { return float64(q.c) / q.s.Seconds() }

func (q queueModel) tailMs() float64 { return 2.3 * durMs(q.s) / float64(q.c) }

// knee is the model's true knee under a P99 objective.
func (q queueModel) knee(slo time.Duration) float64 {
	a := (durMs(slo) - durMs(q.s)) / q.tailMs()
	return q.mu() * a / (1 + a)
}

func (q queueModel) probe(calls *int) Probe {
	return func(ctx context.Context, rate float64) (result.Point, error) {
		*calls++
		rho := rate / q.mu()
		s := durMs(q.s)
		p := result.Point{AchievedRPS: rate}
		if rho >= 1 {
			p.AchievedRPS = q.mu()
			p.Latency = result.Latency{P50: 500 * q.tailMs(), P99: 1000 * q.tailMs(), Mean: 500 * q.tailMs()}
			return p, nil
		}
		g := rho / (1 - rho)
		p.Latency = result.Latency{
			P50:  s + q.tailMs()*g/4.6,
			P99:  s + q.tailMs()*g,
			Mean: s + s/float64(q.c)*g/2,
		}
		if q.noise > 0 {
			p.Latency.P99 *= 1 + q.noise*q.rng.NormFloat64()
		}
		return p, nil
	}
}

func TestSearchSimulated(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name  string
		model queueModel
		slo   time.Duration
		start float64
		max   int // the most windows allowed
	}{
		{"one worker 2ms slo 10ms", queueModel{s: 2 * ms, c: 1}, 10 * ms, 0, 8},
		{"one worker 2ms slo 50ms (knee near saturation)", queueModel{s: 2 * ms, c: 1}, 50 * ms, 0, 8},
		// A tight SLO puts the knee at 18% of saturation, below the jump.
		{"one worker 2ms slo 3ms (knee far below saturation)", queueModel{s: 2 * ms, c: 1}, 3 * ms, 0, 8},
		{"one worker 20ms slo 100ms", queueModel{s: 20 * ms, c: 1}, 100 * ms, 0, 8},
		{"one worker 0.5ms slo 5ms", queueModel{s: ms / 2, c: 1}, 5 * ms, 0, 8},
		// Little's jump (1/s) undershoots four workers: growth follows.
		{"four workers 2ms slo 10ms", queueModel{s: 2 * ms, c: 4}, 10 * ms, 0, 8},
		{"start 100", queueModel{s: 2 * ms, c: 1}, 10 * ms, 100, 8},
		{"start near the knee", queueModel{s: 2 * ms, c: 1}, 10 * ms, 300, 8},
		// Starting past saturation, the achieved rate bounds the way down.
		{"start above saturation", queueModel{s: 2 * ms, c: 1}, 10 * ms, 1000, 8},
		// An LLM-like target: 4 rps of capacity, so the default start of
		// 10 rps is already past it.
		{"slow target below the default start", queueModel{s: 2 * time.Second, c: 8}, 10 * time.Second, 0, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions(tt.slo)
			o.Start, o.Drain = tt.start, 0
			calls := 0
			c, err := Search(context.Background(), tt.model.probe(&calls), o)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.model.knee(tt.slo)
			t.Logf("knee %.1f, found %.1f (%+.1f%%) in %d windows, bracket %v, stopped %q",
				want, c.MaxQPS, 100*(c.MaxQPS/want-1), c.Windows, c.Bracket, c.Stopped)
			for _, p := range c.Points {
				t.Logf("  %8.1f rps  p99 %8.2f ms  pass %v %s", p.OfferedRPS, p.Latency.P99, p.Pass, p.Why)
			}
			if !c.Found || math.Abs(c.MaxQPS/want-1) > 0.05 {
				t.Errorf("Search() max QPS = %.1f (found %v), want %.1f ± 5%%", c.MaxQPS, c.Found, want)
			}
			if c.MaxQPS > want*(1+1e-9) {
				t.Errorf("Search() max QPS = %.1f passes above the true knee %.1f", c.MaxQPS, want)
			}
			if c.Windows > tt.max || c.Windows != calls || len(c.Points) != calls {
				t.Errorf("Search() windows = %d (points %d, probes %d), want <= %d and all recorded", c.Windows, len(c.Points), calls, tt.max)
			}
			if c.Bracket[0] != c.MaxQPS || !(c.Bracket[1] > c.Bracket[0]) || c.Bracket[1] > c.Bracket[0]*1.0301 {
				t.Errorf("Search() bracket = %v, want [max QPS, within 3%% above]", c.Bracket)
			}
			if c.Stopped != "" {
				t.Errorf("Search() stopped = %q, want a converged search", c.Stopped)
			}
			if c.SLOP99Ms != durMs(tt.slo) {
				t.Errorf("Search() slo = %v ms, want %v", c.SLOP99Ms, durMs(tt.slo))
			}
		})
	}
}

// TestSearchNoisy runs the search against a P99 with 3% noise: the
// re-probe near the boundary and the pessimistic merge keep it honest.
func TestSearchNoisy(t *testing.T) {
	worst, most, total := 0.0, 0, 0
	for seed := range uint64(40) {
		q := queueModel{s: 2 * time.Millisecond, c: 1, noise: 0.03, rng: rand.New(rand.NewPCG(seed, 7))}
		o := DefaultOptions(10 * time.Millisecond)
		o.Drain = 0
		calls := 0
		c, err := Search(context.Background(), q.probe(&calls), o)
		if err != nil {
			t.Fatal(err)
		}
		off := c.MaxQPS/q.knee(10*time.Millisecond) - 1
		worst, most, total = max(worst, math.Abs(off)), max(most, c.Windows), total+c.Windows
		if !c.Found || math.Abs(off) > 0.05 || c.Windows > 10 {
			t.Errorf("seed %d: max QPS %.1f (%+.1f%%), %d windows, stopped %q", seed, c.MaxQPS, 100*off, c.Windows, c.Stopped)
		}
	}
	t.Logf("with 3%% P99 noise: worst error %.1f%%, windows mean %.1f, most %d", 100*worst, float64(total)/40, most)
}

// scripted is a probe that answers from a function of the rate and the
// number of times that rate was probed before.
func scripted(calls *int, f func(rate float64, seen int) result.Point) Probe {
	seen := map[float64]int{}
	return func(ctx context.Context, rate float64) (result.Point, error) {
		*calls++
		p := f(rate, seen[rate])
		seen[rate]++
		return p, nil
	}
}

// cliff passes every rate up to knee with P99 fraction × SLO and fails
// beyond it: a step the model cannot fit, so bisection must do the work.
func cliff(knee, sloMs, fraction float64) func(float64, int) result.Point {
	return func(rate float64, _ int) result.Point {
		p := result.Point{AchievedRPS: rate, Latency: result.Latency{P50: 1, P99: fraction * sloMs, Mean: 1}}
		if rate > knee {
			p.Latency.P99 = 3 * sloMs
		}
		return p
	}
}

func TestSearchStops(t *testing.T) {
	slo := 10 * time.Millisecond
	tests := []struct {
		name    string
		opts    func(o *Options)
		f       func(rate float64, seen int) result.Point
		found   bool
		maxQPS  float64 // checked when > 0
		stopped string  // substring of Capacity.Stopped; "" means converged
		windows int     // the most windows allowed
	}{
		{"cliff converges by bisection", nil, cliff(777, 10, 0.5), true, 0, "", 12},
		{"max rate reached without failing", func(o *Options) { o.MaxRate = 300 }, cliff(1e9, 10, 0.5), true, 300, "reached the max rate 300 rps", 12},
		{"window cap", func(o *Options) { o.MaxWindows = 3 }, cliff(777, 10, 0.5), true, 0, "window cap reached: 3 windows", 3},
		{"nothing passes", func(o *Options) { o.Start, o.MinRate = 8, 1 }, cliff(0, 10, 0.5), false, 0, "no probe passed down to the min rate 1 rps", 12},
		{"target down", nil, func(float64, int) result.Point { return result.Point{ErrorRate: 1} }, false, 0, "every request failed at the first probe", 1},
		{"target refused some, timed out the rest", nil, func(float64, int) result.Point {
			return result.Point{ErrorRate: 1, ErrorsBy: map[string]int64{"timeout": 30, "connection": 1}}
		}, false, 0, "every request failed at the first probe", 1},
		// Every request timed out at the first probe: the target is up but
		// slower than the client waits (a CI run's test head, 150 ms a
		// request at 80 rps, once stopped here and had no bound): the
		// search goes on down as for any failing probe.
		{"every request timed out", func(o *Options) { o.Start, o.MinRate = 80, 5 }, func(rate float64, _ int) result.Point {
			return result.Point{ErrorRate: 1, ErrorsBy: map[string]int64{"timeout": int64(rate)}}
		}, false, 0, "no probe passed down to the min rate 5 rps", 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions(slo)
			o.Drain = 0
			if tt.opts != nil {
				tt.opts(&o)
			}
			calls := 0
			c, err := Search(context.Background(), scripted(&calls, tt.f), o)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range c.Points {
				t.Logf("  %8.1f rps  p99 %6.2f ms  pass %v %s", p.OfferedRPS, p.Latency.P99, p.Pass, p.Why)
			}
			if c.Found != tt.found || (tt.maxQPS > 0 && c.MaxQPS != tt.maxQPS) {
				t.Errorf("Search() found %v max %v, want %v %v", c.Found, c.MaxQPS, tt.found, tt.maxQPS)
			}
			if !c.Found && c.MaxQPS != 0 {
				t.Errorf("Search() max QPS = %v without a pass, want 0", c.MaxQPS)
			}
			if (tt.stopped == "") != (c.Stopped == "") || !strings.Contains(c.Stopped, tt.stopped) {
				t.Errorf("Search() stopped = %q, want %q", c.Stopped, tt.stopped)
			}
			if want := strings.Contains(tt.stopped, "reached the max rate"); c.ReachedMaxRate != want {
				t.Errorf("Search() reached max rate = %v, want %v", c.ReachedMaxRate, want)
			}
			if c.Windows > tt.windows || c.Windows != calls {
				t.Errorf("Search() windows = %d (probes %d), want <= %d", c.Windows, calls, tt.windows)
			}
			// Whatever happened, a reported knee passed every probe at its rate
			// and no probe at or below it failed... unless noise said so.
			for _, p := range c.Points {
				if c.Found && p.OfferedRPS == c.MaxQPS && !p.Pass {
					t.Errorf("max QPS %v has a failing probe: %s", c.MaxQPS, p.Why)
				}
			}
		})
	}
}

func TestSearchCliffAccuracy(t *testing.T) {
	calls := 0
	o := DefaultOptions(10 * time.Millisecond)
	o.Drain = 0
	c, err := Search(context.Background(), scripted(&calls, cliff(777, 10, 0.5)), o)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxQPS > 777 || c.MaxQPS < 777*0.97 || c.Bracket[1] <= 777 {
		t.Errorf("Search() = %v bracket %v, want within 3%% below 777", c.MaxQPS, c.Bracket)
	}
}

func TestSearchFlakyBoundary(t *testing.T) {
	calls := 0
	o := DefaultOptions(10 * time.Millisecond)
	o.Drain, o.MaxWindows = 0, 16
	flaky := func(rate float64, seen int) result.Point {
		p := cliff(400, 10, 0.95)(rate, seen)
		if rate > 380 && rate <= 400 && seen > 0 {
			p.Latency.P99 = 11
		}
		return p
	}
	c, err := Search(context.Background(), scripted(&calls, flaky), o)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxQPS > 380 {
		t.Errorf("Search() = %v, want <= 380: a pass that failed its re-probe is no knee", c.MaxQPS)
	}
	reprobed := 0
	for i, p := range c.Points {
		for _, q := range c.Points[:i] {
			if q.OfferedRPS == p.OfferedRPS {
				reprobed++
			}
		}
	}
	if reprobed == 0 {
		t.Errorf("Search() never re-probed a boundary pass: %+v", c.Points)
	}
}

func TestSearchBudget(t *testing.T) {
	calls := 0
	slow := func(ctx context.Context, rate float64) (result.Point, error) {
		calls++
		time.Sleep(30 * time.Millisecond)
		return cliff(777, 10, 0.5)(rate, 0), nil
	}
	o := DefaultOptions(10 * time.Millisecond)
	o.Drain, o.Budget = 10*time.Millisecond, 100*time.Millisecond
	start := time.Now()
	c, err := Search(context.Background(), slow, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Stopped, "time budget 100ms spent") || calls > 3 {
		t.Errorf("Search() stopped %q after %d probes, want the budget to stop it within 3", c.Stopped, calls)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("Search() took %v with a 100ms budget", el)
	}
}

// A search whose probes all fail has no bracket to report: it gets its
// budget twice before it stops, and says so.
func TestSearchBudgetWithoutPass(t *testing.T) {
	calls := 0
	failing := func(ctx context.Context, rate float64) (result.Point, error) {
		calls++
		time.Sleep(20 * time.Millisecond)
		p := result.Point{AchievedRPS: rate, Latency: result.Latency{P50: 50, P99: 90, Mean: 50}}
		p.Host = &result.HostLoad{Busy: true, Why: "other work"}
		return p, nil
	}
	o := DefaultOptions(10 * time.Millisecond)
	o.Drain, o.Budget, o.MinRate = 5*time.Millisecond, 60*time.Millisecond, 1e-6
	start := time.Now()
	c, err := Search(context.Background(), failing, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"time budget 60ms spent, and as much again to find a passing probe,", "no probe passed yet",
		"probes ran while the host was busy"} {
		if !strings.Contains(c.Stopped, want) {
			t.Errorf("Search() stopped %q, want it to contain %q", c.Stopped, want)
		}
	}
	if c.Found || calls == 0 {
		t.Errorf("Search() found %v after %d probes, want no knee", c.Found, calls)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Search() took %v with a 60ms budget", el)
	}
}

func TestSearchErrors(t *testing.T) {
	boom := errors.New("connection refused")
	calls := 0
	failing := func(ctx context.Context, rate float64) (result.Point, error) {
		calls++
		if calls == 2 {
			return result.Point{}, boom
		}
		return cliff(777, 10, 0.5)(rate, 0), nil
	}
	o := DefaultOptions(10 * time.Millisecond)
	o.Drain = 0
	c, err := Search(context.Background(), failing, o)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "probe at ") {
		t.Errorf("Search() error = %v, want the probe's error with its rate", err)
	}
	if c == nil || len(c.Points) != 1 || !c.Found {
		t.Errorf("Search() partial capacity = %+v, want the first probe kept", c)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o.Drain = time.Hour // the drain must not outlive ctx
	_, err = Search(ctx, func(ctx context.Context, rate float64) (result.Point, error) {
		return cliff(777, 10, 0.5)(rate, 0), nil
	}, o)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Search(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestJudgePoint(t *testing.T) {
	o := DefaultOptions(10 * time.Millisecond)
	o.SLOTTFT, o.SLOTPOT = 200*time.Millisecond, 50*time.Millisecond
	o.Window = time.Second
	ok := result.Point{OfferedRPS: 100, AchievedRPS: 99, Latency: result.Latency{P99: 9}, TTFTP99Ms: 150, TPOTP99Ms: 40}
	tests := []struct {
		name  string
		edit  func(p *result.Point)
		judge func(result.Point) (bool, string)
		why   string // "" means pass
	}{
		{"pass", nil, nil, ""},
		{"p99", func(p *result.Point) { p.Latency.P99 = 10.5 }, nil, "P99 10.5 ms > SLO 10 ms"},
		{"errors", func(p *result.Point) { p.ErrorRate = 0.02 }, nil, "error rate 2.00% > 0.10%"},
		{"achieved", func(p *result.Point) { p.AchievedRPS = 92 }, nil, "achieved 92 rps < 95% of offered 100 rps"},
		// 97 of 100 in a 1 s window: two requests past the 95% forgiven.
		{"achieved within the edge effect", func(p *result.Point) { p.AchievedRPS = 93 }, nil, ""},
		{"ttft", func(p *result.Point) { p.TTFTP99Ms = 250 }, nil, "TTFT P99 250 ms > SLO 200 ms"},
		{"tpot", func(p *result.Point) { p.TPOTP99Ms = 51 }, nil, "TPOT P99 51 ms > SLO 50 ms"},
		{"two reasons", func(p *result.Point) { p.ErrorRate, p.Latency.P99 = 0.5, 20 }, nil, "error rate 50.00% > 0.10%; P99 20 ms > SLO 10 ms"},
		{"custom judge", nil, func(p result.Point) (bool, string) { return p.GoodputRPS >= 95, "goodput 0 rps < 95" }, "goodput 0 rps < 95"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, oo := ok, o
			if tt.edit != nil {
				tt.edit(&p)
			}
			oo.Judge = tt.judge
			pass, why := judgePoint(p, oo)
			if pass != (tt.why == "") || why != tt.why {
				t.Errorf("judgePoint() = %v %q, want %v %q", pass, why, tt.why == "", tt.why)
			}
		})
	}
}

// TestSearchGoodput searches a streaming target whose TTFT, not its
// end-to-end P99, limits it: the goodput knee.
func TestSearchGoodput(t *testing.T) {
	q := queueModel{s: 50 * time.Millisecond, c: 4} // μ = 80 rps
	calls := 0
	probe := func(ctx context.Context, rate float64) (result.Point, error) {
		p, _ := q.probe(&calls)(ctx, rate)
		p.TTFTP99Ms = p.Latency.P99 // the queue delays the first token
		p.Latency.P99 *= 10         // end-to-end includes the whole generation
		return p, nil
	}
	o := DefaultOptions(0)
	o.SLOTTFT, o.Drain = 200*time.Millisecond, 0
	c, err := Search(context.Background(), probe, o)
	if err != nil {
		t.Fatal(err)
	}
	want := q.knee(200 * time.Millisecond)
	if !c.Found || math.Abs(c.MaxQPS/want-1) > 0.05 || c.Windows > 8 || c.SLOTTFTMs != 200 || c.SLOP99Ms != 0 {
		t.Errorf("Search(ttft 200ms) = %.2f rps in %d windows (slo ttft %v), want %.2f ± 5%% in <= 8", c.MaxQPS, c.Windows, c.SLOTTFTMs, want)
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(o *Options)
		want string // substring of the error; "" means valid
	}{
		{"defaults", nil, ""},
		{"no objective", func(o *Options) { o.SLOP99 = 0 }, "slo p99 is 0s"},
		{"goodput only", func(o *Options) { o.SLOP99, o.SLOTTFT = 0, time.Second }, ""},
		{"error rate", func(o *Options) { o.MaxErrorRate = 1.5 }, "max error rate is 1.5"},
		{"resolution", func(o *Options) { o.Resolution = 0.9 }, "resolution is 0.9"},
		{"growth", func(o *Options) { o.Growth = 1 }, "growth is 1"},
		{"windows", func(o *Options) { o.MaxWindows = 1 }, "max windows is 1"},
		{"rates", func(o *Options) { o.Start = math.NaN() }, "rates must be finite"},
		{"min above max", func(o *Options) { o.MinRate, o.MaxRate = 10, 5 }, "min rate 10 is above max rate 5"},
		{"budget", func(o *Options) { o.Budget = -time.Second }, "budget -1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions(10 * time.Millisecond)
			if tt.edit != nil {
				tt.edit(&o)
			}
			err := o.Validate()
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := Search(context.Background(), nil, Options{}); err == nil {
		t.Error("Search(zero options) = nil error, want the missing SLO")
	}
}
