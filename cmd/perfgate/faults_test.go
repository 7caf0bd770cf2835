package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/result"
)

// rawServer listens on 127.0.0.1 and hands each connection to serve; it is
// closed, with every connection, when the test ends.
func rawServer(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go serve(c)
		}
	}()
	t.Cleanup(func() {
		close(done)
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return "http://" + ln.Addr().String() + "/"
}

// readRequests reads requests from c and calls answer for each.
func readRequests(c net.Conn, answer func(n int) bool) {
	defer c.Close()
	br := bufio.NewReader(c)
	for n := 0; ; n++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		req.Body.Close()
		if !answer(n) {
			return
		}
	}
}

// readResult reads a result file a test run wrote.
func readResult(t *testing.T, path string) *result.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r result.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// Faults of the service under test are data: every request is accounted
// for as a success or an error of its class, never a latency, and the run
// ends on time whatever the server does.
func TestRunFaults(t *testing.T) {
	t.Parallel() // light, and robust beside another: see runCLI
	const okResp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	tests := []struct {
		name string
		// serve handles one connection.
		serve func(c net.Conn)
		// wantClass must be among the error classes; wantOK: some
		// requests succeed.
		wantClass string
		wantOK    bool
	}{
		{
			// The server sends part of a response, then resets the
			// connection (SO_LINGER 0: RST, not FIN).
			name: "connection reset mid-response",
			serve: func(c net.Conn) {
				readRequests(c, func(int) bool {
					c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial"))
					c.(*net.TCPConn).SetLinger(0)
					return false
				})
			},
			wantClass: "connection",
		},
		{
			// Headers, then one byte a second: the request times out.
			name: "response trickles past the timeout",
			serve: func(c net.Conn) {
				readRequests(c, func(int) bool {
					c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 30\r\n\r\n"))
					for i := 0; i < 30; i++ {
						if _, err := c.Write([]byte("x")); err != nil {
							return false
						}
						time.Sleep(time.Second)
					}
					return true
				})
			},
			wantClass: "timeout",
		},
		{
			// The server answers each request twice: the second answer
			// reaches the keep-alive connection before the next request
			// is asked, and must not be taken for its answer (a latency
			// of ~0). The request that finds it fails as a protocol
			// error and the connection is dropped.
			name: "answers before it is asked",
			serve: func(c net.Conn) {
				readRequests(c, func(int) bool {
					time.Sleep(20 * time.Millisecond)
					c.Write([]byte(okResp + okResp))
					return true
				})
			},
			wantClass: "protocol",
			wantOK:    true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := rawServer(t, tt.serve)
			out := filepath.Join(t.TempDir(), "r.json")
			start := time.Now()
			// Short windows: the rows test how faults are counted, not a
			// figure; 10 requests a trial reach each fault.
			code, _, stderr := runCLI(t, "run", "--url", url, "--rate", "20", "--duration", "500ms", "--warmup", "0s",
				"--trials", "2", "--timeout", "500ms", "--out", out)
			took := time.Since(start)
			// 1 s of load, at most the drain and one timeout more.
			if took > 30*time.Second {
				t.Errorf("the run took %v", took)
			}
			if code != exitPass && code != exitRunFailed {
				t.Fatalf("exit %d, want 0 or 3:\n%s", code, stderr)
			}
			if code == exitRunFailed && !tt.wantOK {
				// Every request failed: said so, with the class.
				if !strings.Contains(stderr, "every request failed") {
					t.Errorf("exit 3 without saying every request failed:\n%s", stderr)
				}
			}
			r := readResult(t, out)
			s := r.Summary
			var classes []string
			for k := range s.ErrorsBy {
				classes = append(classes, k)
			}
			if s.ErrorsBy[tt.wantClass] == 0 {
				t.Errorf("errors by class %v, want %q among them", s.ErrorsBy, tt.wantClass)
			}
			completed := s.Requests - s.Errors // the successes
			if tt.wantOK && completed == 0 {
				t.Errorf("no request succeeded, want the asked ones to")
			}
			// A response before the request is never a success of ~0 ms.
			if tt.wantOK && s.Latency.P50 < 10 {
				t.Errorf("P50 %v ms: early responses were counted as answers (the server takes 20 ms)", s.Latency.P50)
			}
			if !tt.wantOK && completed != 0 {
				t.Errorf("%d requests counted as successes, want none (%s)", completed, fmt.Sprint(s))
			}
		})
	}
}
