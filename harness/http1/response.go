package http1

import (
	"bufio"
	"bytes"
	"io"
	"slices"
)

// maxChunkSize bounds one chunk's declared size, so that a malformed size
// cannot overflow the arithmetic that follows.
const maxChunkSize = 1 << 50

// MaxKeptBody is the most of a response body DoAppend keeps: the rest is
// read (the response is timed to its last byte and the connection stays
// usable) and counted, but discarded, so that a huge response cannot
// exhaust memory. The returned body then has exactly MaxKeptBody bytes.
const MaxKeptBody = 16 << 20

// response is what the parser learned from one response.
type response struct {
	// status is the final (non-1xx) status code.
	status int
	// close reports that the connection cannot carry another request:
	// the server said Connection: close, spoke HTTP/1.0 without
	// keep-alive, or delimited the body by closing the connection.
	close bool
}

// framing is what a response head says about its body and connection.
type framing struct {
	contentLength int // -1 when absent
	te            bool
	chunked       bool
	close         bool
	keepAlive     bool
	http10        bool
}

// MaxInterim is how many interim (1xx) responses may precede a final
// one; more is a protocol error (net/http stops at 5; 103 Early Hints may
// come a few times).
const MaxInterim = 16

// readResponse reads one whole response to a request from r, skipping
// interim 1xx responses. head reports a HEAD request (no body follows).
// The body is discarded, or appended to dst when keep is true, up to
// MaxKeptBody bytes; the returned slice is dst, possibly extended. It allocates nothing unless
// keep makes dst grow or the response is malformed.
func readResponse(r *bufio.Reader, head, keep bool, dst []byte) (response, []byte, error) {
	for interim := 0; ; interim++ {
		if interim > MaxInterim {
			// A server that answers 100 Continue without end would
			// otherwise hold the request until its timeout.
			return response{}, dst, protoErr("more than %d interim (1xx) responses", MaxInterim)
		}
		status, f, err := readHead(r)
		if err != nil {
			return response{}, dst, err
		}
		if status == 101 {
			return response{}, dst, protoErr("unexpected 101 switching protocols")
		}
		if status < 200 {
			continue // an interim response: the final one follows
		}
		resp := response{status: status, close: f.close || (f.http10 && !f.keepAlive)}
		limit := 0 // the length dst may grow to: keep nothing
		if keep {
			limit = len(dst) + MaxKeptBody
		}
		switch {
		case head || status == 204 || status == 304:
			// No body, whatever the headers say.
		case f.te && f.chunked:
			dst, err = readChunked(r, limit, dst)
			// A message with both framings may be an attack on a proxy
			// between us; do not trust the connection after it.
			resp.close = resp.close || f.contentLength >= 0
		case f.te:
			// A transfer coding we do not decode ends at close.
			dst, err = readToEOF(r, limit, dst)
			resp.close = true
		case f.contentLength >= 0:
			dst, err = readN(r, f.contentLength, limit, dst)
		default:
			dst, err = readToEOF(r, limit, dst)
			resp.close = true
		}
		return resp, dst, err
	}
}

// readHead reads a status line and the header fields after it, up to and
// including the blank line.
func readHead(r *bufio.Reader) (int, framing, error) {
	f := framing{contentLength: -1}
	line, err := readLine(r)
	if err != nil {
		return 0, f, err
	}
	status, minor, err := parseStatusLine(line)
	if err != nil {
		return 0, f, err
	}
	f.http10 = minor == 0
	for {
		line, err := readLine(r)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, f, err
		}
		if len(line) == 0 {
			return status, f, nil
		}
		if err := f.field(line); err != nil {
			return 0, f, err
		}
	}
}

