//go:build unix

package targetproc

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// targetBin is the test target program (testdata/target), built once per
// test binary by targetProgram and removed by TestMain.
var targetBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if targetBin.dir != "" {
		os.RemoveAll(targetBin.dir)
	}
	os.Exit(code)
}

// targetProgram returns the path of the built test target program.
func targetProgram(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("process-group checks read /proc")
	}
	targetBin.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			targetBin.err = err
			return
		}
		if targetBin.dir, targetBin.err = os.MkdirTemp("", "perfgate-target-test-"); targetBin.err != nil {
			return
		}
		targetBin.path = filepath.Join(targetBin.dir, "target")
		out, err := exec.Command(goTool, "build", "-o", targetBin.path, "./testdata/target").CombinedOutput()
		if err != nil {
			targetBin.err = errors.New("go build ./testdata/target: " + err.Error() + "\n" + string(out))
		}
	})
	if targetBin.err != nil {
		t.Fatal(targetBin.err)
	}
	return targetBin.path
}

// targetSpec is a spec that runs the test program with args after
// --port {port}, logging into the test's temporary folder.
func targetSpec(t *testing.T, args ...string) Spec {
	return Spec{
		Name:         "server",
		Command:      append([]string{targetProgram(t), "--port", "{port}"}, args...),
		Ready:        "http://127.0.0.1:{port}/ready",
		ReadyTimeout: 20 * time.Second,
		LogPath:      filepath.Join(t.TempDir(), "server.log"),
	}
}

// shellSpec runs script under sh; "$T" in it is the test program.
func shellSpec(t *testing.T, script string) Spec {
	s := targetSpec(t)
	s.Command = []string{"sh", "-c", script}
	s.BaseEnv = []string{"PATH=" + os.Getenv("PATH")}
	s.Env = map[string]string{"T": targetProgram(t)}
	return s
}

// startTarget starts s and registers a Stop for the end of the test.
func startTarget(t *testing.T, ctx context.Context, s Spec) *Target {
	t.Helper()
	tg, err := Start(ctx, s)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { tg.Stop(time.Second) })
	return tg
}

// groupProcs returns the pid and command name of each process of group
// pgid that is not a zombie, read from /proc.
func groupProcs(t *testing.T, pgid int) map[int]string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	procs := map[int]string{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, state, pgrp, ok := procStat(pid)
		if ok && pgrp == pgid && state != "Z" {
			procs[pid] = comm
		}
	}
	return procs
}

// procStat reads one process's name, state and group from /proc.
func procStat(pid int) (comm, state string, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", "", 0, false
	}
	open, end := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[end+1:]))
	pgrp, err = strconv.Atoi(f[2])
	return string(b[open+1 : end]), f[0], pgrp, err == nil
}

// waitForProc waits until a process named comm is in group pgid and
// returns the group's processes.
func waitForProc(t *testing.T, pgid int, comm string) map[int]string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		procs := groupProcs(t, pgid)
		for _, c := range procs {
			if c == comm {
				return procs
			}
		}
	}
	t.Fatalf("no %q process appeared in group %d: %v", comm, pgid, groupProcs(t, pgid))
	return nil
}

// checkGone fails the test if any of procs still runs in group pgid.
func checkGone(t *testing.T, pgid int, procs map[int]string) {
	t.Helper()
	for pid, comm := range procs {
		if _, state, pgrp, ok := procStat(pid); ok && pgrp == pgid && state != "Z" {
			t.Errorf("process %d (%s) of group %d is still there, state %s", pid, comm, pgid, state)
		}
	}
}

