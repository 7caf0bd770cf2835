package http1

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// ErrProtocol is wrapped by every error caused by a malformed response: a
// bad status line, header, Content-Length or chunked encoding.
var ErrProtocol = errors.New("http1: protocol error")

// ErrConnection is wrapped by every error caused by the connection rather
// than the response's content: a failed dial, a reset, or the server
// closing the connection before the response was complete. Timeouts are
// not connection errors (see IsTimeout).
var ErrConnection = errors.New("http1: connection error")

// ErrClosed is returned by Do after Close.
var ErrClosed = errors.New("http1: client closed")

// IsTimeout reports whether err is a timeout: a net.Error whose Timeout
// method returns true (a missed deadline, or context.DeadlineExceeded).
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// protoErr returns a protocol error describing what was malformed.
func protoErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrProtocol}, args...)...)
}

// ioErr classifies an error from dialling, writing or reading. A context
// that ended wins (its error says why the request stopped); a timeout stays
// a net.Error; anything else is a connection error. Protocol errors pass
// through unchanged.
func ioErr(ctx context.Context, op string, err error) error {
	if errors.Is(err, ErrProtocol) {
		return err
	}
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("http1: %s: %w", op, cerr)
	}
	if IsTimeout(err) {
		// The connection's deadline may be the context's, reached an
		// instant before the context itself says so.
		if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
			return fmt.Errorf("http1: %s: %w", op, context.DeadlineExceeded)
		}
		return fmt.Errorf("http1: %s: %w", op, err)
	}
	if err == io.EOF {
		// The connection ended where a response or more of one was due.
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("http1: %s: %w: %w", op, ErrConnection, err)
}
