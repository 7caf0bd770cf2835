package suite

import (
	"bytes"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestHostPort(t *testing.T) {
	tests := []struct {
		base     string
		host     string
		port     int
		ok, loop bool
	}{
		{"http://127.0.0.1:8000", "127.0.0.1", 8000, true, true},
		{"http://localhost:8000/v2", "localhost", 8000, true, true},
		{"http://[::1]:9000", "::1", 9000, true, true},
		{"http://localhost", "localhost", 80, true, true},
		{"https://example.com", "example.com", 443, true, false},
		{"127.0.0.1:8001", "127.0.0.1", 8001, true, true}, // kserve-grpc
		{"http://10.0.0.5:8000", "10.0.0.5", 8000, true, false},
		{"http://127.0.0.1:x", "", 0, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			h, p, ok := hostPort(tt.base)
			if h != tt.host || p != tt.port || ok != tt.ok {
				t.Errorf("hostPort(%q) = %q, %d, %v; want %q, %d, %v", tt.base, h, p, ok, tt.host, tt.port, tt.ok)
			}
			if ok && loopbackHost(h) != tt.loop {
				t.Errorf("loopbackHost(%q) = %v, want %v", h, !tt.loop, tt.loop)
			}
		})
	}
}

// A url: served on loopback by a process of ours is found by its
// listening socket (here, this test's own), and the log says so; a port
// nobody listens on is not, and the log says what that costs.
func TestURLTargetPID(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp here")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	var log bytes.Buffer
	if pid := urlTargetPID("http://127.0.0.1:"+strconv.Itoa(port), &log); pid != os.Getpid() {
		t.Errorf("urlTargetPID = %d, want this process %d (log: %s)", pid, os.Getpid(), log.String())
	}
	if !strings.Contains(log.String(), "served by process") || !strings.Contains(log.String(), "suite.test") {
		t.Errorf("log %q, want it to name the serving process and its command (suite.test)", log.String())
	}
	ln.Close()
	log.Reset()
	if pid := urlTargetPID("http://127.0.0.1:"+strconv.Itoa(port), &log); pid != 0 {
		t.Errorf("after close: urlTargetPID = %d, want 0", pid)
	}
	if !strings.Contains(log.String(), "counts as other work") {
		t.Errorf("log %q, want it to say the CPU counts as other work", log.String())
	}
	if pid := urlTargetPID("http://10.1.2.3:80", &log); pid != 0 {
		t.Errorf("a remote url: pid %d, want 0", pid)
	}
}
