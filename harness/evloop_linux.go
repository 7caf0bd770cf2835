//go:build linux

package harness

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/perfgate/perfgate/harness/http1"
	"golang.org/x/sys/unix"
)

// evLoopSupported: Linux has epoll.
const evLoopSupported = true

// The open loop on event loops, the way wrk2 runs: one goroutine per
// generator core owns non-blocking sockets registered (edge-triggered,
// once per connection) on an epoll of its own. It sends every hit that is
// due on a free connection of its own, reads and parses responses
// (http1.Parser) as they come, and when there is nothing to do polls briefly,
// then parks on that epoll in the runtime's poller until the next wake for
// due hits (at most one per loop batch, 1ms by default) or a response. A request
// costs one write, one read and a share of one wake: no goroutine per
// request parks or wakes, and no runtime timer is set per request.
//
// Timing is as in the goroutine workers: latency counts from the hit's
// intended time, Start is the send, Wait the time a due hit queued for a
// connection at the cap, and enter/exit bound the time in the generator.

// evLoopRuns counts the runs whose open loop ran on event loops (for tests).
var evLoopRuns atomic.Int64

// Tuning of the loops.
const (
	// evYieldEvery: a loop that has not given its processor back for this
	// long yields it (runtime.Gosched), so that the runtime's timers, the
	// engine's clock and the garbage collector run on a one-core generator.
	evYieldEvery = time.Millisecond
	// evMinConnsPerLoop: a cap below this many connections per core runs
	// on fewer loops.
	evMinConnsPerLoop = 8
	// evMaxWait bounds one wait with nothing due.
	evMaxWait = 100 * time.Millisecond
	// evEvents is how many readiness events one wait returns at most.
	evEvents = 256
	// evWakeSlot marks the loop's eventfd in epoll events, evTimerSlot
	// its timerfd.
	evWakeSlot  = -1
	evTimerSlot = -2
)

// Bursts of sends: the loop batch (EngineSettings.LoopBatch, default
// DefaultLoopBatch; PERFGATE_LOOP_BATCH, loop_batch) is the least time
// between two of a loop's bursts of sends: a burst sends every hit due by
// then, whatever woke the loop (the deadline for the next hit, or a
// response), so that at high rates one wake (and one context switch) serves
// several requests and their responses come back together, as with wrk2's
// millisecond timer. Were a response's wake to send the hits due at once,
// every response would wake the loop for one send, whose response wakes it
// again. A hit waits up to the loop batch past its intended time, which
// latency (counted from the intended time) and the schedule lag show; at
// rates below 1/batch per loop hits are sent on time. NoLoopBatch sends
// each hit when due.

// EngineSettings.LoopSpin is how long a loop with at least evSpinBusy responses
// outstanding polls for them (epoll_wait with no timeout) before it
// parks: a response that arrives within it costs a system call rather
// than a sleep and a wake. Off by default: with sends in bursts (the loop batch)
// a loop parks about once per burst already, and polling measured no
// cheaper at 20k req/s and dearer at low rates. EngineSettings.LoopSpin
// (loop_spin, --loop-spin, PERFGATE_LOOP_SPIN) sets it.
const evSpinBusy = 2

// evMaxDialing bounds a loop's connections being opened at once: while
// that many connects are in progress, due hits wait for the first
// connection to come free or to open (their wait measured, as at the cap),
// so that a target slow to accept gets new connections at the pace it
// takes them, not a burst that overflows its listen queue (whose dropped
// connects the kernel retries after a second).
const evMaxDialing = 8

// Connection states.
const (
	evClosed     = iota // no socket
	evIdle              // open, no request
	evConnecting        // non-blocking connect in progress, a hit attached
	evBusy              // a request written or being written, response pending
)

// evConn is one connection slot of a loop.
type evConn struct {
	slot, gen int32 // epoll data: which slot, which socket of it
	fd        int
	state     int
	p         *http1.Parser
	wire      []byte // the request being written
	wbuf      []byte // wire for a hit with a payload of its own
	sent      int    // bytes of wire written
	hit       Hit
	enter     time.Time // the loop took the hit
	start     time.Time // the request got this connection (Sample.Start)
	wait      time.Duration
	deadline  time.Time
	used      bool // has carried a whole response
	retried   bool // the hit was retried once on a fresh connection
	// unsolicited counts bytes that arrived while no request was pending:
	// the next request that takes the connection fails, as in http1.
	unsolicited int
}

