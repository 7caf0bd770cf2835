package http1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestNewRejects(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string // a substring of the error
	}{
		{"https", Options{URL: "https://127.0.0.1/"}, "https is not supported"},
		{"other scheme", Options{URL: "ftp://127.0.0.1/"}, "is not http"},
		{"no host", Options{URL: "http:///x"}, "no host"},
		{"unparsable", Options{URL: "http://[::1/"}, "url"},
		{"user info", Options{URL: "http://u:p@127.0.0.1/"}, "user info"},
		{"bad method", Options{URL: "http://127.0.0.1/", Method: "GE T"}, "method"},
		{"bad header name", Options{URL: "http://127.0.0.1/", Headers: map[string]string{"X Y": "1"}}, "header name"},
		// Header injection: a value may not end the header early.
		{"CRLF in value", Options{URL: "http://127.0.0.1/", Headers: map[string]string{"X": "1\r\nY: 2"}}, "CR, LF"},
		{"content-length given", Options{URL: "http://127.0.0.1/", Headers: map[string]string{"content-length": "3"}}, "set by the client"},
		{"negative timeout", Options{URL: "http://127.0.0.1/", Timeout: -1}, "negative timeout"},
		{"negative conns", Options{URL: "http://127.0.0.1/", MaxConns: -1}, "negative MaxConns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New(%+v) error = %v, want one containing %q", tt.o, err, tt.want)
			}
		})
	}
}

func TestRequestBytes(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		body []byte // passed to appendRequest; nil for the prebuilt one
		want string
	}{
		{
			name: "get",
			o:    Options{URL: "http://127.0.0.1:8080/a/b?q=1"},
			want: "GET /a/b?q=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: perfgate\r\n\r\n",
		},
		{
			name: "post with headers sorted and host overridden",
			o: Options{URL: "http://127.0.0.1", Method: "POST", Body: []byte(`{"a":1}`),
				Headers: map[string]string{"X-B": "2", "Content-Type": "application/json", "host": "example.com", "X-A": "1"}},
			want: "POST / HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json\r\nUser-Agent: perfgate\r\n" +
				"X-A: 1\r\nX-B: 2\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
		},
		// POST always states its length, even when empty, or a server
		// would wait for a body that never comes.
		{
			name: "empty post",
			o:    Options{URL: "http://127.0.0.1/", Method: "POST"},
			want: "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: perfgate\r\nContent-Length: 0\r\n\r\n",
		},
		{
			name: "per-call body replaces the default",
			o:    Options{URL: "http://127.0.0.1/", Method: "PUT", Body: []byte("default")},
			body: []byte("xy"),
			want: "PUT / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: perfgate\r\nContent-Length: 2\r\n\r\nxy",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := newRequest(&tt.o)
			if err != nil {
				t.Fatal(err)
			}
			got := string(r.full)
			if tt.body != nil {
				got = string(r.appendRequest(nil, tt.body))
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("request bytes (-want +got):\n%s", d)
			}
		})
	}
}

// TestDoSendsRequest checks what a real net/http server receives.
func TestDoSendsRequest(t *testing.T) {
	type seen struct{ Method, Path, Header, Body string }
	var mu sync.Mutex
	var got []seen
	srv, _ := newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.RequestURI(), r.Header.Get("X-Test"), string(b)})
		mu.Unlock()
		w.WriteHeader(201)
	}))
	cl := newClient(t, Options{URL: srv.URL + "/infer?x=1", Method: "POST", Body: []byte("default"),
		Headers: map[string]string{"X-Test": "yes"}})
	for _, body := range [][]byte{nil, []byte("override"), {}} {
		status, err := cl.Do(context.Background(), body)
		if err != nil || status != 201 {
			t.Fatalf("Do(%q) = %d, %v, want 201, nil", body, status, err)
		}
	}
	want := []seen{
		{"POST", "/infer?x=1", "yes", "default"},
		{"POST", "/infer?x=1", "yes", "override"},
		{"POST", "/infer?x=1", "yes", ""},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("server saw (-want +got):\n%s", d)
	}
}