// logPID finds the pid the test program printed in a log file.
func logPID(t *testing.T, path string) int {
	t.Helper()
	b, _ := os.ReadFile(path)
	m := regexp.MustCompile(`pid=(\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no pid in log %s: %q", path, b)
	}
	pid, _ := strconv.Atoi(string(m[1]))
	return pid
}

// get returns the body of a GET of url, failing on any error.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %q %v", url, resp.Status, b, err)
	}
	return string(b)
}

func TestStartTargetReadyAndStop(t *testing.T) {
	tests := []struct {
		name  string
		ready string
		args  []string
	}{
		// Polling must go on through the 503s of a slow start.
		{name: "http readiness after a slow start", ready: "http://127.0.0.1:{port}/ready", args: []string{"--ready-after", "300ms"}},
		{name: "tcp readiness without a url", ready: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := targetSpec(t, tt.args...)
			s.Ready = tt.ready
			tg := startTarget(t, t.Context(), s)

			get(t, tg.URL()+"/ready")
			if got, want := tg.Addr(), "127.0.0.1:"+strconv.Itoa(tg.Port()); got != want {
				t.Errorf("Addr() = %q, want %q", got, want)
			}
			if got, want := tg.PGID(), logPID(t, tg.LogPath()); got != want {
				t.Errorf("PGID() = %d, want the pid the target printed, %d", got, want)
			}
			if want := "listening on " + tg.Addr(); !strings.Contains(tg.LogTail(), want) {
				t.Errorf("LogTail() = %q, want it to contain %q", tg.LogTail(), want)
			}
			procs := groupProcs(t, tg.PGID())

			// Stop from two goroutines at once: both wait for the one stop.
			errs := make(chan error, 2)
			for range 2 {
				go func() { errs <- tg.Stop(10 * time.Second) }()
			}
			for range 2 {
				if err := <-errs; err != nil {
					t.Errorf("Stop: %v", err)
				}
			}
			checkGone(t, tg.PGID(), procs)
			select {
			case <-tg.Done():
			default:
				t.Error("Done() not closed after Stop")
			}
			if err := tg.Err(); err != nil {
				t.Errorf("Err() after Stop = %v, want nil", err)
			}
			if err := tg.Stop(0); err != nil {
				t.Errorf("second Stop: %v", err)
			}
		})
	}
}

func TestStopLeavesNoOrphan(t *testing.T) {
	tests := []struct {
		name  string
		sh    string
		grace time.Duration
		// killed: SIGTERM cannot end the tree, so Stop must wait out the
		// grace period and SIGKILL the group.
		killed bool
	}{
		{name: "background grandchild", sh: `sleep 300 & exec "$T" --port "$1"`, grace: 10 * time.Second},
		// The main process dies on SIGTERM, leaving an orphan that ignores it.
		{name: "grandchild ignores SIGTERM", sh: `(trap "" TERM; exec sleep 300) & exec "$T" --port "$1"`, grace: 300 * time.Millisecond, killed: true},
		{name: "whole tree ignores SIGTERM", sh: `trap "" TERM; sleep 300 & "$T" --port "$1" --ignore-term; wait`, grace: 300 * time.Millisecond, killed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := shellSpec(t, tt.sh)
			s.Command = append(s.Command, "sh", "{port}")
			tg := startTarget(t, t.Context(), s)
			procs := waitForProc(t, tg.PGID(), "sleep")

			start := time.Now()
			if err := tg.Stop(tt.grace); err != nil {
				t.Errorf("Stop: %v", err)
			}
			took := time.Since(start)
			checkGone(t, tg.PGID(), procs)
			if tt.killed && took < tt.grace {
				t.Errorf("Stop took %v, less than the grace %v, though the tree ignores SIGTERM", took, tt.grace)
			}
			if !tt.killed && took > tt.grace/2 {
				t.Errorf("Stop took %v, want well under the grace %v", took, tt.grace)
			}
		})
	}
}

func TestContextCancelStopsTarget(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	s := shellSpec(t, `sleep 300 & exec "$T" --port "$1"`)
	s.Command = append(s.Command, "sh", "{port}")
	tg := startTarget(t, ctx, s)
	procs := waitForProc(t, tg.PGID(), "sleep")

	cancel() // as when perfgate is interrupted; nobody calls Stop
	select {
	case <-tg.Done():
	case <-time.After(DefaultStopGrace + 10*time.Second):
		t.Fatal("target still running after its context was cancelled")
	}
	// Done only means the main process is reaped; the group follows.
	for deadline := time.Now().Add(10 * time.Second); len(groupProcs(t, tg.PGID())) > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	checkGone(t, tg.PGID(), procs)
	if err := tg.Stop(time.Second); err != nil {
		t.Errorf("Stop after cancellation: %v", err)
	}
}

func TestStartTargetFails(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		timeout time.Duration
		// cancel: cancel the context once the target is listening.
		cancel bool
		want   []string // substrings of the error
		wantIs error
	}{
		{
			name: "exits before ready", args: []string{"--exit-early"},
			want: []string{`target "server" exited with status 1 before it was ready`, "fatal: model file missing"},
		},
		{
			name: "never ready", args: []string{"--never-ready"}, timeout: 1500 * time.Millisecond,
			want: []string{`target "server" was not ready at http://127.0.0.1:`, "after 1.5s", "503", "last lines of its log", "pid="},
		},
		{
			name: "interrupted while starting", args: []string{"--never-ready"}, cancel: true,
			want: []string{`starting target "server"`}, wantIs: context.Canceled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := targetSpec(t, tt.args...)
			if tt.timeout > 0 {
				s.ReadyTimeout = tt.timeout
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.cancel {
				go func() {
					for ctx.Err() == nil {
						if b, _ := os.ReadFile(s.LogPath); strings.Contains(string(b), "listening on") {
							cancel()
						}
						time.Sleep(10 * time.Millisecond)
					}
				}()
			}
			tg, err := Start(ctx, s)
			if err == nil {
				tg.Stop(time.Second)
				t.Fatal("Start succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Start error = %q, want it to contain %q", err, w)
				}
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Start error = %v, want errors.Is %v", err, tt.wantIs)
			}
			pid := logPID(t, s.LogPath)
			checkGone(t, pid, map[int]string{pid: "target"})
		})
	}
}

