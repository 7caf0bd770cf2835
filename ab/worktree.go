package ab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrBadRef marks a revision that git cannot resolve to a commit, or a
// config outside a git repository: a usage error (exit 2).
var ErrBadRef = errors.New("bad revision")

// git runs git in dir and returns its trimmed stdout; the error quotes
// git's stderr.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// Repo is the git repository holding the config: its top folder, and the
// head commit.
type Repo struct {
	Root    string
	HeadSHA string
	Dirty   bool
}

// OpenRepo finds the repository holding dir.
func OpenRepo(ctx context.Context, dir string) (*Repo, error) {
	root, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%w: --ab needs the config inside a git repository: %v", ErrBadRef, err)
	}
	root, err = filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	r := &Repo{Root: root}
	r.HeadSHA, _ = git(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD")
	st, _ := git(ctx, root, "status", "--porcelain", "--untracked-files=no")
	r.Dirty = st != ""
	return r, nil
}

// Resolve returns the commit ref names, or ErrBadRef.
func (r *Repo) Resolve(ctx context.Context, ref string) (string, error) {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return "", fmt.Errorf("%w: %q: give a git revision (a branch, tag or commit), e.g. --ab origin/main", ErrBadRef, ref)
	}
	sha, err := git(ctx, r.Root, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err != nil || sha == "" {
		return "", fmt.Errorf("%w: %q is not a commit in %s: fetch it first (on GitHub Actions: actions/checkout with fetch-depth: 0, or git fetch origin %s)", ErrBadRef, ref, r.Root, ref)
	}
	return sha, nil
}

// Worktree is a detached checkout of a commit in a temporary folder
// outside the repository.
type Worktree struct {
	// Dir is the checkout's top folder.
	Dir  string
	repo *Repo
	tmp  string
}

// AddWorktree checks sha out, detached, in a new temporary folder under
// tmpRoot (empty: the system's). The caller must Remove it, on every path.
func (r *Repo) AddWorktree(ctx context.Context, tmpRoot, sha string) (*Worktree, error) {
	tmp, err := os.MkdirTemp(tmpRoot, "perfgate-ab-")
	if err != nil {
		return nil, fmt.Errorf("creating the base checkout's folder: %w", err)
	}
	w := &Worktree{Dir: filepath.Join(tmp, "base"), repo: r, tmp: tmp}
	if _, err := git(ctx, r.Root, "worktree", "add", "--detach", "--quiet", w.Dir, sha); err != nil {
		w.Remove()
		return nil, fmt.Errorf("checking out the base revision: %w", err)
	}
	if d, err := filepath.EvalSymlinks(w.Dir); err == nil {
		w.Dir = d
	}
	return w, nil
}

// Remove deletes the checkout and git's record of it. It does not depend
// on any context (it runs after an interrupt) and may be called twice.
func (w *Worktree) Remove() error {
	if w == nil || w.tmp == "" {
		return nil
	}
	ctx := context.Background()
	var errs []error
	if _, err := os.Stat(w.Dir); err == nil {
		if _, err := git(ctx, w.repo.Root, "worktree", "remove", "--force", w.Dir); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(w.tmp); err != nil {
		errs = append(errs, err)
	}
	if _, err := git(ctx, w.repo.Root, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	w.tmp = ""
	return errors.Join(errs...)
}

// InWorktree maps a path of the current checkout to the same path in w,
// or reports that it lies outside the repository.
func (w *Worktree) InWorktree(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if d, err := filepath.EvalSymlinks(abs); err == nil {
		abs = d
	}
	rel, err := filepath.Rel(w.repo.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the repository %s: the base side has no copy of it", path, w.repo.Root)
	}
	return filepath.Join(w.Dir, rel), nil
}
