//go:build linux

package harness

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

// rawServer is a TCP server on 127.0.0.1 that hands every request it reads
// (up to the blank line; the tests send no body) to answer, with the
// connection and the request's number (from 0, over all connections).
// answer returns false to close the connection. It counts connections, and
// the most open at once.
type rawServer struct {
	ln                       net.Listener
	accepted, open, requests atomic.Int64
	mu                       sync.Mutex
	maxOpen                  int64
	answer                   func(c net.Conn, n int) bool
	wg                       sync.WaitGroup
	conns                    sync.Map
}

func newRawServer(t *testing.T, answer func(c net.Conn, n int) bool) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln, answer: answer}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			o := s.open.Add(1)
			s.mu.Lock()
			s.maxOpen = max(s.maxOpen, o)
			s.mu.Unlock()
			s.conns.Store(c, true)
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer s.open.Add(-1)
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					for {
						line, err := br.ReadString('\n')
						if err != nil {
							return
						}
						if line == "\r\n" {
							break
						}
					}
					if !s.answer(c, int(s.requests.Add(1)-1)) {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.conns.Range(func(k, _ any) bool { k.(net.Conn).Close(); return true })
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() + "/" }

func (s *rawServer) most() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxOpen
}

const okResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

// runLoop runs o with an http1 client on url and checks that the open loop
// ran on the event loops.
func runLoop(t *testing.T, url string, timeout time.Duration, o Options) *Options {
	t.Helper()
	conns := o.MaxConns
	if conns == 0 {
		conns = DefaultMaxConns
	}
	c, err := NewHTTPClient(HTTPOptions{URL: url, Timeout: timeout, MaxConns: conns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	o.Client = c
	if o.Mode == "" {
		o.Mode = ModeRate
	}
	return &o
}

// run runs o and fails unless the open loop ran on the event loops, by
// the package's count of such runs: the tests that call it (and
// TestEngineSettings) therefore never call t.Parallel, so that no other
// test's run moves the count between the two reads.
func run(t *testing.T, o *Options) (*result.Result, error) {
	t.Helper()
	before := evLoopRuns.Load()
	res, err := Run(context.Background(), *o)
	if evLoopRuns.Load() == before {
		t.Fatal("the open loop did not run on the event loops")
	}
	return res, err
}

// wantRequests fails unless every trial counts the hits a constant
// schedule of rate puts in its window (±1 for rounding), and its errors by
// class add up to its errors.
func wantRequests(t *testing.T, res *result.Result, rate float64) {
	t.Helper()
	checkAccounted(t, res, nil)
	for i, tr := range res.Trials {
		want := rate * res.Load.DurationS
		if d := float64(tr.Requests) - want; d < -1 || d > 1 {
			t.Errorf("trial %d: %d requests, want the %.0f the schedule put in the window", i+1, tr.Requests, want)
		}
	}
}

// The stall test, on the event loop: latency counts from the intended
// time, so a 200 ms stall behind 4 connections shows in the tail.
func TestEvLoopStallShowsInP99(t *testing.T) {
	srv := stallServer(t, 1500*time.Millisecond, 1700*time.Millisecond)
	o := runLoop(t, srv.URL, 5*time.Second, Options{Rate: 200, MaxConns: 4,
		Warmup: 500 * time.Millisecond, Duration: 2 * time.Second, Trials: 1})
	res, err := run(t, o)
	if err != nil {
		t.Fatal(err)
	}
	wantRequests(t, res, 200)
	lat, svc := res.Summary.Latency, res.Summary.Service
	// 40 of 400 requests are due in the stall and wait 0-200 ms: the P99
	// is far into it; the service time (from the send) hides it. In a
	// window half as long the P99 is the second-slowest request, one in
	// flight when the stall began, whose wait is all service time.
	if lat.P99 < 100 {
		t.Errorf("latency P99 %.1f ms, want > 100 ms: the stall is hidden", lat.P99)
	}
	if svc.P99 >= lat.P99 {
		t.Errorf("service P99 %.1f ms >= latency P99 %.1f ms: the wait is not in latency", svc.P99, lat.P99)
	}
	if res.Summary.Errors != 0 {
		t.Errorf("%d errors: %v", res.Summary.Errors, res.Summary.ErrorsBy)
	}
}

// A server that never answers one request in ten: with a request timeout
// the hung ones fail as timeouts (the loop's deadline check); without one
// they are abandoned after the drain and still counted as timeouts.
func TestEvLoopHungRequests(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		drain   time.Duration
	}{
		{"request timeout", 200 * time.Millisecond, 2 * time.Second},
		{"abandoned after the drain", 30 * time.Second, 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := hangServer(t, time.Millisecond, 10)
			o := runLoop(t, srv.URL, tt.timeout, Options{Rate: 100, Warmup: 200 * time.Millisecond,
				Duration: 500 * time.Millisecond, Trials: 2, Drain: tt.drain})
			t0 := time.Now()
			res, err := run(t, o)
			if err != nil {
				t.Fatal(err)
			}
			wantRequests(t, res, 100)
			to := res.Summary.ErrorsBy[ErrTimeout]
			if to < 5 || to > 20 || to != res.Summary.Errors {
				t.Errorf("%d timeouts of %d requests (errors by class %v), want about 10%%, all timeouts", to, res.Summary.Requests, res.Summary.ErrorsBy)
			}
			if took := time.Since(t0); took > 1200*time.Millisecond+tt.drain+time.Second {
				t.Errorf("the run took %v: hung requests held it past the drain", took)
			}
		})
	}
}