func TestKeepAliveReuse(t *testing.T) {
	srv, accepted := newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello")
	}))
	const conns, workers, each = 4, 8, 50
	cl := newClient(t, Options{URL: srv.URL, MaxConns: conns})
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for range workers {
		wg.Go(func() {
			for range each {
				if status, err := cl.Do(context.Background(), nil); err != nil || status != 200 {
					errs <- fmt.Errorf("Do = %d, %v", status, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := accepted.Load(); n < 1 || n > conns {
		t.Errorf("server accepted %d connections for %d requests, want 1..%d", n, workers*each, conns)
	}
	if d := cl.Dials(); d != uint64(accepted.Load()) {
		t.Errorf("Dials() = %d, server accepted %d", d, accepted.Load())
	}
}

func TestDialRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	cl := newClient(t, Options{URL: "http://" + addr + "/", Timeout: 5 * time.Second})
	if _, err := cl.Do(context.Background(), nil); class(err) != "connection" {
		t.Errorf("Do to a closed port = %v, want a connection error", err)
	}
}

// TestWarmConnectionsFirst checks that a large pool does not open a
// connection per slot: sequential requests reuse one warm connection.
func TestWarmConnectionsFirst(t *testing.T) {
	srv := newRawServer(t, replyFast("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	cl := newClient(t, Options{URL: srv.URL, MaxConns: 4096})
	for i := range 100 {
		if status, err := cl.Do(context.Background(), nil); err != nil || status != 200 {
			t.Fatalf("request %d: Do = %d, %v", i, status, err)
		}
	}
	if n := srv.accepted.Load(); n != 1 {
		t.Errorf("server accepted %d connections for 100 sequential requests, want 1", n)
	}
}

func TestLargeBody(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 300_000) // 4.8 MB
	tests := []struct {
		name    string
		chunked bool
	}{
		{"content-length", false},
		{"chunked", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := newCountingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !tt.chunked {
					w.Header().Set("Content-Length", fmt.Sprint(len(big)))
				}
				for b := big; len(b) > 0; b = b[min(len(b), 100_000):] {
					w.Write(b[:min(len(b), 100_000)])
					if tt.chunked {
						w.(http.Flusher).Flush()
					}
				}
			}))
			cl := newClient(t, Options{URL: srv.URL, MaxConns: 1})
			status, got, err := cl.DoAppend(context.Background(), nil, nil)
			if err != nil || status != 200 {
				t.Fatalf("DoAppend = %d, %v", status, err)
			}
			if !bytes.Equal(got, big) {
				t.Errorf("DoAppend body: %d bytes, want the %d sent", len(got), len(big))
			}
			// Discarded, on the same connection.
			if status, err := cl.Do(context.Background(), nil); err != nil || status != 200 {
				t.Fatalf("Do = %d, %v", status, err)
			}
			if cl.Dials() != 1 {
				t.Errorf("Dials() = %d, want 1", cl.Dials())
			}
		})
	}
}

func TestTimeouts(t *testing.T) {
	srv := newRawServer(t, stall)
	tests := []struct {
		name      string
		timeout   time.Duration
		ctx       func() (context.Context, context.CancelFunc)
		wantIs    error // nil: only IsTimeout is checked
		isTimeout bool
	}{
		{"option", 50 * time.Millisecond, func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, nil, true},
		{"context deadline", 0, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, context.DeadlineExceeded, true},
		{"context cancel", 0, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := newClient(t, Options{URL: srv.URL, Timeout: tt.timeout, MaxConns: 1})
			ctx, cancel := tt.ctx()
			defer cancel()
			start := time.Now()
			_, err := cl.Do(ctx, nil)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("Do took %v, want about 50ms", took)
			}
			if IsTimeout(err) != tt.isTimeout {
				t.Errorf("Do error %v: IsTimeout = %v, want %v", err, IsTimeout(err), tt.isTimeout)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Do error %v, want one wrapping %v", err, tt.wantIs)
			}
		})
	}
}

