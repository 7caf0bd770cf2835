//go:build linux

package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionRunStep returns the script of action.yml's "Run perfgate" step,
// the text the runner writes to a file and runs with bash.
func actionRunStep(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Runs struct {
			Steps []struct {
				ID    string `yaml:"id"`
				Shell string `yaml:"shell"`
				Run   string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	for _, s := range a.Runs.Steps {
		if s.ID == "perfgate" {
			if s.Shell != "bash" {
				t.Fatalf("action.yml's perfgate step runs in %q; this test runs it as the runner runs shell: bash", s.Shell)
			}
			return s.Run
		}
	}
	t.Fatal("action.yml has no step with id perfgate")
	return ""
}

// The Action's token never sits in the environment of a process a target
// can read. The step runs as the runner runs a `shell: bash` step: its
// script written to a file, run with `bash --noprofile --norc -eo pipefail
// FILE`, INPUT_GITHUB_TOKEN in its environment. The target reads every
// ancestor's /proc/PID/environ, and then every /proc/PID/environ it can
// (the token is random, so another test's process cannot match it).
//
// action.yml's step execs perfgate, so bash is replaced and no process
// holds the token but perfgate, which hides it (lockSecrets). The same
// step without exec leaves bash holding the token: perfgate sees that and
// refuses to start any target (exit 2), naming the ancestor.
func TestActionStepTokenOutOfTargetsReach(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfgate")
	}
	t.Parallel() // light, and robust beside another: see runCLI
	bin := buildPerfgate(t)
	step := actionRunStep(t)
	wd, _ := os.Getwd()
	tests := []struct {
		name     string
		script   string
		wantCode int // perfgate's exit: 0, or 3 when a busy host made the run invalid
	}{
		{"action.yml's step", step, -1},
		// The step as it was before exec: bash stays perfgate's parent.
		{"the step without exec", strings.Replace(step, "exec ", "", 1), exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			raw := make([]byte, 16)
			rand.Read(raw)
			token := "ghs_" + hex.EncodeToString(raw)
			found := filepath.Join(dir, "found")
			walk := `p=$(awk '/^PPid/{print $2}' /proc/$$/status); ` +
				`while [ "$p" -gt 1 ]; do echo "pid $p $(cat /proc/$p/comm)" >> "$2"; tr '\0' '\n' < /proc/$p/environ >> "$2" 2>/dev/null; ` +
				`p=$(awk '/^PPid/{print $2}' /proc/$p/status); done; ` +
				`for f in /proc/[0-9]*/environ; do tr '\0' '\n' < "$f" 2>/dev/null; done > "$2.all"; ` +
				`exec "$0" fixture serve --addr 127.0.0.1:$1`
			cfg := filepath.Join(dir, "perfgate.yaml")
			os.WriteFile(cfg, []byte(`version: 1
targets:
  server:
    command: ["sh", "-c", `+quoteYAML(walk)+`, "{perfgate}", "{port}", `+quoteYAML(found)+`]
    ready: "http://127.0.0.1:{port}/v2/health/ready"
scenarios:
  - {name: s, layer: model, target: server, protocol: kserve-http, model: mlp,
     load: {mode: concurrency, concurrency: 1, duration: 200ms, warmup: 0s, trials: 1}}
`), 0o644)
			script := filepath.Join(dir, "step.sh")
			os.WriteFile(script, []byte(tt.script+"\n"), 0o644)
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(),
				"PERFGATE_BIN="+bin, "INPUT_GITHUB_TOKEN="+token, "INPUT_MODE=baseline", "INPUT_CONFIG="+cfg,
				"INPUT_BASELINES="+filepath.Join(dir, "baselines"), "INPUT_COMMENT=false",
				"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=release", "GITHUB_EVENT_PATH="+filepath.Join(wd, "testdata", "events", "release.json"),
				"GITHUB_REPOSITORY=acme/svc", "GITHUB_WORKSPACE="+dir,
				"GITHUB_OUTPUT="+filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY="+filepath.Join(dir, "summary"))
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			// The one place the token may appear is the mask command.
			if strings.Contains(strings.Replace(string(out), "::add-mask::"+token+"\n", "", 1), token) {
				t.Errorf("the step printed the token:\n%s", out)
			}
			if tt.wantCode == exitUsage {
				if code != exitUsage || !strings.Contains(string(out), "bash") || !strings.Contains(string(out), "INPUT_GITHUB_TOKEN") {
					t.Errorf("exit %d, want %d naming the ancestor (bash) holding INPUT_GITHUB_TOKEN:\n%s", code, exitUsage, out)
				}
				if _, err := os.Stat(found); err == nil {
					t.Errorf("a target started although an ancestor holds the token")
				}
				return
			}
			// The run itself may be invalid on a busy host (exit 3): the
			// walk happened before it, and is what is checked.
			if code != exitPass && code != exitRunFailed {
				t.Fatalf("the step exited %d:\n%s", code, out)
			}
			b, err := os.ReadFile(found)
			if err != nil {
				t.Fatalf("the target did not walk its ancestors: %v\n%s", err, out)
			}
			if n := strings.Count(string(b), "pid "); n < 2 {
				t.Fatalf("the walk saw %d ancestors, want the supervisor and perfgate at least:\n%s", n, b)
			}
			if strings.Contains(string(b), token) {
				t.Errorf("the target read the token from an ancestor's /proc/PID/environ; ancestors:\n%s", ancestorsOf(string(b)))
			}
			if all, _ := os.ReadFile(found + ".all"); strings.Contains(string(all), token) {
				t.Errorf("the target read the token from some process's /proc/PID/environ")
			}
		})
	}
}

// ancestorsOf keeps the "pid N comm" lines of a walk.
func ancestorsOf(walk string) string {
	var out []string
	for _, l := range strings.Split(walk, "\n") {
		if strings.HasPrefix(l, "pid ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
