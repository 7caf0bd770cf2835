package procfs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tcpListen is the state of a listening socket in /proc/net/tcp (TCP_LISTEN).
const tcpListen = "0A"

// ListenerPID returns the process that holds the socket listening on TCP
// port under root (/proc): the service a loopback URL names, when perfgate
// did not start it. It reads root/net/tcp and root/net/tcp6 for the
// listening socket's inode, then the file descriptors of every process
// for that socket. ok is false when no listener is found or its owner is
// not ours to read (another user's process, without privileges).
func ListenerPID(root string, port int) (pid int, ok bool, err error) {
	inodes := map[string]bool{}
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(root, "net", name))
		if err != nil {
			continue // no IPv6, or no /proc
		}
		err = listening(f, port, inodes)
		f.Close()
		if err != nil {
			return 0, false, fmt.Errorf("reading %s: %w", filepath.Join(root, "net", name), err)
		}
	}
	if len(inodes) == 0 {
		return 0, false, nil
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return 0, false, fmt.Errorf("reading %s: %w", root, err)
	}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p <= 0 {
			continue
		}
		fds := filepath.Join(root, e.Name(), "fd")
		links, err := os.ReadDir(fds)
		if err != nil {
			continue // exited, or not ours to read
		}
		for _, l := range links {
			target, err := os.Readlink(filepath.Join(fds, l.Name()))
			if err != nil || !strings.HasPrefix(target, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] {
				return p, true, nil
			}
		}
	}
	return 0, false, nil
}

// Comm is process pid's command name under root (/proc/PID/comm), "" when
// it cannot be read.
func Comm(root string, pid int) string {
	b, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "comm"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// listening adds to inodes the inode of each socket in a /proc/net/tcp
// table that listens on port.
func listening(f *os.File, port int, inodes map[string]bool) error {
	sc := bufio.NewScanner(f)
	first := true
	for sc.Scan() {
		if first { // the header
			first = false
			continue
		}
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		fs := bytes.Fields(sc.Bytes())
		if len(fs) < 10 {
			return fmt.Errorf("line %q: %d fields, want at least 10", sc.Text(), len(fs))
		}
		_, hexPort, found := bytes.Cut(fs[1], []byte(":"))
		if !found {
			return fmt.Errorf("local address %q: no port", fs[1])
		}
		p, err := strconv.ParseUint(string(hexPort), 16, 16)
		if err != nil {
			return fmt.Errorf("local address %q: %w", fs[1], err)
		}
		if int(p) == port && string(fs[3]) == tcpListen && string(fs[9]) != "0" {
			inodes[string(fs[9])] = true
		}
	}
	return sc.Err()
}

// Tree returns process pid and its descendants under root (/proc), read
// from each process's parent. Processes that exit while it reads, or are
// not ours to read, are skipped.
func Tree(root string, pid int) ([]Proc, error) {
	all, err := readAll(root)
	if err != nil {
		return nil, err
	}
	in := map[int]bool{pid: true}
	for grew := true; grew; { // parents may be listed after their children
		grew = false
		for _, p := range all {
			if !in[p.PID] && in[p.PPID] {
				in[p.PID], grew = true, true
			}
		}
	}
	var out []Proc
	for _, p := range all {
		if in[p.PID] {
			out = append(out, p)
		}
	}
	return out, nil
}