// TestPoolBlocks checks that a request waits for a free connection, and
// gives up when its context ends, without opening another connection.
func TestPoolBlocks(t *testing.T) {
	srv := newRawServer(t, stall)
	cl := newClient(t, Options{URL: srv.URL, MaxConns: 1})
	busy, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := cl.Do(busy, nil); done <- err }()
	for srv.accepted.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := cl.Do(ctx, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Do with all connections busy = %v, want %v", err, context.DeadlineExceeded)
	}
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("in-flight Do after cancel = %v, want %v", err, context.Canceled)
	}
	if n := srv.accepted.Load(); n != 1 {
		t.Errorf("server accepted %d connections, want 1", n)
	}
}

func TestClose(t *testing.T) {
	srv := newRawServer(t, stall)
	cl, err := New(Options{URL: srv.URL, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { _, err := cl.Do(context.Background(), nil); done <- err }()
	for srv.accepted.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := cl.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if err := <-done; class(err) != "connection" {
		t.Errorf("in-flight Do after Close = %v, want a connection error", err)
	}
	if _, err := cl.Do(context.Background(), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Do after Close = %v, want %v", err, ErrClosed)
	}
	if err := cl.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
}

// TestNoAllocs checks the steady state allocates nothing per request.
func TestNoAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation count under -short")
	}
	// The server shares the process, so it must not allocate either.
	srv := newRawServer(t, replyFast("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
	cl := newClient(t, Options{URL: srv.URL, Method: "POST", Body: []byte("x"), Timeout: 10 * time.Second, MaxConns: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body, dst := []byte("per-call body"), make([]byte, 0, 64)
	tests := []struct {
		name string
		do   func() error
	}{
		{"background context", func() error { _, err := cl.Do(context.Background(), nil); return err }},
		{"cancellable context", func() error { _, err := cl.Do(ctx, nil); return err }},
		{"per-call body", func() error { _, err := cl.Do(ctx, body); return err }},
		{"keep body", func() error { _, _, err := cl.DoAppend(ctx, nil, dst[:0]); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			allocs := testing.AllocsPerRun(200, func() {
				if e := tt.do(); e != nil {
					err = e
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if allocs != 0 {
				t.Errorf("allocations per request = %v, want 0", allocs)
			}
		})
	}
}

// TestWarmConnectionUsedLastFirst: idle connections are a stack. After two
// requests at once open two connections, sequential requests all go to the
// one returned last, so that a large pool keeps a few connections busy
// (and reused within peekIdle) rather than every open one in turn.
func TestWarmConnectionUsedLastFirst(t *testing.T) {
	var perConn [3]atomic.Int64 // requests per connection, 1-based
	var slow atomic.Bool
	slow.Store(true)
	srv := newRawServer(t, func(n int64, c net.Conn, r *bufio.Reader) {
		for {
			if _, _, ok := readRequest(r); !ok {
				return
			}
			if n < int64(len(perConn)) {
				perConn[n].Add(1)
			}
			if slow.Load() {
				time.Sleep(50 * time.Millisecond) // both first requests in flight at once
			}
			if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
				return
			}
		}
	})
	cl := newClient(t, Options{URL: srv.URL, MaxConns: 8, Timeout: 5 * time.Second})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := cl.Do(context.Background(), nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	slow.Store(false)
	if n := srv.accepted.Load(); n != 2 {
		t.Fatalf("two requests at once opened %d connections, want 2", n)
	}
	for i := range 20 {
		if _, err := cl.Do(context.Background(), nil); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	a, b := perConn[1].Load(), perConn[2].Load()
	if min(a, b) != 1 || a+b != 22 {
		t.Errorf("requests per connection %d and %d, want 1 and 21: the connection used last should take every sequential request", a, b)
	}
}
