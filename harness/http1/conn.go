package http1

import (
	"bufio"
	"context"
	"net"
	"sync"
	"syscall"
	"time"
)

// aLongTimeAgo is a deadline already past: setting it makes blocked reads
// and writes on a connection return a timeout at once.
var aLongTimeAgo = time.Unix(1, 0)

// conn is one slot of the pool: a connection (or none yet), its read
// buffer and write buffer. Only the goroutine that took the slot from the
// pool touches its fields, except mu-guarded nc, watchDone and the context
// callback.
type conn struct {
	cl *Client
	// mu guards writes to nc (made by the owner) against Close and the
	// context callback, which read it from other goroutines.
	mu sync.Mutex
	nc net.Conn
	br *bufio.Reader
	// wbuf holds a request with a per-call body.
	wbuf []byte
	// used reports that nc has carried a whole response, so that a failure
	// before the next response's first byte may be a keep-alive
	// connection the server had closed: worth one retry.
	used bool
	// deadline is the deadline set on nc (zero: none). aLongTimeAgo
	// stands for "unknown": a cancelled context's callback may have set
	// it, and the next request must set its own.
	deadline time.Time
	// watchDone is the Done channel of the context whose cancellation
	// interrupts nc (guarded by mu); stopWatch unregisters it.
	watchDone <-chan struct{}
	stopWatch func() bool
	// raw, peekFn and the peek fields serve peekSocket, set up once per
	// connection so that the check before each request allocates nothing.
	raw     syscall.RawConn
	peekFn  func(fd uintptr) bool
	peekBuf [1]byte
	peekN   int
	peekErr error
	// sentAt is when (monoNow) the previous request on nc was sent, for
	// pending's idle test.
	sentAt time.Duration
	// sendFn, wire, sent, sendErr and sendStep serve send (peek_unix.go).
	sendFn   func(fd uintptr) bool
	wire     []byte
	sent     int
	sendErr  error
	sendStep int
	// sr reads the socket for br (sockReader, unix).
	sr sockReader
}

// monoBase anchors monoNow.
var monoBase = time.Now()

// monoNow reads the monotonic clock alone: the time since monoBase.
func monoNow() time.Duration { return time.Since(monoBase) }

// roundTrip writes one request on c and reads its response, dialling
// first when c has no connection.
func (c *conn) roundTrip(ctx context.Context, body []byte, keep bool, dst []byte) (int, []byte, error) {
	c.watch(ctx)
	req := c.cl.req
	for {
		if c.nc == nil {
			if err := c.dial(ctx); err != nil {
				return 0, dst, err
			}
		}
		reused := c.used
		if reused {
			n, closed := c.pending()
			if n > 0 {
				// Bytes before the request: whatever they say, they answer
				// nothing we asked (a second response to an earlier request,
				// a 408 on an idle connection), and would be taken for this
				// request's answer.
				c.closeConn()
				return 0, dst, protoErr("the server sent %d bytes before the request was written: an unsolicited response", n)
			}
			if closed { // the server closed the idle connection: dial anew
				c.closeConn()
				continue
			}
		}
		if err := c.setDeadline(ctx); err != nil {
			c.closeConn()
			return 0, dst, ioErr(ctx, "setting deadline", err)
		}
		if err := ctx.Err(); err != nil { // canceled before the deadline was set
			return 0, dst, err
		}
		wire := req.full
		if body != nil {
			c.wbuf = req.appendRequest(c.wbuf[:0], body)
			wire = c.wbuf
		}
		op := "writing request"
		wrote, err := c.send(wire)
		if wrote {
			op = "reading response"
		}
		if err == nil {
			_, err = c.br.Peek(1)
		}
		if err != nil {
			c.closeConn()
			// Nothing of a response arrived: on a reused connection the
			// server may have closed it while idle. Retry once, fresh.
			if reused && !IsTimeout(err) && ctx.Err() == nil {
				continue
			}
			return 0, dst, ioErr(ctx, op, err)
		}
		resp, out, err := readResponse(c.br, req.isHead, keep, dst)
		if err != nil {
			c.closeConn()
			return 0, out, ioErr(ctx, "reading response", err)
		}
		c.used = true
		if resp.close {
			c.closeConn()
		}
		return resp.status, out, nil
	}
}

// peekIdle is how long a connection must have been idle (since its
// previous request was sent) before pending asks the socket, with a system
// call, whether bytes or a close arrived in the meantime.
const peekIdle = 5 * time.Millisecond

