package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Git is a history kept on a git ref (usually the branch perfgate-data):
// the *.jsonl files under Path in the ref's tree, read with the git CLI in
// the repository at Repo.
type Git struct {
	// Repo is a folder inside the repository.
	Repo string
	// Ref is any revision: perfgate-data, origin/perfgate-data, a commit.
	Ref string
	// Path is the folder of the history inside the ref's tree ("" for
	// its root).
	Path string
}

// String names the ref and path as REF:PATH.
func (g Git) String() string {
	if g.Path == "" {
		return g.Ref
	}
	return g.Ref + ":" + g.Path
}

// Open returns the source spec names: an existing folder, else a git
// revision REF or REF:PATH (a folder inside its tree) of the repository
// around workdir.
func Open(ctx context.Context, spec, workdir string) (Source, error) {
	if spec == "" {
		return nil, errors.New("history: empty source: give a folder or a git ref (for example origin/perfgate-data)")
	}
	p := spec
	if !filepath.IsAbs(p) {
		p = filepath.Join(workdir, p)
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return Dir(p), nil
	}
	ref, sub, _ := strings.Cut(spec, ":")
	g := Git{Repo: workdir, Ref: ref, Path: strings.Trim(sub, "/")}
	if _, err := gitOut(ctx, workdir, nil, nil, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return nil, fmt.Errorf("history %q: neither a folder nor a git revision of the repository at %s: give a folder, or fetch the branch first (git fetch origin perfgate-data)", spec, workdir)
	}
	return g, nil
}

// Read reads every *.jsonl file under Path in Ref's tree.
func (g Git) Read(ctx context.Context) ([]Record, error) {
	files, err := g.files(ctx, g.Ref)
	if err != nil {
		return nil, err
	}
	var out []Record
	var rd reader
	for _, f := range files {
		recs, err := rd.gitFile(ctx, g.Repo, g.Ref, f)
		if err != nil {
			return nil, fmt.Errorf("history %s: %w", g, err)
		}
		out = append(out, recs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("history %s: no records: %w", g, ErrNoHistory)
	}
	return out, nil
}

// files lists the *.jsonl files directly under Path in rev's tree.
func (g Git) files(ctx context.Context, rev string) ([]string, error) {
	args := []string{"ls-tree", "--name-only", rev}
	if g.Path != "" {
		args = append(args, g.Path+"/")
	}
	out, err := gitOut(ctx, g.Repo, nil, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", g, err)
	}
	var files []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasSuffix(l, ".jsonl") {
			files = append(files, l)
		}
	}
	return files, nil
}

// Pusher appends records to a history branch of a remote: it commits the
// appended lines on top of the branch's tip, without touching the work
// tree or the repository's index, and pushes; when the push is rejected
// because another writer got there first, it fetches the new tip and
// appends again, so no record is lost.
type Pusher struct {
	// Repo is a folder inside a clone with Remote configured.
	Repo string
	// Remote is the remote pushed to ("origin").
	Remote string
	// Branch is the history branch ("perfgate-data"); it is created when
	// the remote has none.
	Branch string
	// Path is the history's folder inside the branch ("" for its root).
	Path string
	// Retention is applied to each file written (zero: keep all).
	Retention Retention
	// Attempts bounds the retries on a rejected push (0: 8).
	Attempts int
	// Message is the commit message ("" for a default naming the records).
	Message string
}

// DefaultBranch is the branch a history lives on by default.
const DefaultBranch = "perfgate-data"

// ErrPushRejected is returned (wrapped) when every attempt was rejected.
var ErrPushRejected = errors.New("history push rejected")

