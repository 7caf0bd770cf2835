//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildPerfgate returns this command built once for the whole test
// binary (into a folder TestMain removes): each test that starts perfgate
// as a separate process shares the one build instead of linking its own.
func buildPerfgate(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "perfgate-test-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		bin := filepath.Join(dir, "perfgate")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// built is buildPerfgate's one build.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// A target that dies during the run ends the run at once: exit 3, the
// trials measured before its death kept in the result (marked invalid),
// and the end of its log quoted.
func TestTargetKilledMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfgate")
	}
	t.Parallel() // light, and robust beside another: see runCLI
	bin := buildPerfgate(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	os.WriteFile(cfg, []byte(`version: 1
targets:
  server:
    command: ["sh", "-c", "\"$0\" fixture serve --addr 127.0.0.1:$1 & sleep 3; echo 'fatal: CUDA out of memory' >&2; kill -9 $!; exit 137", "{perfgate}", "{port}"]
    ready: "http://127.0.0.1:{port}/v2/health/ready"
scenarios:
  - {name: dies, layer: model, target: server, protocol: kserve-http, model: mlp,
     load: {mode: concurrency, concurrency: 1, duration: 500ms, warmup: 0s, trials: 100}}
`), 0o644)
	out := filepath.Join(dir, "out")
	start := time.Now()
	cmd := exec.Command(bin, "run", "--config", cfg, "--out", out)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitRunFailed {
		t.Fatalf("perfgate run = %v, want exit 3:\n%s", err, stderr.String())
	}
	if took := time.Since(start); took > 25*time.Second {
		t.Errorf("the run took %v: it went on after the target died (100 trials of 500ms)", took)
	}
	for _, want := range []string{`target "server" exited with status 137 during the run`, "fatal: CUDA out of memory", "dies.target.log"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	r := readResult(t, filepath.Join(out, "dies.json"))
	if len(r.Trials) == 0 || len(r.Trials) >= 10 || r.Valid {
		t.Errorf("result has %d trials, valid %v; want the few before the death, invalid", len(r.Trials), r.Valid)
	}
	if r.Summary.Errors != 0 {
		t.Errorf("summary counts %d errors: requests to the dead target were kept", r.Summary.Errors)
	}
}

// procDescendants lists the live processes below pid with their command
// names, from /proc.
func procDescendants(t *testing.T, pid int) map[int]string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	type proc struct {
		ppid int
		comm string
	}
	all := map[int]proc{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		f := strings.Fields(s[end+1:])
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		all[p] = proc{ppid, s[open+1 : end]}
	}
	out := map[int]string{}
	for changed := true; changed; {
		changed = false
		for p, pr := range all {
			if _, seen := out[p]; !seen && (pr.ppid == pid || out[pr.ppid] != "") {
				out[p] = pr.comm
				changed = true
			}
		}
	}
	return out
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// A target's whole process tree dies with perfgate, even when perfgate is
// killed with SIGKILL and has no chance to stop it: the target's
// supervisor gets the parent-death signal and, as a subreaper, finds every
// process the target started, here a background sleep that would
// otherwise be orphaned. The A/B gate's targets (both sides) are
// supervised as the run's are (issue 30, bug 2: they were not).
func TestTargetTreeDiesWithPerfgate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfgate")
	}
	bin := buildPerfgate(t)
	const config = `version: 1
targets:
  server:
    command: ["sh", "-c", "sleep 300 & exec \"$0\" fixture serve --addr 127.0.0.1:$1", "{perfgate}", "{port}"]
    ready: "http://127.0.0.1:{port}/v2/health/ready"
    ready_timeout: 60s
scenarios:
  - {name: long, layer: model, target: server, protocol: kserve-http, model: mlp,
     load: {mode: concurrency, concurrency: 1, duration: 5m, warmup: 0s, trials: 1}}
`
	tests := []struct {
		name string
		args []string // the command and its flags; --config and --out follow
		// sleeps is how many target trees (each with its sleep) run at once.
		sleeps int
	}{
		{name: "run", args: []string{"run"}, sleeps: 1},
		{name: "gate --ab", args: []string{"gate", "--ab", "HEAD"}, sleeps: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := gitRepo(t, config)
			killedTreeDies(t, bin, append(tt.args, "--config", cfg, "--out", filepath.Join(t.TempDir(), "out")), tt.sleeps)
		})
	}
}

// killedTreeDies runs perfgate with args, waits for its targets' trees
// (sleeps background sleeps below it), kills perfgate with SIGKILL and
// checks that every process of the trees dies.
func killedTreeDies(t *testing.T, bin string, args []string, sleeps int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Wait for the measurement to start: the target is up.
	started := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "started target") {
				close(started)
				for sc.Scan() {
				}
				return
			}
		}
	}()
	select {
	case <-started:
	case <-time.After(60 * time.Second):
		t.Fatal("perfgate did not start the target")
	}
	var tree map[int]string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		tree = procDescendants(t, cmd.Process.Pid)
		n := 0
		for _, c := range tree {
			if c == "sleep" {
				n++
			}
		}
		if n >= sleeps && len(tree) >= 2*sleeps {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the target's tree did not appear below perfgate: %v", tree)
		}
	}

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		left := 0
		for pid := range tree {
			if alive(pid) {
				left++
			}
		}
		if left == 0 {
			return
		}
	}
	for pid, comm := range tree {
		if alive(pid) {
			t.Errorf("process %d (%s) of the target outlived perfgate's SIGKILL", pid, comm)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