// evQueued is a due hit waiting for a connection at the cap.
type evQueued struct {
	hit   Hit
	enter time.Time
}

// evLoop is one event loop.
type evLoop struct {
	e       *engine
	f       *feed
	cl      *http1.Client
	reqCtx  context.Context
	sa      unix.Sockaddr
	domain  int
	timeout time.Duration
	scan    time.Duration // deadlines are checked this often

	epfd, efd int
	tfd       int        // timerfd, -1 without one
	mu        sync.Mutex // guards efd against the context callbacks
	closed    bool
	stop      atomic.Bool // the load phase ended: take no more hits
	abandon   atomic.Bool // requests are cancelled: fail what is in flight
	unwatch   []func() bool

	conns     []*evConn
	idle      []*evConn // open and idle: a stack, the one used last on top
	cold      []*evConn
	pending   []evQueued // FIFO: pending[pendHead:]
	pendHead  int
	busy      int // connections with a hit
	dialing   int // connections in evConnecting
	next      Hit
	hasNext   bool
	feedDone  bool
	nextScan  time.Time
	lastYield time.Time
	// lastSend is when the loop last sent a hit it woke for; batch is
	// the least time between two such wakes (the loop batch, above).
	lastSend time.Time
	batch    time.Duration
	spin     time.Duration
	events   []unix.EpollEvent
	// file wraps epfd for the runtime's poller (rc), where wait parks;
	// deadline is its read deadline, n the events waitStep found.
	file     *os.File
	rc       syscall.RawConn
	deadline time.Time
	n        int
	waitFn   func(uintptr) bool
}

// startLoops starts one loop per generator core, splitting the connection
// cap between them. It returns false, having started none, when the target
// cannot be resolved or the loops cannot be set up: the goroutine workers
// then run the load (and report any dial errors per request).
func (e *engine) startLoops(ctx, reqCtx context.Context, f *feed, cl *http1.Client) bool {
	addr, err := net.ResolveTCPAddr("tcp", cl.Addr())
	if err != nil {
		return false
	}
	var sa unix.Sockaddr
	domain := unix.AF_INET
	if ip4 := addr.IP.To4(); ip4 != nil {
		sa4 := &unix.SockaddrInet4{Port: addr.Port}
		copy(sa4.Addr[:], ip4)
		sa = sa4
	} else {
		sa6 := &unix.SockaddrInet6{Port: addr.Port}
		copy(sa6.Addr[:], addr.IP.To16())
		sa, domain = sa6, unix.AF_INET6
	}
	// A loop's hits wait for its own connections only: a small cap split
	// many ways would make hits wait while another loop has one free.
	n := max(min(generatorCores(), e.o.MaxConns/evMinConnsPerLoop), 1)
	timeout := cl.Timeout()
	scan := 10 * time.Millisecond
	if timeout > 0 {
		scan = min(max(timeout/16, time.Millisecond), scan)
	}
	loops := make([]*evLoop, 0, n)
	for i := range n {
		l := &evLoop{e: e, f: f, cl: cl, reqCtx: reqCtx, sa: ownSockaddr(sa), domain: domain,
			timeout: timeout, scan: scan, events: make([]unix.EpollEvent, evEvents), batch: e.o.Engine.batch(), spin: e.o.Engine.LoopSpin}
		size := e.o.MaxConns / n
		if i < e.o.MaxConns%n {
			size++
		}
		if err := l.open(size); err != nil {
			for _, l := range loops {
				l.shutdown()
			}
			l.shutdown()
			return false
		}
		loops = append(loops, l)
	}
	evLoopRuns.Add(1)
	e.burst = loops[0].batch
	for _, l := range loops {
		l.unwatch = append(l.unwatch,
			context.AfterFunc(ctx, func() { l.stop.Store(true); l.wake() }),
			context.AfterFunc(reqCtx, func() { l.abandon.Store(true); l.wake() }))
		e.workers.Add(1)
		go l.run()
	}
	return true
}

