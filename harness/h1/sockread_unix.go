//go:build unix

package h1

import (
	"io"
	"net"
	"os"
	"syscall"
)

// sockReader reads a TCP connection through its raw file descriptor so
// that it can skip a read that is bound to fail. After a request is
// written its response cannot be there yet: net.Conn.Read would try read(2)
// anyway, get EAGAIN, and only then wait for the poller. With expect set,
// the first attempt waits for the poller at once, saving a system call per
// request. Go's poller is edge-triggered and remembers readiness, so no
// wake-up is lost: the worst case is the EAGAIN read it set out to avoid.
type sockReader struct {
	rc syscall.RawConn
	// expect is set after a request is written: the next Read waits for
	// readability before its first read(2).
	expect bool
	// drained reports that the last read(2) left the socket empty (it
	// returned less than asked), so no byte can be waiting unannounced.
	drained bool
	p       []byte
	n      int
	err    error
	// fn is s.read, bound once so that Read does not allocate a closure.
	fn func(fd uintptr) bool
}

// newSockReader returns a sockReader for nc, or nil when nc has no raw
// descriptor to read from.
func newSockReader(nc net.Conn) *sockReader {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	s := &sockReader{rc: rc, drained: true}
	s.fn = s.read
	return s
}

// expectResponse is called after a request is written: the next Read may
// skip its first read(2), unless bytes could already be waiting.
func (s *sockReader) expectResponse() {
	s.expect = s.drained
}

// Read implements io.Reader. Deadlines and Close apply as to nc.Read: the
// poller wait returns their errors.
func (s *sockReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.p, s.n, s.err = p, 0, nil
	if err := s.rc.Read(s.fn); err != nil {
		s.p = nil
		return 0, err
	}
	s.p = nil
	if s.err != nil {
		return s.n, s.err
	}
	if s.n == 0 {
		return 0, io.EOF
	}
	return s.n, nil
}

// read is the raw read callback: false means "wait until readable".
func (s *sockReader) read(fd uintptr) bool {
	if s.expect {
		s.expect = false
		return false
	}
	for {
		n, err := syscall.Read(int(fd), s.p)
		switch err {
		case nil:
			s.n = n
			s.drained = n < len(s.p)
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		s.err = os.NewSyscallError("read", err)
		return true
	}
}
