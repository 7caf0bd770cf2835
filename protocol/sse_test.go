package protocol

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

type sseResult struct {
	Events []Event
	Err    string
}

// readAll parses s and returns its events and the final error.
func readAll(r io.Reader, maxLine int) sseResult {
	rd := NewSSEReader(r, maxLine)
	var res sseResult
	for {
		ev, err := rd.Next()
		if err != nil {
			if err != io.EOF {
				res.Err = err.Error()
			}
			return res
		}
		ev.Data = append([]byte(nil), ev.Data...) // valid until the next call only
		res.Events = append(res.Events, ev)
	}
}

func TestSSEReader(t *testing.T) {
	ev := func(name, data string) Event { return Event{Name: name, Data: []byte(data)} }
	tests := []struct {
		name string
		in   string
		want sseResult
	}{
		{"one event", "data: hello\n\n", sseResult{Events: []Event{ev("", "hello")}}},
		{"two events and done", "data: {\"a\":1}\n\ndata: [DONE]\n\n", sseResult{Events: []Event{ev("", `{"a":1}`), ev("", "[DONE]")}}},
		// Several data lines join with newlines.
		{"multi-line data", "data: a\ndata: b\ndata\n\n", sseResult{Events: []Event{ev("", "a\nb\n")}}},
		{"crlf", "data: x\r\n\r\ndata: y\r\n\r\n", sseResult{Events: []Event{ev("", "x"), ev("", "y")}}},
		{"lone cr", "data: x\r\rdata: y\r\r", sseResult{Events: []Event{ev("", "x"), ev("", "y")}}},
		{"comments ignored", ": keep-alive\ndata: x\n: more\n\n:\n\n", sseResult{Events: []Event{ev("", "x")}}},
		{"event name", "event: error\ndata: {\"msg\":\"boom\"}\n\n", sseResult{Events: []Event{ev("error", `{"msg":"boom"}`)}}},
		// Only one leading space is dropped; no space is fine too.
		{"spaces after colon", "data:x\n\ndata:  y\n\n", sseResult{Events: []Event{ev("", "x"), ev("", " y")}}},
		{"id and retry ignored", "id: 7\nretry: 10\ndata: x\n\n", sseResult{Events: []Event{ev("", "x")}}},
		// An event without data is not dispatched, and its name does not leak.
		{"event without data", "event: ping\n\ndata: x\n\n", sseResult{Events: []Event{ev("", "x")}}},
		{"empty data dispatched", "data:\n\n", sseResult{Events: []Event{ev("", "")}}},
		// The stream ends mid-event: the event is dropped, the end is unexpected.
		{"truncated", "data: x\n\ndata: y\n", sseResult{Events: []Event{ev("", "x")}, Err: "unexpected EOF"}},
		{"truncated without newline", "data: x\n\ndata: y", sseResult{Events: []Event{ev("", "x")}, Err: "unexpected EOF"}},
		{"clean end", "data: x\n\n", sseResult{Events: []Event{ev("", "x")}}},
		{"trailing comment", "data: x\n\n: bye", sseResult{Events: []Event{ev("", "x")}}},
		{"empty", "", sseResult{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAll(strings.NewReader(tt.in), 0)
			if d := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("events of %q (-want +got):\n%s", tt.in, d)
			}
			// Byte-at-a-time reads must not change anything (CR then LF
			// split across reads in particular).
			if d := cmp.Diff(tt.want, readAll(iotest.OneByteReader(strings.NewReader(tt.in)), 0), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("one byte at a time (-want +got):\n%s", d)
			}
		})
	}
}

func TestSSEReaderLimits(t *testing.T) {
	got := readAll(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 50)
	if !strings.Contains(got.Err, ErrLineTooLong.Error()) {
		t.Errorf("over-long line: err = %q, want %q", got.Err, ErrLineTooLong)
	}
	// A line longer than the initial buffer but under the limit is fine.
	long := strings.Repeat("y", 10000)
	got = readAll(strings.NewReader("data: "+long+"\n\n"), 0)
	if len(got.Events) != 1 || string(got.Events[0].Data) != long || got.Err != "" {
		t.Errorf("10000-byte line: got %d events, err %q", len(got.Events), got.Err)
	}
	// A read error other than EOF comes back as is.
	boom := errors.New("boom")
	got = readAll(io.MultiReader(strings.NewReader("data: x\n\n"), iotest.ErrReader(boom)), 0)
	if got.Err != "boom" || len(got.Events) != 1 {
		t.Errorf("read error: %+v, want one event then boom", got)
	}
}

// FuzzSSEReader checks that the parser never panics, that how the input is
// split into reads never changes the events, and that events written back
// in canonical form parse to themselves.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: hello\n\n",
		"data: a\r\ndata: b\r\n\r\n",
		"event: error\rdata: x\r\r",
		": comment\n\ndata:\n\n",
		"data: [DONE]\n\ndata: tail",
		"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		whole := readAll(bytes.NewReader(in), 1<<12)
		split := readAll(iotest.HalfReader(bytes.NewReader(in)), 1<<12)
		if !strings.Contains(whole.Err, "line too long") {
			if d := cmp.Diff(whole, split); d != "" {
				t.Fatalf("read splitting changed the events (-whole +split):\n%s", d)
			}
		}
		if whole.Err != "" {
			return
		}
		var canon bytes.Buffer
		for _, ev := range whole.Events {
			if ev.Name != "" {
				canon.WriteString("event: " + ev.Name + "\n")
			}
			for _, l := range bytes.Split(ev.Data, []byte("\n")) {
				canon.WriteString("data: ")
				canon.Write(l)
				canon.WriteByte('\n')
			}
			canon.WriteByte('\n')
		}
		again := readAll(&canon, 1<<12)
		if d := cmp.Diff(whole, again); d != "" {
			t.Fatalf("canonical form does not parse to itself (-first +again):\n%s", d)
		}
	})
}
