package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/internal/capread"
	"math"
	"time"
)

var _ Schedule = (*TraceSchedule)(nil)

// TraceSchedule replays a recorded trace: each line of a JSONL file gives
// an offset from the start of the trace in milliseconds and, optionally,
// the request to send:
//
//	{"offset_ms": 0}
//	{"offset_ms": 12.5, "body": {"inputs": [...]}}
//	{"offset_ms": 40, "prompt": "Summarize: ..."}
//
// Hit i is due at offset_i / Speed: Speed 2 replays twice as fast, 0.5 at
// half speed. Its payload is the line's body (the JSON value's bytes), or
// its prompt as a JSON string literal (bytes starting with '"', see
// PromptFromPayload), or nil for the client's default request.
//
// Without Loop the schedule ends after the last line. With Loop it starts
// over, each pass shifted by the trace's period: its span (last − first
// offset) plus the mean gap between lines, span × n/(n−1) for n lines, so
// the rate within and across passes is the same. A trace of one line, or whose
// offsets are all equal, has no period and does not loop.
type TraceSchedule struct {
	// Speed scales time: offsets are divided by it. Zero means 1.
	Speed float64
	// Loop replays the trace again and again instead of ending.
	Loop bool

	offsets  []float64 // ms
	payloads [][]byte
	i        int
	pass     int
}

// LoadTrace reads a trace file (see TraceSchedule). Blank lines are
// skipped. A bad line (invalid JSON, an unknown key, a missing, negative or
// decreasing offset_ms, both body and prompt) is an error naming the file
// and line: "trace.jsonl:7: ...". speed must not be negative (0 means 1).
func LoadTrace(path string, speed float64) (*TraceSchedule, error) {
	if speed < 0 || math.IsNaN(speed) || math.IsInf(speed, 0) {
		return nil, fmt.Errorf("trace %s: speed %v must be a positive number", path, speed)
	}
	f, err := capread.Open(path, capread.Lines)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	s := &TraceSchedule{Speed: speed}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		off, payload, err := parseTraceLine(line)
		if err == nil && len(s.offsets) > 0 && off < s.offsets[len(s.offsets)-1] {
			err = fmt.Errorf("offset_ms %v is before the previous line's %v; offsets must not decrease",
				off, s.offsets[len(s.offsets)-1])
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		s.offsets = append(s.offsets, off)
		s.payloads = append(s.payloads, payload)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace %s: %w", path, err)
	}
	if len(s.offsets) == 0 {
		return nil, fmt.Errorf("trace %s: no requests", path)
	}
	return s, nil
}

// traceLine is one line of a trace file.
type traceLine struct {
	OffsetMs *float64        `json:"offset_ms"`
	Body     json.RawMessage `json:"body"`
	Prompt   *string         `json:"prompt"`
}

func parseTraceLine(line []byte) (float64, []byte, error) {
	var l traceLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return 0, nil, err
	}
	if dec.More() {
		return 0, nil, errors.New("more than one JSON value on the line")
	}
	switch {
	case l.OffsetMs == nil:
		return 0, nil, errors.New("no offset_ms")
	case *l.OffsetMs < 0 || math.IsInf(*l.OffsetMs, 0):
		return 0, nil, fmt.Errorf("offset_ms %v must be a finite number ≥ 0", *l.OffsetMs)
	case l.Body != nil && l.Prompt != nil:
		return 0, nil, errors.New("both body and prompt; give one")
	}
	var payload []byte
	switch {
	case l.Prompt != nil:
		payload, _ = json.Marshal(*l.Prompt) // a string always marshals
	case l.Body != nil && !bytes.Equal(l.Body, []byte("null")):
		var buf bytes.Buffer
		if err := json.Compact(&buf, l.Body); err != nil {
			return 0, nil, fmt.Errorf("body: %w", err)
		}
		payload = buf.Bytes()
	}
	return *l.OffsetMs, payload, nil
}

// PromptFromPayload reports whether a hit's payload is a trace prompt (a
// JSON string literal) and returns the prompt.
func PromptFromPayload(p []byte) (string, bool) {
	if len(p) == 0 || p[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(p, &s); err != nil {
		return "", false
	}
	return s, true
}

// Len returns the number of requests in one pass of the trace.
func (s *TraceSchedule) Len() int { return len(s.offsets) }

// Duration returns how long one pass of the trace takes at Speed: the
// last offset divided by Speed.
func (s *TraceSchedule) Duration() time.Duration {
	return s.scale(s.offsets[len(s.offsets)-1])
}

// period returns the length of one pass in trace milliseconds, 0 when the
// trace cannot loop.
func (s *TraceSchedule) period() float64 {
	n := len(s.offsets)
	span := s.offsets[n-1] - s.offsets[0]
	if n < 2 || span == 0 {
		return 0
	}
	return span * float64(n) / float64(n-1)
}

func (s *TraceSchedule) scale(ms float64) time.Duration {
	speed := s.Speed
	if speed == 0 {
		speed = 1
	}
	return time.Duration(ms / speed * float64(time.Millisecond))
}

// Next implements Schedule.
func (s *TraceSchedule) Next() (time.Duration, []byte, bool) {
	if s.i == len(s.offsets) {
		if !s.Loop || s.period() == 0 {
			return 0, nil, false
		}
		s.i, s.pass = 0, s.pass+1
	}
	ms := s.offsets[s.i] + float64(s.pass)*s.period()
	p := s.payloads[s.i]
	s.i++
	return s.scale(ms), p, true
}
