//go:build unix

package h1

import (
	"os"
	"syscall"
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
		n, err := syscall.Write(int(fd), c.wire[c.sent:])
		if n > 0 {
			c.sent += n
		}
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return true // the send buffer is full: net.Conn.Write waits for room
		case err != nil:
			c.sendErr = err
			return true
		case c.sent < len(c.wire):
			continue
		}
		return false
	}
}
