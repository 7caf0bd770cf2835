package protocol

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/harness"
)

// paceServer is an OpenAI-compatible streaming server that writes each
// content chunk in its own write, flushed, at an absolute due time: chunk
// i at ttft + i·pace after the request arrived. Its timing is known, so a
// reader that sees two chunks in one read was late, not the server.
type paceServer struct {
	tokens     int
	pace       time.Duration
	usageLines string // the usage chunk's JSON ("" for none)
}

func (p *paceServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	start := time.Now()
	for i := range p.tokens {
		if d := time.Until(start.Add(time.Duration(i+1) * p.pace)); d > 0 {
			time.Sleep(d)
		}
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"text\":\"t%d \"}]}\n\n", i)
		fl.Flush()
	}
	if p.usageLines != "" {
		fmt.Fprintf(w, "data: %s\n\n", p.usageLines)
	}
	io.WriteString(w, "data: [DONE]\n\n")
	fl.Flush()
}

// starvedReader is a reader that is not scheduled for a while before each
// read, as one whose process waits for a CPU: by the time it reads, the
// server has written several chunks.
type starvedReader struct {
	r     io.Reader
	sleep time.Duration
}

func (s starvedReader) Read(b []byte) (int, error) {
	time.Sleep(s.sleep)
	return s.r.Read(b)
}

// streamFrom posts to url and reads the answer's stream with readStream,
// through wrap (nil: as is).
func streamFrom(t *testing.T, url string, wrap func(io.Reader) io.Reader, lim streamLimits) harness.Sample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body io.Reader = resp.Body
	if wrap != nil {
		body = wrap(body)
	}
	s := harness.Sample{Start: time.Now()}
	readStreamLimited(ctx, ctx, body, &s, lim)
	return s
}

// TestITLStarvedReader: a server writes 40 tokens 2 ms apart; a reader
// starved for 15 ms before every read finds several chunks per read. Those
// gaps were never observed: they are counted, left out of ITL (no gap near
// zero, no gap stretched by the wait survives), and the coalesced share
// passes harness.MaxITLCoalescedShare, so the recorder marks ITL untrusted.
// The same server read promptly (chunks 20 ms apart) is trusted.
func TestITLStarvedReader(t *testing.T) {
	tests := []struct {
		name          string
		pace          time.Duration
		tokens        int
		starve        time.Duration
		wantUntrusted bool
	}{
		{"starved reader", 2 * time.Millisecond, 40, 15 * time.Millisecond, true},
		// 20 ms between chunks leaves a prompt reader time to read each
		// one alone even on a shared machine.
		{"prompt reader", 20 * time.Millisecond, 15, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(&paceServer{tokens: tt.tokens, pace: tt.pace})
			t.Cleanup(srv.Close)
			var wrap func(io.Reader) io.Reader
			if tt.starve > 0 {
				wrap = func(r io.Reader) io.Reader { return starvedReader{r, tt.starve} }
			}
			s := streamFrom(t, srv.URL, wrap, defaultStreamLimits)
			if !s.OK() {
				t.Fatalf("stream failed: %s: %s", s.Class, s.Err)
			}
			st := s.Stream
			if st.Gaps != tt.tokens-1 || st.OutputTokens != tt.tokens {
				t.Fatalf("gaps %d, tokens %d; want %d, %d", st.Gaps, st.OutputTokens, tt.tokens-1, tt.tokens)
			}
			if got := len(st.ITL) + st.Unobserved; got != st.Gaps {
				t.Errorf("kept %d + unobserved %d = %d gaps, want %d", len(st.ITL), st.Unobserved, got, st.Gaps)
			}
			if tt.starve > 0 {
				// Each read finds the chunks of 15 ms at 2 ms each; a
				// gap near zero is two chunks of one read.
				for i, g := range st.ITL {
					if g < time.Millisecond {
						t.Errorf("ITL gap %d = %v: a gap under 1 ms was kept though the server never wrote two chunks less than 2 ms apart", i, g)
					}
				}
			}
			rec := harness.NewLLMRecorder(0, 0)
			rec.Add(&s)
			got := rec.Result(time.Second)
			if got.ITLUntrusted != tt.wantUntrusted {
				t.Errorf("untrusted = %v with %d of %d gaps unobserved (share %.2f), want %v",
					got.ITLUntrusted, got.ITLUnobserved, got.ITLGaps, got.ITLCoalescedShare, tt.wantUntrusted)
			}
			if tt.starve > 0 && got.ITLCoalescedShare < 0.5 {
				t.Errorf("starved reader: coalesced share %.2f, want most gaps unobserved", got.ITLCoalescedShare)
			}
		})
	}
}

