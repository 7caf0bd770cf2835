package targetproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/perfgate/perfgate/internal/capread"
	"github.com/perfgate/perfgate/internal/cpuset"
	"github.com/perfgate/perfgate/internal/defaults"
	"github.com/perfgate/perfgate/internal/sameorigin"
)

// Defaults for Spec.ReadyTimeout and Target.Stop's grace period.
const (
	DefaultReadyTimeout = defaults.ReadyTimeout
	DefaultStopGrace    = 5 * time.Second
)

const (
	// logTailBytes is how much of the end of a target's log LogTail returns.
	logTailBytes = 64 << 10
	// errorLogLines is how many of the log's last lines an error quotes.
	errorLogLines = 20
	// killWait bounds the wait for a process group to vanish after SIGKILL.
	killWait = 5 * time.Second
	// Readiness is polled every readyPollMin at first, backing off by half
	// again each time to readyPollMax.
	readyPollMin = 50 * time.Millisecond
	readyPollMax = 250 * time.Millisecond
	// readyProbeTimeout bounds one readiness request.
	readyProbeTimeout = 2 * time.Second
)

// Spec describes a process perfgate starts, waits for and stops: the
// `targets:` entries of perfgate.yaml.
//
// Command arguments, Env values, Ready and Metrics may contain "{port}",
// replaced by a free port on 127.0.0.1, and "{grpc_port}", replaced by a
// second one (picked when GRPCPort is set or "{grpc_port}" appears anywhere).
type Spec struct {
	// Name names the target in errors and in the default log file name.
	Name string
	// Command is the program and its arguments; it must not be empty. The
	// program must stay in the foreground: its exit before readiness is an
	// error. A relative program path is relative to Dir.
	Command []string
	// BaseEnv is the environment the target inherits, as from os.Environ;
	// nil means none. The library never reads its own process's environment.
	// Only the variables DefaultEnv lists are inherited, and those named
	// in Passthrough, never one NeverPassed lists (see InheritedEnv);
	// Target.Withheld lists the names withheld.
	BaseEnv []string
	// Passthrough names further variables of BaseEnv the target inherits
	// (perfgate.yaml's env_passthrough), by exact name.
	Passthrough []string
	// Supervisor, on Linux, is the command of a supervisor to put between
	// perfgate and the target (perfgate's own `target-supervisor`), run as
	// Supervisor, perfgate's pid, then Command: it ties the target's whole
	// process tree to perfgate however perfgate dies (see Supervise). The
	// group then holds the supervisor too, and PGID is the supervisor's
	// pid. Empty, or on other platforms, the target is started directly.
	Supervisor []string
	// Env is added to BaseEnv, overriding variables of the same name.
	Env map[string]string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Ready is the readiness URL: the target is ready once a GET of it
	// answers 2xx. Empty means ready once 127.0.0.1:{port} accepts TCP
	// connections.
	Ready string
	// ReadyTimeout bounds the wait for readiness; zero means
	// DefaultReadyTimeout.
	ReadyTimeout time.Duration
	// Metrics is the target's Prometheus endpoint, if any.
	Metrics string
	// GRPCPort asks for a second free port, filled into {grpc_port}.
	GRPCPort bool
	// CPUs, if set, is the CPU set the target runs on (Linux): its main
	// process, and every thread and process it starts, from the first
	// instruction (see startOnCPUs). Elsewhere Start refuses it.
	CPUs cpuset.Set
	// LogPath is the file that receives the target's stdout and stderr
	// (created or truncated). Empty means a new temporary file, which is
	// kept after Stop for the user to read; LogPath reports its name.
	LogPath string
}

