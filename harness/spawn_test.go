package harness

import (
	"context"
	"testing"
	"time"
)

// An open-loop worker that wakes for a hit while nobody has taken the next
// one starts a spare worker. On time, it always does (a target that
// stalls while the generator keeps time gets a worker, and so a
// connection, per hit, up to the cap). Late, it is evidence the generator
// is short of CPU, and the spares it may start are bounded: twice the
// on-time high-water mark plus two, at most one per millisecond.
func TestSpareWorkersBoundedWhenLate(t *testing.T) {
	tests := []struct {
		name     string
		late     time.Duration // how late each hit is when its worker wakes
		maxConns int
		calls    int
		want     int64 // workers after the calls, the first included
	}{
		{"on time: one per hit", -time.Millisecond, 4096, 50, 51},
		{"on time: capped", -time.Millisecond, 10, 50, 10},
		{"late: twice the on-time need plus two", 10 * time.Millisecond, 4096, 50, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &engine{o: Options{Client: noop, MaxConns: tt.maxConns}}
			f := &feed{}
			f.done.Store(true) // spares find the schedule over and return at once
			e.onTimeHigh.Store(1)
			e.nworkers.Store(1)
			ctx := context.Background()
			for i := range tt.calls {
				// Late spawns are rate-limited to one per lateSpawnEvery:
				// leave that much between calls so that only the bound
				// on the number can hold them back.
				if tt.late > 0 {
					time.Sleep(lateSpawnEvery + 100*time.Microsecond)
				}
				e.spare(ctx, ctx, f, Hit{Seq: uint64(i), Intended: now().Add(-tt.late)})
			}
			e.workers.Wait()
			if got := e.nworkers.Load(); got != tt.want {
				t.Errorf("%d workers after %d calls, want %d", got, tt.calls, tt.want)
			}
		})
	}
}

// Late spawns are also rate-limited: many late wake-ups in one instant
// start one spare, not one each.
func TestLateSparesRateLimited(t *testing.T) {
	e := &engine{o: Options{Client: noop, MaxConns: 4096}}
	f := &feed{}
	f.done.Store(true)
	e.onTimeHigh.Store(100) // the number bound is far away
	e.nworkers.Store(1)
	ctx := context.Background()
	start := now()
	for i := range 200 {
		e.spare(ctx, ctx, f, Hit{Seq: uint64(i), Intended: now().Add(-10 * time.Millisecond)})
	}
	e.workers.Wait()
	// One per lateSpawnEvery of the time the calls took, plus the first.
	limit := int64(now().Sub(start)/lateSpawnEvery) + 2
	if got := e.nworkers.Load() - 1; got < 1 || got > limit {
		t.Errorf("%d spares from 200 late wake-ups in %v, want 1 to %d", got, now().Sub(start), limit)
	}
}
