//go:build unix

package h1

import "syscall"

// peekSocket reports, without blocking and without allocating, whether
// bytes wait on c's socket (n > 0) or the peer has closed it: one
// recv(MSG_PEEK|MSG_DONTWAIT) system call. ok is false when the socket
// cannot be reached this way (then the caller falls back to a deadline).
func (c *conn) peekSocket() (n int, closed, ok bool) {
	if c.raw == nil {
		sc, isSys := c.nc.(syscall.Conn)
		if !isSys {
			return 0, false, false
		}
		raw, err := sc.SyscallConn()
		if err != nil {
			return 0, false, false
		}
		c.raw = raw
		c.peekFn = func(fd uintptr) bool {
			c.peekN, _, c.peekErr = syscall.Recvfrom(int(fd), c.peekBuf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			return true
		}
	}
	if err := c.raw.Read(c.peekFn); err != nil {
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
