package steps

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// actionlintPath finds actionlint (v1.7.12; .ci/run installs it) on PATH or
// in GOPATH/bin, or skips the test.
func actionlintPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("actionlint"); err == nil {
		return p
	}
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "actionlint")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("actionlint is not installed: go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12")
	return ""
}

// actionAsWorkflow rewrites a composite action's metadata as a reusable
// workflow with the same inputs and steps, because actionlint lints
// workflows, not action.yml: this way the steps' expressions, contexts,
// `if:`s and scripts (through shellcheck, when installed) are checked too.
func actionAsWorkflow(action []byte) ([]byte, error) {
	var meta struct {
		Inputs map[string]any `yaml:"inputs"`
		Runs   struct {
			Using string      `yaml:"using"`
			Steps []yaml.Node `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(action, &meta); err != nil {
		return nil, err
	}
	inputs := map[string]any{}
	for name := range meta.Inputs {
		inputs[name] = map[string]any{"type": "string", "required": false}
	}
	wf := map[string]any{
		"name":        "action.yml as a workflow",
		"on":          map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"permissions": map[string]any{},
		"jobs": map[string]any{"action": map[string]any{
			"runs-on": "ubuntu-latest",
			"steps":   meta.Runs.Steps,
		}},
	}
	return yaml.Marshal(wf)
}

// TestActionLint lints action.yml with actionlint: the repository's
// workflows are linted by .ci/run and ci.yml directly.
func TestActionLint(t *testing.T) {
	bin := actionlintPath(t)
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	wf, err := actionAsWorkflow(action)
	if err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	cmd := exec.Command(bin, "-config-file", "../../.github/actionlint.yaml", "-stdin-filename", "action.yml(as a workflow)", "-")
	cmd.Stdin = bytes.NewReader(wf)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("actionlint found problems in action.yml's steps: %v\n%s\nthe workflow it linted:\n%s", err, out, wf)
	}
}

// TestActionLintCatches makes sure the rewrite keeps what actionlint checks:
// a step reading an input the action does not declare must be reported.
func TestActionLintCatches(t *testing.T) {
	bin := actionlintPath(t)
	bad := []byte(`name: x
inputs:
  config:
    default: a
runs:
  using: composite
  steps:
    - shell: bash
      env:
        X: ${{ inputs.no-such-input }}
      run: echo "$X"
`)
	wf, err := actionAsWorkflow(bad)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-config-file", "../../.github/actionlint.yaml", "-")
	cmd.Stdin = bytes.NewReader(wf)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no-such-input") {
		t.Errorf("actionlint passed a step reading an undeclared input (err %v):\n%s", err, out)
	}
}
