package steps

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The tests of pin-release.sh: real git, a bare repository as the remote
// (the GitHub repository), a clone as the release job's checkout.

// gitEnv is git's environment in these tests: no user or system config,
// a fixed identity for the commits the test itself makes.
func gitEnv(t *testing.T) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Maintainer", "GIT_AUTHOR_EMAIL=maintainer@example.com",
		"GIT_COMMITTER_NAME=Maintainer", "GIT_COMMITTER_EMAIL=maintainer@example.com",
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(t)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// repo is the project on a remote: bare is the remote, work a maintainer's
// clone that commits, tags and pushes.
type repo struct {
	bare, work string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	r := &repo{bare: filepath.Join(t.TempDir(), "origin.git"), work: filepath.Join(t.TempDir(), "work")}
	git(t, ".", "init", "-q", "--bare", "-b", "main", r.bare)
	git(t, ".", "init", "-q", "-b", "main", r.work)
	git(t, r.work, "remote", "add", "origin", r.bare)
	install, err := os.ReadFile("install.sh")
	if err != nil {
		t.Fatal(err)
	}
	r.write(t, map[string]string{
		stepsDir + "/install.sh":          string(install),
		stepsDir + "/checksums/README.md": "# Pinned release checksums\n",
	})
	return r
}

func (r *repo) write(t *testing.T, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(r.work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// release commits CHANGELOG.md naming tag (and files), tags the commit and
// pushes both: C, the commit the release job builds.
func (r *repo) release(t *testing.T, tag string, annotated bool, files map[string]string) string {
	t.Helper()
	if files == nil {
		files = map[string]string{}
	}
	files["CHANGELOG.md"] = "# Changelog\n\n## [" + strings.TrimPrefix(tag, "v") + "] - 2026-12-01\n"
	r.write(t, files)
	git(t, r.work, "add", "-A")
	git(t, r.work, "commit", "-q", "-m", "release "+tag)
	if annotated {
		git(t, r.work, "tag", "-a", "-m", "perfgate "+tag, tag)
	} else {
		git(t, r.work, "tag", tag)
	}
	git(t, r.work, "push", "-q", "origin", "main", "refs/tags/"+tag)
	return git(t, r.work, "rev-parse", "HEAD")
}

// refs is every ref of the remote, as ls-remote lists them.
func (r *repo) refs(t *testing.T) string {
	return git(t, r.bare, "for-each-ref", "--format=%(objectname) %(refname)")
}

func (r *repo) peel(t *testing.T, ref string) string {
	return git(t, r.bare, "rev-parse", ref+"^{commit}")
}

// dist writes rel's files as GoReleaser's dist/ and returns the folder.
func dist(t *testing.T, rel *release) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range rel.files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// pinRelease runs pin-release.sh in a fresh clone of r, as the release
// workflow's pin job does, with env added.
func pinRelease(t *testing.T, r *repo, env map[string]string) result {
	t.Helper()
	ci := filepath.Join(t.TempDir(), "ci")
	git(t, ".", "clone", "-q", r.bare, ci)
	script, err := filepath.Abs("pin-release.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", script)
	cmd.Dir = ci
	// The maintainer's identity is not the job's: the script sets its own.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "TMPDIR=" + t.TempDir()}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	return result{err: err, stdout: stdout.String(), stderr: stderr.String()}
}

// pinEnv is the pin job's environment: the published checksums.txt and
// archives in d, and the hash the release job reported for what it built.
func pinEnv(t *testing.T, tag, commit, d string) map[string]string {
	t.Helper()
	sums, err := os.ReadFile(filepath.Join(d, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(sums)
	return map[string]string{
		"PIN_TAG":              tag,
		"PIN_COMMIT":           commit,
		"PIN_CHECKSUMS":        filepath.Join(d, "checksums.txt"),
		"PIN_CHECKSUMS_SHA256": hex.EncodeToString(sum[:]),
		"PIN_DIST":             d,
	}
}

// checkout writes the remote's tree at rev into a folder: the action as
// `uses: perfgate/perfgate@REV` gets it.
func (r *repo) checkout(t *testing.T, rev string) string {
	t.Helper()
	dir := t.TempDir()
	archive := exec.Command("git", "archive", rev)
	archive.Dir = r.bare
	archive.Env = gitEnv(t)
	tarball, err := archive.Output()
	if err != nil {
		t.Fatalf("git archive %s: %v", rev, err)
	}
	untar := exec.Command("tar", "-x", "-C", dir)
	untar.Stdin = bytes.NewReader(tarball)
	if out, err := untar.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	return dir
}

// The release of v1.2.3 moves the tag and v1 to C' = C + the pin; the
// action at that tree installs only the genuine binary, whatever the
// mirror serves with it; the default branch keeps the pin; a second run
// changes nothing.
func TestPinRelease(t *testing.T) {
	for _, annotated := range []bool{true, false} {
		name := map[bool]string{true: "annotated tag", false: "lightweight tag"}[annotated]
		t.Run(name, func(t *testing.T) {
			r := newRepo(t)
			c := r.release(t, "v1.2.3", annotated, nil)
			genuine := newRelease(t, "v1.2.3", fakeBinary)
			d := dist(t, genuine)

			res := pinRelease(t, r, pinEnv(t, "v1.2.3", c, d))
			if res.err != nil {
				t.Fatalf("pin-release.sh: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
			pinned := r.peel(t, "refs/tags/v1.2.3")
			if pinned == c {
				t.Fatalf("v1.2.3 still points at C %s", c)
			}
			if got := r.peel(t, "refs/tags/v1"); got != pinned {
				t.Errorf("v1 = %s, want C' %s (the tag's commit, not C)", got, pinned)
			}
			if got := git(t, r.bare, "rev-parse", pinned+"^"); got != c {
				t.Errorf("C' %s has parent %s, want C %s", pinned, got, c)
			}
			if got := git(t, r.bare, "show", pinned+":"+pinPath("v1.2.3")) + "\n"; got != string(genuine.files["checksums.txt"]) {
				t.Errorf("the pin at C' = %q, want dist's checksums.txt %q", got, genuine.files["checksums.txt"])
			}
			if got := git(t, r.bare, "diff", "--name-only", c, pinned); got != pinPath("v1.2.3") {
				t.Errorf("C' changes %q, want only the pin", got)
			}
			if got := git(t, r.bare, "log", "-1", "--format=%an <%ae>", pinned); got != "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>" {
				t.Errorf("C' is by %s, want the bot", got)
			}
			wantType := map[bool]string{true: "tag", false: "commit"}[annotated]
			if got := git(t, r.bare, "cat-file", "-t", "refs/tags/v1.2.3"); got != wantType {
				t.Errorf("v1.2.3 is a %s, want a %s, as it was pushed", got, wantType)
			}
			if got := git(t, r.bare, "rev-parse", "refs/heads/main"); got != pinned {
				t.Errorf("main = %s, want fast-forwarded to C' %s", got, pinned)
			}
			if !strings.Contains(res.stdout, "v1.2.3 and v1 now point at "+pinned) {
				t.Errorf("stdout does not say where the tags went:\n%s", res.stdout)
			}

			// Run again (a re-run job): nothing changes.
			before := r.refs(t)
			if res := pinRelease(t, r, pinEnv(t, "v1.2.3", c, d)); res.err != nil {
				t.Fatalf("pin-release.sh again: %v\n%s%s", res.err, res.stdout, res.stderr)
			}
			if after := r.refs(t); after != before {
				t.Errorf("a second run changed the remote:\nbefore %s\nafter  %s", before, after)
			}

			// The action at v1 (and at v1.2.3): install.sh verifies against the
			// pin in its own tree.
			tree := r.checkout(t, "v1")
			script := filepath.Join(tree, stepsDir, "install.sh")
			install := func(url string) result {
				return runScript(t, script, map[string]string{
					"PERFGATE_VERSION":      "v1.2.3",
					"PERFGATE_RELEASES_URL": url,
					"RUNNER_OS":             "Linux",
					"RUNNER_ARCH":           "X64",
					"RUNNER_TOOL_CACHE":     t.TempDir(),
					"RUNNER_TEMP":           t.TempDir(),
				})
			}
			res = install(genuine.serve(t))
			if res.err != nil || !strings.Contains(res.stdout, "against the checksums pinned in the action") || !strings.Contains(res.stdout, "fake linux_amd64") {
				t.Fatalf("install.sh at C' = %v; want the genuine binary verified against the pin:\n%s%s", res.err, res.stdout, res.stderr)
			}
			if strings.Contains(res.stderr, "::warning") {
				t.Errorf("install.sh at C' warned:\n%s", res.stderr)
			}
			evil := newRelease(t, "v1.2.3", evilBinary) // with its own matching checksums.txt
			res = install(evil.serve(t))
			if res.err == nil || strings.Contains(res.stdout, "EVIL") || !strings.Contains(res.stderr, "checksum mismatch for perfgate_1.2.3_linux_amd64.tar.gz: the checksums pinned in the action") {
				t.Fatalf("install.sh at C' from a tampered mirror = %v; want a refusal:\n%s%s", res.err, res.stdout, res.stderr)
			}
			if n := evil.hitCount("checksums.txt"); n != 0 {
				t.Errorf("the mirror's checksums.txt was fetched %d times, want never", n)
			}
		})
	}
}

// The major tag moves only to the newest final release of its major.
func TestPinReleaseMajorTag(t *testing.T) {
	tests := []struct {
		name    string
		before  []string // released and pinned first, in order
		tag     string
		wantV1  string // the tag v1 must then point at (its commit); "" for none
		untouch []string
	}{
		{"a patch of an older line leaves v1", []string{"v1.2.3", "v1.3.0"}, "v1.2.4", "v1.3.0", nil},
		{"a pre-release leaves v1", []string{"v1.3.0"}, "v1.4.0-rc.1", "v1.3.0", nil},
		{"the newest of v1 moves v1, not v2", []string{"v1.3.0", "v2.0.0"}, "v1.4.0", "v1.4.0", []string{"v2"}},
		{"the first release makes v1", nil, "v1.0.0", "v1.0.0", nil},
		{"a first pre-release makes no v1", nil, "v1.0.0-rc.1", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			for _, tag := range tt.before {
				c := r.release(t, tag, true, nil)
				if res := pinRelease(t, r, pinEnv(t, tag, c, dist(t, newRelease(t, tag, fakeBinary)))); res.err != nil {
					t.Fatalf("pinning %s: %v\n%s%s", tag, res.err, res.stdout, res.stderr)
				}
				git(t, r.work, "pull", "-q", "--ff-only", "origin", "main")
			}
			others := map[string]string{}
			for _, ref := range tt.untouch {
				others[ref] = r.peel(t, "refs/tags/"+ref)
			}
			c := r.release(t, tt.tag, true, nil)
			res := pinRelease(t, r, pinEnv(t, tt.tag, c, dist(t, newRelease(t, tt.tag, fakeBinary))))
			if res.err != nil {
				t.Fatalf("pin-release.sh %s: %v\n%s%s", tt.tag, res.err, res.stdout, res.stderr)
			}
			pinned := r.peel(t, "refs/tags/"+tt.tag)
			if git(t, r.bare, "rev-parse", pinned+"^") != c {
				t.Errorf("%s was not moved to C + the pin", tt.tag)
			}
			if tt.wantV1 == "" {
				if out := git(t, r.bare, "tag", "-l", "v1"); out != "" {
					t.Errorf("v1 exists, want none")
				}
			} else if got, want := r.peel(t, "refs/tags/v1"), r.peel(t, "refs/tags/"+tt.wantV1); got != want {
				t.Errorf("v1 = %s, want %s's commit %s", got, tt.wantV1, want)
			}
			for ref, was := range others {
				if got := r.peel(t, "refs/tags/"+ref); got != was {
					t.Errorf("%s moved from %s to %s", ref, was, got)
				}
			}
			// Every earlier pin is still on main, and in the new tag's tree
			// when it was cut from main.
			for _, tag := range append(tt.before, tt.tag) {
				git(t, r.bare, "cat-file", "-e", "refs/heads/main:"+pinPath(tag))
			}
		})
	}
}

// A release whose default branch moved on after C: the pin is committed on
// top of it, and nobody's commit is lost.
func TestPinReleaseBranchMoved(t *testing.T) {
	r := newRepo(t)
	c := r.release(t, "v1.2.3", false, nil)
	r.write(t, map[string]string{"next.txt": "work after the release\n"})
	git(t, r.work, "add", "-A")
	git(t, r.work, "commit", "-q", "-m", "after the release")
	git(t, r.work, "push", "-q", "origin", "main")
	moved := git(t, r.work, "rev-parse", "HEAD")

	res := pinRelease(t, r, pinEnv(t, "v1.2.3", c, dist(t, newRelease(t, "v1.2.3", fakeBinary))))
	if res.err != nil {
		t.Fatalf("pin-release.sh: %v\n%s%s", res.err, res.stdout, res.stderr)
	}
	head := git(t, r.bare, "rev-parse", "refs/heads/main")
	if got := git(t, r.bare, "rev-parse", head+"^"); got != moved {
		t.Errorf("main's new commit has parent %s, want the moved head %s", got, moved)
	}
	if got := git(t, r.bare, "diff", "--name-only", moved, head); got != pinPath("v1.2.3") {
		t.Errorf("main's new commit changes %q, want only the pin", got)
	}
	if a, b := git(t, r.bare, "rev-parse", head+":"+pinPath("v1.2.3")), git(t, r.bare, "rev-parse", "v1.2.3:"+pinPath("v1.2.3")); a != b {
		t.Errorf("main's pin %s differs from the tag's %s", a, b)
	}
}

// Refusals name the tag or file, and push nothing.
func TestPinReleaseRefuses(t *testing.T) {
	other := newRelease(t, "v1.2.3", evilBinary)
	tests := []struct {
		name    string
		setup   func(t *testing.T, r *repo, c string, env map[string]string)
		pinned  map[string]string // files committed in C
		wantErr []string
	}{
		{
			name: "the tag was moved meanwhile",
			setup: func(t *testing.T, r *repo, c string, env map[string]string) {
				r.write(t, map[string]string{"x.txt": "someone else's\n"})
				git(t, r.work, "add", "-A")
				git(t, r.work, "commit", "-q", "-m", "x")
				git(t, r.work, "tag", "-f", "v1.2.3")
				git(t, r.work, "push", "-q", "-f", "origin", "refs/tags/v1.2.3")
			},
			wantErr: []string{"tag v1.2.3 on origin points at ", "not at ", "the commit the binaries were built from", "Nothing was pushed"},
		},
		{
			name:    "a pin with other content is already in C",
			pinned:  map[string]string{pinPath("v1.2.3"): string(other.files["checksums.txt"])},
			wantErr: []string{pinPath("v1.2.3") + " already exists at v1.2.3", "with other content"},
		},
		{
			name: "an archive is not what was built",
			setup: func(t *testing.T, r *repo, c string, env map[string]string) {
				os.WriteFile(filepath.Join(env["PIN_DIST"], "perfgate_1.2.3_linux_arm64.tar.gz"), other.files["perfgate_1.2.3_linux_arm64.tar.gz"], 0o644)
			},
			wantErr: []string{"perfgate_1.2.3_linux_arm64.tar.gz hashes to ", "but ", "checksums.txt says "},
		},
		{
			name: "the published checksums.txt differs",
			setup: func(t *testing.T, r *repo, c string, env map[string]string) {
				p := filepath.Join(t.TempDir(), "published.txt")
				os.WriteFile(p, other.files["checksums.txt"], 0o644)
				env["PIN_MATCH"] = p
			},
			wantErr: []string{"published.txt differs from ", "nothing was pinned"},
		},
		{
			name: "the published checksums.txt is not the one built",
			setup: func(t *testing.T, r *repo, c string, env map[string]string) {
				env["PIN_CHECKSUMS_SHA256"] = strings.Repeat("0", 64)
			},
			wantErr: []string{"checksums.txt hashes to ", "the release job built a checksums.txt hashing to 0000", "nothing was pinned"},
		},
		{
			name: "checksums of another release",
			setup: func(t *testing.T, r *repo, c string, env map[string]string) {
				env["PIN_CHECKSUMS"] = filepath.Join(dist(t, newRelease(t, "v1.2.2", fakeBinary)), "checksums.txt")
				env["PIN_DIST"], env["PIN_CHECKSUMS_SHA256"] = "", ""
			},
			wantErr: []string{"names no archive of v1.2.3"},
		},
		{
			name: "not a checksums file",
			setup: func(t *testing.T, r *repo, c string, env map[string]string) {
				p := filepath.Join(t.TempDir(), "checksums.txt")
				os.WriteFile(p, []byte("<html>rate limited</html>\n"), 0o644)
				env["PIN_CHECKSUMS"], env["PIN_DIST"], env["PIN_CHECKSUMS_SHA256"] = p, "", ""
			},
			wantErr: []string{"line 1 is \"<html>rate limited</html>\": want \"SHA256  FILE\""},
		},
		{
			name: "the commit is not the tagged one",
			setup: func(t *testing.T, r *repo, c string, env map[string]string) {
				env["PIN_COMMIT"] = strings.Repeat("ab", 20)
			},
			wantErr: []string{"tag v1.2.3 on origin points at " /* C, not the given SHA */},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			c := r.release(t, "v1.2.3", true, tt.pinned)
			env := pinEnv(t, "v1.2.3", c, dist(t, newRelease(t, "v1.2.3", fakeBinary)))
			if tt.setup != nil {
				tt.setup(t, r, c, env)
			}
			before := r.refs(t)
			res := pinRelease(t, r, env)
			if res.err == nil {
				t.Fatalf("pin-release.sh succeeded, want a refusal:\n%s", res.stdout)
			}
			for _, want := range append(tt.wantErr, "::error title=perfgate pin-release::") {
				if !strings.Contains(res.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
				}
			}
			if after := r.refs(t); after != before {
				t.Errorf("a refusal changed the remote:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestReleaseWorkflowPins checks release.yml wires pin-release.sh as
// tested here: after the release job, with the built commit and the built
// checksums' hash, and write access in that job alone (the workflow's
// default stays read); no other step moves a tag.
func TestReleaseWorkflowPins(t *testing.T) {
	data, err := os.ReadFile("../../.github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Needs       any               `yaml:"needs"`
			Permissions map[string]string `yaml:"permissions"`
			Outputs     map[string]string `yaml:"outputs"`
			Steps       []struct {
				ID  string            `yaml:"id"`
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("release.yml: %v", err)
	}
	if len(wf.Permissions) != 1 || wf.Permissions["contents"] != "read" {
		t.Errorf("the workflow's permissions = %v, want contents: read only (jobs add what they need)", wf.Permissions)
	}
	pin, ok := wf.Jobs["pin"]
	if !ok {
		t.Fatal("release.yml has no pin job")
	}
	if pin.Needs != "release" {
		t.Errorf("pin needs %v, want release", pin.Needs)
	}
	if len(pin.Permissions) != 1 || pin.Permissions["contents"] != "write" {
		t.Errorf("pin's permissions = %v, want contents: write alone", pin.Permissions)
	}
	if !strings.Contains(wf.Jobs["release"].Outputs["checksums-sha256"], "steps.built.outputs.sha256") {
		t.Errorf("the release job does not output the built checksums' hash: %v", wf.Jobs["release"].Outputs)
	}
	found := false
	for _, s := range pin.Steps {
		if strings.Contains(s.Run, stepsDir+"/pin-release.sh") {
			found = true
			for k, want := range map[string]string{
				"PIN_TAG":              "${{ github.ref_name }}",
				"PIN_COMMIT":           "${{ github.sha }}",
				"PIN_CHECKSUMS_SHA256": "${{ needs.release.outputs.checksums-sha256 }}",
			} {
				if s.Env[k] != want {
					t.Errorf("pin-release.sh's %s = %q, want %q", k, s.Env[k], want)
				}
			}
		}
	}
	if !found {
		t.Errorf("the pin job does not run %s/pin-release.sh", stepsDir)
	}
	for name, job := range wf.Jobs {
		for _, s := range job.Steps {
			if strings.Contains(s.Run, "git push") || strings.Contains(s.Run, "git tag") {
				t.Errorf("job %s moves a ref itself (%q): only pin-release.sh does, to C'", name, s.Run)
			}
		}
	}
}
