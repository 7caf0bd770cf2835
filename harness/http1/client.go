package http1

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxConns is the pool size when Options.MaxConns is zero.
const DefaultMaxConns = 64

// DefaultReadBufferSize is the per-connection read buffer when
// Options.ReadBufferSize is zero. It also bounds the longest status or
// header line a response may have.
const DefaultReadBufferSize = 8 << 10

// Options configures a Client.
type Options struct {
	// URL is the whole request URL, http://host[:port]/path?query. Only
	// plain http is supported; the port defaults to 80.
	URL string
	// Method is the request method; empty means GET.
	Method string
	// Headers are sent with every request, in sorted order. Host and
	// User-Agent (default "perfgate") may be overridden; Content-Length
	// and Transfer-Encoding are set by the client and may not be given.
	Headers map[string]string
	// Body is the default request body, sent when Do is given none.
	// Content-Length is always sent for POST, PUT and PATCH, and for any
	// method with a non-empty body.
	Body []byte
	// Timeout bounds each request from the moment it has a connection
	// (dial, write and the whole response); zero means no limit other
	// than the context's deadline. A request times out between Timeout
	// and Timeout + Timeout/16 (at most 1 s more): the connection's
	// deadline is moved about once per that slack, not per request.
	Timeout time.Duration
	// MaxConns is the number of connections in the pool, the most
	// requests in flight at once; zero means DefaultMaxConns.
	MaxConns int
	// ReadBufferSize is each connection's read buffer in bytes; zero
	// means DefaultReadBufferSize.
	ReadBufferSize int
}

// Client sends one prepared request, over and over, to one host on a
// fixed pool of keep-alive connections. It is safe for concurrent use.
type Client struct {
	req     *request
	timeout time.Duration
	bufSize int
	dialer  net.Dialer
	// idle holds one token per idle slot: a request takes a token, then a
	// slot from warm (idle slots with an open connection) or else from
	// cold (without one), both under mu. A request takes a warm slot when
	// there is one, so a client opens only as many connections as requests
	// were ever in flight at once (keep-alive), not one per slot; and warm
	// is a stack, so it takes the one used last: a few connections stay
	// busy, and hot, rather than every open one in turn.
	idle       chan struct{}
	mu         sync.Mutex
	warm, cold []*conn
	conns      []*conn
	closed     atomic.Bool
	dials      atomic.Uint64
}

// New validates o and returns a client. No connection is opened until the
// first request needs one.
func New(o Options) (*Client, error) {
	if o.Timeout < 0 {
		return nil, fmt.Errorf("http1: negative timeout %v", o.Timeout)
	}
	if o.MaxConns < 0 {
		return nil, fmt.Errorf("http1: negative MaxConns %d", o.MaxConns)
	}
	if o.ReadBufferSize < 0 {
		return nil, fmt.Errorf("http1: negative ReadBufferSize %d", o.ReadBufferSize)
	}
	req, err := newRequest(&o)
	if err != nil {
		return nil, err
	}
	n := o.MaxConns
	if n == 0 {
		n = DefaultMaxConns
	}
	bufSize := o.ReadBufferSize
	if bufSize == 0 {
		bufSize = DefaultReadBufferSize
	}
	cl := &Client{
		req:     req,
		timeout: o.Timeout,
		bufSize: max(bufSize, 256),
		dialer:  net.Dialer{Timeout: o.Timeout},
		idle:    make(chan struct{}, n),
		warm:    make([]*conn, 0, n),
		cold:    make([]*conn, 0, n),
		conns:   make([]*conn, n),
	}
	for i := range cl.conns {
		cl.conns[i] = &conn{cl: cl}
		cl.cold = append(cl.cold, cl.conns[i])
		cl.idle <- struct{}{}
	}
	return cl, nil
}

// Do sends the request, with body as its body (nil means Options.Body),
// reads the whole response and discards its body. It returns the status
// code, whatever it is; err is non-nil only when no complete response
// arrived, and is classified as the package documentation says.
//
// Do blocks while all MaxConns connections are busy, until one is free
// or ctx is done. Cancelling ctx interrupts a request in flight. For no
// allocation per request, pass the same ctx to many calls: each
// connection registers a cancellation watch once per distinct context.
func (cl *Client) Do(ctx context.Context, body []byte) (status int, err error) {
	status, _, _, err = cl.do(ctx, body, false, nil)
	return status, err
}