// open makes the loop's epoll, its wake-up eventfd, and size slots.
func (l *evLoop) open(size int) error {
	l.epfd, l.efd = -1, -1
	var err error
	if l.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return err
	}
	if l.efd, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC); err != nil {
		return err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: evWakeSlot}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, l.efd, &ev); err != nil {
		return err
	}
	// With bursts under a millisecond apart (PERFGATE_LOOP_BATCH), a
	// timerfd ends a park at the next burst to the microsecond: the
	// runtime's timers (a read deadline on the epoll descriptor) have a
	// millisecond's grain when the process is idle. With the default
	// millisecond bursts the runtime's timers are enough, and measured
	// cheaper: 10.8-12.5 µs a request at 20k req/s against 12.7-15.3 with
	// the timerfd (schedule lag P99 1.5 ms against 1.0).
	l.tfd = -1
	if l.batch < time.Millisecond {
		if tfd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC); err == nil {
			ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: evTimerSlot}
			if unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, tfd, &ev) == nil {
				l.tfd = tfd
			} else {
				unix.Close(tfd)
			}
		}
	}
	if err := unix.SetNonblock(l.epfd, true); err != nil {
		return err
	}
	l.file = os.NewFile(uintptr(l.epfd), "epoll")
	if l.rc, err = l.file.SyscallConn(); err != nil {
		return err
	}
	l.waitFn = l.waitStep
	l.conns = make([]*evConn, size)
	l.cold = make([]*evConn, 0, size)
	l.idle = make([]*evConn, 0, size)
	for i := range l.conns {
		l.conns[i] = &evConn{slot: int32(i), fd: -1}
	}
	for i := size - 1; i >= 0; i-- { // slot 0 is taken first
		l.cold = append(l.cold, l.conns[i])
	}
	return nil
}

// wake interrupts the loop's wait (from a context callback).
func (l *evLoop) wake() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.closed {
		one := [8]byte{1}
		unix.Write(l.efd, one[:])
	}
}

// shutdown closes every socket and the loop's own descriptors.
func (l *evLoop) shutdown() {
	for _, stop := range l.unwatch {
		stop()
	}
	for _, c := range l.conns {
		if c.fd >= 0 {
			unix.Close(c.fd)
			c.fd = -1
		}
	}
	switch {
	case l.file != nil:
		l.file.Close()
	case l.epfd >= 0:
		unix.Close(l.epfd)
	}
	if l.tfd >= 0 {
		unix.Close(l.tfd)
	}
	l.mu.Lock()
	l.closed = true
	if l.efd >= 0 {
		unix.Close(l.efd)
	}
	l.mu.Unlock()
}

// run is the loop.
func (l *evLoop) run() {
	defer l.e.workers.Done()
	defer l.shutdown()
	l.lastYield = now()
	for {
		t := now()
		if l.abandon.Load() {
			l.abandonAll(t)
			return
		}
		if !l.stop.Load() {
			l.issue(t)
		}
		l.servePending(t)
		if (l.feedDone || l.stop.Load()) && l.busy == 0 && l.pendHead == len(l.pending) {
			return
		}
		d := l.waitFor(t)
		n := 0
		if l.spin > 0 && l.busy >= evSpinBusy && d > 0 {
			// Responses are due: poll for them a while before sleeping.
			for until := t.Add(min(l.spin, d)); n == 0; {
				n = l.poll()
				if n > 0 || !now().Before(until) {
					break
				}
			}
			if n == 0 {
				d = max(d-l.spin, 0)
			}
		}
		if n == 0 {
			n = l.wait(d, t)
		}
		t = now()
		for i := range n {
			l.event(&l.events[i], t)
		}
		if l.busy > 0 && !t.Before(l.nextScan) {
			l.expire(t)
		}
		if t.Sub(l.lastYield) >= evYieldEvery {
			runtime.Gosched()
			l.lastYield = t
		}
	}
}

// issue takes every hit that is due and sends it, at most once per batch
// period: a wake for a response within it leaves the hits due for the
// next burst, so that sends (and their responses) keep coming in bursts.
func (l *evLoop) issue(t time.Time) {
	if l.batch > 0 && t.Sub(l.lastSend) < l.batch {
		return
	}
	for {
		if !l.hasNext {
			if l.feedDone {
				return
			}
			h, ok := l.f.next()
			if !ok {
				l.feedDone = true
				return
			}
			l.next, l.hasNext = h, true
		}
		if l.next.Intended.After(t) {
			return
		}
		l.hasNext = false
		l.lastSend = t
		l.e.sentHit(l.next.Intended)
		if !l.dispatch(l.next, t, t) {
			if len(l.cold) == 0 {
				l.e.exhausted.Add(1) // due while every connection was busy at the cap
			}
			l.pending = append(l.pending, evQueued{hit: l.next, enter: t})
		}
	}
}

