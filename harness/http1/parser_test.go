package http1

import (
	"bufio"
	"errors"
	"strings"
	"testing"
)

// TestParserMatchesReadResponse feeds each response to a Parser split at
// every byte, and checks that it ends where readResponse ends, with the
// same status, connection verdict and error class.
func TestParserMatchesReadResponse(t *testing.T) {
	tests := []struct {
		name, wire string
		head       bool
		eof        bool // the connection ends after wire
	}{
		{name: "content-length", wire: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"},
		{name: "empty body", wire: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"},
		{name: "chunked", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n"},
		{name: "connection close", wire: "HTTP/1.1 503 Busy\r\nConnection: Close\r\nContent-Length: 2\r\n\r\nno"},
		{name: "http/1.0", wire: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"},
		{name: "http/1.0 keep-alive", wire: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok"},
		{name: "to eof", wire: "HTTP/1.1 200 OK\r\n\r\nuntil the end", eof: true},
		{name: "interim 100", wire: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx"},
		{name: "head", wire: "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", head: true},
		{name: "204 ignores length", wire: "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"},
		{name: "bare LF", wire: "HTTP/1.1 200 OK\nContent-Length: 1\n\nx"},
		{name: "cut in body", wire: "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nok", eof: true},
		{name: "cut in head", wire: "HTTP/1.1 200 OK\r\nContent-Len", eof: true},
		{name: "nothing", wire: "", eof: true},
		{name: "bad status", wire: "HTTP/2 200 OK\r\n\r\n"},
		{name: "bad length", wire: "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"},
		{name: "bad chunk", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"},
		{name: "chunk without crlf", wire: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n"},
		{name: "101", wire: "HTTP/1.1 101 Switching Protocols\r\n\r\n"},
		{name: "line too long", wire: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 300) + "\r\n\r\n"},
	}
	const bufSize = 256
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tt.wire), bufSize)
			want, _, wantErr := readResponse(br, tt.head, false, nil)
			for split := 1; split <= max(len(tt.wire), 1); split++ {
				p := &Parser{head: tt.head, buf: make([]byte, bufSize)}
				done, err := feed(p, tt.wire, split)
				if err == nil && !done && tt.eof {
					done, err = p.EOF()
				}
				switch {
				case wantErr != nil && err == nil:
					t.Fatalf("split %d: done %v, no error; readResponse: %v", split, done, wantErr)
				case wantErr != nil && errors.Is(wantErr, ErrProtocol) != errors.Is(err, ErrProtocol):
					t.Fatalf("split %d: error %v; readResponse: %v", split, err, wantErr)
				case wantErr == nil && (err != nil || !done):
					t.Fatalf("split %d: done %v, error %v; readResponse: %+v", split, done, err, want)
				case wantErr == nil && (p.Status() != want.status || p.Close() != want.close):
					t.Fatalf("split %d: status %d close %v; readResponse: %+v", split, p.Status(), p.Close(), want)
				case wantErr == nil && !tt.eof && p.Buffered() != 0:
					t.Fatalf("split %d: %d bytes left over", split, p.Buffered())
				}
			}
		})
	}
}

// feed hands wire to p split bytes at a time, as reads would.
func feed(p *Parser, wire string, split int) (bool, error) {
	for len(wire) > 0 {
		sp := p.Space()
		n := copy(sp, wire[:min(split, len(wire))])
		if n == 0 {
			return false, errors.New("no space")
		}
		wire = wire[n:]
		p.Wrote(n)
		if done, err := p.Parse(); done || err != nil {
			return done, err
		}
	}
	return false, nil
}

// TestParserLeftover: bytes after a whole response are left Buffered (the
// caller takes them for an unsolicited response), and Reset drops them.
func TestParserLeftover(t *testing.T) {
	p := &Parser{buf: make([]byte, 256)}
	done, err := feed(p, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1", 1000)
	if !done || err != nil || p.Buffered() != 8 {
		t.Fatalf("done %v err %v buffered %d, want true nil 8", done, err, p.Buffered())
	}
	p.Reset()
	if p.Buffered() != 0 || p.Started() {
		t.Fatalf("after Reset: buffered %d started %v", p.Buffered(), p.Started())
	}
}
