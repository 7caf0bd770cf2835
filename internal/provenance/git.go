// Package provenance identifies what a run measured: the commit (sha and
// ref) of the checkout, from git itself or, where git cannot answer, from
// the GITHUB_* variables of the environment it is given. It is apart from
// the machine's fingerprint (harness.Environment), which says where a run
// happened, not what it measured; both are recorded in every result.
package provenance

import (
	"context"
	"os/exec"
	"strings"
	"time"

	"github.com/perfgate/perfgate/result"
)

// gitTimeout bounds each git command Git runs.
const gitTimeout = 2 * time.Second

// Git identifies the commit a run measured: the sha of HEAD and the
// branch checked out in dir, from git itself (each command bounded by 2 s).
// git is preferred to the GITHUB_* variables because on a pull request
// GITHUB_SHA is the merge commit GitHub made, which may not be what was
// checked out and built. When HEAD is detached (as in most CI checkouts) the
// ref comes from GITHUB_HEAD_REF, GITHUB_REF_NAME or GITHUB_REF, in that
// order. When git cannot answer (not installed, or the checkout has no .git)
// the sha comes from GITHUB_SHA. Git returns nil when dir is not in a
// repository and GITHUB_SHA is not set. getenv may be nil.
func Git(ctx context.Context, dir string, getenv func(string) string) *result.Git {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	g := &result.Git{}
	if sha, err := gitOutput(ctx, dir, "rev-parse", "--verify", "-q", "HEAD"); err == nil && sha != "" {
		g.SHA = sha
		g.Ref, _ = gitOutput(ctx, dir, "symbolic-ref", "-q", "--short", "HEAD")
	} else if sha := getenv("GITHUB_SHA"); sha != "" {
		g.SHA = sha
	} else {
		return nil
	}
	if g.Ref == "" {
		for _, k := range []string{"GITHUB_HEAD_REF", "GITHUB_REF_NAME", "GITHUB_REF"} {
			if v := getenv(k); v != "" {
				g.Ref = v
				break
			}
		}
	}
	return g
}

// gitOutput runs git with args in dir and returns its trimmed stdout.
func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}
