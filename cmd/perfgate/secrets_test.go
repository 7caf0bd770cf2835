//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A target that walks its ancestors' /proc/PID/environ (perfgate, its
// supervisor, the shell that starts the server) finds none of the
// secrets perfgate started with: perfgate removed them from its own
// environment block and is non-dumpable. A variable the configuration
// passes through still reaches the target.
func TestTargetCannotReadSecretsFromAncestors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfgate")
	}
	bin := buildPerfgate(t)
	dir := t.TempDir()
	found := filepath.Join(dir, "found")
	cfg := filepath.Join(dir, "perfgate.yaml")
	// The walk: from the shell's parent up to pid 1, every environ the
	// target's user can read, one variable a line, into found; then the
	// target's own HF_TOKEN (passed through) into found.own.
	walk := `p=$(awk '/^PPid/{print $2}' /proc/$$/status); ` +
		`while [ "$p" -gt 1 ]; do tr '\0' '\n' < /proc/$p/environ >> "$2" 2>/dev/null; echo "pid $p" >> "$2"; ` +
		`p=$(awk '/^PPid/{print $2}' /proc/$p/status); done; echo "$HF_TOKEN" > "$2.own"; ` +
		`exec "$0" fixture serve --addr 127.0.0.1:$1`
	os.WriteFile(cfg, []byte(`version: 1
targets:
  server:
    command: ["sh", "-c", `+quoteYAML(walk)+`, "{perfgate}", "{port}", `+quoteYAML(found)+`]
    ready: "http://127.0.0.1:{port}/v2/health/ready"
    env_passthrough: [HF_TOKEN]
scenarios:
  - {name: s, layer: model, target: server, protocol: kserve-http, model: mlp,
     load: {mode: concurrency, concurrency: 1, duration: 200ms, warmup: 0s, trials: 1}}
`), 0o644)
	secrets := map[string]string{
		"INPUT_GITHUB-TOKEN":             "ghs_inputtokenvalue",
		"INPUT_GITHUB_TOKEN":             "ghs_inputtokenvalue2",
		"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidcrequesttokenvalue",
		"ACTIONS_ID_TOKEN_REQUEST_URL":   "https://oidc.example/requesturlvalue",
		"GITHUB_TOKEN":                   "ghs_githubtokenvalue",
		"AWS_SECRET_ACCESS_KEY":          "awssecretvalue",
	}
	cmd := exec.Command(bin, "run", "--config", cfg, "--out", filepath.Join(dir, "out"))
	cmd.Env = append(os.Environ(), "HF_TOKEN=hf_passedthrough")
	for k, v := range secrets {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("perfgate run: %v\n%s", err, out)
	}
	b, err := os.ReadFile(found)
	if err != nil {
		t.Fatalf("the target did not walk its ancestors: %v\n%s", err, out)
	}
	if n := strings.Count(string(b), "pid "); n < 2 {
		t.Fatalf("the walk saw %d ancestors, want perfgate's supervisor and perfgate at least:\n%s", n, b)
	}
	for name, v := range secrets {
		if strings.Contains(string(b), v) {
			t.Errorf("a target read %s's value from an ancestor's /proc/PID/environ", name)
		}
	}
	if own, _ := os.ReadFile(found + ".own"); strings.TrimSpace(string(own)) != "hf_passedthrough" {
		t.Errorf("the target's HF_TOKEN (env_passthrough) = %q, want hf_passedthrough", own)
	}
	if strings.Contains(string(out), "warning: closing") {
		t.Errorf("perfgate could not close its secrets:\n%s", out)
	}
}

// quoteYAML returns s as a double-quoted YAML scalar.
func quoteYAML(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
