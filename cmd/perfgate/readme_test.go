package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// readmeQuickUse returns the commands of the README's "Quick use" block,
// continuation lines joined and comments dropped, in order.
func readmeQuickUse(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "## Quick use")
	if i < 0 {
		t.Fatal(`README.md has no "## Quick use" section`)
	}
	s = s[i:]
	start := strings.Index(s, "```sh\n")
	end := strings.Index(s[start+6:], "```")
	if start < 0 || end < 0 {
		t.Fatal(`README.md: no sh code block under "## Quick use"`)
	}
	block := s[start+6 : start+6+end]
	var cmds [][]string
	var cur string
	sc := bufio.NewScanner(strings.NewReader(block))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		cur += line
		cmds = append(cmds, strings.Fields(cur))
		cur = ""
	}
	return cmds
}

// freePort returns a loopback port free at the time of the call.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// The README's quick-use commands, run as written and in order against the
// reference server, each exiting 0. Two things are changed, both on the
// command line and said here: the server's ports (free ones instead of
// 8000 and 8001), and every `run` gets shorter windows appended
// (--duration, --warmup; later flags win), a knee search one confirmation
// round (--estimates 2: the walkthrough checks that the commands work, not
// the knee's precision), so the walkthrough takes seconds, not minutes. It runs alone (no t.Parallel): its knee search
// saturates the cores, and a neighbour's load moves the knee and makes
// the search longer (28 windows beside the light tests, 15 alone).
func TestReadmeWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfgate and runs the README's commands against the reference server")
	}
	cmds := readmeQuickUse(t)
	if len(cmds) < 8 {
		t.Fatalf("README quick use: %d commands, want the whole walkthrough", len(cmds))
	}
	dir := t.TempDir()
	bin := buildPerfgate(t)
	httpPort, grpcPort := freePort(t), freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "fixture", "serve", "--addr", "127.0.0.1:"+httpPort, "--grpc-addr", "127.0.0.1:"+grpcPort)
	srv.Env = append(os.Environ(), "GOMAXPROCS=1")
	var srvLog strings.Builder
	srv.Stdout, srv.Stderr = &srvLog, &srvLog
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	waitListening(t, "127.0.0.1:"+httpPort)
	waitListening(t, "127.0.0.1:"+grpcPort)

	// The files the walkthrough reads: a KServe infer body for the mlp
	// model and a small perfgate.yaml against the same server.
	vals := strings.TrimSuffix(strings.Repeat("0.5,", 64), ",")
	os.WriteFile(filepath.Join(dir, "payload.json"), []byte(`{"inputs": [{"name": "input0", "shape": [1, 64], "datatype": "FP32", "data": [`+vals+`]}]}`), 0o644)
	os.WriteFile(filepath.Join(dir, "perfgate.yaml"), []byte(`version: 1
slo: {p99: 50ms}
capacity: {peak_qps: 5000, headroom: 1.3}
gate: {p99_regression: 50%}
scenarios:
  - name: mlp
    layer: model
    url: http://127.0.0.1:`+httpPort+`
    protocol: kserve-http
    model: mlp
    load: {mode: concurrency, concurrency: 1, duration: 300ms, warmup: 100ms, trials: 5}
`), 0o644)

	ports := strings.NewReplacer("127.0.0.1:8000", "127.0.0.1:"+httpPort, "127.0.0.1:8001", "127.0.0.1:"+grpcPort)
	busyBefore := "" // an earlier command's note that the host was busy
	for _, c := range cmds {
		if c[0] != "perfgate" {
			t.Fatalf("README quick use: %q does not start with perfgate", strings.Join(c, " "))
		}
		args := make([]string, 0, len(c)+6)
		for _, a := range c[1:] {
			args = append(args, ports.Replace(a))
		}
		if args[0] == "run" {
			args = append(args, "--duration", "300ms", "--warmup", "100ms")
			if slices.Contains(args, "--sweep") {
				args = append(args, "--estimates", "2")
			}
		}
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			skipIfBusy(t, ee.ExitCode(), string(out))
			// A knee search on a busy host may find no rate that meets
			// the SLO and say so (exit 0, "host busy"); sizing from it
			// then fails, which is the host's doing, not the README's.
			if busyBefore != "" {
				t.Skipf("the machine was too busy to measure: %q said %q, and %q then failed:\n%s", busyBefore, "host busy", strings.Join(c, " "), out)
			}
		}
		if err != nil {
			t.Fatalf("README command failed: %s\n(run as: perfgate %s)\n%v\n%s\nserver log:\n%s",
				strings.Join(c, " "), strings.Join(args, " "), err, out, srvLog.String())
		}
		if strings.Contains(string(out), "host busy") {
			busyBefore = strings.Join(c, " ")
		}
	}
}

// waitListening waits until addr accepts TCP connections.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nothing listens on %s after 30 s", addr)
}