// A connection cap of 2 against a server slower than the schedule allows:
// never more than 2 connections, the hits queue (conn_wait) and their
// wait shows in latency, not in service time.
func TestEvLoopConnectionCap(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn, _ int) bool {
		time.Sleep(20 * time.Millisecond)
		_, err := io.WriteString(c, okResponse)
		return err == nil
	})
	o := runLoop(t, srv.url(), 5*time.Second, Options{Rate: 200, MaxConns: 2,
		Warmup: 100 * time.Millisecond, Duration: 500 * time.Millisecond, Trials: 1, Drain: 10 * time.Second})
	res, err := run(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if most := srv.most(); most > 2 {
		t.Errorf("%d connections open at once, want at most the cap of 2", most)
	}
	if n := srv.accepted.Load(); n > 2 {
		t.Errorf("%d connections accepted, want 2 (keep-alive)", n)
	}
	// 2 connections × 50 req/s each serve 100 of the 200 req/s: the rest
	// queue, and the queue grows through the run.
	if res.Summary.Errors != 0 {
		t.Errorf("%d errors: %v", res.Summary.Errors, res.Summary.ErrorsBy)
	}
	tr := res.Trials[0]
	if tr.ConnWaitP99Ms < 100 {
		t.Errorf("connection wait P99 %.1f ms, want the queue's (hundreds of ms)", tr.ConnWaitP99Ms)
	}
	if res.Summary.Latency.P50 < 100 || res.Summary.Service.P99 > 200 {
		t.Errorf("latency P50 %.1f ms, service P99 %.1f ms: want the wait in latency only", res.Summary.Latency.P50, res.Summary.Service.P99)
	}
}

// Servers that close connections: with Connection: close every request
// succeeds on a connection of its own; a server that closes each
// keep-alive connection after one response without saying so has the next
// request on it find it closed, retried once on a fresh connection; none
// fails either way.
func TestEvLoopServerCloses(t *testing.T) {
	tests := []struct {
		name     string
		response string
		// oneEach: every request needed a connection of its own (the
		// server said so, so none is reused and retried).
		oneEach bool
	}{
		{name: "Connection: close", response: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", oneEach: true},
		{name: "silent close", response: okResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRawServer(t, func(c net.Conn, _ int) bool {
				io.WriteString(c, tt.response)
				return false
			})
			o := runLoop(t, srv.url(), 5*time.Second, Options{Rate: 200, Duration: 500 * time.Millisecond, Trials: 1})
			res, err := run(t, o)
			if err != nil {
				t.Fatal(err)
			}
			wantRequests(t, res, 200)
			if res.Summary.Errors != 0 {
				t.Errorf("%d errors: %v", res.Summary.Errors, res.Summary.ErrorsBy)
			}
			if n, sent := srv.accepted.Load(), res.Summary.Requests; tt.oneEach && n < sent {
				t.Errorf("%d connections for %d requests, want one each", n, sent)
			}
		})
	}
}

// Errors mid-response are counted by class, never timed, and do not
// stop the loop: a body cut short by a close (connection), a malformed
// header (protocol), a 503 (http_503), every third request each.
func TestEvLoopErrorsMidResponse(t *testing.T) {
	srv := newRawServer(t, func(c net.Conn, n int) bool {
		switch n % 4 {
		case 1:
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
			return false
		case 2:
			io.WriteString(c, "HTTP/1.1 200 OK\r\nBad Header\r\n\r\n")
			return false
		case 3:
			io.WriteString(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
			return true
		}
		io.WriteString(c, okResponse)
		return true
	})
	o := runLoop(t, srv.url(), 5*time.Second, Options{Rate: 200, MaxConns: 1, Duration: time.Second, Trials: 1})
	res, err := run(t, o)
	if err != nil {
		t.Fatal(err)
	}
	wantRequests(t, res, 200)
	by := res.Summary.ErrorsBy
	for _, class := range []string{ErrConnection, ErrProtocol, HTTPClass(503)} {
		if by[class] < 20 {
			t.Errorf("%d %s errors, want about a quarter of %d: %v", by[class], class, res.Summary.Requests, by)
		}
	}
	if by[ErrTimeout] != 0 {
		t.Errorf("%d timeouts: %v", by[ErrTimeout], by)
	}
	if ok := res.Summary.Requests - res.Summary.Errors; ok < 20 {
		t.Errorf("%d successes of %d, want about a quarter", ok, res.Summary.Requests)
	}
}

// An unreachable target: every request fails as a connection error, at
// once, and the run says that every request failed.
func TestEvLoopRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/"
	ln.Close()
	o := runLoop(t, url, 5*time.Second, Options{Rate: 100, Duration: 500 * time.Millisecond, Trials: 1})
	res, err := run(t, o)
	if err == nil || !strings.Contains(err.Error(), "every request failed") {
		t.Fatalf("err %v, want every request failed", err)
	}
	if res.Summary.ErrorsBy[ErrConnection] != res.Summary.Requests || res.Summary.Requests == 0 {
		t.Errorf("errors %v of %d requests, want all connection errors", res.Summary.ErrorsBy, res.Summary.Requests)
	}
}

