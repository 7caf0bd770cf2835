package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a git repository in a temporary folder with perfgate.yaml
// as its one commit, and returns the config's path.
func gitRepo(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "perfgate.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return cfg
}

// TestGateABExitCodes checks `gate --ab`'s exit codes for what stops it
// before any load: a revision that does not exist and URL targets (2), a
// build that fails (3, its output quoted).
func TestGateABExitCodes(t *testing.T) {
	started := `version: 1
targets:
  svc:
    command: ["./server", "{port}"]
    build: ["sh", "-c", "echo building the server; echo 'server.go:7: syntax error' >&2; exit 2"]
    ready: "http://127.0.0.1:{port}/"
scenarios:
  - {name: api, layer: service, target: svc, load: {mode: rate, rate: 10, duration: 1s, trials: 1}}
`
	url := `version: 1
scenarios:
  - {name: remote, layer: service, url: "http://127.0.0.1:9/", load: {mode: rate, rate: 10, duration: 1s, trials: 1}}
`
	tests := []struct {
		name, config, ref string
		extra             []string
		code              int
		say               string
	}{
		{"unknown revision", started, "no-such-ref", nil, exitUsage, `"no-such-ref" is not a commit`},
		{"url target", url, "HEAD", nil, exitUsage, "would hit that one service"},
		{"baselines with ab", started, "HEAD", []string{"--baselines", "b"}, exitUsage, "--baselines and --results are not read"},
		{"failing build", started, "HEAD", nil, exitRunFailed, "server.go:7: syntax error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := gitRepo(t, tt.config)
			args := append([]string{"gate", "--config", cfg, "--ab", tt.ref, "--out", filepath.Join(t.TempDir(), "out")}, tt.extra...)
			code, _, stderr := runCLI(t, args...)
			if code != tt.code || !strings.Contains(stderr, tt.say) {
				t.Errorf("exit %d, want %d with %q; stderr:\n%s", code, tt.code, tt.say, stderr)
			}
		})
	}
}