// servePending sends the hits queued at the cap while connections are free.
func (l *evLoop) servePending(t time.Time) {
	for l.pendHead < len(l.pending) && (len(l.idle) > 0 || len(l.cold) > 0 && l.dialing < evMaxDialing) {
		q := l.pending[l.pendHead]
		l.pending[l.pendHead] = evQueued{}
		l.pendHead++
		l.dispatch(q.hit, q.enter, t)
	}
	if l.pendHead == len(l.pending) {
		l.pending, l.pendHead = l.pending[:0], 0
	}
}

// dispatch sends h on an idle connection, or on a new one, and reports
// false when every connection of the loop is busy.
func (l *evLoop) dispatch(h Hit, enter, t time.Time) bool {
	var c *evConn
	switch {
	case len(l.idle) > 0:
		c = l.idle[len(l.idle)-1]
		l.idle = l.idle[:len(l.idle)-1]
	case len(l.cold) > 0 && l.dialing < evMaxDialing:
		c = l.cold[len(l.cold)-1]
		l.cold = l.cold[:len(l.cold)-1]
	default:
		return false
	}
	c.hit, c.enter, c.start, c.wait = h, enter, t, t.Sub(enter)
	c.retried = false
	if l.timeout > 0 {
		c.deadline = t.Add(l.timeout)
		if l.busy == 0 {
			l.nextScan = t.Add(l.scan)
		}
	}
	l.busy++
	l.e.inFlight.Add(1)
	c.wire = l.cl.Request()
	if h.Payload != nil {
		c.wbuf = l.cl.AppendRequest(c.wbuf[:0], h.Payload)
		c.wire = c.wbuf
	}
	if c.state == evClosed {
		l.dial(c, t)
		return true
	}
	if c.unsolicited > 0 {
		l.fail(c, t, fmt.Errorf("%w: the server sent %d bytes before the request was written: an unsolicited response", http1.ErrProtocol, c.unsolicited))
		return true
	}
	l.send(c, t)
	return true
}

// send starts writing c's request on its open connection.
func (l *evLoop) send(c *evConn, t time.Time) {
	c.state, c.sent = evBusy, 0
	c.p.Reset()
	l.write(c, t)
}

// ownSockaddr is a copy of sa for one loop: unix.Connect writes the raw
// form into the Sockaddr it is given, so loops dialling at once must not
// share one (the race detector saw them do so).
func ownSockaddr(sa unix.Sockaddr) unix.Sockaddr {
	switch v := sa.(type) {
	case *unix.SockaddrInet4:
		c := &unix.SockaddrInet4{Port: v.Port, Addr: v.Addr}
		return c
	case *unix.SockaddrInet6:
		c := &unix.SockaddrInet6{Port: v.Port, ZoneId: v.ZoneId, Addr: v.Addr}
		return c
	}
	return sa
}

// dial opens a connection for c's hit, without waiting for it.
func (l *evLoop) dial(c *evConn, t time.Time) {
	fd, err := unix.Socket(l.domain, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		l.fail(c, t, l.dialErr(err))
		return
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	err = unix.Connect(fd, l.sa)
	if err != nil && err != unix.EINPROGRESS {
		unix.Close(fd)
		l.fail(c, t, l.dialErr(err))
		return
	}
	c.gen++
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: c.slot, Pad: c.gen}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(fd)
		l.fail(c, t, l.dialErr(err))
		return
	}
	c.fd, c.state, c.used, c.unsolicited = fd, evConnecting, false, 0
	if c.p == nil {
		c.p = l.cl.NewParser()
	}
	c.p.Reset()
	if err == nil { // connected at once
		l.send(c, t)
		return
	}
	l.dialing++
}

func (l *evLoop) dialErr(err error) error {
	return fmt.Errorf("http1: dial %s: %w: %w", l.cl.Addr(), http1.ErrConnection, os.NewSyscallError("connect", err))
}

