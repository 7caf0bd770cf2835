package refserver

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Errors a request can meet on its way to a model.
var (
	// ErrQueueFull is returned when the bounded queue is full: HTTP 429,
	// gRPC RESOURCE_EXHAUSTED.
	ErrQueueFull = errors.New("queue full")
	// ErrClosed is returned once the server is closing.
	ErrClosed = errors.New("server closed")
)

// job is one request waiting for, then in, a batch. The worker sets the
// fields below done and then closes done.
type job struct {
	ctx   context.Context
	x     []float32 // batch × inSize inputs
	batch int
	enq   time.Time

	done    chan struct{}
	y       []float32 // batch × outSize outputs
	err     error
	queue   time.Duration // enqueue to batch start
	compute time.Duration // the whole batch's compute time
	size    int           // items in the batch it ran in
}

// batcher is Triton's dynamic batcher: a bounded queue feeding instances
// workers. A worker takes the oldest request, then keeps taking requests
// until the batch holds maxBatch items or the window since the first
// request's arrival has passed, and computes the batch as one forward call
// (one matrix product per layer).
type batcher struct {
	queue    chan *job
	maxBatch int
	window   time.Duration
	model    backend
	observe  func(batch []*job, items int, compute time.Duration)

	quit chan struct{}
	wg   sync.WaitGroup
	mu   sync.RWMutex // guards closed against submit
	shut bool
}

func newBatcher(o Options, model backend, observe func([]*job, int, time.Duration)) *batcher {
	b := &batcher{queue: make(chan *job, o.Queue), maxBatch: max(1, o.MaxBatch), window: o.BatchWindow,
		model: model, observe: observe, quit: make(chan struct{})}
	for i := 0; i < o.Instances; i++ {
		b.wg.Add(1)
		go b.worker()
	}
	return b
}

// submit queues j, or returns ErrQueueFull or ErrClosed at once.
func (b *batcher) submit(j *job) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.shut {
		return ErrClosed
	}
	j.enq = time.Now()
	j.done = make(chan struct{})
	select {
	case b.queue <- j:
		return nil
	default:
		return ErrQueueFull
	}
}

// pending is the number of queued requests.
func (b *batcher) pending() int { return len(b.queue) }

// close stops the workers after their current batch and fails what is
// still queued with ErrClosed.
func (b *batcher) close() {
	b.mu.Lock()
	if b.shut {
		b.mu.Unlock()
		return
	}
	b.shut = true
	b.mu.Unlock()
	close(b.quit)
	b.wg.Wait()
	for {
		select {
		case j := <-b.queue:
			j.err = ErrClosed
			close(j.done)
		default:
			return
		}
	}
}

func (b *batcher) worker() {
	defer b.wg.Done()
	var carry *job // a request that did not fit the last batch
	var x, y []float32
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		first := carry
		carry = nil
		// Closing wins over queued work, which close fails.
		select {
		case <-b.quit:
			if first != nil {
				first.err = ErrClosed
				close(first.done)
			}
			return
		default:
		}
		if first == nil {
			select {
			case <-b.quit:
				return
			case first = <-b.queue:
			}
		}
		jobs, items := []*job{first}, first.batch
		deadline := first.enq.Add(b.window)
	collect:
		for items < b.maxBatch {
			var j *job
			select {
			case j = <-b.queue:
			default:
				wait := time.Until(deadline)
				if wait <= 0 {
					break collect
				}
				timer.Reset(wait)
				select {
				case j = <-b.queue:
					// Since Go 1.23 a stopped timer never delivers a
					// stale tick: no drain needed.
					timer.Stop()
				case <-timer.C:
					break collect
				case <-b.quit:
					timer.Stop()
					break collect
				}
			}
			if items+j.batch > b.maxBatch {
				carry = j
				break
			}
			jobs, items = append(jobs, j), items+j.batch
		}
		x, y = b.run(jobs, x, y)
	}
}

// run computes one batch, reusing the x and y buffers, and returns them.
func (b *batcher) run(jobs []*job, x, y []float32) ([]float32, []float32) {
	start := time.Now()
	live, items := jobs[:0:0], 0
	for _, j := range jobs {
		j.queue = start.Sub(j.enq)
		if err := j.ctx.Err(); err != nil {
			j.err = err
			close(j.done)
			continue
		}
		live, items = append(live, j), items+j.batch
	}
	if len(live) == 0 {
		return x, y
	}
	in := b.model.info()
	x, y = x[:0], grow(y, items*in.outSize)
	for _, j := range live {
		x = append(x, j.x...)
	}
	err := b.model.forward(x, items, y)
	compute := time.Since(start)
	off := 0
	for _, j := range live {
		n := j.batch * in.outSize
		j.y, j.err, j.compute, j.size = append([]float32(nil), y[off:off+n]...), err, compute, items
		off += n
	}
	b.observe(live, items, compute)
	for _, j := range live {
		close(j.done)
	}
	return x, y
}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}
