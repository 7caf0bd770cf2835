// Package examples holds the example workflows and manifests; its test
// checks that the matrix workflow is wired the way docs/scale-out.md says.
package examples

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type step struct {
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

type job struct {
	If          string            `yaml:"if"`
	RunsOn      any               `yaml:"runs-on"`
	Needs       any               `yaml:"needs"`
	Permissions map[string]string `yaml:"permissions"`
	Strategy    struct {
		FailFast bool             `yaml:"fail-fast"`
		Matrix   map[string][]int `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []step `yaml:"steps"`
}

// The matrix: N parts (one matrix entry each, N = PARTS) on self-hosted GPU
// runners, each uploading its results; one gating job after them that
// merges the parts and gates them with the action's results input, and is
// the only job allowed to write to the pull request.
func TestMatrixWorkflow(t *testing.T) {
	data, err := os.ReadFile("workflows/perfgate-matrix.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Env         map[string]string `yaml:"env"`
		Jobs        map[string]job    `yaml:"jobs"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(false)
	if err := dec.Decode(&wf); err != nil {
		t.Fatal(err)
	}
	part, gate := wf.Jobs["part"], wf.Jobs["gate"]
	n, err := strconv.Atoi(wf.Env["PARTS"])
	if err != nil {
		t.Fatalf("env PARTS %q: %v", wf.Env["PARTS"], err)
	}
	if got := part.Strategy.Matrix["part"]; !slices.Equal(got, seq(n)) {
		t.Errorf("matrix parts %v, want 1…%d (PARTS)", got, n)
	}
	if part.Strategy.FailFast {
		t.Error("fail-fast: one failed part would cancel the others")
	}
	labels, _ := part.RunsOn.([]any)
	if !slices.Contains(labels, any("self-hosted")) || !slices.Contains(labels, any("gpu")) {
		t.Errorf("part runs-on %v, want [self-hosted, gpu]", part.RunsOn)
	}
	if !strings.Contains(part.If, "head.repo.full_name == github.repository") {
		t.Errorf("part if %q: a self-hosted runner must not run forks", part.If)
	}
	var measures, uploads bool
	for _, s := range part.Steps {
		measures = measures || strings.Contains(s.Run, `--part "${{ matrix.part }}/$PARTS"`) && !strings.Contains(s.Run, "--list")
		uploads = uploads || strings.HasPrefix(s.Uses, "actions/upload-artifact@") && strings.Contains(s.With["name"], "${{ matrix.part }}")
	}
	if !measures || !uploads {
		t.Errorf("part steps: measures its part %v, uploads it per part %v; want both", measures, uploads)
	}
	if gate.Needs != "part" {
		t.Errorf("gate needs %v, want part", gate.Needs)
	}
	if wf.Permissions["pull-requests"] != "" || part.Permissions["pull-requests"] != "" || gate.Permissions["pull-requests"] != "write" {
		t.Errorf("pull-requests: write must be the gating job's alone (workflow %v, part %v, gate %v)", wf.Permissions, part.Permissions, gate.Permissions)
	}
	var merged string
	var gated bool
	for _, s := range gate.Steps {
		if i := strings.Index(s.Run, "perfgate merge --out "); i >= 0 {
			merged = strings.Fields(s.Run[i+len("perfgate merge --out "):])[0]
		}
		if strings.HasPrefix(s.Uses, "perfgate/perfgate@") {
			gated = s.With["results"] != "" && s.With["results"] == merged
		}
	}
	if merged == "" || !gated {
		t.Errorf("gate job: merges into %q, gates that folder with the action's results input: %v", merged, gated)
	}
}

func seq(n int) []int {
	var s []int
	for i := 1; i <= n; i++ {
		s = append(s, i)
	}
	return s
}
