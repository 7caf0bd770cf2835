package harness

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// slowStart is a loopback server whose responses take decay at first,
// falling linearly to nothing over span from its first request, then
// answer at once: a server filling its caches.
func slowStart(t *testing.T, decay, span time.Duration) *httptest.Server {
	var once sync.Once
	var first time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { first = time.Now() })
		if left := span - time.Since(first); left > 0 {
			time.Sleep(time.Duration(float64(decay) * float64(left) / float64(span)))
		}
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The warm-up goes on while latency falls and stops once it is flat: a
// server slow for its first 4 s is still trending at 6 s (4 falling
// seconds of the 6 tested), so the warm-up takes at least 8 s; a server
// steady from the start is done within a few checks of the minimum; one
// still getting faster at the maximum stops there, not steady.
func TestWarmUntilSteady(t *testing.T) {
	t.Parallel()    // it waits on loopback servers (why the event-loop tests do not: run)
	const rate = 40 // requests a second: a per-second median of 40
	tests := []struct {
		name         string
		decay        time.Duration
		span         time.Duration
		least, most  time.Duration
		wantSteady   bool
		maxWarmupArg time.Duration
	}{
		// Steps of 50 ms a second: far above a busy machine's jitter in
		// a per-second median.
		{"slow start", 200 * time.Millisecond, 4 * time.Second, 8 * time.Second, 20 * time.Second, true, 20 * time.Second},
		// Three failed checks in a row of a trendless series at α = 0.10
		// are rare enough (about 1 in 1,000 if independent) for a test.
		{"steady", 0, 0, DefaultWarmupMin, DefaultWarmupMin + 3*warmupStep, true, 20 * time.Second},
		// Bounded: a server still slowing down at the maximum stops there,
		// not steady.
		{"bounded", 400 * time.Millisecond, 12 * time.Second, 8 * time.Second, 8 * time.Second, false, 8 * time.Second},
	}
	// The three warm-ups run at once, each against its own server, then
	// each row checks its own: at 40 requests a second they wait, so
	// together they take as long as the longest.
	type warmed struct {
		rep  WarmupReport
		last Progress // the progress callback runs on one goroutine at a time
		err  error
	}
	runs := make([]warmed, len(tests))
	var wg sync.WaitGroup
	for i, tt := range tests {
		srv := slowStart(t, tt.decay, tt.span)
		o := Options{Client: newHTTP(t, srv.URL), Mode: ModeRate, Rate: rate, Duration: time.Second, Trials: 1,
			Progress: func(p Progress) { runs[i].last = p }}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			runs[i].rep, runs[i].err = WarmUntilSteady(ctx, o, SteadyBounds{Max: tt.maxWarmupArg})
		})
	}
	wg.Wait()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, last, err := runs[i].rep, runs[i].last, runs[i].err
			if err != nil {
				t.Fatalf("WarmUntilSteady: %v", err)
			}
			t.Logf("took %v steady %v z(P50) %.2f z(P99) %.2f P50s %.1f", rep.Took, rep.Steady, rep.ZP50, rep.ZP99, rep.P50Ms)
			if rep.Took < tt.least || rep.Took > tt.most {
				t.Errorf("warm-up took %v, want %v to %v", rep.Took, tt.least, tt.most)
			}
			if rep.Steady != tt.wantSteady {
				t.Errorf("Steady = %v, want %v", rep.Steady, tt.wantSteady)
			}
			if got := len(rep.P50Ms); got != int(rep.Took/time.Second) {
				t.Errorf("%d per-second values for a warm-up of %v, want one a second", got, rep.Took)
			}
			// Progress covers the whole warm-up, its counts summed over
			// the one-second runs.
			if !last.PhaseDone || last.Phase != "warmup" || float64(last.Sent) < 0.9*rate*rep.Took.Seconds() {
				t.Errorf("last progress %+v, want warm-up done with about %v requests sent", last, rate*rep.Took.Seconds())
			}
			if rep.AchievedRPS < rate/2 {
				t.Errorf("AchievedRPS = %.1f, want about the rate of %v", rep.AchievedRPS, rate)
			}
		})
	}
}
