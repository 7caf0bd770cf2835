package http1

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// FuzzReadResponse feeds arbitrary bytes to the response parser: it must
// never panic, must fail only with a protocol error or an early end of
// input, and must report a 3-digit status when it succeeds.
func FuzzReadResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n",
		"HTTP/1.0 200 OK\r\n\r\nuntil close",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
		"HTTP/1.1 200\n X-Folded: yes\nContent-Length: 0\n\n",
	} {
		f.Add([]byte(s), false, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, head, keep bool) {
		r := bufio.NewReaderSize(bytes.NewReader(data), 256)
		resp, body, err := readResponse(r, head, keep, nil)
		if err != nil {
			if !errors.Is(err, ErrProtocol) && err != io.ErrUnexpectedEOF && err != io.EOF {
				t.Fatalf("readResponse(%q) error %v, want a protocol error or EOF", data, err)
			}
			return
		}
		if resp.status < 200 || resp.status > 999 {
			t.Errorf("readResponse(%q) status %d, want a final 3-digit status", data, resp.status)
		}
		if len(body) > len(data) {
			t.Errorf("readResponse(%q) body of %d bytes from %d of input", data, len(body), len(data))
		}
		if !keep && body != nil {
			t.Errorf("readResponse(%q) kept a body it was to discard", data)
		}
	})
}

// FuzzRoundTrip writes a well-formed response from the fuzzed parts and
// checks the parser reads back the same status and body, and leaves the
// reader at the byte after the response.
func FuzzRoundTrip(f *testing.F) {
	f.Add(200, []byte("hello"), false, 0, "OK")
	f.Add(503, []byte("overloaded"), true, 3, "Service Unavailable")
	f.Add(404, []byte{}, true, 1, "")
	f.Fuzz(func(t *testing.T, status int, body []byte, chunked bool, chunk int, reason string) {
		status = 200 + abs(status)%800
		if strings.ContainsAny(reason, "\r\n") || len(reason) > 200 {
			reason = "R" // a reason phrase is one line, shorter than the buffer
		}
		var w bytes.Buffer
		fmt.Fprintf(&w, "HTTP/1.1 %d %s\r\nServer: fuzz\r\n", status, reason)
		switch {
		case status == 204 || status == 304: // never a body
			body = nil
			w.WriteString("\r\n")
		case chunked:
			w.WriteString("Transfer-Encoding: chunked\r\n\r\n")
			step := 1 + abs(chunk)%17
			for b := body; len(b) > 0; b = b[min(step, len(b)):] {
				fmt.Fprintf(&w, "%x\r\n%s\r\n", len(b[:min(step, len(b))]), b[:min(step, len(b))])
			}
			w.WriteString("0\r\n\r\n")
		default:
			fmt.Fprintf(&w, "Content-Length: %d\r\n\r\n%s", len(body), body)
		}
		w.WriteString("NEXT")
		r := bufio.NewReaderSize(bytes.NewReader(w.Bytes()), 512)
		resp, got, err := readResponse(r, false, true, nil)
		if err != nil {
			t.Fatalf("readResponse(%q): %v", w.Bytes(), err)
		}
		if resp.status != status || !bytes.Equal(got, body) || resp.close {
			t.Errorf("readResponse(%q) = %d, %q, close %v, want %d, %q, false", w.Bytes(), resp.status, got, resp.close, status, body)
		}
		if rest, _ := io.ReadAll(r); string(rest) != "NEXT" {
			t.Errorf("readResponse(%q) left %q unread, want %q", w.Bytes(), rest, "NEXT")
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1) // no overflow for math.MinInt
	}
	return n
}