// Push appends recs to the branch. It returns the commit pushed and the
// number of attempts it took.
func (p Pusher) Push(ctx context.Context, recs []Record) (string, int, error) {
	if len(recs) == 0 {
		return "", 0, nil
	}
	attempts := p.Attempts
	if attempts <= 0 {
		attempts = 8
	}
	tmp, err := os.MkdirTemp("", "perfgate-history-")
	if err != nil {
		return "", 0, err
	}
	defer os.RemoveAll(tmp)
	env := append(os.Environ(), "GIT_INDEX_FILE="+filepath.Join(tmp, "index"))
	tipRef := "refs/perfgate/history-tip"
	var lastErr error
	for a := 1; a <= attempts; a++ {
		if a > 1 {
			// Jittered backoff, so that racing writers spread out.
			d := time.Duration(50*(1<<min(a, 6))+rand.IntN(200)) * time.Millisecond
			select {
			case <-ctx.Done():
				return "", a - 1, ctx.Err()
			case <-time.After(d):
			}
		}
		parent := ""
		if _, err := gitOut(ctx, p.Repo, nil, nil, "fetch", "--quiet", "--no-tags", p.Remote, "+refs/heads/"+p.Branch+":"+tipRef); err == nil {
			out, err := gitOut(ctx, p.Repo, nil, nil, "rev-parse", tipRef)
			if err != nil {
				return "", a, err
			}
			parent = strings.TrimSpace(string(out))
		} else if !strings.Contains(err.Error(), "couldn't find remote ref") {
			return "", a, fmt.Errorf("history push: fetching %s %s: %w", p.Remote, p.Branch, err)
		}
		commit, err := p.commit(ctx, env, parent, recs)
		if err != nil {
			return "", a, err
		}
		_, err = gitOut(ctx, p.Repo, nil, nil, "push", "--quiet", p.Remote, commit+":refs/heads/"+p.Branch)
		if err == nil {
			return commit, a, nil
		}
		if !rejected(err) {
			return "", a, fmt.Errorf("history push: %w", err)
		}
		lastErr = err
	}
	return "", attempts, fmt.Errorf("%w after %d attempts: %v", ErrPushRejected, attempts, lastErr)
}

// rejected reports whether a push failed because the remote moved on.
func rejected(err error) bool {
	s := err.Error()
	for _, m := range []string{"rejected", "non-fast-forward", "fetch first", "cannot lock ref", "failed to update ref", "stale info"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// commit builds a commit on parent ("" for a root commit) whose files are
// parent's with recs appended, in a private index (env).
func (p Pusher) commit(ctx context.Context, env []string, parent string, recs []Record) (string, error) {
	if parent != "" {
		if _, err := gitOut(ctx, p.Repo, env, nil, "read-tree", parent); err != nil {
			return "", err
		}
	} else if _, err := gitOut(ctx, p.Repo, env, nil, "read-tree", "--empty"); err != nil {
		return "", err
	}
	groups := byFile(recs)
	for _, name := range sortedFiles(recs) {
		file := path.Join(p.Path, name)
		var old []Record
		if parent != "" {
			if _, err := gitOut(ctx, p.Repo, nil, nil, "cat-file", "-e", parent+":"+file); err == nil {
				var rd reader
				if old, err = rd.gitFile(ctx, p.Repo, parent, file); err != nil {
					return "", fmt.Errorf("history %s:%s: %w", p.Branch, file, err)
				}
			}
		}
		all := append(old, groups[name]...)
		if p.Retention != (Retention{}) {
			all = p.Retention.Apply(all)
		}
		var buf bytes.Buffer
		if err := Encode(&buf, all); err != nil {
			return "", err
		}
		blob, err := gitOut(ctx, p.Repo, nil, buf.Bytes(), "hash-object", "-w", "--stdin")
		if err != nil {
			return "", err
		}
		if _, err := gitOut(ctx, p.Repo, env, nil, "update-index", "--add", "--cacheinfo",
			"100644,"+strings.TrimSpace(string(blob))+","+file); err != nil {
			return "", err
		}
	}
	tree, err := gitOut(ctx, p.Repo, env, nil, "write-tree")
	if err != nil {
		return "", err
	}
	msg := p.Message
	if msg == "" {
		msg = fmt.Sprintf("perfgate history: %d record(s) of %s", len(recs), recordsCommit(recs))
	}
	args := []string{"commit-tree", strings.TrimSpace(string(tree)), "-m", msg}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	cenv := env
	if _, err := gitOut(ctx, p.Repo, nil, nil, "var", "GIT_COMMITTER_IDENT"); err != nil {
		// No identity configured (a fresh runner): commit as perfgate.
		cenv = append(cenv, "GIT_AUTHOR_NAME=perfgate", "GIT_AUTHOR_EMAIL=perfgate@users.noreply.github.com",
			"GIT_COMMITTER_NAME=perfgate", "GIT_COMMITTER_EMAIL=perfgate@users.noreply.github.com")
	}
	c, err := gitOut(ctx, p.Repo, cenv, nil, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(c)), nil
}

// recordsCommit names the commit recs were measured on.
func recordsCommit(recs []Record) string {
	c := recs[0].Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if c == "" {
		c = "an unknown commit"
	}
	return c
}

// gitOut runs git in dir with env (nil: the process's) and stdin, and
// returns its standard output; a failure's error holds its stderr.
func gitOut(ctx context.Context, dir string, env []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}