// field reads one header line into f: only the fields that frame the body
// and the connection count; the others are checked for shape and skipped.
func (f *framing) field(line []byte) error {
	if line[0] == ' ' || line[0] == '\t' {
		return nil // obsolete line folding: none of the fields we read
	}
	i := bytes.IndexByte(line, ':')
	if i <= 0 || line[i-1] == ' ' || line[i-1] == '\t' {
		return protoErr("malformed header line %q", line)
	}
	name, value := line[:i], trimOWS(line[i+1:])
	switch {
	case equalFold(name, "content-length"):
		n, ok := parseDecimal(value)
		if !ok {
			return protoErr("bad Content-Length %q", value)
		}
		if f.contentLength >= 0 && f.contentLength != n {
			return protoErr("conflicting Content-Length %d and %d", f.contentLength, n)
		}
		f.contentLength = n
	case equalFold(name, "transfer-encoding"):
		f.te = true
		f.chunked = lastToken(value, "chunked")
	case equalFold(name, "connection"):
		f.close = f.close || hasToken(value, "close")
		f.keepAlive = f.keepAlive || hasToken(value, "keep-alive")
	}
	return nil
}

// parseStatusLine parses "HTTP/1.x SSS reason" and returns the status and
// the minor version x.
func parseStatusLine(line []byte) (status, minor int, err error) {
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || !isDigit(line[7]) || line[8] != ' ' ||
		!isDigit(line[9]) || !isDigit(line[10]) || !isDigit(line[11]) || (len(line) > 12 && line[12] != ' ') {
		return 0, 0, protoErr("malformed status line %q", line)
	}
	status = int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0')
	if status < 100 {
		return 0, 0, protoErr("malformed status line %q", line)
	}
	return status, int(line[7] - '0'), nil
}

// readLine returns the next line without its CRLF (or bare LF). The slice
// points into r's buffer and is valid until the next read. A line longer
// than the buffer is a protocol error; the end of input is io.EOF when no
// byte of the line was read, io.ErrUnexpectedEOF otherwise.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		switch {
		case err == bufio.ErrBufferFull:
			return nil, protoErr("line longer than %d bytes", r.Size())
		case err == io.EOF && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	n := len(line) - 1
	if n > 0 && line[n-1] == '\r' {
		n--
	}
	return line[:n], nil
}

// readChunked reads a chunked body and its trailer section.
func readChunked(r *bufio.Reader, limit int, dst []byte) ([]byte, error) {
	for {
		line, err := readLine(r)
		if err != nil {
			return dst, eofUnexpected(err)
		}
		size, ok := parseChunkSize(line)
		if !ok {
			return dst, protoErr("malformed chunk size line %q", line)
		}
		if size == 0 {
			break
		}
		if dst, err = readN(r, size, limit, dst); err != nil {
			return dst, err
		}
		line, err = readLine(r)
		if err != nil {
			return dst, eofUnexpected(err)
		}
		if len(line) != 0 {
			return dst, protoErr("chunk data not followed by CRLF")
		}
	}
	for { // the trailer section, ignored, up to its blank line
		line, err := readLine(r)
		if err != nil {
			return dst, eofUnexpected(err)
		}
		if len(line) == 0 {
			return dst, nil
		}
	}
}

// readN reads exactly n body bytes, appending to dst those that keep it
// within limit bytes and discarding the others.
func readN(r *bufio.Reader, n int, limit int, dst []byte) ([]byte, error) {
	for n > 0 && len(dst) < limit {
		// Grow in steps so a huge declared length costs memory only as
		// the bytes actually arrive.
		step := min(n, 64<<10, limit-len(dst))
		dst = slices.Grow(dst, step)
		m, err := io.ReadFull(r, dst[len(dst):len(dst)+step])
		dst = dst[:len(dst)+m]
		if err != nil {
			return dst, eofUnexpected(err)
		}
		n -= step
	}
	if n > 0 {
		if _, err := r.Discard(n); err != nil {
			return dst, eofUnexpected(err)
		}
	}
	return dst, nil
}

// readToEOF reads a body delimited by the end of the connection, keeping
// what fits within limit.
func readToEOF(r *bufio.Reader, limit int, dst []byte) ([]byte, error) {
	for {
		var err error
		if len(dst) < limit {
			dst = slices.Grow(dst, min(4096, limit-len(dst)))
			var m int
			m, err = r.Read(dst[len(dst):min(cap(dst), limit)])
			dst = dst[:len(dst)+m]
		} else {
			_, err = r.Discard(r.Size())
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// eofUnexpected turns io.EOF into io.ErrUnexpectedEOF: inside a response,
// the end of input always comes too early.
func eofUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
