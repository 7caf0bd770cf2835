//go:build !unix

package http1

import "io"

// sockReader is unused here.
type sockReader struct{}

// reader returns the connection: its bufio.Reader reads from it.
func (c *conn) reader() io.Reader { return c.nc }

// peekSocket is not available here: the caller falls back to a deadline.
func (c *conn) peekSocket() (n int, closed, ok bool) { return 0, false, false }

// send writes wire with net.Conn.Write.
func (c *conn) send(wire []byte) (wrote bool, err error) {
	_, err = c.nc.Write(wire)
	return err == nil, err
}
