package harness

import (
	"context"
	"testing"
	"time"
)

// An open-loop worker that wakes for a hit while nobody has taken the next
// one starts a spare worker. On time, it always does (a target that stalls
// while the generator keeps time gets a worker, and so a connection, per
// hit, up to the cap). Late, the generator may be short of CPU, and the
// spares are bounded (twice the on-time high-water mark plus two) unless
// requests take far longer than the workers' timers are late.
func TestSpareWorkersBoundedWhenLate(t *testing.T) {
	tests := []struct {
		name     string
		late     time.Duration // how late each hit is when its worker wakes
		wakeLag  time.Duration // how late the workers' timers wake them
		inFlight time.Duration // how long requests take
		maxConns int
		calls    int
		want     int64 // workers after the calls, the first included
	}{
		{"on time: one per hit", 0, 0, 0, 4096, 50, 51},
		{"on time: capped", 0, 0, 0, 10, 50, 10},
		{"late: twice the on-time need plus two", 10 * time.Millisecond, 10 * time.Millisecond, 100 * time.Microsecond, 4096, 50, 4},
		{"late, requests far longer than the timers' lateness", 100 * time.Millisecond, 5 * time.Millisecond, 300 * time.Millisecond, 4096, 50, 51},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &engine{o: Options{Client: noop, MaxConns: tt.maxConns}}
			f := &feed{}
			f.done.Store(true) // spares find the schedule over and return at once
			e.onTimeHigh.Store(1)
			e.nworkers.Store(1)
			e.wakeLag.Store(int64(tt.wakeLag))
			e.inFlightTime.Store(int64(tt.inFlight))
			ctx := context.Background()
			for i := range tt.calls {
				e.spare(ctx, ctx, f, Hit{Seq: uint64(i), Intended: now().Add(-tt.late)})
			}
			e.workers.Wait()
			if got := e.nworkers.Load(); got != tt.want {
				t.Errorf("%d workers after %d calls, want %d", got, tt.calls, tt.want)
			}
		})
	}
}

// Late spares are also paced: many late wake-ups in one instant start
// spares that begin work lateSpawnEvery apart, not all at once.
func TestLateSparesPaced(t *testing.T) {
	e := &engine{o: Options{Client: noop, MaxConns: 4096}}
	f := &feed{}
	f.done.Store(true)
	e.onTimeHigh.Store(100) // the number bound is far away
	e.nworkers.Store(1)
	ctx, cancel := context.WithCancel(context.Background())
	start := int64(now().Sub(monoBase))
	const calls = 20
	for i := range calls {
		e.spare(ctx, ctx, f, Hit{Seq: uint64(i), Intended: now().Add(-10 * time.Millisecond)})
	}
	cancel() // the spares waiting for their turn return
	e.workers.Wait()
	if got := e.nworkers.Load() - 1; got != calls {
		t.Fatalf("%d spares from %d late wake-ups, want %d (below the bound, each starts one)", got, calls, calls)
	}
	// The last one's turn is (calls−1) turns after the first's.
	if span := time.Duration(e.lateSpawn.Load() - start); span < (calls-1)*lateSpawnEvery {
		t.Errorf("the %d late spares' turns span %v, want at least %v", calls, span, (calls-1)*lateSpawnEvery)
	}
}