// Target is a started target process. Its methods are safe for concurrent
// use.
//
// The target runs in its own process group, so that Stop, and the
// cancellation of the context it was started with, reach every process it
// started, not only the first: SIGTERM to the group, then SIGKILL after the
// grace period, until no process of the group is left. A process that leaves
// the group on purpose (setsid, setpgid) escapes this.
type Target struct {
	name     string
	port     int
	grpcPort int
	ready    string
	metrics  string
	logPath  string
	log      *os.File
	pgid     int
	withheld []string
	// command is the spec's, placeholders unfilled: a hint quotes it.
	command []string

	exited  chan struct{} // closed once the main process has been reaped
	exitMsg string        // "exited with status 1", set before exited is closed

	stopOnce sync.Once
	stopped  chan struct{} // closed when Stop has finished
	stopErr  error
	stopping chan struct{} // closed when Stop begins
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago. The
// port is released before FreePort returns, so another process may take it
// first; callers that can should listen on port 0 instead.
func FreePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

// freePorts returns n distinct free ports, holding all of them open until
// every one is chosen so that no two are the same.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Start starts the target s describes and waits until it is ready.
// On any failure the target is stopped before Start returns; the error
// names the target and quotes the end of its log when it exited or was not
// ready in time. When ctx is cancelled, during the start or later, the
// target is stopped with DefaultStopGrace: so an interrupted perfgate leaves
// no process behind.
//
// The ports perfgate fills in ({port}, {grpc_port}) were free a moment
// before the target started, and another process may take one first: a
// target that exits before it is ready saying "address already in use" is
// started again on fresh ports, up to PortAttempts times in all.
func Start(ctx context.Context, s Spec) (*Target, error) {
	var err error
	for attempt := 1; ; attempt++ {
		var t *Target
		t, err = startOnce(ctx, s)
		if err == nil || !errors.As(err, new(portTaken)) {
			return t, err
		}
		if attempt == PortAttempts {
			return nil, fmt.Errorf("%w (its ports were taken by another process %d times in a row, each time on fresh ones)", err, PortAttempts)
		}
	}
}

// PortAttempts is how many times Start starts a target whose port
// was taken by another process before it could bind it.
const PortAttempts = 3

// portTaken marks a start that failed because the target could not bind
// a port perfgate chose for it; its text is the start's error.
type portTaken struct{ error }

func (p portTaken) Unwrap() error { return p.error }

// startOnce is one attempt of Start.
func startOnce(ctx context.Context, s Spec) (*Target, error) {
	if len(s.Command) == 0 {
		return nil, fmt.Errorf("target %q: empty command", s.Name)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("starting target %q: %w", s.Name, err)
	}
	n := 1
	if s.GRPCPort || specMentions(s, "{grpc_port}") {
		n = 2
	}
	ports, err := freePorts(n)
	if err != nil {
		return nil, fmt.Errorf("target %q: %w", s.Name, err)
	}
	t := &Target{
		name:     s.Name,
		port:     ports[0],
		exited:   make(chan struct{}),
		stopped:  make(chan struct{}),
		stopping: make(chan struct{}),
		command:  s.Command,
	}
	if n == 2 {
		t.grpcPort = ports[1]
	}
	r := t.replacer()
	t.ready = r.Replace(s.Ready)
	t.metrics = r.Replace(s.Metrics)

	if err := t.openLog(s.LogPath); err != nil {
		return nil, err
	}
	args := make([]string, len(s.Command))
	for i, a := range s.Command {
		args[i] = r.Replace(a)
	}
	if len(s.Supervisor) > 0 && supervisorSupported {
		args = append(append(append([]string{}, s.Supervisor...), strconv.Itoa(os.Getpid())), args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = s.Dir
	base, withheld := InheritedEnv(s.BaseEnv, s.Passthrough)
	t.withheld = withheld
	cmd.Env = targetEnv(base, s.Env, r)
	cmd.Stdout = t.log // an *os.File: the child writes to it directly, no pipe
	cmd.Stderr = t.log
	cmd.SysProcAttr = sysProcAttr()
	start := cmd.Start
	if len(s.CPUs) > 0 {
		start = func() error { return cpuset.StartOn(cmd, s.CPUs) }
	}
	if err := start(); err != nil {
		t.log.Close()
		if s.LogPath == "" {
			os.Remove(t.logPath) // empty, and nobody knows its name
		}
		return nil, fmt.Errorf("starting target %q: %w", s.Name, err)
	}
	t.pgid = cmd.Process.Pid
	go func() {
		cmd.Wait() // its error is the exit status, kept in ProcessState
		t.exitMsg = describeExit(cmd.ProcessState)
		close(t.exited)
	}()

	timeout := s.ReadyTimeout
	if timeout <= 0 {
		timeout = DefaultReadyTimeout
	}
	if err := t.waitReady(ctx, timeout); err != nil {
		if serr := t.Stop(DefaultStopGrace); serr != nil {
			err = fmt.Errorf("%w; %w", err, serr)
		}
		return nil, err
	}
	go func() {
		select {
		case <-ctx.Done():
			t.Stop(DefaultStopGrace)
		case <-t.stopping:
		}
	}()
	return t, nil
}

// specMentions reports whether a placeholder appears anywhere in s.
func specMentions(s Spec, placeholder string) bool {
	all := append([]string{s.Ready, s.Metrics}, s.Command...)
	for _, v := range s.Env {
		all = append(all, v)
	}
	for _, v := range all {
		if strings.Contains(v, placeholder) {
			return true
		}
	}
	return false
}

// replacer fills {port} and {grpc_port}.
func (t *Target) replacer() *strings.Replacer {
	return strings.NewReplacer(
		"{port}", strconv.Itoa(t.port),
		"{grpc_port}", strconv.Itoa(t.grpcPort),
	)
}

// targetEnv is base followed by env (in key order, placeholders filled);
// exec keeps the last value of a repeated name, so env overrides base.
func targetEnv(base []string, env map[string]string, r *strings.Replacer) []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := append([]string{}, base...)
	for _, k := range keys {
		out = append(out, k+"="+r.Replace(env[k]))
	}
	return out
}

// openLog creates the log file: path, or a temporary file when empty.
func (t *Target) openLog(path string) error {
	var (
		f   *os.File
		err error
	)
	if path == "" {
		f, err = os.CreateTemp("", "perfgate-target-"+safeName(t.name)+"-*.log")
	} else {
		f, err = createLog(path)
	}
	if err != nil {
		return fmt.Errorf("target %q: creating its log: %w", t.name, err)
	}
	t.log, t.logPath = f, f.Name()
	return nil
}

// safeName keeps the letters, digits, '-' and '_' of a name for a file name.
func safeName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
}

// waitReady polls readiness until it succeeds, the process exits, ctx is
// cancelled or timeout passes.
func (t *Target) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	client := sameorigin.Client(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}})
	defer client.CloseIdleConnections()
	interval := readyPollMin
	timer := time.NewTimer(0)
	defer timer.Stop()
	var last error
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("starting target %q: %w", t.name, ctx.Err())
		case <-t.exited:
		case <-timer.C:
		}
		// An exit is the better explanation, even when the time is up too.
		select {
		case <-t.exited:
			err := fmt.Errorf("target %q %s before it was ready%s", t.name, t.exitMsg, t.quoteLog())
			if strings.Contains(t.LogTail(), "address already in use") {
				err = portTaken{err}
			}
			return err
		default:
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("target %q was not ready at %s after %v (last try: %v); stopped it%s%s",
				t.name, t.readyWhere(), timeout, last, t.quoteLog(), portHint(t.name, t.LogTail(), t.port, t.grpcPort, t.command))
		}
		if last = t.probe(ctx, client, deadline); last == nil {
			return nil
		}
		timer.Reset(min(interval, max(time.Until(deadline), 0)))
		interval = min(interval*3/2, readyPollMax)
	}
}

