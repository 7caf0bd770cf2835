package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

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

// maxDialWait bounds dialURL's connection attempt: a service that does
// not accept within it would fail the load's requests too.
const maxDialWait = 5 * time.Second

// dialURL opens and closes one TCP connection to a url: target's address
// before any load (base is an HTTP base URL or host:port), so that a
// wrong port or a service not started is said plainly, in the time of one
// connection, rather than as every request of the whole load refused.
// timeout (0: maxDialWait) bounds the attempt, never above maxDialWait.
func dialURL(ctx context.Context, base string, timeout time.Duration) error {
	host, port, ok := hostPort(base)
	if !ok {
		return nil // the protocol client reports a malformed URL
	}
	if timeout <= 0 || timeout > maxDialWait {
		timeout = maxDialWait
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err == nil {
		return c.Close()
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("url %s: nothing listens on %s (connection refused): start the service first, or check the URL's host and port", base, addr)
	}
	return fmt.Errorf("url %s: cannot connect to %s before any load: %w", base, addr, err)
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
