package knee

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

// Confirmation gives one estimate per round, each near the model's true
// knee, and re-probes the bracket (2 to 10 windows a round), calling fresh
// before each round.
func TestConfirm(t *testing.T) {
	q := queueModel{s: 10 * time.Millisecond, c: 1, noise: 0.10, rng: rand.New(rand.NewPCG(3, 3))}
	slo := 50 * time.Millisecond
	o := DefaultOptions(slo)
	o.Drain = 0
	calls := 0
	c, err := Search(context.Background(), q.probe(&calls), o)
	if err != nil {
		t.Fatal(err)
	}
	searchWindows := c.Windows
	fresh := 0
	if err := Confirm(context.Background(), c, q.probe(&calls), func(context.Context) error { fresh++; return nil }, o, 4); err != nil {
		t.Fatal(err)
	}
	if len(c.Estimates) != 4 || fresh != 3 {
		t.Fatalf("Confirm: %d estimates after %d fresh starts, want 4 after 3", len(c.Estimates), fresh)
	}
	if c.ConfirmWindows < 6 || c.ConfirmWindows > 3*(2+maxConfirmSteps) || c.Windows != searchWindows+c.ConfirmWindows || len(c.Points) != c.Windows {
		t.Errorf("confirmation used %d windows (search %d, total %d, points %d), want 2 to 2+maxConfirmSteps a round added to the search's", c.ConfirmWindows, searchWindows, c.Windows, len(c.Points))
	}
	want := q.knee(slo)
	for i, e := range c.Estimates {
		if math.Abs(e/want-1) > 0.10 {
			t.Errorf("estimate %d = %.1f rps, want within 10%% of the true knee %.1f", i, e, want)
		}
	}
}

// A round of the confirmation whose probes both pass extrapolates upward
// (the knee moved up in the fresh process), both fail downward.
func TestEstimateRound(t *testing.T) {
	o := DefaultOptions(50 * time.Millisecond)
	pt := func(rate, p99 float64) result.Point { return judgedPoint(rate, p99, o) }
	tests := []struct {
		name   string
		pts    []result.Point
		lo, hi float64
	}{
		{"bracket", []result.Point{pt(100, 40), pt(110, 60)}, 100, 110},
		{"all pass", []result.Point{pt(100, 20), pt(110, 30)}, 110, 110 * 1.1},
		{"all fail", []result.Point{pt(100, 70), pt(110, 90)}, 100 / 1.1, 100},
	}
	for _, tt := range tests {
		got, ok := estimateRound(tt.pts, o, 5, math.Log(1.1))
		if !ok || got < tt.lo*(1-1e-9) || got > tt.hi*(1+1e-9) {
			t.Errorf("%s: estimate %.2f (ok %v), want in [%.2f, %.2f]", tt.name, got, ok, tt.lo, tt.hi)
		}
	}
}

// A probe where the generator, not the target, was saturated neither
// passes nor fails; a knee resting on one makes the capacity
// generator-bound.
func TestSearchGeneratorBound(t *testing.T) {
	calls := 0
	probe := scripted(&calls, func(rate float64, seen int) result.Point {
		p := result.Point{AchievedRPS: rate, Latency: result.Latency{P50: 1, P99: 2, Mean: 1}}
		if rate > 300 {
			p.GeneratorBound = true // the generator tops out at 300 rps
		}
		return p
	})
	o := DefaultOptions(50 * time.Millisecond)
	o.Drain, o.Start = 0, 100
	c, err := Search(context.Background(), probe, o)
	if err != nil {
		t.Fatal(err)
	}
	if !c.GeneratorBound || c.Stopped == "" {
		t.Errorf("capacity %+v: want generator-bound and stopped", c)
	}
	for _, p := range c.Points {
		if p.GeneratorBound && p.Pass {
			t.Errorf("a generator-bound probe at %.0f rps passed", p.OfferedRPS)
		}
	}
}

