package refserver

import (
	"context"
	"errors"
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
// workers (a scheduler, scheduler.go). A worker takes the oldest request,
// then keeps taking requests until the batch holds maxBatch items or the
// window since the first request's arrival has passed, and computes the
// batch as one forward call (one matrix product per layer).
type batcher struct {
	sched    *scheduler[*job]
	maxBatch int
	window   time.Duration
	// overhead is CPU time spent on each batch before its compute
	// (Options.BatchOverhead, when batching is on).
	overhead time.Duration
	// perItem is CPU time spent on each item of a batch before its
	// compute (Options.ItemOverhead, when batching is on).
	perItem time.Duration
	model   backend
	observe func(batch []*job, items int, compute time.Duration)
}

func newBatcher(o Options, model backend, observe func([]*job, int, time.Duration)) *batcher {
	b := &batcher{sched: newScheduler(o.Queue, failJob), maxBatch: max(1, o.MaxBatch), window: o.BatchWindow,
		model: model, observe: observe}
	if b.maxBatch > 1 {
		b.overhead, b.perItem = o.BatchOverhead, o.ItemOverhead
	}
	b.sched.start(o.Instances, b.worker)
	return b
}

// failJob answers j with ErrClosed.
func failJob(j *job) {
	j.err = ErrClosed
	close(j.done)
}

// jobItems is a job's size in a batch: its items.
func jobItems(j *job) int { return j.batch }

// submit queues j, or returns ErrQueueFull or ErrClosed at once.
func (b *batcher) submit(j *job) error {
	return b.sched.submit(j, func(j *job) {
		j.enq = time.Now()
		j.done = make(chan struct{})
	})
}

// pending is the number of queued requests.
func (b *batcher) pending() int { return b.sched.pending() }

// capacity is the most requests the queue holds.
func (b *batcher) capacity() int { return b.sched.capacity() }

// close stops the workers after their current batch and fails what is
// still queued with ErrClosed.
func (b *batcher) close() { b.sched.close() }

func (b *batcher) worker() {
	var carry *job // a request that did not fit the last batch
	var x, y []float32
	timer := stoppedTimer()
	defer timer.Stop()
	for {
		first := carry
		carry = nil
		// Closing wins over queued work, which close fails.
		if b.sched.closing() {
			if first != nil {
				failJob(first)
			}
			return
		}
		if first == nil {
			var ok bool
			if first, ok = b.sched.next(); !ok {
				return
			}
		}
		var jobs []*job
		jobs, carry, _ = b.sched.form([]*job{first}, first.batch, b.maxBatch, jobItems, first.enq.Add(b.window), timer)
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
	spinFor(b.overhead + time.Duration(items)*b.perItem)
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
