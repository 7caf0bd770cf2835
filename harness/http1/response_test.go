package http1

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestResponses sends three requests in a row to a raw server answering
// each with a canned response, and checks each result and how many
// connections it took.
func TestResponses(t *testing.T) {
	type result struct {
		Status int
		Body   string
		Class  string
	}
	ok := result{200, "ok", ""}
	tests := []struct {
		name   string
		method string
		serve  serveFunc
		want   []result
		conns  int64 // connections the server accepted for the three
	}{
		{
			name:  "content-length keep-alive",
			serve: replyAlways("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
			want:  []result{ok, ok, ok}, conns: 1,
		},
		{
			name: "chunked with extension and trailer",
			serve: replyAlways("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
				"3;name=value\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n"),
			want:  []result{{200, "abc0123456789", ""}, {200, "abc0123456789", ""}, {200, "abc0123456789", ""}},
			conns: 1,
		},
		{
			name:  "connection close",
			serve: replyAlways("HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 2\r\n\r\nok"),
			want:  []result{ok, ok, ok}, conns: 3,
		},
		{
			name:  "http/1.0 without keep-alive",
			serve: replyAlways("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"),
			want:  []result{ok, ok, ok}, conns: 3,
		},
		{
			name:  "http/1.0 with keep-alive",
			serve: replyAlways("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok"),
			want:  []result{ok, ok, ok}, conns: 1,
		},
		{
			name: "body delimited by close",
			serve: func(_ int64, c net.Conn, r *bufio.Reader) {
				readRequest(r)
				io.WriteString(c, "HTTP/1.1 200 OK\r\n\r\nok")
			},
			want: []result{ok, ok, ok}, conns: 3,
		},
		// 204 and 304 have no body even when the headers claim one; the
		// next response follows at once on the same connection.
		{
			name:  "204 no content",
			serve: replyAlways("HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n"),
			want:  []result{{204, "", ""}, {204, "", ""}, {204, "", ""}}, conns: 1,
		},
		{
			name:  "304 not modified",
			serve: replyAlways("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n"),
			want:  []result{{304, "", ""}, {304, "", ""}, {304, "", ""}}, conns: 1,
		},
		{
			name:   "head",
			method: "HEAD",
			serve:  replyAlways("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"),
			want:   []result{{200, "", ""}, {200, "", ""}, {200, "", ""}}, conns: 1,
		},
		{
			name:  "interim 100 continue",
			serve: replyAlways("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
			want:  []result{ok, ok, ok}, conns: 1,
		},
		// A flood of 100 Continue is the server's fault (protocol), not
		// a slow answer (timeout).
		{
			name: "interim response flood",
			serve: func(_ int64, c net.Conn, r *bufio.Reader) {
				readRequest(r)
				// 100 Continue and never an answer, for at most 10 s.
				for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
					if _, err := io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
						return
					}
				}
			},
			want: []result{{0, "", "protocol"}, {0, "", "protocol"}, {0, "", "protocol"}}, conns: 3,
		},
		{
			name:  "interim responses up to the cap",
			serve: replyAlways(strings.Repeat("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", MaxInterim) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
			want:  []result{ok, ok, ok}, conns: 1,
		},
		{
			name:  "redirect not followed",
			serve: replyAlways("HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n"),
			want:  []result{{302, "", ""}, {302, "", ""}, {302, "", ""}}, conns: 1,
		},
		{
			name:  "bare LF line endings",
			serve: replyAlways("HTTP/1.1 200 OK\nContent-Length: 2\n\nok"),
			want:  []result{ok, ok, ok}, conns: 1,
		},
		{
			name:  "malformed status line",
			serve: replyAlways("HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok"),
			want:  []result{{0, "", "protocol"}, {0, "", "protocol"}, {0, "", "protocol"}}, conns: 3,
		},
		{
			name:  "not http",
			serve: replyAlways("SSH-2.0-OpenSSH\r\n"),
			want:  []result{{0, "", "protocol"}, {0, "", "protocol"}, {0, "", "protocol"}}, conns: 3,
		},
		{
			name:  "bad content-length",
			serve: replyAlways("HTTP/1.1 200 OK\r\nContent-Length: 2x\r\n\r\nok"),
			want:  []result{{0, "", "protocol"}, {0, "", "protocol"}, {0, "", "protocol"}}, conns: 3,
		},
		{
			name:  "bad chunk size",
			serve: replyAlways("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n"),
			want:  []result{{0, "", "protocol"}, {0, "", "protocol"}, {0, "", "protocol"}}, conns: 3,
		},
		{
			name:  "header without colon",
			serve: replyAlways("HTTP/1.1 200 OK\r\nContent-Length 2\r\n\r\nok"),
			want:  []result{{0, "", "protocol"}, {0, "", "protocol"}, {0, "", "protocol"}}, conns: 3,
		},
		{
			name:  "conflicting content-length",
			serve: replyAlways("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok"),
			want:  []result{{0, "", "protocol"}, {0, "", "protocol"}, {0, "", "protocol"}}, conns: 3,
		},
		{
			name:  "header line longer than the buffer",
			serve: replyAlways("HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("x", DefaultReadBufferSize) + "\r\nContent-Length: 2\r\n\r\nok"),
			want:  []result{{0, "", "protocol"}, {0, "", "protocol"}, {0, "", "protocol"}}, conns: 3,
		},
		{
			name:  "switching protocols",
			serve: replyAlways("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"),
			want:  []result{{0, "", "protocol"}, {0, "", "protocol"}, {0, "", "protocol"}}, conns: 3,
		},
		// A transfer coding other than chunked is not decoded: the body
		// runs to the end of the connection.
		{
			name: "gzip transfer coding",
			serve: func(_ int64, c net.Conn, r *bufio.Reader) {
				readRequest(r)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nok")
			},
			want: []result{ok, ok, ok}, conns: 3,
		},
		{
			name: "server closes mid-body",
			serve: func(_ int64, c net.Conn, r *bufio.Reader) {
				readRequest(r)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok")
			},
			want:  []result{{0, "", "connection"}, {0, "", "connection"}, {0, "", "connection"}},
			conns: 3,
		},
		{
			name: "server closes mid-chunk",
			serve: func(_ int64, c net.Conn, r *bufio.Reader) {
				readRequest(r)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nok")
			},
			want:  []result{{0, "", "connection"}, {0, "", "connection"}, {0, "", "connection"}},
			conns: 3,
		},
		// A fresh connection closed before any response is not retried.
		{
			name: "server closes before status",
			serve: func(_ int64, c net.Conn, r *bufio.Reader) {
				readRequest(r)
			},
			want:  []result{{0, "", "connection"}, {0, "", "connection"}, {0, "", "connection"}},
			conns: 3,
		},
		// A keep-alive connection the server closed after its response
		// (an idle timeout) is retried once on a new one: no error.
		{
			name: "stale keep-alive retried",
			serve: func(_ int64, c net.Conn, r *bufio.Reader) {
				readRequest(r)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				time.Sleep(20 * time.Millisecond) // let the client take the response first
			},
			want: []result{ok, ok, ok}, conns: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRawServer(t, tt.serve)
			cl := newClient(t, Options{URL: srv.URL, Method: tt.method, Timeout: 5 * time.Second, MaxConns: 1})
			var got []result
			for range tt.want {
				status, body, err := cl.DoAppend(context.Background(), nil, nil)
				if err != nil {
					body = nil
				}
				got = append(got, result{status, string(body), class(err)})
				if tt.name == "stale keep-alive retried" {
					time.Sleep(50 * time.Millisecond) // until the server has closed
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
			if n := srv.accepted.Load(); n != tt.conns {
				t.Errorf("server accepted %d connections, want %d", n, tt.conns)
			}
		})
	}
}

func TestParseStatusLine(t *testing.T) {
	tests := []struct {
		line          string
		status, minor int
		ok            bool
	}{
		{"HTTP/1.1 200 OK", 200, 1, true},
		{"HTTP/1.0 404 Not Found", 404, 0, true},
		{"HTTP/1.1 503", 503, 1, true}, // the reason phrase may be absent
		{"HTTP/1.1 200 ", 200, 1, true},
		{"HTTP/2.0 200 OK", 0, 0, false},
		{"HTTP/1.1 2000 OK", 0, 0, false},
		{"HTTP/1.1 099 Low", 0, 0, false},
		{"HTTP/1.1  200 OK", 0, 0, false},
		{"http/1.1 200 OK", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			status, minor, err := parseStatusLine([]byte(tt.line))
			if (err == nil) != tt.ok || status != tt.status || minor != tt.minor {
				t.Errorf("parseStatusLine(%q) = %d, %d, %v, want %d, %d, ok %v", tt.line, status, minor, err, tt.status, tt.minor, tt.ok)
			}
		})
	}
}
