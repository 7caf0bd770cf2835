//go:build unix

package http1

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// rawConn returns c's socket for direct system calls, set up once per
// connection; nil when the connection is not a socket.
func (c *conn) rawConn() syscall.RawConn {
	if c.raw != nil {
		return c.raw
	}
	sc, isSys := c.nc.(syscall.Conn)
	if !isSys {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	c.raw = raw
	if c.peekFn == nil {
		c.peekFn = func(fd uintptr) bool {
			c.peekN, _, c.peekErr = syscall.Recvfrom(int(fd), c.peekBuf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			return true
		}
		c.sendFn = c.sendStepFn
	}
	return raw
}

// peekSocket reports, without blocking and without allocating, whether
// bytes wait on c's socket (n > 0) or the peer has closed it: one
// recv(MSG_PEEK|MSG_DONTWAIT) system call. ok is false when the socket
// cannot be reached this way (then the caller falls back to a deadline).
func (c *conn) peekSocket() (n int, closed, ok bool) {
	raw := c.rawConn()
	if raw == nil {
		return 0, false, false
	}
	if err := raw.Read(c.peekFn); err != nil {
		return 0, true, true
	}
	switch {
	case c.peekErr == syscall.EAGAIN || c.peekErr == syscall.EWOULDBLOCK || c.peekErr == syscall.EINTR:
		return 0, false, true
	case c.peekErr != nil:
		return 0, true, true // reset
	case c.peekN == 0:
		return 0, true, true // orderly close
	}
	return c.peekN, false, true
}

// send writes wire and returns once the response has begun to arrive (or
// the connection has something else to say: a close, a reset), so that
// the read that follows finds bytes waiting.
//
// Writing with net.Conn.Write and then reading costs three system calls
// when the response is not there yet: the write, a read that finds
// nothing (EAGAIN), and the read after the poller's wake-up. send writes
// from inside the socket's raw read callback instead: the runtime arms the
// read readiness before the callback runs, the callback writes and asks
// to wait, and the wake-up comes when the response's first bytes are in.
// One write and one read. A write that does not go whole at once (a full
// send buffer) finishes through net.Conn.Write, which waits for room.
// wrote reports that the whole request was written: an error after that
// is the response's.
func (c *conn) send(wire []byte) (wrote bool, err error) {
	raw := c.rawConn()
	if raw == nil {
		_, err := c.nc.Write(wire)
		return err == nil, err
	}
	c.wire, c.sent, c.sendErr, c.sendStep = wire, 0, nil, 0
	err = raw.Read(c.sendFn)
	c.wire = nil
	switch {
	case c.sendErr != nil:
		return false, os.NewSyscallError("write", c.sendErr)
	case c.sent == len(wire):
		return true, err // err: the wait for the response failed
	case err != nil && c.sendStep == 0:
		return false, err // closed, or past its deadline, before the write
	}
	_, err = c.nc.Write(wire[c.sent:])
	return err == nil, err
}

// sendStepFn is send's raw callback: on its first call it writes and asks
// to wait for readability (false); on the next, after the wake-up, it is
// done (true). A failed or partial write ends it at once.
func (c *conn) sendStepFn(fd uintptr) bool {
	if c.sendStep > 0 {
		return true
	}
	c.sendStep = 1
	for {
		w := c.wire[c.sent:]
		n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&w[0])), uintptr(len(w)))
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			return true // the send buffer is full: net.Conn.Write waits for room
		case errno != 0:
			c.sendErr = errno
			return true
		}
		c.sent += int(n)
		if c.sent < len(c.wire) {
			continue
		}
		return false
	}
}

// sockReader reads c's socket for its bufio.Reader.
//
// Both it and send make their read and write with syscall.RawSyscall,
// which does not tell the Go scheduler that the thread is in the kernel:
// the socket is non-blocking, so neither call can block, and a call the
// scheduler is told about costs a hand-off of the thread's processor to
// another thread whenever the kernel's loopback work (the write delivers
// to the server's socket there and then) outlasts the scheduler's 20 µs
// monitor tick: a futex wake and two context switches.
type sockReader struct {
	c    *conn
	p    []byte
	n    int
	err  error
	read func(fd uintptr) bool
}

// reader returns what c's bufio.Reader reads from: the socket through
// sockReader when it can be reached so, else the connection.
func (c *conn) reader() io.Reader {
	if c.rawConn() == nil {
		return c.nc
	}
	if c.sr.read == nil {
		c.sr.c = c
		c.sr.read = c.sr.readStep
	}
	return &c.sr
}

// Read implements io.Reader, waiting through the runtime's poller while
// nothing has arrived (honouring the connection's deadline).
func (r *sockReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	raw := r.c.rawConn()
	if raw == nil {
		return r.c.nc.Read(p)
	}
	r.p, r.n, r.err = p, 0, nil
	err := raw.Read(r.read)
	r.p = nil
	switch {
	case err != nil:
		return 0, err
	case r.err != nil:
		return 0, os.NewSyscallError("read", r.err)
	case r.n == 0:
		return 0, io.EOF
	}
	return r.n, nil
}

// readStep is Read's raw callback: false (wait) while the socket is empty.
func (r *sockReader) readStep(fd uintptr) bool {
	for {
		n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.p[0])), uintptr(len(r.p)))
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			return false
		case errno != 0:
			r.err = errno
			return true
		}
		r.n = int(n)
		return true
	}
}