// probe makes one readiness check, bounded by deadline.
func (t *Target) probe(ctx context.Context, client *http.Client, deadline time.Time) error {
	if d := time.Now().Add(readyProbeTimeout); d.Before(deadline) {
		deadline = d
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if t.ready == "" {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", t.Addr())
		if err != nil {
			return err
		}
		return c.Close()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.ready, nil)
	if err != nil {
		return fmt.Errorf("readiness URL %q: %w", t.ready, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("status %s", resp.Status)
	}
	return nil
}

// readyWhere names what readiness waits for.
func (t *Target) readyWhere() string {
	if t.ready == "" {
		return t.Addr() + " (tcp)"
	}
	return t.ready
}

// quoteLog is the end of the log for an error message.
func (t *Target) quoteLog() string { return QuoteLog(t.logPath, t.LogTail()) }

// QuoteLog quotes tail, the end of the log at path (LogTail), for an error
// message: its last lines, each indented and cut to its last 512 bytes, or
// that the log is empty.
func QuoteLog(path, tail string) string {
	lines := lastLines(tail, errorLogLines)
	if lines == "" {
		return fmt.Sprintf("; its log %s is empty", path)
	}
	return fmt.Sprintf("; last lines of its log %s:\n%s", path, lines)
}

// quotedLineBytes is the most of one line an error message quotes (its end).
const quotedLineBytes = 512

// lastLines returns the last n lines of s, each indented by two spaces and
// cut to its last quotedLineBytes bytes ("…" marks a cut).
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if strings.TrimSpace(s) == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > quotedLineBytes {
			l = strings.TrimPrefix(l, "…")
			j := len(l) - quotedLineBytes
			for j < len(l) && !utf8.RuneStart(l[j]) {
				j++
			}
			lines[i] = "…" + l[j:]
		}
	}
	return "  " + strings.Join(lines, "\n  ")
}