// event handles one readiness event.
func (l *evLoop) event(ev *unix.EpollEvent, t time.Time) {
	switch ev.Fd {
	case evWakeSlot:
		var b [8]byte
		unix.Read(l.efd, b[:])
		return
	case evTimerSlot:
		var b [8]byte
		unix.Read(l.tfd, b[:])
		return
	}
	c := l.conns[ev.Fd]
	if c.gen != ev.Pad { // a socket closed since, earlier in this batch
		return
	}
	switch c.state {
	case evConnecting:
		if ev.Events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if errno, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || errno != 0 {
			if err == nil {
				err = syscall.Errno(errno)
			}
			l.fail(c, t, l.dialErr(err))
			return
		}
		l.dialing--
		l.send(c, t)
	case evBusy:
		if c.sent < len(c.wire) {
			if ev.Events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
				l.write(c, t)
			}
			if c.state != evBusy || c.sent < len(c.wire) {
				return
			}
			// Written at last: a response may have begun while the
			// request went out (an early 413), its edge already taken.
		}
		l.read(c, t, ev.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0)
	case evIdle:
		l.readIdle(c)
	}
}

// write writes what is left of c's request; a full send buffer waits for
// EPOLLOUT.
func (l *evLoop) write(c *evConn, t time.Time) {
	for c.sent < len(c.wire) {
		w := c.wire[c.sent:]
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(c.fd), uintptr(unsafe.Pointer(&w[0])), uintptr(len(w)))
		switch errno {
		case 0:
			c.sent += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return
		default:
			l.ioFail(c, t, "writing request", errno)
			return
		}
	}
}

// read reads what has arrived of c's response and completes it when whole.
// A short read has drained the socket, so the next bytes bring another
// edge, unless the peer has closed its side (hup): then no edge follows,
// and the end of the connection must be read now.
func (l *evLoop) read(c *evConn, t time.Time, hup bool) {
	for {
		sp := c.p.Space()
		if len(sp) == 0 { // the parser refuses lines longer than its buffer first
			l.fail(c, t, fmt.Errorf("%w: response line longer than the read buffer", http1.ErrProtocol))
			return
		}
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&sp[0])), uintptr(len(sp)))
		switch errno {
		case 0:
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return
		default:
			l.ioFail(c, t, "reading response", errno)
			return
		}
		if n == 0 {
			if done, err := c.p.EOF(); done {
				l.complete(c, t, true)
			} else {
				l.ioFail(c, t, "reading response", err)
			}
			return
		}
		c.p.Wrote(int(n))
		done, err := c.p.Parse()
		switch {
		case err != nil:
			l.fail(c, t, fmt.Errorf("http1: reading response: %w", err))
			return
		case done:
			l.complete(c, t, false)
			return
		case int(n) < len(sp) && !hup:
			return // drained: the next bytes bring another edge
		}
	}
}

// readIdle reads an idle connection that became readable: the server
// closed it, or sent something unasked.
func (l *evLoop) readIdle(c *evConn) {
	var b [512]byte
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			return
		case errno != 0 || n == 0:
			l.closeConn(c)
			l.removeIdle(c)
			return
		}
		c.unsolicited += int(n)
	}
}

// removeIdle takes c, just closed, off the idle stack onto the cold one.
func (l *evLoop) removeIdle(c *evConn) {
	for i, x := range l.idle {
		if x == c {
			l.idle = append(l.idle[:i], l.idle[i+1:]...)
			break
		}
	}
	l.cold = append(l.cold, c)
}

