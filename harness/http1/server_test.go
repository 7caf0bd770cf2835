package http1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// rawServer is a TCP server on 127.0.0.1 that speaks just enough HTTP to
// read requests and answers them with whatever bytes a test wants,
// well-formed or not.
type rawServer struct {
	URL      string
	accepted atomic.Int64
	ln       net.Listener
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

// serveFunc handles one accepted connection: n counts the connections
// accepted so far (1 for the first). It returns when done with the
// connection, which is then closed.
type serveFunc func(n int64, c net.Conn, r *bufio.Reader)

// newRawServer starts a raw server running serve for each connection; it
// is stopped, and its connections closed, when the test ends.
func newRawServer(t testing.TB, serve serveFunc) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{URL: "http://" + ln.Addr().String() + "/x", ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := s.accepted.Add(1)
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				serve(n, c, bufio.NewReader(c))
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

// readRequest reads one request and its body from r; ok is false at the
// end of the connection or on a malformed request.
func readRequest(r *bufio.Reader) (req *http.Request, body []byte, ok bool) {
	req, err := http.ReadRequest(r)
	if err != nil {
		return nil, nil, false
	}
	body, err = io.ReadAll(req.Body)
	return req, body, err == nil
}

// replyAlways answers every request on a connection with resp.
func replyAlways(resp string) serveFunc {
	return func(_ int64, c net.Conn, r *bufio.Reader) {
		for {
			if _, _, ok := readRequest(r); !ok {
				return
			}
			if _, err := io.WriteString(c, resp); err != nil {
				return
			}
		}
	}
}

// replyFast answers every request on a connection with resp, like
// replyAlways, but parses only the request's framing so that it allocates
// nothing per request (for allocation counts and benchmarks). It reads
// Content-Length bodies only.
func replyFast(resp string) serveFunc {
	wire := []byte(resp)
	return func(_ int64, c net.Conn, r *bufio.Reader) {
		for {
			n := 0
			for {
				line, err := r.ReadSlice('\n')
				if err != nil {
					return
				}
				line = trimOWS(bytes.TrimRight(line, "\r\n"))
				if len(line) == 0 {
					break
				}
				if i := bytes.IndexByte(line, ':'); i > 0 && equalFold(line[:i], "content-length") {
					n, _ = parseDecimal(trimOWS(line[i+1:]))
				}
			}
			if _, err := r.Discard(n); err != nil {
				return
			}
			if _, err := c.Write(wire); err != nil {
				return
			}
		}
	}
}

// stall reads requests and never answers until the connection closes.
func stall(_ int64, c net.Conn, r *bufio.Reader) {
	io.Copy(io.Discard, r)
}

// newCountingServer starts an httptest server with h and returns it with a
// counter of the TCP connections it accepted.
func newCountingServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &n
}

// class names the error classes the package documents, for table tests.
func class(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrProtocol):
		return "protocol"
	case IsTimeout(err):
		return "timeout"
	case errors.Is(err, ErrConnection):
		return "connection"
	default:
		return "other: " + err.Error()
	}
}

// newClient returns a client for o, closed when the test ends.
func newClient(t testing.TB, o Options) *Client {
	t.Helper()
	cl, err := New(o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}
