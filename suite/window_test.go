package suite

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/result"
)

func TestAutoWindow(t *testing.T) {
	const lo, hi = 10 * time.Second, 2 * time.Minute
	tests := []struct {
		name       string
		rps        float64
		unitTrials int
		want       time.Duration
		unit       string
		capped     bool
	}{
		// 1.2 × 100 / 100 = 1.2 s: the floor.
		{"fast", 100, 1, lo, UnitTrial, false},
		// 1.2 × 100 / 5 = 24 s.
		{"slow trial", 5, 1, 24 * time.Second, UnitTrial, false},
		// A process of 3 trials shares the 100 requests: 1.2 × 100 / (2 × 3) = 20 s.
		{"process of 3 trials", 2, 3, 20 * time.Second, UnitProcess, false},
		// 1.2 × 100 / 0.5 = 240 s, beyond the bound: capped, 60 requests.
		{"capped", 0.5, 1, hi, UnitTrial, true},
		// Nothing known of the throughput: the longest window.
		{"unknown", 0, 1, hi, UnitTrial, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rec := AutoWindow(tt.rps, tt.unitTrials, tt.unit, lo, hi)
			if got != tt.want {
				t.Errorf("AutoWindow(%v, %d) = %v, want %v", tt.rps, tt.unitTrials, got, tt.want)
			}
			if rec.Unit != tt.unit || rec.Capped != tt.capped || rec.RequestsNeeded != 100 {
				t.Errorf("record %+v, want unit %s, capped %v, 100 requests needed", rec, tt.unit, tt.capped)
			}
		})
	}
}

// unitTrials follows the test's unit: a process of the fewest trials when
// the trials are spread over processes, else a trial.
func TestUnitTrials(t *testing.T) {
	tests := []struct {
		name             string
		url              string
		trials, restarts int
		want             int
		unit             string
	}{
		{"one process a trial", "", 5, 5, 1, UnitProcess},
		{"two processes of 5 and 5", "", 10, 2, 5, UnitProcess},
		{"5 over 2: the smaller has 2", "", 5, 2, 2, UnitProcess},
		{"url: trials", "http://x", 5, 1, 1, UnitTrial},
		{"restarts: 1: trials", "", 5, 1, 1, UnitTrial},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &config.Scenario{URL: tt.url, Restarts: tt.restarts, Load: config.Load{Trials: tt.trials}}
			if got, unit := unitTrials(s); got != tt.want || unit != tt.unit {
				t.Errorf("unitTrials(%d trials, %d restarts) = %d, %s, want %d, %s", tt.trials, tt.restarts, got, unit, tt.want, tt.unit)
			}
		})
	}
}

// A scenario with warmup: auto and duration: auto against a loopback
// server: it warms up at least the minimum, then measures a window
// lengthened so that its trial holds the 100 requests a P99 needs
// (10 rps: 12 s, not the 10 s floor), and the result records both.
func TestAutoWarmupAndWindow(t *testing.T) {
	// At least 18 s of waiting at 10 requests a second: run beside
	// TestReferenceServer.
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	cfg := parse(t, `version: 1
scenarios:
  - name: auto
    layer: engine
    url: `+srv.URL+`
    load: {mode: rate, rate: 10, warmup: auto, warmup_max: 12s, duration: auto, trials: 1}
`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := compiled(t, cfg)
	res, err := RunScenario(ctx, p, p.Scenarios[0], Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Load.DurationS != 12 {
		t.Errorf("window %v s, want 12 s (1.2 × 100 requests at 10/s)", res.Load.DurationS)
	}
	if n := res.Trials[0].Requests; n < 100 {
		t.Errorf("the trial holds %d requests, want the 100 its P99 needs", n)
	}
	// The warm-up is the time its one-second windows measured, which can
	// fall a few tens of milliseconds short of their nominal 6 s (5.91 s
	// seen in CI).
	if res.Load.WarmupS < 5.5 || res.Load.WarmupS > 12.5 {
		t.Errorf("warm-up %v s, want 6 s (the minimum) to 12 s (warmup_max)", res.Load.WarmupS)
	}
	wa, da := res.Load.WarmupAuto, res.Load.DurationAuto
	if wa == nil || da == nil {
		t.Fatalf("warmup_auto %+v, duration_auto %+v: want both recorded", wa, da)
	}
	want := &result.DurationAuto{Unit: "trial", UnitTrials: 1, RequestsNeeded: 100, ExpectedRequests: 120, RPS: 10, MinS: 10, MaxS: 120}
	if d := cmp.Diff(want, da); d != "" {
		t.Errorf("duration_auto (-want +got):\n%s", d)
	}
	if wa.Test != "mann-kendall" || wa.MaxS != 12 || wa.WindowS != 6 {
		t.Errorf("warmup_auto = %+v, want the Mann-Kendall test over 6 s, at most 12 s", wa)
	}
}