// A pass above the lowest fail is probed again, not trusted.
func TestSearchNonMonotone(t *testing.T) {
	calls := 0
	seenAt := map[float64]int{}
	probe := func(ctx context.Context, rate float64) (result.Point, error) {
		calls++
		seenAt[rate]++
		p := result.Point{AchievedRPS: rate, Latency: result.Latency{P50: 5, P99: 10, Mean: 5}}
		if rate >= 400 && rate < 800 {
			p.Latency.P99 = 100 // fails in a band: 800 passes above a fail
		}
		return p, nil
	}
	o := DefaultOptions(50 * time.Millisecond)
	o.Drain, o.Start, o.MaxRate = 0, 100, 1600
	s := &kneeSearch{o: o.withDefaults(), probe: probe, begin: time.Now()}
	for _, r := range []float64{100, 200, 800, 400} {
		if err := s.measure(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	next, done := s.next()
	if done || next != 800 {
		t.Errorf("next() = %v, %v after a pass at 800 above a fail at 400; want 800 probed again", next, done)
	}
}

// A knee that moved far between the search and a round is found by the
// round, not capped near the search's bracket. Replayed from a stored A/A
// run on a 2-core VM: the search ran while something disturbed the host
// (P99 12.4 ms at 100 rps against a 10 ms SLO; the baseline's knee was
// about 370 rps), then the disturbance passed; the rounds probed 97, 100,
// 105, 116, 134 rps, passed every one, stopped after three steps and
// estimated 138, so that max QPS read −67.7% against an unchanged build.
func TestConfirmFollowsAKneeThatMovedFar(t *testing.T) {
	knee := 100.0
	probe := func(_ context.Context, rate float64) (result.Point, error) {
		// P99 grows as the cube of the load past half the knee: 10 ms at
		// the knee, 5 ms well below it.
		p99 := 5 + 5*math.Pow(rate/knee, 3)
		return result.Point{AchievedRPS: rate, Latency: result.Latency{P50: 4, P99: p99, Mean: 4}}, nil
	}
	o := DefaultOptions(10 * time.Millisecond)
	o.Drain, o.Start = 0, 100
	c, err := Search(context.Background(), probe, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxQPS > 101 {
		t.Fatalf("search found %.1f rps, want the disturbed knee near 100", c.MaxQPS)
	}
	fresh := func(context.Context) error { knee = 370; return nil } // the disturbance is over
	if err := Confirm(context.Background(), c, probe, fresh, o, 5); err != nil {
		t.Fatal(err)
	}
	t.Logf("estimates %.1f", c.Estimates)
	if len(c.Estimates) != 5 {
		t.Fatalf("%d estimates, want 5", len(c.Estimates))
	}
	for i, e := range c.Estimates[1:] {
		if e < 370*0.85 || e > 370*1.15 {
			t.Errorf("round %d estimated %.1f rps, want within 15%% of the knee it probed, 370", i+1, e)
		}
	}
}

// A search whose budget ended before any probe failed is completed by its
// confirmation rounds' probes when they failed above a pass (the demo's
// batched knee, whose search spent its budget re-probing 400 rps); one
// that bracketed its knee, or whose rounds failed nowhere (a knee above
// max_rate), is left as it was.
func TestCompleteBracket(t *testing.T) {
	o := DefaultOptions(60 * time.Millisecond)
	pt := func(rate, p99 float64) result.Point { return judgedPoint(rate, p99, o) }
	search := []result.Point{pt(200, 26), pt(400, 48)}
	tests := []struct {
		name    string
		c       result.Capacity
		want    bool
		bracket [2]float64
	}{
		{"rounds failed above every search probe",
			result.Capacity{Found: true, MaxQPS: 400, Bracket: [2]float64{400, 0}, Points: append(slices.Clone(search), pt(219.5, 25), pt(424, 31), pt(819, 159), pt(424, 70))},
			true, [2]float64{400, 424}},
		{"rounds failed only far above",
			result.Capacity{Found: true, MaxQPS: 400, Bracket: [2]float64{400, 0}, Points: append(slices.Clone(search), pt(424, 31), pt(819, 240))},
			true, [2]float64{424, 819}},
		{"every probe passed (a knee above max_rate)",
			result.Capacity{Found: true, MaxQPS: 400, Bracket: [2]float64{400, 0}, ReachedMaxRate: true, Points: append(slices.Clone(search), pt(400, 30))},
			false, [2]float64{400, 0}},
		{"the search bracketed its knee",
			result.Capacity{Found: true, MaxQPS: 210, Bracket: [2]float64{210, 400}, Points: []result.Point{pt(210, 38), pt(400, 536), pt(819, 900)}},
			false, [2]float64{210, 400}},
		{"no probe passed",
			result.Capacity{Points: []result.Point{pt(200, 90), pt(100, 70)}},
			false, [2]float64{0, 0}},
	}
	for _, tt := range tests {
		c := tt.c
		got := CompleteBracket(&c, o)
		if got != tt.want || c.Bracket != tt.bracket {
			t.Errorf("%s: completed %v, bracket %v; want %v, %v", tt.name, got, c.Bracket, tt.want, tt.bracket)
		}
		if got && (c.MaxQPS != c.Bracket[0] || c.ReachedMaxRate || !strings.Contains(c.Stopped, "confirmation rounds bracketed the knee")) {
			t.Errorf("%s: max QPS %v (reached max rate %v, stopped %q), want the bracket's pass end %v, and the completion said", tt.name, c.MaxQPS, c.ReachedMaxRate, c.Stopped, c.Bracket[0])
		}
	}
}

// Confirm completes a search cut off before any probe failed (here by
// its window limit): its rounds step up past the search's highest pass
// until a probe fails, and the capacity then has a bracket around the
// true knee.
func TestConfirmCompletesACutSearch(t *testing.T) {
	probe := func(_ context.Context, rate float64) (result.Point, error) {
		p99 := 5 + 5*math.Pow(rate/370, 3) // 10 ms at the knee, 370 rps
		return result.Point{AchievedRPS: rate, Latency: result.Latency{P50: 4, P99: p99, Mean: 4}}, nil
	}
	o := DefaultOptions(10 * time.Millisecond)
	o.Drain, o.Start, o.MaxWindows = 0, 100, 2
	c, err := Search(context.Background(), probe, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Bracket[1] != 0 {
		t.Fatalf("search bracket %v, want no failing probe (cut after %d windows)", c.Bracket, c.Windows)
	}
	if err := Confirm(context.Background(), c, probe, nil, o, 3); err != nil {
		t.Fatal(err)
	}
	if !(c.Bracket[0] < 370 && c.Bracket[1] > 370 && c.MaxQPS == c.Bracket[0]) {
		t.Errorf("after confirmation: max QPS %.1f, bracket %v; want a bracket around the knee, 370", c.MaxQPS, c.Bracket)
	}
}

// Share gives both sides one bracket holding both knees and the wider
// search's span as the step: a round whose probes both pass steps on from
// the shared bracket's top by that span (3/10 here), not by the shared
// bracket's width (1.95 times), and both sides' rounds step through the
// same rates.
func TestShare(t *testing.T) {
	o, probe, rates := shareProbes([2]float64{400, 400})
	a := NewConfirmer(bracketCap(100, 110), probe(0), o)
	b := NewConfirmer(bracketCap(150, 195), probe(1), o)
	if lo, hi, shared := Share(a, b); !shared || lo != 100 || hi != 195 {
		t.Fatalf("shared bracket [%v, %v] (shared %v), want [100, 195]", lo, hi, shared)
	}
	for i, k := range []*Confirmer{a, b} {
		if _, _, err := k.Round(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(rates[i]) < 3 || rates[i][0] != 100 || rates[i][1] != 195 || math.Abs(rates[i][2]/(195*1.3)-1) > 1e-9 {
			t.Errorf("side %d probed %.1f, want 100, 195, then a step of 3/10: 253.5", i, rates[i])
		}
	}
	if !slices.Equal(rates[0], rates[1]) {
		t.Errorf("the sides' rounds probed %.1f and %.1f, want the same rates", rates[0], rates[1])
	}
}

// Knees more than ShareApart times apart keep their own brackets: a
// bracket spanning both would read each side's round from a pass far
// below its knee and a fail far above it.
func TestShareApart(t *testing.T) {
	o, probe, rates := shareProbes([2]float64{105, 265})
	tests := []struct {
		name       string
		a, b       [2]float64
		wantShared bool
	}{
		{"within twice", [2]float64{100, 110}, [2]float64{180, 200}, true},
		{"more than twice", [2]float64{100, 110}, [2]float64{250, 280}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			*rates = [2][]float64{}
			a := NewConfirmer(bracketCap(tt.a[0], tt.a[1]), probe(0), o)
			b := NewConfirmer(bracketCap(tt.b[0], tt.b[1]), probe(1), o)
			lo, hi, shared := Share(a, b)
			if shared != tt.wantShared || lo != tt.a[0] || hi != tt.b[1] {
				t.Fatalf("Share: [%v, %v] shared %v, want [%v, %v] shared %v", lo, hi, shared, tt.a[0], tt.b[1], tt.wantShared)
			}
			for i, k := range []*Confirmer{a, b} {
				want := [][2]float64{tt.a, tt.b}[i]
				if shared {
					want = [2]float64{tt.a[0], tt.b[1]}
				}
				if l, h := k.Bracket(); l != want[0] || h != want[1] {
					t.Errorf("side %d: bracket [%v, %v], want [%v, %v]", i, l, h, want[0], want[1])
				}
				if _, _, err := k.Round(context.Background()); err != nil {
					t.Fatal(err)
				}
				if len(rates[i]) < 2 || rates[i][0] != want[0] || rates[i][1] != want[1] {
					t.Errorf("side %d's round probed %.1f first, want %v", i, rates[i], want)
				}
			}
		})
	}
}

// bracketCap is a found knee bracketed at [lo, hi].
func bracketCap(lo, hi float64) *result.Capacity {
	return &result.Capacity{Found: true, MaxQPS: lo, Bracket: [2]float64{lo, hi}}
}

// shareProbes is options without drain pauses, two sides' probes whose
// P99 reaches 50 ms at knees, and the rates each probed, in order.
func shareProbes(knees [2]float64) (Options, func(i int) Probe, *[2][]float64) {
	o := DefaultOptions(50 * time.Millisecond)
	o.Drain = 0
	var rates [2][]float64
	return o, func(i int) Probe {
		return func(_ context.Context, rate float64) (result.Point, error) {
			rates[i] = append(rates[i], rate)
			p99 := 10 + 40*math.Pow(rate/knees[i], 4)
			return result.Point{AchievedRPS: rate, Latency: result.Latency{P50: 5, P99: p99, Mean: 5}}, nil
		}
	}, &rates
}

// judgedPoint is a probe at rate that achieved it with P99 p99 ms, judged
// against o.
func judgedPoint(rate, p99 float64, o Options) result.Point {
	p := result.Point{OfferedRPS: rate, AchievedRPS: rate, Latency: result.Latency{P99: p99}}
	p.Pass, _ = judgePoint(p, o)
	return p
}

// A search that never failed has no bracket: its first round steps up
// from its highest pass to the knee, and the rounds after it probe that
// round's bracket first instead of stepping up again, so each costs its
// two probes. A bracket from Share is kept, open or not.
func TestConfirmAdoptsTheRoundsBracket(t *testing.T) {
	o, probe, rates := shareProbes([2]float64{800, 800})
	open := &result.Capacity{Found: true, MaxQPS: 200, Bracket: [2]float64{200, 0}}
	k := NewConfirmer(open, probe(0), o)
	var first [2]float64
	for r := 1; r <= 3; r++ {
		rates[0] = nil
		if _, ok, err := k.Round(context.Background()); err != nil || !ok {
			t.Fatalf("round %d: estimate %v, error %v", r, ok, err)
		}
		pass, fail, ok := roundBracket(open.Points[len(open.Points)-len(rates[0]):], o)
		if r == 1 {
			if !ok || len(rates[0]) < 4 || !(pass < 800 && fail > 800) {
				t.Fatalf("round 1 probed %.1f, bracket [%v, %v]: want it to step up to a bracket around 800", rates[0], pass, fail)
			}
			first = [2]float64{pass, fail}
			continue
		}
		if len(rates[0]) != 2 || rates[0][0] != first[0] || rates[0][1] != first[1] {
			t.Errorf("round %d probed %.1f, want round 1's bracket %v alone", r, rates[0], first)
		}
	}

	// Shared: both sides keep the shared bracket's rates, round after round.
	o, probe, rates = shareProbes([2]float64{800, 800})
	a := NewConfirmer(&result.Capacity{Found: true, MaxQPS: 200, Bracket: [2]float64{200, 0}}, probe(0), o)
	b := NewConfirmer(bracketCap(220, 260), probe(1), o)
	if _, _, shared := Share(a, b); !shared {
		t.Fatal("Share: not shared")
	}
	for r := 1; r <= 2; r++ {
		*rates = [2][]float64{}
		for _, k := range []*Confirmer{a, b} {
			if _, _, err := k.Round(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(rates[0], rates[1]) || rates[0][0] != 200 {
			t.Errorf("shared round %d probed %.1f and %.1f, want the same rates from 200", r, rates[0], rates[1])
		}
	}
}
