// Package capread reads the files perfgate is given with a size cap, so
// that a result, baseline, payload, trace or dataset that is huge, or a
// link to a device such as /dev/zero, is refused with its name before it
// is read into memory (issue 28: a baseline linked to /dev/zero ran
// perfgate out of memory).
package capread

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// The caps, documented in docs/hardening.md.
const (
	// Result caps a result or baseline file (perfgate writes a few MiB
	// at most: histograms are about 1 KiB a trial).
	Result = 64 << 20
	// Body caps a request payload file (as http1.MaxKeptBody caps a
	// response).
	Body = 16 << 20
	// Lines caps a trace or a prompt dataset (JSON lines, read whole).
	Lines = 256 << 20
	// Config caps perfgate.yaml and the small JSON files beside results
	// (manifest.json, a bundle's pr.json).
	Config = 4 << 20
	// PEM caps a TLS file (tls.ca, tls.cert, tls.key): the system's whole
	// CA bundle is about 200 KiB.
	PEM = 4 << 20
	// Traffic caps a traffic curve (capacity.traffic, size --traffic).
	Traffic = 256 << 20
)

// OpenRegular opens path for reading, refusing anything but a regular
// file, without a size cap: for a caller that reads a bounded part of it
// (the tail of a log) or only checks that it can be read. See Open for
// why it does not block on a FIFO.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%v): refused", path, st.Mode().Type())
	}
	return f, nil
}

// Open opens path for reading, refusing anything but a regular file
// (a device, a FIFO, a folder) and a file larger than max bytes. The
// returned reader also stops after max bytes, should the file grow.
//
// The file is opened with O_NONBLOCK: opening a FIFO for reading
// otherwise waits, in a system call no signal's handler interrupts, until
// something opens it for writing, so a FIFO planted where a file was
// expected hung perfgate. Non-blocking, the open returns at once and the
// FIFO is refused by its mode; for a regular file the flag changes
// nothing.
func Open(path string, max int64) (io.ReadCloser, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.Size() > max {
		f.Close()
		return nil, fmt.Errorf("%s is %d bytes, more than the %d MiB perfgate reads from such a file: refused", path, st.Size(), max>>20)
	}
	return limited{io.LimitReader(f, max+1), f, path, max}, nil
}

// ReadFile reads path whole (see Open).
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// limited reads at most max bytes, failing when there are more.
type limited struct {
	r    io.Reader
	f    *os.File
	path string
	max  int64
}

func (l limited) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if lr := l.r.(*io.LimitedReader); lr.N <= 0 {
		return n, fmt.Errorf("%s grew past %d MiB while being read: refused", l.path, l.max>>20)
	}
	return n, err
}

func (l limited) Close() error { return l.f.Close() }