// ioFail fails c's request after a read or write error, or the end of the
// connection, unless it is the first failure of a request on a reused
// connection before any byte of the response: the server may have closed
// the idle connection as the request went out, so it is retried once on a
// fresh connection, as http1 and net/http do.
func (l *evLoop) ioFail(c *evConn, t time.Time, op string, err error) {
	if c.used && !c.retried && !c.p.Started() {
		l.closeConn(c)
		c.retried = true
		l.dial(c, t)
		return
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	l.fail(c, t, fmt.Errorf("http1: %s: %w: %w", op, http1.ErrConnection, err))
}

// complete records c's whole response and frees the connection; closed
// reports that the connection ended it.
func (l *evLoop) complete(c *evConn, t time.Time, closed bool) {
	code := c.p.Status()
	s := Sample{Hit: c.hit, Start: c.start, End: t, Wait: c.wait, Code: code, enter: c.enter, exit: t}
	if code >= 300 {
		s.Class, s.Err = HTTPClass(code), httpStatusText(code)
	}
	c.used = true
	if closed || c.p.Close() {
		l.closeConn(c)
		l.cold = append(l.cold, c)
	} else {
		c.state = evIdle
		c.unsolicited = c.p.Buffered()
		l.idle = append(l.idle, c)
	}
	l.record(&s)
}

// fail records c's request as failed with err and closes its connection.
func (l *evLoop) fail(c *evConn, t time.Time, err error) {
	s := Sample{Hit: c.hit, Start: c.start, End: t, Wait: c.wait, enter: c.enter, exit: t}
	s.Class, s.Err = ClassifyError(l.reqCtx, err), err.Error()
	l.closeConn(c)
	l.cold = append(l.cold, c)
	l.record(&s)
}

// record hands a finished request's sample to the recorder.
func (l *evLoop) record(s *Sample) {
	l.busy--
	l.e.inFlight.Add(-1)
	l.e.rec.record(s)
}

// closeConn closes c's socket (which leaves the epoll set with it).
func (l *evLoop) closeConn(c *evConn) {
	if c.state == evConnecting {
		l.dialing--
	}
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
	c.state = evClosed
	c.gen++
}

// expire fails the requests past their deadline, as timeouts.
func (l *evLoop) expire(t time.Time) {
	l.nextScan = t.Add(l.scan)
	for _, c := range l.conns {
		if (c.state == evBusy || c.state == evConnecting) && !t.Before(c.deadline) {
			l.fail(c, t, fmt.Errorf("http1: request timed out after %v: %w", l.timeout, os.ErrDeadlineExceeded))
		}
	}
}

// abandonAll fails every request in flight or queued as cancelled: the
// drain ran out, or the run was interrupted. The recorder counts them as
// timeouts.
func (l *evLoop) abandonAll(t time.Time) {
	err := fmt.Errorf("http1: reading response: %w", context.Canceled)
	for _, c := range l.conns {
		if c.state == evBusy || c.state == evConnecting {
			l.fail(c, t, err)
		}
	}
	for _, q := range l.pending[l.pendHead:] { // never sent: not in flight
		s := Sample{Hit: q.hit, Start: t, End: t, Wait: t.Sub(q.enter), enter: q.enter, exit: t,
			Class: ClassifyError(l.reqCtx, err), Err: err.Error()}
		l.e.rec.record(&s)
	}
	l.pending, l.pendHead = l.pending[:0], 0
}

// waitFor returns how long the loop may wait for readiness from t: until
// the next hit is due, or the next deadline check.
func (l *evLoop) waitFor(t time.Time) time.Duration {
	d := evMaxWait
	if l.hasNext && !l.stop.Load() {
		due := l.next.Intended
		if at := l.lastSend.Add(l.batch); due.Before(at) {
			due = at
		}
		d = min(d, due.Sub(t))
	}
	if l.busy > 0 && l.timeout > 0 {
		d = min(d, l.nextScan.Sub(t))
	}
	return max(d, 0)
}

// wait waits up to d (from t) for readiness and returns the number of
// events. It polls first; when nothing is ready it parks the goroutine in
// the runtime's poller on the loop's epoll descriptor (readable when any
// of its sockets, or its eventfd, has an event), with a deadline at the
// end of the wait: the processor is free meanwhile for the rest of the
// process (the engine's clock, telemetry, an in-process target), and the
// runtime's timer, of millisecond grain, ends the wait.
func (l *evLoop) wait(d time.Duration, t time.Time) int {
	if n := l.poll(); n > 0 || d <= 0 {
		return n
	}
	if l.tfd >= 0 {
		// Relative to now: t was read a moment ago, so the wake is a
		// little late rather than early.
		its := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
		unix.TimerfdSettime(l.tfd, 0, &its, nil)
	} else if due := t.Add(d); !due.Equal(l.deadline) {
		l.file.SetReadDeadline(due)
		l.deadline = due
	}
	l.n = 0
	err := l.rc.Read(l.waitFn)
	l.lastYield = now()
	if err != nil { // the deadline: time to send
		return 0
	}
	return l.n
}

// waitStep is wait's callback for the runtime's poller: done when the
// epoll descriptor has events.
func (l *evLoop) waitStep(uintptr) bool {
	l.n = l.poll()
	return l.n > 0
}

// poll returns the events ready now, without waiting.
func (l *evLoop) poll() int {
	for {
		n, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_WAIT, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])), evEvents, 0, 0, 0)
		switch errno {
		case 0:
			return int(n)
		case syscall.EINTR:
			continue
		}
		return 0 // cannot happen with a valid epoll descriptor
	}
}
