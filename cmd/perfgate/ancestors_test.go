package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeProcs writes a /proc tree of processes pid → (parent, comm,
// environment); an environment of nil is unreadable (another user's).
func fakeProcs(t *testing.T, procs map[int]struct {
	ppid int
	comm string
	env  []string
}) string {
	t.Helper()
	root := t.TempDir()
	for pid, p := range procs {
		dir := filepath.Join(root, strconv.Itoa(pid))
		os.MkdirAll(dir, 0o755)
		stat := fmt.Sprintf("%d (%s) S %d %d 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 100 0 0", pid, p.comm, p.ppid, pid)
		os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644)
		os.WriteFile(filepath.Join(dir, "comm"), []byte(p.comm+"\n"), 0o644)
		if p.env != nil {
			os.WriteFile(filepath.Join(dir, "environ"), []byte(strings.Join(p.env, "\x00")+"\x00"), 0o644)
		}
	}
	return root
}

// The walk from perfgate up: the Action's token in a parent's block is
// found under whatever name it has there, other secrets are told apart
// from it, unreadable blocks and settings (the other INPUT_*) are passed
// over, and short values never match.
func TestAncestorExposures(t *testing.T) {
	type proc = struct {
		ppid int
		comm string
		env  []string
	}
	root := fakeProcs(t, map[int]proc{
		1:  {0, "sh", []string{"PATH=/bin", "GH=awsvalue1"}},
		10: {1, "Runner.Worker", nil},
		20: {10, "bash", []string{"INPUT_GITHUB_TOKEN=ghs_secretvalue", "INPUT_MODE=baseline", "AWS_SECRET_ACCESS_KEY=awsvalue1", "X=ghs_secretvalue", "SHORT=abc"}},
		30: {20, "perfgate", []string{}},
	})
	secrets := secretValues([]string{"INPUT_GITHUB_TOKEN=ghs_secretvalue", "INPUT_MODE=baseline", "AWS_SECRET_ACCESS_KEY=awsvalue1", "GH_TOKEN=abc", "PATH=/bin"})
	got := ancestorExposures(root, 30, secrets)
	want := []exposure{
		{PID: 20, Comm: "bash", Name: "INPUT_GITHUB_TOKEN", Token: true},
		{PID: 20, Comm: "bash", Name: "AWS_SECRET_ACCESS_KEY"},
		{PID: 20, Comm: "bash", Name: "X", Token: true},
		{PID: 1, Comm: "sh", Name: "GH"}, // a container's first process
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ancestorExposures (-want +got):\n%s", d)
	}
	err := tokenExposed(got)
	if err == nil || !strings.Contains(err.Error(), "INPUT_GITHUB_TOKEN in pid 20 (bash)") || strings.Contains(err.Error(), "ghs_") {
		t.Errorf("tokenExposed = %v, want the process and name, never the value", err)
	}
	if o := otherExposures(got); o != "AWS_SECRET_ACCESS_KEY in pid 20 (bash), GH in pid 1 (sh)" {
		t.Errorf("otherExposures = %q", o)
	}
	// exec'd: perfgate's parent is the runner, whose block it cannot read.
	root = fakeProcs(t, map[int]proc{1: {0, "systemd", nil}, 10: {1, "Runner.Worker", nil}, 20: {10, "perfgate", []string{}}})
	if got := ancestorExposures(root, 20, secrets); len(got) != 0 || tokenExposed(got) != nil {
		t.Errorf("ancestorExposures of an exec'd step = %v, want none", got)
	}
}
