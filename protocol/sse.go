package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// Event is one server-sent event: its type ("" when the stream gave none,
// which means "message") and its data, the data: lines of the event joined
// by "\n".
type Event struct {
	Name string
	Data []byte
}

// ErrLineTooLong is returned when an SSE line exceeds the reader's limit.
var ErrLineTooLong = errors.New("sse: line too long")

// ErrEventTooLarge is returned when the data of one SSE event (its data:
// lines joined) exceeds the reader's limit: a stream that sends data lines
// without the blank line that ends an event would otherwise grow without
// bound.
var ErrEventTooLarge = errors.New("sse: event too large")

// DefaultMaxLine bounds one SSE line (1 MiB).
const DefaultMaxLine = 1 << 20

// DefaultMaxEvent bounds the data of one SSE event (1 MiB). With lines
// bounded by DefaultMaxLine, a reader holds at most about 3 MiB: its read
// buffer (under 2 × MaxLine) and one event's data.
const DefaultMaxEvent = 1 << 20

// SSEReader parses a text/event-stream as the HTML standard defines it:
//
//   - lines end in CRLF, LF or a lone CR, mixed freely;
//   - a line starting with ':' is a comment and is ignored;
//   - "field: value" sets a field; one space after the colon is dropped; a
//     line without a colon is a field with an empty value;
//   - several data: lines of one event are joined with "\n";
//   - a blank line dispatches the event; an event without data lines is
//     not dispatched;
//   - at the end of the stream an event not closed by a blank line is
//     discarded, and Next reports io.ErrUnexpectedEOF if it had data (a
//     truncated stream), io.EOF otherwise.
//
// Only the event and data fields matter here; id and retry are ignored.
// Lines are bounded by MaxLine bytes and an event's data by MaxEvent bytes
// (DefaultMaxEvent). Event.Data is valid until the next call to Next.
//
// Reads counts the reads of the underlying reader that returned bytes:
// two events after which Reads is the same arrived in one read, so the
// time between them was not observed (see docs/streaming.md).
type SSEReader struct {
	r       io.Reader
	buf     []byte // read buffer; buf[start:end] is unread
	start   int
	end     int
	skipLF  bool // the last line ended in CR: a following LF belongs to it
	eof     bool
	err     error
	maxLine int
	reads   uint64
	data    []byte
	hasData bool
	name    []byte
}

// NewSSEReader returns a reader of r with lines bounded by maxLine bytes
// (DefaultMaxLine when maxLine <= 0).
func NewSSEReader(r io.Reader, maxLine int) *SSEReader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &SSEReader{r: r, buf: make([]byte, 4096), maxLine: maxLine}
}

// Next returns the next event. At the end of the stream it returns io.EOF,
// or io.ErrUnexpectedEOF when an event was cut off; a read error is
// returned as is, and an over-long line as ErrLineTooLong.
func (s *SSEReader) Next() (Event, error) {
	s.data, s.hasData, s.name = s.data[:0], false, s.name[:0]
	for {
		line, err := s.line()
		if err != nil {
			if err == io.EOF && (s.hasData || len(s.name) > 0) {
				return Event{}, io.ErrUnexpectedEOF
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if s.hasData {
				return Event{Name: string(s.name), Data: s.data}, nil
			}
			s.name = s.name[:0]
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if len(s.data)+len(value)+1 > DefaultMaxEvent {
				return Event{}, fmt.Errorf("%w (over %d bytes of data without a blank line)", ErrEventTooLarge, DefaultMaxEvent)
			}
			if s.hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			s.hasData = true
		case "event":
			s.name = append(s.name[:0], value...)
		}
	}
}

// Reads is the number of reads of the underlying reader that returned
// bytes so far. Events returned by Next with the same Reads were completed
// by the same read.
func (s *SSEReader) Reads() uint64 { return s.reads }

// line returns the next line without its terminator; it is valid until the
// next call. At the end of the stream a last unterminated line is returned
// first, then io.EOF.
func (s *SSEReader) line() ([]byte, error) {
	for {
		if s.skipLF && s.start < s.end {
			if s.buf[s.start] == '\n' {
				s.start++
			}
			s.skipLF = false
		}
		unread := s.buf[s.start:s.end]
		if i := bytes.IndexAny(unread, "\r\n"); i >= 0 {
			if i > s.maxLine {
				return nil, fmt.Errorf("%w (over %d bytes)", ErrLineTooLong, s.maxLine)
			}
			line := unread[:i]
			s.start += i + 1
			s.skipLF = unread[i] == '\r'
			return line, nil
		}
		if len(unread) > s.maxLine {
			return nil, fmt.Errorf("%w (over %d bytes)", ErrLineTooLong, s.maxLine)
		}
		if s.eof {
			if len(unread) > 0 {
				s.start = s.end
				return unread, nil
			}
			if s.err != nil {
				return nil, s.err
			}
			return nil, io.EOF
		}
		s.fill()
	}
}

// fill reads more bytes, compacting or growing the buffer first.
func (s *SSEReader) fill() {
	if s.start > 0 {
		s.end = copy(s.buf, s.buf[s.start:s.end])
		s.start = 0
	}
	if s.end == len(s.buf) {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	n, err := s.r.Read(s.buf[s.end:])
	s.end += n
	if n > 0 {
		s.reads++
	}
	if err != nil {
		s.eof = true
		if err != io.EOF {
			s.err = err
		}
	}
}
