package suite

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/perfgate/perfgate/result"
)

// deathWatch notices a target that ends during its scenario's run: the
// run is stopped at once instead of measuring connection errors against a
// dead service for the trials left.
type deathWatch struct {
	mu   sync.Mutex
	at   time.Time
	died bool
}

// watch returns a context cancelled when tg's process ends (or ctx is),
// the watch, and the function that stops watching; a target perfgate did
// not start is not watched.
func watch(ctx context.Context, tg *running) (context.Context, *deathWatch, func()) {
	w := &deathWatch{}
	if tg.done == nil {
		return ctx, w, func() {}
	}
	runCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		select {
		case <-tg.done:
			w.mu.Lock()
			w.at, w.died = time.Now(), true
			w.mu.Unlock()
			cancel()
		case <-stopped:
		}
	}()
	var once sync.Once
	return runCtx, w, func() { once.Do(func() { close(stopped); cancel() }) }
}

// diedAt reports when the target ended, if it did.
func (w *deathWatch) diedAt() (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.at, w.died
}

// keepTrialsBefore drops from res the trials that had not ended by t (the
// one the target died in, and those never run), marks the result invalid
// and says why: the trials measured while the target was alive are kept.
func keepTrialsBefore(res *result.Result, t time.Time, why string) {
	if res == nil {
		return
	}
	start := res.StartedAt.Add(time.Duration(res.Load.WarmupS * float64(time.Second)))
	step := time.Duration(res.Load.DurationS * float64(time.Second))
	kept := 0
	for i := range res.Trials {
		if step <= 0 || start.Add(time.Duration(i+1)*step).After(t) {
			break
		}
		kept++
	}
	res.Trials = res.Trials[:kept]
	resummarize(res)
	res.Valid = false
	res.Warnings = append(res.Warnings, fmt.Sprintf("%s during trial %d: the %d trials before are kept, the rest dropped", why, kept+1, kept))
}

// resummarize recomputes the summary from the trials kept
// (result.SummaryOf), so that the errors against a dead target count
// nowhere. Nothing is taken from the run's own summary but whether it
// offered a rate: what the kept trials do not hold stays unset.
func resummarize(res *result.Result) {
	res.Summary, _ = result.SummaryOf(res.Trials, result.Summary{OfferedRPS: res.Summary.OfferedRPS})
}
