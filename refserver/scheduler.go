package refserver

import (
	"sync"
	"time"
)

// scheduler is the skeleton the server's three schedulers share: the KServe
// model's dynamic batcher (batcher.go), sim-llm (llmEngine, llm.go) and
// tiny-llm (tinyEngine, tinyllm_engine.go). It owns
//
//   - the bounded queue: submit queues a request, or fails at once with
//     ErrQueueFull (the queue is full) or ErrClosed (the server is closing);
//   - batch forming: next waits for a batch's first request; form adds the
//     requests queued now and, until a deadline (the batch window), those
//     that arrive, up to a maximum batch;
//   - the worker loops (start), each forming a batch and running one step
//     of it, then the next;
//   - shutdown: close stops the loops after their current step (a loop fails
//     the requests it holds as it returns) and fails what is still queued.
//
// What a step is, is the scheduler's own: one forward pass over a batch of
// requests (batcher, one loop per instance), or one iteration of
// continuous batching that gives every running sequence its next token
// (the LLM engines, one loop each).
type scheduler[T any] struct {
	queue chan T
	quit  chan struct{}
	fail  func(T) // answers a request with ErrClosed
	wg    sync.WaitGroup
	mu    sync.RWMutex // guards shut against submit
	shut  bool
}

// newScheduler returns a scheduler whose queue holds up to queue requests;
// fail answers a request with ErrClosed (on shutdown).
func newScheduler[T any](queue int, fail func(T)) *scheduler[T] {
	return &scheduler[T]{queue: make(chan T, queue), quit: make(chan struct{}), fail: fail}
}

// start runs n worker loops; close waits for them to return.
func (s *scheduler[T]) start(n int, loop func()) {
	for range n {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			loop()
		}()
	}
}

// submit prepares r and queues it, or returns ErrQueueFull or ErrClosed at
// once. prepare runs under the lock close takes, so a request close could
// miss is never queued.
func (s *scheduler[T]) submit(r T, prepare func(T)) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.shut {
		return ErrClosed
	}
	prepare(r)
	select {
	case s.queue <- r:
		return nil
	default:
		return ErrQueueFull
	}
}

// pending is the number of queued requests.
func (s *scheduler[T]) pending() int { return len(s.queue) }

// capacity is the most requests the queue holds.
func (s *scheduler[T]) capacity() int { return cap(s.queue) }

// closing reports whether close has begun: a loop that checks it before a
// step lets closing win over queued work, which close fails.
func (s *scheduler[T]) closing() bool {
	select {
	case <-s.quit:
		return true
	default:
		return false
	}
}

// next waits for the next queued request; false once closing.
func (s *scheduler[T]) next() (r T, ok bool) {
	select {
	case <-s.quit:
		return r, false
	case r = <-s.queue:
		return r, true
	}
}

// form appends queued requests to batch while it holds fewer than limit
// units (used so far; a request counts size(r) units). Without a deadline
// (the zero time) it takes only what is queued now; with one it waits for
// more until then (timer is the loop's own, stopped; closing ends the
// wait). A request that would take the batch past limit is returned as
// carry, to start the next batch.
func (s *scheduler[T]) form(batch []T, used, limit int, size func(T) int, deadline time.Time, timer *time.Timer) (_ []T, carry T, carried bool) {
	for used < limit {
		var r T
		select {
		case r = <-s.queue:
		default:
			if deadline.IsZero() {
				return batch, carry, false
			}
			wait := time.Until(deadline)
			if wait <= 0 {
				return batch, carry, false
			}
			timer.Reset(wait)
			select {
			case r = <-s.queue:
				// Since Go 1.23 a stopped timer never delivers a stale
				// tick: no drain needed.
				timer.Stop()
			case <-timer.C:
				return batch, carry, false
			case <-s.quit:
				timer.Stop()
				return batch, carry, false
			}
		}
		n := size(r)
		if used+n > limit {
			return batch, r, true
		}
		batch, used = append(batch, r), used+n
	}
	return batch, carry, false
}

// sleep waits d on timer (the loop's own, stopped); false when closing
// began first.
func (s *scheduler[T]) sleep(timer *time.Timer, d time.Duration) bool {
	timer.Reset(d)
	select {
	case <-s.quit:
		timer.Stop()
		return false
	case <-timer.C:
		return true
	}
}

// close stops the loops after their current step, waits for them, and
// fails what is still queued with ErrClosed. A second close does nothing.
func (s *scheduler[T]) close() {
	s.mu.Lock()
	if s.shut {
		s.mu.Unlock()
		return
	}
	s.shut = true
	s.mu.Unlock()
	close(s.quit)
	s.wg.Wait()
	for {
		select {
		case r := <-s.queue:
			s.fail(r)
		default:
			return
		}
	}
}

// stoppedTimer returns a stopped timer for a loop's waits.
func stoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// one counts every request as one unit of a batch (a sequence).
func one[T any](T) int { return 1 }
