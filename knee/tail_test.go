package knee

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

func TestPoissonAtLeast(t *testing.T) {
	tests := []struct {
		lambda float64
		k      int64
		want   float64
	}{
		{1.34, 0, 1},
		{1.34, 1, 1 - math.Exp(-1.34)},
		{1.34, 2, 1 - math.Exp(-1.34)*(1+1.34)},
		{2, 3, 1 - math.Exp(-2)*(1+2+2)},
		{4, 11, 0.00284}, // 1 − Σ_{j≤10} e^-4 4^j/j!
	}
	for _, tt := range tests {
		if got := poissonAtLeast(tt.lambda, tt.k); math.Abs(got-tt.want) > 1e-4 {
			t.Errorf("poissonAtLeast(%v, %d) = %.5f, want %.5f", tt.lambda, tt.k, got, tt.want)
		}
	}
}

// A failure on a request or two beyond 1% is thin; one on many is not,
// nor one that failed on errors too, nor one that did not count.
func TestThinTail(t *testing.T) {
	o := DefaultOptions(10 * time.Millisecond)
	pt := func(n, over int64, errRate float64) result.Point {
		p := result.Point{OfferedRPS: float64(n) / 2, AchievedRPS: float64(n) / 2, ErrorRate: errRate,
			Requests: n, OverSLO: over, Latency: result.Latency{P50: 4, P99: 10.8}}
		p.Pass, p.Why = judgePoint(p, o)
		return p
	}
	tests := []struct {
		name string
		p    result.Point
		want bool
	}{
		{"3 of 200 over", pt(200, 3, 0), true},
		{"4 of 268 over", pt(268, 4, 0), true},
		{"12 of 400 over", pt(400, 12, 0), false},
		{"3 of 200 over and errors", pt(200, 3, 0.05), false},
		{"not counted", pt(0, 0, 0), false},
	}
	for _, tt := range tests {
		if got := thinTail(tt.p, o); got != tt.want {
			t.Errorf("%s: thinTail = %v, want %v (pass %v: %s)", tt.name, got, tt.want, tt.p.Pass, tt.p.Why)
		}
	}
}

// spiky is a service whose P99 is 7 ms against a 10 ms SLO up to its knee
// and 30 ms past it, but whose first window at each rate below the knee
// catches a stall: 3 of its requests (1.5% of 200) over the SLO, a P99 of
// 10.8 ms. counted says whether the points count their requests.
func spiky(knee float64, counted bool) func(rate float64, seen int) result.Point {
	return func(rate float64, seen int) result.Point {
		n := int64(200)
		p := result.Point{AchievedRPS: rate, Latency: result.Latency{P50: 4, P99: 7, Mean: 4}}
		switch {
		case rate > knee:
			p.Latency.P99, p.OverSLO = 30, n/10
		case seen == 0:
			p.Latency.P99, p.OverSLO = 10.8, 3
		}
		if counted {
			p.Requests = n
		} else {
			p.OverSLO = 0
		}
		return p
	}
}

// A failure that rests on a request or two is measured again and judged
// on both windows: the search finds the knee through stalls that, judged
// on one window of 200 requests, put it wherever the first stall fell (as
// on a 2-core VM: 97 to 279 rps against a knee of about 370).
func TestSearchThinTail(t *testing.T) {
	o := DefaultOptions(10 * time.Millisecond)
	o.Drain, o.Start = 0, 100
	for _, counted := range []bool{false, true} {
		calls := 0
		c, err := Search(context.Background(), scripted(&calls, spiky(370, counted)), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("counted %v: max QPS %.1f, bracket %v, %d windows", counted, c.MaxQPS, c.Bracket, c.Windows)
		if !counted {
			if c.MaxQPS > 200 {
				t.Errorf("uncounted: max QPS %.1f: want at most the first stall's rate, or none (the test's premise)", c.MaxQPS)
			}
			continue
		}
		if c.MaxQPS < 370*0.97 || c.MaxQPS > 370 {
			t.Errorf("max QPS %.1f, want within 3%% below 370", c.MaxQPS)
		}
		pooled := 0
		for _, p := range c.Points {
			if strings.Contains(p.Why, "two windows together") {
				pooled++
				if p.OfferedRPS <= 370 && !p.Pass {
					t.Errorf("probe at %.1f rps judged on two windows failed: %s", p.OfferedRPS, p.Why)
				}
			}
		}
		if pooled == 0 {
			t.Errorf("no probe was judged on two windows")
		}
	}
}

// Confirmation rounds judge thin failures again too: a round's estimate
// is not the first stall's rate.
func TestConfirmThinTail(t *testing.T) {
	o := DefaultOptions(10 * time.Millisecond)
	o.Drain, o.Start = 0, 100
	calls := 0
	probe := scripted(&calls, spiky(370, true))
	c, err := Search(context.Background(), probe, o)
	if err != nil {
		t.Fatal(err)
	}
	fresh := func(context.Context) error { probe = scripted(&calls, spiky(370, true)); return nil }
	k := NewConfirmer(c, func(ctx context.Context, r float64) (result.Point, error) { return probe(ctx, r) }, o)
	for range 3 {
		if err := fresh(context.Background()); err != nil {
			t.Fatal(err)
		}
		e, ok, err := k.Round(context.Background())
		if err != nil || !ok {
			t.Fatalf("round: %v (ok %v)", err, ok)
		}
		if e < 370*0.95 || e > 370*1.05 {
			t.Errorf("round estimate %.1f, want within 5%% of 370", e)
		}
	}
}

// A thin failure's second window counts against the window cap: a search
// capped at 3 windows never measures a fourth to judge one again.
func TestThinTailWindowCap(t *testing.T) {
	o := DefaultOptions(10 * time.Millisecond)
	o.Drain, o.Start, o.MaxWindows = 0, 100, 3
	calls := 0
	c, err := Search(context.Background(), scripted(&calls, spiky(370, true)), o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Windows > 3 || calls > 3 {
		t.Errorf("%d windows (%d probes), want at most the cap of 3", c.Windows, calls)
	}
}