// Stop stops the target: SIGTERM to its process group, then, if any process
// of the group is left after grace (zero means DefaultStopGrace), SIGKILL to
// the group, and it reaps the main process. It returns once no process of
// the group is left, or with an error if some survived SIGKILL. Stop is
// idempotent: later and concurrent calls wait for the first and return its
// result.
func (t *Target) Stop(grace time.Duration) error {
	t.stopOnce.Do(func() {
		close(t.stopping)
		t.stopErr = t.stop(grace)
		close(t.stopped)
	})
	<-t.stopped
	return t.stopErr
}

// stop does Stop's work once.
func (t *Target) stop(grace time.Duration) error {
	defer t.log.Close()
	if grace <= 0 {
		grace = DefaultStopGrace
	}
	var errs []error
	if t.alive() {
		if err := signalGroup(t.pgid, sigTerm); err != nil {
			errs = append(errs, err)
		}
		if !t.waitGone(grace) {
			if err := signalGroup(t.pgid, sigKill); err != nil {
				errs = append(errs, err)
			}
			if !t.waitGone(killWait) {
				errs = append(errs, fmt.Errorf("process group %d survived SIGKILL", t.pgid))
			}
		}
	}
	select {
	case <-t.exited:
	case <-time.After(killWait):
		errs = append(errs, fmt.Errorf("process %d was not reaped", t.pgid))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("stopping target %q: %w", t.name, err)
	}
	return nil
}

// alive reports whether the main process or any other live process of the
// target's group is left.
func (t *Target) alive() bool {
	select {
	case <-t.exited:
		return groupAlive(t.pgid)
	default:
		return true
	}
}

// waitGone polls until alive is false or d has passed, and reports whether
// the target is gone.
func (t *Target) waitGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for interval := time.Millisecond; t.alive(); interval = min(2*interval, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(interval)
	}
	return true
}

// Done is closed when the target's main process has exited, for whatever
// reason: a target that dies during a run shows here.
func (t *Target) Done() <-chan struct{} { return t.exited }

// Err describes how the main process ended, once Done is closed: nil while
// it runs and when it ended because of Stop, else an error such as
// `target "server" exited with status 1`.
func (t *Target) Err() error {
	select {
	case <-t.exited:
	default:
		return nil
	}
	select {
	case <-t.stopping:
		return nil
	default:
	}
	return fmt.Errorf("target %q %s", t.name, t.exitMsg)
}

// Withheld lists the names of the variables of the spec's BaseEnv the
// target did not inherit (never their values).
func (t *Target) Withheld() []string { return t.withheld }

// Port is the port filled into {port}.
func (t *Target) Port() int { return t.port }

// GRPCPort is the port filled into {grpc_port}, or 0 when none was asked for.
func (t *Target) GRPCPort() int { return t.grpcPort }

// Addr is "127.0.0.1:port".
func (t *Target) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(t.port)) }

// URL is the target's base HTTP URL, "http://127.0.0.1:port".
func (t *Target) URL() string { return "http://" + t.Addr() }

// MetricsURL is the spec's Metrics with placeholders filled, or "".
func (t *Target) MetricsURL() string { return t.metrics }

// PGID is the target's process group id (the main process's pid).
func (t *Target) PGID() int { return t.pgid }

// LogPath is the file holding the target's stdout and stderr.
func (t *Target) LogPath() string { return t.logPath }

// LogTail returns up to the last 64 KiB of the target's log, or "" when
// the log is empty or cannot be read. When cut, it starts at a line
// boundary; when that would leave nothing (the window holds the end of a
// single longer line), it starts with "…" and the end of that line
// instead, so that a log full of long lines is never reported as empty.
func (t *Target) LogTail() string {
	// The target can replace its log's name with a FIFO: never wait on it.
	f, err := capread.OpenRegular(t.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(fi.Size()-logTailBytes, 0)
	b := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(b, off)
	b = b[:n]
	if off == 0 {
		return string(b)
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 && len(bytes.TrimSpace(b[i+1:])) > 0 {
		return string(b[i+1:])
	}
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:] // the window began inside a character
	}
	return "…" + string(b)
}
