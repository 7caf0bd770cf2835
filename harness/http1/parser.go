package http1

import (
	"bytes"
	"io"
	"time"
)

// Parser reads responses from bytes as they arrive, for an event loop
// that cannot block on a read: the loop reads the socket into Space,
// tells the parser how much came with Wrote, and calls Parse, which says
// whether the response is complete. It applies the rules readResponse
// does (interim 1xx responses skipped, framing by Content-Length, chunked
// encoding or the end of the connection, no body after HEAD, 204 and 304),
// discards the body, and allocates nothing after NewParser.
//
// A Parser reads one response at a time: Reset starts the next.
type Parser struct {
	head  bool
	buf   []byte
	r, w  int // unread bytes are buf[r:w]
	state int
	n     int // body or chunk bytes left
	f     framing
	resp  response
	got   bool // some byte of this response arrived
}

// Parser states.
const (
	psStatus = iota
	psHeader
	psBody      // n bytes left
	psChunkSize // a chunk-size line
	psChunkData // n bytes of a chunk left
	psChunkEnd  // the CRLF after a chunk's data
	psTrailer   // trailer lines up to the blank one
	psToEOF     // the body ends at the end of the connection
	psDone
)

// NewParser returns a parser for the client's responses, with a buffer of
// the client's read buffer size (which bounds a status or header line).
func (cl *Client) NewParser() *Parser {
	return &Parser{head: cl.req.isHead, buf: make([]byte, cl.bufSize)}
}

// AppendRequest appends the client's request with body to dst (nil: the
// default body of Options.Body), as Do writes it.
func (cl *Client) AppendRequest(dst, body []byte) []byte {
	if body == nil {
		return append(dst, cl.req.full...)
	}
	return cl.req.appendRequest(dst, body)
}

// Request returns the request Do writes when given no body. The caller
// must not change it.
func (cl *Client) Request() []byte { return cl.req.full }

// Addr returns the host:port the client dials.
func (cl *Client) Addr() string { return cl.req.addr }

// Timeout returns Options.Timeout.
func (cl *Client) Timeout() time.Duration { return cl.timeout }

// Reset readies p for the next response. Bytes left unread (Buffered)
// are dropped.
func (p *Parser) Reset() {
	p.r, p.w, p.state, p.n, p.got = 0, 0, psStatus, 0, false
	p.resp = response{}
}

// Space returns the free room at the end of p's buffer, for a read.
func (p *Parser) Space() []byte {
	if p.r == p.w {
		p.r, p.w = 0, 0
	}
	return p.buf[p.w:]
}

// Wrote tells p that n bytes were read into Space.
func (p *Parser) Wrote(n int) {
	p.w += n
	if n > 0 {
		p.got = true
	}
}

// Started reports whether any byte of the current response has arrived.
func (p *Parser) Started() bool { return p.got }

// Buffered returns how many bytes arrived past the end of the complete
// response: bytes the server sent unasked.
func (p *Parser) Buffered() int { return p.w - p.r }

// Status returns the complete response's status code.
func (p *Parser) Status() int { return p.resp.status }

// Close reports that the complete response's connection cannot carry
// another request.
func (p *Parser) Close() bool { return p.resp.close }

// Parse consumes what has arrived and reports whether the response is
// complete. An error is a malformed response: the connection must be
// closed.
func (p *Parser) Parse() (done bool, err error) {
	for {
		switch p.state {
		case psDone:
			return true, nil
		case psBody, psChunkData:
			k := min(p.n, p.w-p.r)
			p.r += k
			p.n -= k
			if p.n > 0 {
				return false, p.compact()
			}
			if p.state == psBody {
				p.state = psDone
			} else {
				p.state = psChunkEnd
			}
			continue
		case psToEOF:
			p.r = p.w
			return false, nil
		}
		line, ok, err := p.line()
		if err != nil || !ok {
			return false, err
		}
		if err := p.step(line); err != nil {
			return false, err
		}
	}
}

// EOF tells p that the connection ended. done reports that this completed
// the response (a body delimited by the end of the connection); otherwise
// err says why the response is cut short: io.EOF when no byte of it had
// arrived, io.ErrUnexpectedEOF when some had.
func (p *Parser) EOF() (done bool, err error) {
	switch {
	case p.state == psToEOF:
		p.state = psDone
		return true, nil
	case p.state == psDone:
		return true, nil
	case !p.got:
		return false, io.EOF
	}
	return false, io.ErrUnexpectedEOF
}

// line returns the next whole line, without its line end; ok is false
// when it has not all arrived.
func (p *Parser) line() (line []byte, ok bool, err error) {
	i := bytes.IndexByte(p.buf[p.r:p.w], '\n')
	if i < 0 {
		if p.r == 0 && p.w == len(p.buf) {
			return nil, false, protoErr("line longer than %d bytes", len(p.buf))
		}
		return nil, false, p.compact()
	}
	line = p.buf[p.r : p.r+i]
	p.r += i + 1
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, true, nil
}

// compact moves the unread bytes to the front of the buffer, so that
// Space has room for the rest of a line.
func (p *Parser) compact() error {
	if p.r > 0 {
		p.w = copy(p.buf, p.buf[p.r:p.w])
		p.r = 0
	}
	return nil
}

// step handles one line in the current state.
func (p *Parser) step(line []byte) error {
	switch p.state {
	case psStatus:
		status, minor, err := parseStatusLine(line)
		if err != nil {
			return err
		}
		p.resp.status = status
		p.f = framing{contentLength: -1, http10: minor == 0}
		p.state = psHeader
	case psHeader:
		if len(line) > 0 {
			return p.f.field(line)
		}
		return p.endHead()
	case psChunkSize:
		size, ok := parseChunkSize(line)
		if !ok {
			return protoErr("malformed chunk size line %q", line)
		}
		if size == 0 {
			p.state = psTrailer
		} else {
			p.state, p.n = psChunkData, size
		}
	case psChunkEnd:
		if len(line) != 0 {
			return protoErr("chunk data not followed by CRLF")
		}
		p.state = psChunkSize
	case psTrailer:
		if len(line) == 0 {
			p.state = psDone
		}
	}
	return nil
}

// endHead decides, at the blank line after the header, how the body is
// framed (as readResponse does).
func (p *Parser) endHead() error {
	status, f := p.resp.status, &p.f
	if status == 101 {
		return protoErr("unexpected 101 switching protocols")
	}
	if status < 200 {
		p.state = psStatus // an interim response: the final one follows
		return nil
	}
	p.resp.close = f.close || (f.http10 && !f.keepAlive)
	switch {
	case p.head || status == 204 || status == 304:
		p.state = psDone
	case f.te && f.chunked:
		p.state = psChunkSize
		p.resp.close = p.resp.close || f.contentLength >= 0
	case f.te:
		p.state, p.resp.close = psToEOF, true
	case f.contentLength == 0:
		p.state = psDone
	case f.contentLength > 0:
		p.state, p.n = psBody, f.contentLength
	default:
		p.state, p.resp.close = psToEOF, true
	}
	return nil
}
