package steps

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// stepsDir is this package's folder relative to the repository root: the
// path action.yml runs the steps from ($ACTION_PATH/stepsDir/resolve.sh),
// the release workflow runs pin-release.sh from, and pin-release.sh writes
// the pins under (stepsDir/checksums/vX.Y.Z.txt). TestStepsDir keeps it
// true; the pin tests build their repositories with it.
const stepsDir = "ghaction/steps"

// repoRoot is the repository root seen from this package's folder.
const repoRoot = "../.."

// pinPath is where pin-release.sh pins tag's checksums, relative to the
// repository root, and where install.sh (checksums/ beside it) reads them.
func pinPath(tag string) string {
	return stepsDir + "/checksums/" + tag + ".txt"
}

// TestStepsDir checks stepsDir names this folder, so a move of the folder
// that does not move the paths the tests check fails here first.
func TestStepsDir(t *testing.T) {
	for _, name := range []string{"doc.go", "resolve.sh", "install.sh", "pin-release.sh", "checksums/README.md"} {
		here, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		there, err := os.Stat(filepath.Join(repoRoot, stepsDir, name))
		if err != nil {
			t.Fatalf("stepsDir %q: %v: set stepsDir to this package's folder, relative to the repository root", stepsDir, err)
		}
		if !os.SameFile(here, there) {
			t.Errorf("%s/%s is not this package's %s: set stepsDir to this package's folder", stepsDir, name, name)
		}
	}
}

// TestActionRunsSteps checks action.yml runs resolve.sh and install.sh
// from this folder, through $ACTION_PATH (github.action_path, the
// action's tree at the ref `uses:` names), and that every script a step
// names there exists.
func TestActionRunsSteps(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Runs struct {
			Steps []struct {
				ID  string `yaml:"id"`
				Run string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	ref := regexp.MustCompile(`\$ACTION_PATH/([A-Za-z0-9_./-]+)`)
	ran := map[string]string{} // script -> step id
	for _, s := range meta.Runs.Steps {
		for _, m := range ref.FindAllStringSubmatch(s.Run, -1) {
			p := m[1]
			if _, err := os.Stat(filepath.Join(repoRoot, p)); err != nil {
				t.Errorf("action.yml step %q runs $ACTION_PATH/%s, which is not in the repository: %v", s.ID, p, err)
			}
			ran[p] = s.ID
		}
	}
	for script, id := range map[string]string{"resolve.sh": "resolve", "install.sh": "install"} {
		p := stepsDir + "/" + script
		if got, ok := ran[p]; !ok || got != id {
			t.Errorf("action.yml: step %q does not run $ACTION_PATH/%s (the steps it runs from $ACTION_PATH: %v)", id, p, ran)
		}
	}
}

// TestNoStaleStepPaths checks the files that name the steps by path (the
// workflows, CI, GoReleaser's config, the docs and the benches) name them
// under stepsDir: a path to resolve.sh, install.sh, pin-release.sh or
// checksums/ elsewhere is left over from a move.
func TestNoStaleStepPaths(t *testing.T) {
	var files []string
	for _, pattern := range []string{
		"action.yml", ".goreleaser*.yaml", ".github/workflows/*.yml", ".ci/run",
		"README.md", "CHANGELOG.md", "docs/*.md", "bench/*.md", "bench/*.sh", "scripts/*.sh", "ghaction/*.go",
	} {
		m, err := filepath.Glob(filepath.Join(repoRoot, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("found only %v: is %s the repository root?", files, repoRoot)
	}
	path := regexp.MustCompile(`(?:[A-Za-z0-9_.-]+/)+(?:resolve\.sh|install\.sh|pin-release\.sh|pin_release_test\.go|checksums/)`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, p := range path.FindAllString(line, -1) {
				if !strings.Contains(p, stepsDir+"/") {
					rel, _ := filepath.Rel(repoRoot, f)
					t.Errorf("%s:%d names %s: the Action's steps and pins are under %s/; name them there", rel, i+1, p, stepsDir)
				}
			}
		}
	}
}