// pending reports, without blocking, how many bytes a reused connection
// holds before a request is written (none are expected), and whether the
// server has closed it.
//
// Bytes already read (a second response that came with the last one) are
// seen for free. The socket is asked only when the connection sat idle
// for peekIdle or more, at the price of one system call: a server's
// unsolicited answer (a 408 on an idle connection, a duplicate response
// sent later) or its closing of an idle connection takes time to come.
// A connection reused at once skips it: something the server sends in
// that instant is read with the next response, and the response left over
// fails the request after it, as a protocol error (Buffered, above).
func (c *conn) pending() (n int, closed bool) {
	if n := c.br.Buffered(); n > 0 {
		return n, false
	}
	t := monoNow()
	idle := t-c.sentAt >= peekIdle
	c.sentAt = t
	if !idle {
		return 0, false
	}
	if n, closed, ok := c.peekSocket(); ok {
		return n, closed
	}
	c.nc.SetReadDeadline(aLongTimeAgo)
	c.deadline = aLongTimeAgo // setDeadline resets it before the request
	if _, err := c.br.Peek(1); err != nil {
		return 0, !IsTimeout(err)
	}
	return c.br.Buffered(), false
}

// setDeadline makes nc's deadline the earlier of ctx's deadline and at
// least Timeout from now, or clears it when there is neither.
//
// Setting a deadline costs two clock reads and a runtime timer update, so
// with a Timeout the deadline is set up to deadlineSlack(Timeout) beyond
// it and kept while at least Timeout remains: a request may run up to
// Timeout + Timeout/16 (at most 1 s more) before it times out, never less
// than Timeout, and the deadline moves about once per slack, not once per
// request. A context deadline is always exact.
func (c *conn) setDeadline(ctx context.Context) error {
	cd, hasCD := ctx.Deadline()
	t := c.cl.timeout
	if t <= 0 {
		switch {
		case hasCD && !cd.Equal(c.deadline):
			c.deadline = cd
			return c.nc.SetDeadline(cd)
		case !hasCD && !c.deadline.IsZero():
			c.deadline = time.Time{}
			return c.nc.SetDeadline(time.Time{})
		}
		return nil
	}
	if !c.deadline.IsZero() {
		left := time.Until(c.deadline)
		switch {
		case hasCD && cd.Equal(c.deadline):
			return nil // the context's own deadline, already set
		case left >= t && (!hasCD || !cd.Before(c.deadline)):
			return nil // still at least Timeout away, and before ctx's
		}
	}
	d := time.Now().Add(t + deadlineSlack(t))
	if hasCD && cd.Before(d) {
		d = cd
	}
	c.deadline = d
	return c.nc.SetDeadline(d)
}

// deadlineSlack is how far past Timeout a connection's deadline is set,
// so that it need not move on every request: Timeout/16, at most 1 s.
func deadlineSlack(timeout time.Duration) time.Duration {
	return min(timeout/16, time.Second)
}

// watch arranges for ctx's cancellation to interrupt c's connection. The
// registration is kept while the same context is passed again, so a
// caller reusing one context pays for it once per connection.
func (c *conn) watch(ctx context.Context) {
	done := ctx.Done()
	if done == c.watchDone { // also when both are nil
		return
	}
	c.unwatch()
	if done == nil {
		return // nothing can cancel ctx
	}
	c.mu.Lock()
	c.watchDone = done
	c.mu.Unlock()
	c.stopWatch = context.AfterFunc(ctx, func() {
		c.mu.Lock()
		if c.watchDone == done && c.nc != nil {
			c.nc.SetDeadline(aLongTimeAgo)
		}
		c.mu.Unlock()
	})
}

// unwatch drops c's context registration. If the callback already ran, the
// connection may hold a past deadline: the next request must reset it.
func (c *conn) unwatch() {
	if c.stopWatch == nil {
		return
	}
	if !c.stopWatch() {
		c.deadline = aLongTimeAgo // the callback ran: nc's deadline is past
	}
	c.stopWatch = nil
	c.mu.Lock()
	c.watchDone = nil
	c.mu.Unlock()
}

// closeConn closes c's connection, if any; the next request dials anew.
func (c *conn) closeConn() {
	c.mu.Lock()
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
	c.mu.Unlock()
}

// dial opens a new connection for c.
func (c *conn) dial(ctx context.Context) error {
	nc, err := c.cl.dialer.DialContext(ctx, "tcp", c.cl.req.addr)
	if err != nil {
		return ioErr(ctx, "dial "+c.cl.req.addr, err)
	}
	c.cl.dials.Add(1)
	c.mu.Lock()
	if c.cl.closed.Load() {
		c.mu.Unlock()
		nc.Close()
		return ErrClosed
	}
	c.nc = nc
	c.mu.Unlock()
	c.raw = nil
	if c.br == nil {
		c.br = bufio.NewReaderSize(c.reader(), c.cl.bufSize)
	} else {
		c.br.Reset(c.reader())
	}
	c.used, c.deadline = false, time.Time{}
	c.sentAt = monoNow()
	return nil
}