// TestGapTracker pins which gaps are kept for a given pattern of reads:
// a gap is kept only when each of its two chunks was alone in its read.
func TestGapTracker(t *testing.T) {
	tests := []struct {
		name       string
		reads      []uint64 // the read that completed each content chunk
		wantKept   int
		wantUnobs  int
		wantMaxITL int
	}{
		{"each alone", []uint64{1, 2, 3, 4}, 3, 0, 100},
		// Chunks 2 and 3 share a read: the gaps 1→2, 2→3 and 3→4 all
		// have an end whose time is the read's.
		{"two together in the middle", []uint64{1, 2, 2, 3}, 0, 3, 100},
		{"two together at the end", []uint64{1, 2, 3, 3}, 1, 2, 100},
		{"two together at the start", []uint64{1, 1, 2, 3}, 1, 2, 100},
		{"all in one read", []uint64{5, 5, 5}, 0, 2, 100},
		// The cap keeps the first gaps and counts the rest.
		{"capped", []uint64{1, 2, 3, 4, 5}, 2, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &harness.Stream{}
			g := gapTracker{st: st, maxITL: tt.wantMaxITL}
			t0 := time.Now()
			for i, r := range tt.reads {
				g.add(t0.Add(time.Duration(i)*time.Millisecond), r)
			}
			if !g.lastShared {
				g.commit()
			}
			if len(st.ITL) != tt.wantKept || st.Unobserved != tt.wantUnobs || st.Gaps != len(tt.reads)-1 {
				t.Errorf("kept %d, unobserved %d, gaps %d; want %d, %d, %d", len(st.ITL), st.Unobserved, st.Gaps, tt.wantKept, tt.wantUnobs, len(tt.reads)-1)
			}
		})
	}
}

// hostileServer writes what its write function writes, as an event
// stream, until the client goes away or the function returns.
type hostileServer func(w io.Writer, flush func(), done <-chan struct{})

func (h hostileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	h(w, fl.Flush, r.Context().Done())
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	*c.n += int64(n)
	return n, err
}

// TestOpenAIHostileStreams: a stream that would grow a request's memory
// without bound is cut off as a protocol error once it passes the bound,
// having read little more than the bound; a usage chunk with an absurd
// count is an error, never a negative rate.
func TestOpenAIHostileStreams(t *testing.T) {
	forever := func(line string) hostileServer {
		return func(w io.Writer, flush func(), done <-chan struct{}) {
			chunk := strings.Repeat(line, 1024)
			for written := 0; written < 256<<20; written += len(chunk) { // 256 MiB at most
				select {
				case <-done:
					return
				default:
				}
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
				flush()
			}
		}
	}
	tests := []struct {
		name     string
		srv      hostileServer
		lim      streamLimits
		wantErr  string
		maxBytes int64 // read before the client gave up, at most
	}{
		{
			// data: lines without the blank line that ends an event.
			name: "one endless event", srv: forever("data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"),
			lim: defaultStreamLimits, wantErr: "event too large", maxBytes: 4 * DefaultMaxEvent,
		},
		{
			// Tiny content events, never [DONE]: the event bound (lowered
			// here to keep the test short; MaxStreamEvents in use).
			name: "endless tiny events", srv: forever("data: {\"choices\":[{\"text\":\"a\"}]}\n\n"),
			lim: streamLimits{events: 5000, itl: 100}, wantErr: "over 5000 events", maxBytes: 5000*38 + 1<<20,
		},
		{
			name: "usage of 2^63-1", srv: func(w io.Writer, flush func(), _ <-chan struct{}) {
				io.WriteString(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
				io.WriteString(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":9223372036854775807}}\n\n")
				io.WriteString(w, "data: [DONE]\n\n")
			},
			lim: defaultStreamLimits, wantErr: "usage.completion_tokens 9223372036854775807 is out of range", maxBytes: 1 << 20,
		},
		{
			name: "negative prompt tokens", srv: func(w io.Writer, flush func(), _ <-chan struct{}) {
				io.WriteString(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
				io.WriteString(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":-4,\"completion_tokens\":1}}\n\n")
				io.WriteString(w, "data: [DONE]\n\n")
			},
			lim: defaultStreamLimits, wantErr: "usage.prompt_tokens -4 is out of range", maxBytes: 1 << 20,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.srv)
			t.Cleanup(srv.Close)
			var n int64
			s := streamFrom(t, srv.URL, func(r io.Reader) io.Reader { return countingReader{r, &n} }, tt.lim)
			if s.Class != harness.ErrProtocol || !strings.Contains(s.Err, tt.wantErr) {
				t.Errorf("class %q, err %q; want %q containing %q", s.Class, s.Err, harness.ErrProtocol, tt.wantErr)
			}
			if n > tt.maxBytes {
				t.Errorf("read %d bytes before giving up, want at most %d", n, tt.maxBytes)
			}
			if s.Stream != nil && len(s.Stream.ITL) > tt.lim.itl {
				t.Errorf("kept %d gaps, over the bound %d", len(s.Stream.ITL), tt.lim.itl)
			}
		})
	}
}

// TestOpenAIPromptTokens: the server's usage.prompt_tokens is recorded
// beside the words perfgate sent, through the whole client.
func TestOpenAIPromptTokens(t *testing.T) {
	srv := &sseServer{tokenDelay: time.Millisecond, tokens: 3, usage: true}
	url := startSSE(t, srv)
	c := newClient(t, Options{Protocol: OpenAI, URL: url, Model: "tiny-llm", Endpoint: "completions", PromptTokens: 12})
	s := c.Do(context.Background(), harness.Hit{Intended: time.Now()})
	if !s.OK() {
		t.Fatalf("%s: %s", s.Class, s.Err)
	}
	if s.Stream.PromptTokens != 7 || s.Stream.PromptWords != 12 {
		t.Errorf("prompt %d tokens (server) / %d words (sent), want 7 / 12", s.Stream.PromptTokens, s.Stream.PromptWords)
	}
}
