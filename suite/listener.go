package suite

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/procfs"
)

// urlTargetPID finds the process serving a url: target on this host (a
// loopback address): the one holding the socket listening on its port,
// so that the host-load sampler counts its CPU as the target's rather
// than as other work (a CPU-bound service would otherwise flag every
// trial of its own load "host busy"). base is an HTTP base URL or, for
// kserve-grpc, host:port. It returns 0, saying why on log, when the
// address is not loopback or no listener of ours is found.
func urlTargetPID(base string, log io.Writer) int {
	host, port, ok := hostPort(base)
	if !ok || !loopbackHost(host) {
		return 0
	}
	pid, found, err := procfs.ListenerPID("/proc", port)
	switch {
	case err != nil:
		logf(log, "url %s: finding the process that serves it: %v; its CPU time counts as other work in the host load", base, err)
	case !found:
		logf(log, "url %s: no process of this user listens on port %d (another user's, or a container's): its CPU time counts as other work in the host load, which may flag trials host busy", base, port)
	default:
		// The name shows a proxy in front of the service (docker-proxy
		// for a container's published port), whose CPU is not the
		// service's.
		logf(log, "url %s: served by process %d (%s) on this host: its CPU time (and its children's) is the target's in the host load", base, pid, procfs.Comm("/proc", pid))
		return pid
	}
	return 0
}

// hostPort splits an HTTP(S) base URL or a host:port into host and port,
// the scheme's default port when none is written.
func hostPort(base string) (string, int, bool) {
	hostport := base
	if strings.Contains(base, "://") {
		u, err := url.Parse(base)
		if err != nil {
			return "", 0, false
		}
		hostport = u.Host
		if u.Port() == "" {
			switch u.Scheme {
			case "http":
				hostport = net.JoinHostPort(u.Hostname(), "80")
			case "https":
				hostport = net.JoinHostPort(u.Hostname(), "443")
			}
		}
	}
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(p)
	if err != nil || n <= 0 || n > 65535 {
		return "", 0, false
	}
	return h, n, true
}

// loopbackHost reports whether host names this machine's loopback.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func logf(w io.Writer, format string, a ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", a...)
	}
}
