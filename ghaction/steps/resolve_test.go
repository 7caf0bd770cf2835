package steps

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolve(t *testing.T) {
	changelog := func(latest string) string {
		return "# Changelog\n\n## [Unreleased]\n\n### Added\n- next thing\n\n## [" + latest +
			"] - 2026-12-01\n\n### Fixed\n- a fix\n\n## [1.0.0] - 2026-11-30\n"
	}
	tests := []struct {
		name      string
		env       map[string]string
		changelog string // CHANGELOG.md in the action's tree; "" for none
		actionDir string // the action path under the test's root; "" for "action"
		pinned    string // a release whose checksums the action's tree pins, vX.Y.Z; "" for none
		want      map[string]string
		wantErr   string
	}{
		{
			name: "exact release tag",
			env:  map[string]string{"ACTION_REF": "v1.2.3", "ACTION_REPOSITORY": "perfgate/perfgate"},
			want: map[string]string{"method": "release", "version": "v1.2.3", "repository": "perfgate/perfgate"},
		},
		{
			name: "pre-release tag",
			env:  map[string]string{"ACTION_REF": "v1.3.0-rc.1", "ACTION_REPOSITORY": "perfgate/perfgate"},
			want: map[string]string{"method": "release", "version": "v1.3.0-rc.1", "repository": "perfgate/perfgate"},
		},
		{
			// The moving major tag: its tree's CHANGELOG names the release.
			name:      "major tag",
			env:       map[string]string{"ACTION_REF": "v1", "ACTION_REPOSITORY": "acme/perfgate-fork"},
			changelog: changelog("1.4.2"),
			want:      map[string]string{"method": "release", "version": "v1.4.2", "repository": "acme/perfgate-fork"},
		},
		{
			name:      "minor tag",
			env:       map[string]string{"ACTION_REF": "v1.4"},
			changelog: changelog("1.4.2"),
			want:      map[string]string{"method": "release", "version": "v1.4.2", "repository": "perfgate/perfgate"},
		},
		{
			name:      "major tag moved by hand onto another major",
			env:       map[string]string{"ACTION_REF": "v1"},
			changelog: changelog("2.0.0"),
			wantErr:   "the action ref v1 points at a tree whose newest release is v2.0.0",
		},
		{
			name:    "major tag without a changelog",
			env:     map[string]string{"ACTION_REF": "v1"},
			wantErr: "has no CHANGELOG.md to name its release",
		},
		{
			name:      "major tag, changelog with no release yet",
			env:       map[string]string{"ACTION_REF": "v1"},
			changelog: "# Changelog\n\n## [Unreleased]\n",
			wantErr:   "names no release",
		},
		{
			name: "branch",
			env:  map[string]string{"ACTION_REF": "main", "ACTION_REPOSITORY": "perfgate/perfgate"},
			want: map[string]string{"method": "source", "version": "", "repository": "perfgate/perfgate"},
		},
		{
			name: "commit sha",
			env:  map[string]string{"ACTION_REF": "0123456789abcdef0123456789abcdef01234567"},
			want: map[string]string{"method": "source", "version": "", "repository": "perfgate/perfgate"},
		},
		{
			name: "local action (uses: ./) has no ref",
			env:  map[string]string{},
			want: map[string]string{"method": "source", "version": "", "repository": "perfgate/perfgate"},
		},
		{
			name: "build-from-source wins over a release ref",
			env:  map[string]string{"ACTION_REF": "v1.2.3", "INPUT_BUILD_FROM_SOURCE": "true"},
			want: map[string]string{"method": "source", "version": "", "repository": "perfgate/perfgate"},
		},
		{
			name:      "perfgate-version pins a release, even from a branch",
			env:       map[string]string{"ACTION_REF": "main", "INPUT_PERFGATE_VERSION": "v1.1.0"},
			changelog: changelog("1.4.2"),
			want:      map[string]string{"method": "release", "version": "v1.1.0", "repository": "perfgate/perfgate"},
		},
		{
			name:      "perfgate-version without the v",
			env:       map[string]string{"ACTION_REF": "v1.2.3", "INPUT_PERFGATE_VERSION": "1.1.0"},
			changelog: changelog("1.4.2"),
			want:      map[string]string{"method": "release", "version": "v1.1.0", "repository": "perfgate/perfgate"},
		},
		{
			name:      "perfgate-version the tree's own release",
			env:       map[string]string{"ACTION_REF": "main", "INPUT_PERFGATE_VERSION": "v1.4.2"},
			changelog: changelog("1.4.2"),
			want:      map[string]string{"method": "release", "version": "v1.4.2", "repository": "perfgate/perfgate"},
		},
		// A release newer than the action's tree has no pinned checksums:
		// refused unless allow-newer-version says so (issue 43).
		{
			name:      "perfgate-version newer than the tree",
			env:       map[string]string{"ACTION_REF": "v1.4.2", "INPUT_PERFGATE_VERSION": "v1.10.0"},
			changelog: changelog("1.4.2"),
			wantErr:   "input perfgate-version is v1.10.0, newer than the newest release this action's tree knows (v1.4.2)",
		},
		{
			name:      "perfgate-version a patch newer than the tree",
			env:       map[string]string{"ACTION_REF": "v1", "INPUT_PERFGATE_VERSION": "v1.4.3"},
			changelog: changelog("1.4.2"),
			wantErr:   "set allow-newer-version: true",
		},
		{
			name:    "perfgate-version, a tree that names no release",
			env:     map[string]string{"ACTION_REF": "main", "INPUT_PERFGATE_VERSION": "v1.1.0"},
			wantErr: "newer than the newest release this action's tree knows (none)",
		},
		{
			name:      "perfgate-version newer than the tree, allowed",
			env:       map[string]string{"ACTION_REF": "v1.4.2", "INPUT_PERFGATE_VERSION": "v2.0.0", "INPUT_ALLOW_NEWER_VERSION": "true"},
			changelog: changelog("1.4.2"),
			want:      map[string]string{"method": "release", "version": "v2.0.0", "repository": "perfgate/perfgate"},
		},
		{
			name:   "perfgate-version newer than the changelog but pinned",
			env:    map[string]string{"ACTION_REF": "main", "INPUT_PERFGATE_VERSION": "v1.5.0"},
			pinned: "v1.5.0",
			want:   map[string]string{"method": "release", "version": "v1.5.0", "repository": "perfgate/perfgate"},
		},
		{
			name:    "allow-newer-version not a boolean",
			env:     map[string]string{"INPUT_ALLOW_NEWER_VERSION": "yes"},
			wantErr: `input allow-newer-version is "yes": want true or false`,
		},
		{
			name:    "perfgate-version not a release",
			env:     map[string]string{"INPUT_PERFGATE_VERSION": "1.1"},
			wantErr: `input perfgate-version is "1.1": want a release such as v1.2.3`,
		},
		{
			// A newline in an input must not start a workflow command.
			name:    "perfgate-version with a newline",
			env:     map[string]string{"INPUT_PERFGATE_VERSION": "v1.2.3\n::set-env name=X::y"},
			wantErr: `input perfgate-version is "v1.2.3 ::set-env`,
		},
		{
			name:    "build-from-source not a boolean",
			env:     map[string]string{"INPUT_BUILD_FROM_SOURCE": "yes"},
			wantErr: `input build-from-source is "yes": want true or false`,
		},
		{
			// github.action_ref is not promised in a composite action; the
			// runner's checkout path says the same.
			name:      "ref and repository from the runner's _actions path",
			env:       map[string]string{},
			actionDir: "_actions/acme/perfgate/v1.2.3",
			want:      map[string]string{"method": "release", "version": "v1.2.3", "repository": "acme/perfgate"},
		},
		{
			name:      "branch from the runner's _actions path",
			env:       map[string]string{},
			actionDir: "_actions/acme/perfgate/main",
			want:      map[string]string{"method": "source", "version": "", "repository": "acme/perfgate"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "action")
			if tt.actionDir != "" {
				dir = filepath.Join(t.TempDir(), tt.actionDir)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.changelog != "" {
				if err := os.WriteFile(filepath.Join(dir, "CHANGELOG.md"), []byte(tt.changelog), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.pinned != "" {
				pins := filepath.Join(dir, "ghaction", "steps", "checksums")
				if err := os.MkdirAll(pins, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(pins, tt.pinned+".txt"), []byte("0000  perfgate_x.tar.gz\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"ACTION_PATH": dir}
			for k, v := range tt.env {
				env[k] = v
			}
			res := runScript(t, "resolve.sh", env)
			if tt.wantErr != "" {
				if res.err == nil {
					t.Fatalf("resolve.sh succeeded with %v, want an error containing %q", res.outputs, tt.wantErr)
				}
				if code := res.err.(*exec.ExitError).ExitCode(); code != 2 {
					t.Errorf("exit code %d, want 2", code)
				}
				if !strings.Contains(res.stderr, tt.wantErr) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
					t.Errorf("stderr = %q, want one line containing %q", res.stderr, tt.wantErr)
				}
				return
			}
			if res.err != nil {
				t.Fatalf("resolve.sh: %v\n%s", res.err, res.stderr)
			}
			if d := cmp.Diff(tt.want, res.outputs); d != "" {
				t.Errorf("outputs (-want +got):\n%s", d)
			}
		})
	}
}

// TestResolveOwnChangelog checks this repository's CHANGELOG.md can name a
// release the way resolve.sh reads it once the first one is cut: every
// released heading is "## [X.Y.Z] - YYYY-MM-DD" below "## [Unreleased]".
func TestResolveOwnChangelog(t *testing.T) {
	data, err := os.ReadFile("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	sawUnreleased := false
	for i, line := range lines {
		if !strings.HasPrefix(line, "## ") {
			continue
		}
		if line == "## [Unreleased]" {
			sawUnreleased = true
			continue
		}
		if !sawUnreleased {
			t.Errorf("CHANGELOG.md:%d: %q comes before \"## [Unreleased]\"", i+1, line)
		}
		var major, minor, patch int
		var y, m, d int
		if n, _ := fmt.Sscanf(line, "## [%d.%d.%d] - %d-%d-%d", &major, &minor, &patch, &y, &m, &d); n != 6 {
			t.Errorf("CHANGELOG.md:%d: %q is not \"## [X.Y.Z] - YYYY-MM-DD\"", i+1, line)
		}
	}
	if !sawUnreleased {
		t.Errorf("CHANGELOG.md has no \"## [Unreleased]\" section")
	}
}
