package procfs

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A captured /proc: process 20 listens on port 8000 (0x1F40) over IPv6,
// process 21 holds a connection from that port (not a listener), 22 is a
// worker forked by 20, 23 its child, 30 unrelated.
func fakeProc(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	mk := func(path, body string) {
		t.Helper()
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(pid, fd, target string) {
		t.Helper()
		dir := filepath.Join(root, pid, "fd")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, fd)); err != nil {
			t.Fatal(err)
		}
	}
	const head = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	mk("net/tcp", head+
		"   0: 0100007F:1F40 0100007F:9C41 01 00000000:00000000 00:00000000 00000000     0        0 5555 1 0 20 4 30 10 -1\n"+
		"   1: 0100007F:1F41 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 6666 1 0 100 0 0 10 0\n")
	mk("net/tcp6", head+
		"   0: 00000000000000000000000000000000:1F40 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 7777 1 0 100 0 0 10 0\n")
	mk("20/stat", "20 (server) S 1 20 20 0 -1 0 0 0 0 0 40 2 0 0 20 0 4 0 100 0 0\n")
	mk("21/stat", "21 (client) S 1 21 21 0 -1 0 0 0 0 0 1 1 0 0 20 0 4 0 100 0 0\n")
	mk("22/stat", "22 (worker) S 20 20 20 0 -1 0 0 0 0 0 5 5 0 0 20 0 4 0 101 0 0\n")
	mk("23/stat", "23 (helper) S 22 20 20 0 -1 0 0 0 0 0 1 0 0 0 20 0 4 0 102 0 0\n")
	mk("30/stat", "30 (other) S 1 30 30 0 -1 0 0 0 0 0 9 9 0 0 20 0 4 0 103 0 0\n")
	mk("20/comm", "server\n")
	link("20", "3", "socket:[7777]")
	link("20", "0", "/dev/null")
	link("21", "5", "socket:[5555]")
	link("30", "4", "socket:[6666]")
	return root
}

func TestListenerPID(t *testing.T) {
	root := fakeProc(t)
	tests := []struct {
		name    string
		port    int
		wantPID int
		wantOK  bool
	}{
		{"listening over IPv6", 8000, 20, true},
		{"listening over IPv4", 8001, 30, true},
		{"nobody listens", 9000, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pid, ok, err := ListenerPID(root, tt.port)
			if err != nil || pid != tt.wantPID || ok != tt.wantOK {
				t.Errorf("ListenerPID(%d) = %d, %v, %v; want %d, %v, nil", tt.port, pid, ok, err, tt.wantPID, tt.wantOK)
			}
		})
	}
	if got := Comm(root, 20); got != "server" {
		t.Errorf("Comm(20) = %q, want server", got)
	}
	if got := Comm(root, 99); got != "" {
		t.Errorf("Comm(99) = %q, want empty (no such process)", got)
	}
	if err := os.WriteFile(filepath.Join(root, "net", "tcp"), []byte("header\n0: 0100007F 0 0A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ListenerPID(root, 8000); err == nil || !strings.Contains(err.Error(), filepath.Join(root, "net", "tcp")) {
		t.Errorf("a malformed table: error %v, want one naming %s", err, filepath.Join(root, "net", "tcp"))
	}
}

// Tree follows parents down: the server, its worker and the worker's child.
func TestTree(t *testing.T) {
	procs, err := Tree(fakeProc(t), 20)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range procs {
		pids = append(pids, p.PID)
	}
	slices.Sort(pids)
	if !slices.Equal(pids, []int{20, 22, 23}) {
		t.Errorf("Tree(20) = %v, want [20 22 23]", pids)
	}
}

// On this host (Linux): a socket this test listens on is found, and its
// owner is this process.
func TestListenerPIDLive(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp here")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	pid, ok, err := ListenerPID("/proc", port)
	if err != nil || !ok || pid != os.Getpid() {
		t.Errorf("ListenerPID(%d) = %d, %v, %v; want this process %d", port, pid, ok, err, os.Getpid())
	}
}