func TestStartTargetBadSpec(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want string
	}{
		{name: "empty command", spec: Spec{Name: "x"}, want: `target "x": empty command`},
		{name: "missing program", spec: Spec{Name: "x", Command: []string{"/nonexistent/perfgate-target"}}, want: `starting target "x"`},
		{name: "unwritable log", spec: Spec{Name: "x", Command: []string{"true"}, LogPath: "/nonexistent/x.log"}, want: `target "x": creating its log`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Start(t.Context(), tt.spec)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Start error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestStartTargetPlaceholders(t *testing.T) {
	dir := t.TempDir()
	s := targetSpec(t, "--grpc-port", "{grpc_port}")
	s.Ready = "http://127.0.0.1:{grpc_port}/ready" // {grpc_port} alone asks for the second port
	s.Metrics = "http://127.0.0.1:{port}/metrics"
	s.Dir = dir
	s.BaseEnv = []string{"BASE=kept", "OVER=base"}
	s.Passthrough = []string{"BASE", "OVER"}
	s.Env = map[string]string{"ECHO": "p={port},g={grpc_port}", "OVER": "spec"}
	tg := startTarget(t, t.Context(), s)

	if tg.GRPCPort() == 0 || tg.GRPCPort() == tg.Port() {
		t.Fatalf("Port() = %d, GRPCPort() = %d, want two distinct ports", tg.Port(), tg.GRPCPort())
	}
	p, g := strconv.Itoa(tg.Port()), strconv.Itoa(tg.GRPCPort())
	wantDir, _ := filepath.EvalSymlinks(dir)
	got := map[string]string{
		"ECHO":       get(t, tg.URL()+"/env?name=ECHO"),
		"OVER":       get(t, tg.URL()+"/env?name=OVER"),
		"BASE":       get(t, "http://127.0.0.1:"+g+"/env?name=BASE"),
		"cwd":        get(t, tg.URL()+"/cwd"),
		"MetricsURL": tg.MetricsURL(),
		"URL":        tg.URL(),
	}
	want := map[string]string{
		"ECHO":       "p=" + p + ",g=" + g,
		"OVER":       "spec",
		"BASE":       "kept",
		"cwd":        wantDir,
		"MetricsURL": "http://127.0.0.1:" + p + "/metrics",
		"URL":        "http://127.0.0.1:" + p,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("target saw (-want +got):\n%s", d)
	}
}

func TestTargetCrashShowsInErr(t *testing.T) {
	tg := startTarget(t, t.Context(), targetSpec(t, "--exit-after", "200ms"))
	if err := tg.Err(); err != nil {
		t.Errorf("Err() while running = %v, want nil", err)
	}
	select {
	case <-tg.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("Done() not closed after the target crashed")
	}
	if got, want := tg.Err(), `target "server" exited with status 3`; got == nil || got.Error() != want {
		t.Errorf("Err() = %v, want %q", got, want)
	}
	if !strings.Contains(tg.LogTail(), "crashing on purpose") {
		t.Errorf("LogTail() = %q, want the crash message", tg.LogTail())
	}
}

func TestStartTargetTempLog(t *testing.T) {
	s := targetSpec(t)
	s.Name = "my server/1"
	s.LogPath = ""
	tg := startTarget(t, t.Context(), s)
	t.Cleanup(func() { os.Remove(tg.LogPath()) })
	if got := filepath.Base(tg.LogPath()); !strings.HasPrefix(got, "perfgate-target-my_server_1-") {
		t.Errorf("LogPath() = %q, want a temporary file named after the target", tg.LogPath())
	}
	if err := tg.Stop(0); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tg.LogPath()); err != nil {
		t.Errorf("log gone after Stop: %v", err)
	}
}

func TestFreePort(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("listening on FreePort() = %d: %v", port, err)
	}
	ln.Close()
}

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		name      string
		stat      string
		wantState byte
		wantPgrp  int
		wantOK    bool
	}{
		{name: "plain", stat: "4242 (sleep) S 1 4240 4240 0 -1 4194304", wantState: 'S', wantPgrp: 4240, wantOK: true},
		// A command name may hold spaces and parentheses.
		{name: "odd command name", stat: "4242 (my (odd) name) Z 1 77 77 0", wantState: 'Z', wantPgrp: 77, wantOK: true},
		{name: "truncated", stat: "4242 (sleep) S 1", wantOK: false},
		{name: "garbage", stat: "nothing here", wantOK: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, pgrp, ok := parseProcStat(tt.stat)
			if state != tt.wantState || pgrp != tt.wantPgrp || ok != tt.wantOK {
				t.Errorf("parseProcStat(%q) = %q, %d, %v, want %q, %d, %v",
					tt.stat, state, pgrp, ok, tt.wantState, tt.wantPgrp, tt.wantOK)
			}
		})
	}
}