// DoAppend is Do, keeping the response body: it is appended to dst, and
// the extended slice returned (also on error, with what had arrived).
func (cl *Client) DoAppend(ctx context.Context, body, dst []byte) (status int, out []byte, err error) {
	status, out, _, err = cl.do(ctx, body, true, dst)
	return status, out, err
}

// DoWait is Do, also returning how long the request waited for a free
// connection slot before it could be sent (zero when one was idle): time
// spent inside the client, not at the server.
func (cl *Client) DoWait(ctx context.Context, body []byte) (status int, wait time.Duration, err error) {
	status, _, wait, err = cl.do(ctx, body, false, nil)
	return status, wait, err
}

// DoAppendWait is DoAppend, also returning the wait for a connection slot
// (see DoWait).
func (cl *Client) DoAppendWait(ctx context.Context, body, dst []byte) (status int, out []byte, wait time.Duration, err error) {
	return cl.do(ctx, body, true, dst)
}

func (cl *Client) do(ctx context.Context, body []byte, keep bool, dst []byte) (int, []byte, time.Duration, error) {
	if cl.closed.Load() {
		return 0, dst, 0, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return 0, dst, 0, err
	}
	var wait time.Duration
	// An idle slot costs no clock read; only a request that must block
	// for one is timed.
	select {
	case <-cl.idle:
	default:
		t0 := time.Now()
		select {
		case <-cl.idle:
		case <-ctx.Done():
			return 0, dst, time.Since(t0), ctx.Err()
		}
		wait = time.Since(t0)
	}
	c := cl.take()
	if cl.closed.Load() { // closed while this request waited
		cl.put(c)
		return 0, dst, wait, ErrClosed
	}
	status, dst, err := c.roundTrip(ctx, body, keep, dst)
	cl.put(c)
	return status, dst, wait, err
}

// take removes an idle slot, the warm one used last if any, for a request
// that holds an idle token.
func (cl *Client) take() *conn {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if n := len(cl.warm); n > 0 {
		c := cl.warm[n-1]
		cl.warm = cl.warm[:n-1]
		return c
	}
	n := len(cl.cold)
	c := cl.cold[n-1]
	cl.cold = cl.cold[:n-1]
	return c
}

// put returns a slot to the idle set it belongs to, and its token. It
// never blocks: there is room for every slot.
func (cl *Client) put(c *conn) {
	c.mu.Lock()
	open := c.nc != nil
	c.mu.Unlock()
	cl.mu.Lock()
	if open {
		cl.warm = append(cl.warm, c)
	} else {
		cl.cold = append(cl.cold, c)
	}
	cl.mu.Unlock()
	cl.idle <- struct{}{}
}

// Dials returns how many connections the client has opened so far. With
// keep-alive working it stays at most MaxConns.
func (cl *Client) Dials() uint64 { return cl.dials.Load() }

// MaxConns returns the pool size.
func (cl *Client) MaxConns() int { return len(cl.conns) }

// Close closes every connection; requests in flight fail with a
// connection error and later ones with ErrClosed. It is safe to call more
// than once.
func (cl *Client) Close() error {
	if cl.closed.Swap(true) {
		return nil
	}
	for _, c := range cl.conns {
		c.mu.Lock()
		if c.nc != nil {
			c.nc.Close()
		}
		c.mu.Unlock()
	}
	// Idle slots belong to the pool (under mu): drop their context
	// watches so that a long-lived context does not keep them alive.
	cl.mu.Lock()
	defer cl.mu.Unlock()
	for _, c := range cl.warm {
		c.unwatch()
		c.closeConn()
	}
	for _, c := range cl.cold {
		c.unwatch()
	}
	cl.cold = append(cl.cold, cl.warm...)
	cl.warm = cl.warm[:0]
	return nil
}