// The engine and its settings come from Options.Engine: the result says
// which engine ran and its burst, and a value that means nothing is an
// error naming it, not a silent default.
func TestEngineSettings(t *testing.T) {
	tests := []struct {
		name      string
		set       EngineSettings
		mode      string
		engine    string
		burstMs   float64
		wantError string
	}{
		{name: "default open loop", engine: EngineEventLoop, burstMs: 1},
		{name: "event-loop named", set: EngineSettings{Engine: EngineEventLoop}, engine: EngineEventLoop, burstMs: 1},
		{name: "workers", set: EngineSettings{Engine: EngineWorkers}, engine: EngineWorkers},
		{name: "bursts of 250us", set: EngineSettings{LoopBatch: 250 * time.Microsecond}, engine: EngineEventLoop, burstMs: 0.25},
		{name: "each hit when due", set: EngineSettings{LoopBatch: NoLoopBatch}, engine: EngineEventLoop},
		{name: "closed loop runs on workers", mode: ModeConcurrency, engine: EngineWorkers},
		{name: "unknown engine", set: EngineSettings{Engine: "epoll"}, wantError: `engine "epoll": want workers or event-loop`},
		{name: "negative spin", set: EngineSettings{LoopSpin: -5 * time.Microsecond}, wantError: `loop spin -5µs`},
	}
	srv := hangServer(t, 0, 0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := runLoop(t, srv.URL, 5*time.Second, Options{Mode: tt.mode, Rate: 100, Concurrency: 2, Duration: 200 * time.Millisecond, Trials: 1, Engine: tt.set})
			before := evLoopRuns.Load()
			res, err := Run(context.Background(), *o)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ran := evLoopRuns.Load() != before; ran != (tt.engine == EngineEventLoop) {
				t.Errorf("event loop ran: %v, want engine %s", ran, tt.engine)
			}
			if res.Load.Engine != tt.engine || res.Load.BurstMs != tt.burstMs {
				t.Errorf("load.engine %q, burst_ms %v; want %q, %v", res.Load.Engine, res.Load.BurstMs, tt.engine, tt.burstMs)
			}
		})
	}
}

// A request body larger than the socket's send buffer goes out in parts,
// on EPOLLOUT. A server that answers before reading it all (an early 413)
// and closes is heard as its status or, when its close resets the
// connection first, as a connection error; never a hang.
func TestEvLoopLargeBody(t *testing.T) {
	body := make([]byte, 8<<20)
	tests := []struct {
		name  string
		early bool
		want  []string // the classes every request may end with
	}{
		{"read whole", false, []string{""}},
		{"answered early", true, []string{HTTPClass(413), ErrConnection}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.early {
					w.Header().Set("Connection", "close")
					w.WriteHeader(http.StatusRequestEntityTooLarge)
					return
				}
				n, _ := io.Copy(io.Discard, r.Body)
				if n != int64(len(body)) {
					w.WriteHeader(http.StatusBadRequest)
				}
			}))
			t.Cleanup(srv.Close)
			c, err := NewHTTPClient(HTTPOptions{URL: srv.URL, Body: body, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			o := &Options{Client: c, Mode: ModeRate, Rate: 10, Duration: time.Second, Trials: 1}
			t0 := time.Now()
			res, _ := run(t, o)
			wantRequests(t, res, 10)
			var n int64 // requests that ended in a wanted class
			for _, class := range tt.want {
				if class == "" {
					n += res.Summary.Requests - res.Summary.Errors
				} else {
					n += res.Summary.ErrorsBy[class]
				}
			}
			if n != res.Summary.Requests {
				t.Errorf("errors %v of %d requests, want every one in %q", res.Summary.ErrorsBy, res.Summary.Requests, tt.want)
			}
			if took := time.Since(t0); took > 5*time.Second {
				t.Errorf("the run took %v: a request hung", took)
			}
		})
	}
}