func TestLastLines(t *testing.T) {
	tests := []struct {
		name, in string
		n        int
		want     string
	}{
		{name: "fewer than n", in: "a\nb\n", n: 3, want: "  a\n  b"},
		{name: "more than n", in: "a\nb\nc\nd", n: 2, want: "  c\n  d"},
		{name: "empty", in: "\n", n: 2, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lastLines(tt.in, tt.n); got != tt.want {
				t.Errorf("lastLines(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

func TestLogTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.log")
	var b strings.Builder
	for i := 0; b.Len() < 3*logTailBytes; i++ {
		b.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got := (&Target{logPath: path}).LogTail()
	if len(got) > logTailBytes || len(got) < logTailBytes-100 {
		t.Errorf("LogTail() is %d bytes, want just under %d", len(got), logTailBytes)
	}
	if !strings.HasPrefix(got, "line ") || !strings.HasSuffix(b.String(), got) {
		t.Errorf("LogTail() = %q...%q, want whole lines from the end of the log", got[:20], got[len(got)-20:])
	}
	if got := (&Target{logPath: filepath.Join(t.TempDir(), "none")}).LogTail(); got != "" {
		t.Errorf("LogTail() of a missing log = %q, want empty", got)
	}
}

// A target inherits an allow-list of perfgate's environment
// (DefaultEnv) and what the spec passes through, by exact name: no
// secret, whether or not its name looks like one (GH_PAT, OPENAI_KEY,
// SSH_AUTH_SOCK), and never the Action's token or the runner's command
// files, even passed through.
func TestStartTargetInheritsAnAllowList(t *testing.T) {
	s := targetSpec(t)
	s.BaseEnv = []string{
		"PATH=/usr/bin", "HOME=/home/runner", "LC_ALL=C.UTF-8", "CUDA_VISIBLE_DEVICES=0", "GITHUB_SHA=abc", "RUNNER_OS=Linux",
		"INPUT_GITHUB-TOKEN=ghs_input", "INPUT_GITHUB_TOKEN=ghs_input2", "GITHUB_TOKEN=ghs_token",
		"ACTIONS_RUNTIME_TOKEN=rt", "ACTIONS_ID_TOKEN_REQUEST_TOKEN=oidc", "ACTIONS_ID_TOKEN_REQUEST_URL=https://oidc",
		"AWS_SECRET_ACCESS_KEY=aws", "DB_PASSWORD=hunter2", "OPENAI_API_KEY=sk", "HF_TOKEN=hf", "MODEL_CREDENTIALS=c",
		// Secrets no name pattern catches.
		"GH_PAT=ghp_pat", "OPENAI_KEY=sk-key", "SSH_AUTH_SOCK=/tmp/ssh-agent.sock",
		// The runner's command files: a target could set BASH_ENV for the
		// steps after it.
		"GITHUB_ENV=/runner/set_env", "GITHUB_OUTPUT=/runner/set_output", "GITHUB_PATH=/runner/add_path",
		"GITHUB_STATE=/runner/save_state", "GITHUB_STEP_SUMMARY=/runner/summary",
	}
	// HF_TOKEN: the model download needs it. GITHUB_ENV and the token:
	// never passed, even when asked (config refuses them first).
	s.Passthrough = []string{"HF_TOKEN", "GITHUB_SHA", "GITHUB_ENV", "INPUT_GITHUB_TOKEN"}
	tg := startTarget(t, t.Context(), s)

	got := map[string]string{}
	for _, kv := range s.BaseEnv {
		name, _, _ := strings.Cut(kv, "=")
		got[name] = get(t, tg.URL()+"/env?name="+url.QueryEscape(name))
	}
	want := map[string]string{}
	for _, kv := range s.BaseEnv {
		name, _, _ := strings.Cut(kv, "=")
		want[name] = ""
	}
	for k, v := range map[string]string{"PATH": "/usr/bin", "HOME": "/home/runner", "LC_ALL": "C.UTF-8",
		"CUDA_VISIBLE_DEVICES": "0", "GITHUB_SHA": "abc", "HF_TOKEN": "hf"} {
		want[k] = v
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("target's environment (-want +got):\n%s", d)
	}
	var wantWithheld []string
	for _, kv := range s.BaseEnv {
		if name, _, _ := strings.Cut(kv, "="); want[name] == "" {
			wantWithheld = append(wantWithheld, name)
		}
	}
	if d := cmp.Diff(wantWithheld, tg.Withheld()); d != "" {
		t.Errorf("Withheld() (-want +got):\n%s", d)
	}
}

// A port perfgate chose can be taken by another process before the
// target binds it: such a start is retried on fresh ports, and a target
// that fails for any other reason is not.
func TestStartTargetRetriesTakenPort(t *testing.T) {
	tests := []struct {
		name     string
		failures int // starts that fail before the target runs
		message  string
		wantErr  string
		starts   int
	}{
		{name: "taken once", failures: 1, message: "bind: address already in use", starts: 2},
		{name: "taken every time", failures: 5, message: "bind: address already in use", starts: PortAttempts,
			wantErr: "its ports were taken by another process 3 times in a row"},
		{name: "other failure is not retried", failures: 5, message: "model file not found", starts: 1,
			wantErr: "model file not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			count := filepath.Join(t.TempDir(), "starts")
			s := shellSpec(t, `n=$(cat "$2" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$2"
if [ $n -le `+strconv.Itoa(tt.failures)+` ]; then echo "listen tcp 127.0.0.1:$1: `+tt.message+`"; exit 3; fi
exec "$T" --port "$1"`)
			s.Command = append(s.Command, "sh", "{port}", count)
			tg, err := Start(t.Context(), s)
			if tg != nil {
				t.Cleanup(func() { tg.Stop(time.Second) })
			}
			b, _ := os.ReadFile(count)
			if got := strings.TrimSpace(string(b)); got != strconv.Itoa(tt.starts) {
				t.Errorf("started %s times, want %d", got, tt.starts)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Start: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Start error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// A log whose last lines are longer than the tail LogTail keeps is quoted
// by its end, never reported as empty (issue 43: a 210 KB log was "empty"
// because its last 64 KiB held a single line and the cut at the first
// newline left nothing).
func TestLogTailLongLines(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	tests := []struct {
		name, log string
		wantEnd   string // what the quote ends with
	}{
		{"last line longer than the tail", "first\n" + long + "\n", "xxx"},
		{"no newline at all", strings.Repeat("y", 210<<10), "yyy"},
		{"long lines, then a short one", long + "\n" + long + "\nthe end\n", "  the end"},
		{"long line ending in blank lines", long + "\n\n\n", "xxx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "target.log")
			if err := os.WriteFile(path, []byte(tt.log), 0o644); err != nil {
				t.Fatal(err)
			}
			tail := (&Target{logPath: path}).LogTail()
			if tail == "" || len(tail) > logTailBytes+len("…") {
				t.Errorf("LogTail() is %d bytes, want 1 to %d", len(tail), logTailBytes)
			}
			got := QuoteLog(path, tail)
			if strings.Contains(got, "is empty") || !strings.HasSuffix(got, tt.wantEnd) {
				t.Errorf("QuoteLog() = %.80q…, want the log's last lines ending %q", got, tt.wantEnd)
			}
			// A quote is a few lines, never the whole 64 KiB.
			if len(got) > errorLogLines*(quotedLineBytes+8)+len(path)+64 {
				t.Errorf("QuoteLog() is %d bytes, want each line cut to %d", len(got), quotedLineBytes)
			}
		})
	}
}
