package provenance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/result"
)

// git runs git in dir with a fixed identity and no signing, failing the
// test on error, and returns its trimmed output.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	args = append([]string{"-c", "user.name=perfgate", "-c", "user.email=perfgate@example.com", "-c", "commit.gpgsign=false"}, args...)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	// Keep git from finding a repository above the temporary folder.
	t.Setenv("GIT_CEILING_DIRECTORIES", root)

	repo := filepath.Join(root, "repo")
	git(t, root, "init", "-q", "-b", "trunk", repo)
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "first")
	first := git(t, repo, "rev-parse", "HEAD")
	git(t, repo, "commit", "-q", "--allow-empty", "-m", "second")
	second := git(t, repo, "rev-parse", "HEAD")
	detached := filepath.Join(root, "detached")
	git(t, repo, "worktree", "add", "-q", "--detach", detached, first)
	outside := filepath.Join(root, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}

	// The environment of a pull request's workflow: GITHUB_SHA is the merge
	// commit GitHub made, which git must win over.
	actions := map[string]string{
		"GITHUB_SHA":      "0123456789abcdef0123456789abcdef01234567",
		"GITHUB_REF":      "refs/pull/7/merge",
		"GITHUB_REF_NAME": "7/merge",
		"GITHUB_HEAD_REF": "feature",
	}
	tests := []struct {
		name string
		dir  string
		env  map[string]string
		want *result.Git
	}{
		{name: "on a branch", dir: repo, want: &result.Git{SHA: second, Ref: "trunk"}},
		{name: "on a branch in actions", dir: repo, env: actions, want: &result.Git{SHA: second, Ref: "trunk"}},
		{name: "detached", dir: detached, want: &result.Git{SHA: first}},
		{name: "detached in actions", dir: detached, env: actions, want: &result.Git{SHA: first, Ref: "feature"}},
		{name: "detached on a push", dir: detached, env: map[string]string{"GITHUB_REF": "refs/heads/main", "GITHUB_REF_NAME": "main"}, want: &result.Git{SHA: first, Ref: "main"}},
		{name: "outside a repository", dir: outside, want: nil},
		// A checkout without .git (actions/checkout without git installed).
		{name: "outside a repository in actions", dir: outside, env: actions, want: &result.Git{SHA: actions["GITHUB_SHA"], Ref: "feature"}},
		{name: "missing folder", dir: filepath.Join(root, "nope"), want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Git(t.Context(), tt.dir, func(k string) string { return tt.env[k] })
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Git(%q) (-want +got):\n%s", tt.dir, d)
			}
		})
	}
	if got := Git(t.Context(), outside, nil); got != nil {
		t.Errorf("Git(%q, nil getenv) = %+v, want nil", outside, got)
	}
}
