package steps

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
)

// published is what the release workflow publishes (.goreleaser.yaml).
var published = []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"}

// release is a fake GitHub release: its files, served under
// /OWNER/NAME/releases/download/TAG/ on 127.0.0.1.
type release struct {
	tag   string
	files map[string][]byte

	mu   sync.Mutex
	hits map[string]int // file → GET count
}

// newRelease packs binary into one archive per published platform, named
// and laid out as GoReleaser does, and writes checksums.txt for them.
func newRelease(t *testing.T, tag string, binary func(platform string) []byte) *release {
	t.Helper()
	r := &release{tag: tag, files: map[string][]byte{}, hits: map[string]int{}}
	var sums strings.Builder
	for _, p := range published {
		name := fmt.Sprintf("perfgate_%s_%s.tar.gz", strings.TrimPrefix(tag, "v"), p)
		r.files[name] = tarGz(t, map[string][]byte{"perfgate": binary(p), "README.md": []byte("# perfgate\n")})
		sum := sha256.Sum256(r.files[name])
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	r.files["checksums.txt"] = []byte(sums.String())
	return r
}

func tarGz(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(files[n]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serve starts the release server and returns its releases/download URL.
func (r *release) serve(t *testing.T) string {
	t.Helper()
	prefix := "/perfgate/perfgate/releases/download/" + r.tag + "/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		name, ok := strings.CutPrefix(req.URL.Path, prefix)
		r.mu.Lock()
		data, found := r.files[name]
		r.hits[name]++
		r.mu.Unlock()
		if !ok || !found {
			http.NotFound(w, req)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/perfgate/perfgate/releases/download"
}

func (r *release) hitCount(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits[name]
}

// fakeBinary is a stand-in executable: a script that prints a version line
// naming its platform, so a test sees which archive was installed.
func fakeBinary(platform string) []byte {
	return []byte("#!/bin/sh\necho \"perfgate v1.2.3 (fake " + platform + ")\"\n")
}

// runner is one runner's environment for install.sh.
type runner struct {
	os, arch  string
	toolCache string
	temp      string
}

func newRunner(t *testing.T, os, arch string) runner {
	return runner{os: os, arch: arch, toolCache: t.TempDir(), temp: t.TempDir()}
}

type result struct {
	err            error
	stdout, stderr string
	outputs        map[string]string
}

// runScript runs script with /bin/sh and the given environment (PATH is
// kept), and returns its GITHUB_OUTPUT.
func runScript(t *testing.T, script string, env map[string]string) result {
	t.Helper()
	outFile := filepath.Join(t.TempDir(), "github_output")
	cmd := exec.Command("/bin/sh", script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GITHUB_OUTPUT=" + outFile}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{err: err, stdout: stdout.String(), stderr: stderr.String(), outputs: map[string]string{}}
	data, _ := os.ReadFile(outFile)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			res.outputs[k] = v
		}
	}
	return res
}

func (rn runner) install(t *testing.T, url, version string) result {
	t.Helper()
	return runScript(t, "install.sh", map[string]string{
		"PERFGATE_VERSION":      version,
		"PERFGATE_REPOSITORY":   "perfgate/perfgate",
		"PERFGATE_RELEASES_URL": url,
		"RUNNER_OS":             rn.os,
		"RUNNER_ARCH":           rn.arch,
		"RUNNER_TOOL_CACHE":     rn.toolCache,
		"RUNNER_TEMP":           rn.temp,
	})
}

func TestInstallVerifiesAndCaches(t *testing.T) {
	// The binaries are scripts for the test's own /bin/sh, whatever platform
	// they are named for: these rows check which archive is chosen.
	tests := []struct {
		name, os, arch string
		wantArchive    string
	}{
		{"linux x64", "Linux", "X64", "perfgate_1.2.3_linux_amd64.tar.gz"},
		{"linux arm64", "Linux", "ARM64", "perfgate_1.2.3_linux_arm64.tar.gz"},
		{"macos arm64", "macOS", "ARM64", "perfgate_1.2.3_darwin_arm64.tar.gz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rel := newRelease(t, "v1.2.3", fakeBinary)
			url := rel.serve(t)
			rn := newRunner(t, tt.os, tt.arch)

			res := rn.install(t, url, "v1.2.3")
			if res.err != nil {
				t.Fatalf("install.sh: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
			}
			wantBin := filepath.Join(rn.toolCache, "perfgate", "1.2.3", strings.ToLower(tt.arch), "perfgate")
			if got := res.outputs["bin"]; got != wantBin {
				t.Errorf("output bin = %q, want %q", got, wantBin)
			}
			platform := strings.TrimSuffix(strings.TrimPrefix(tt.wantArchive, "perfgate_1.2.3_"), ".tar.gz")
			if want := "perfgate v1.2.3 (fake " + platform + ")"; !strings.Contains(res.stdout, want) {
				t.Errorf("stdout lacks the binary's version line %q:\n%s", want, res.stdout)
			}
			if !strings.Contains(res.stdout, "verified sha256") {
				t.Errorf("stdout does not say the checksum was verified:\n%s", res.stdout)
			}
			if n := rel.hitCount(tt.wantArchive); n != 1 {
				t.Errorf("%s downloaded %d times, want 1", tt.wantArchive, n)
			}

			// A second job on the same runner uses the tool cache.
			res = rn.install(t, url, "v1.2.3")
			if res.err != nil {
				t.Fatalf("install.sh again: %v\n%s", res.err, res.stderr)
			}
			if !strings.Contains(res.stdout, "from the tool cache") || rel.hitCount(tt.wantArchive) != 1 {
				t.Errorf("second install downloaded again (%d GETs), stdout:\n%s", rel.hitCount(tt.wantArchive), res.stdout)
			}

			// A cached binary that no longer matches its recorded hash is replaced.
			if err := os.WriteFile(wantBin, []byte("#!/bin/sh\necho tampered\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			res = rn.install(t, url, "1.2.3") // without the v, as users sometimes write it
			if res.err != nil {
				t.Fatalf("install.sh over a changed cache: %v\n%s", res.err, res.stderr)
			}
			if strings.Contains(res.stdout, "tampered") || rel.hitCount(tt.wantArchive) != 2 {
				t.Errorf("a changed cached binary was used (%d GETs), stdout:\n%s", rel.hitCount(tt.wantArchive), res.stdout)
			}
		})
	}
}

func TestInstallFailures(t *testing.T) {
	tests := []struct {
		name     string
		os, arch string
		version  string
		tamper   func(r *release)
		wantErr  []string // every one must be in stderr
	}{
		{
			name: "checksum mismatch", os: "Linux", arch: "X64", version: "v1.2.3",
			// One byte changed on the way: the archive no longer hashes to checksums.txt.
			tamper: func(r *release) {
				a := r.files["perfgate_1.2.3_linux_amd64.tar.gz"]
				a[len(a)/2] ^= 0xff
			},
			wantErr: []string{"::error", "checksum mismatch for perfgate_1.2.3_linux_amd64.tar.gz",
				"checksums.txt says sha256 ", "the download hashes to ", "it was not installed"},
		},
		{
			name: "truncated download", os: "Linux", arch: "X64", version: "v1.2.3",
			tamper: func(r *release) {
				a := r.files["perfgate_1.2.3_linux_amd64.tar.gz"]
				r.files["perfgate_1.2.3_linux_amd64.tar.gz"] = a[:len(a)-10]
			},
			wantErr: []string{"checksum mismatch for perfgate_1.2.3_linux_amd64.tar.gz"},
		},
		{
			name: "unknown architecture", os: "Linux", arch: "ARM", version: "v1.2.3",
			wantErr: []string{"perfgate v1.2.3 publishes no binary for Linux/ARM (linux/arm)",
				"published: darwin/amd64 darwin/arm64 linux/amd64 linux/arm64", "build-from-source: true"},
		},
		{
			name: "windows", os: "Windows", arch: "X64", version: "v1.2.3",
			wantErr: []string{"publishes no binary for Windows/X64 (windows/amd64)",
				"published: darwin/amd64 darwin/arm64 linux/amd64 linux/arm64"},
		},
		{
			name: "no such release", os: "Linux", arch: "X64", version: "v1.9.9",
			wantErr: []string{"/v1.9.9/checksums.txt: not found (HTTP 404)", "is v1.9.9 a published perfgate release"},
		},
		{
			name: "archive listed but missing", os: "Linux", arch: "X64", version: "v1.2.3",
			tamper:  func(r *release) { delete(r.files, "perfgate_1.2.3_linux_amd64.tar.gz") },
			wantErr: []string{"/v1.2.3/perfgate_1.2.3_linux_amd64.tar.gz: not found (HTTP 404)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rel := newRelease(t, "v1.2.3", fakeBinary)
			if tt.tamper != nil {
				tt.tamper(rel)
			}
			url := rel.serve(t)
			rn := newRunner(t, tt.os, tt.arch)
			res := rn.install(t, url, tt.version)
			if res.err == nil {
				t.Fatalf("install.sh succeeded, want a failure; stdout:\n%s", res.stdout)
			}
			if code := res.err.(*exec.ExitError).ExitCode(); code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(res.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, res.stderr)
				}
			}
			if _, ok := res.outputs["bin"]; ok {
				t.Errorf("a failed install set the output bin=%s", res.outputs["bin"])
			}
			// Nothing half-installed is left for the next job to trust.
			matches, _ := filepath.Glob(filepath.Join(rn.toolCache, "perfgate", "*", "*"))
			if len(matches) > 0 {
				t.Errorf("a failed install left %v in the tool cache", matches)
			}
			leftovers, _ := filepath.Glob(filepath.Join(rn.temp, "perfgate-install.*"))
			if len(leftovers) > 0 {
				t.Errorf("a failed install left %v in RUNNER_TEMP", leftovers)
			}
		})
	}
}

// TestInstallRealBinary publishes a real perfgate, built with the release's
// -ldflags from .goreleaser.yaml, from the fake server, installs it for this machine and checks the
// line it prints: the tag and commit the build stamped.
func TestInstallRealBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfgate")
	}
	platform := runtime.GOOS + "_" + runtime.GOARCH
	found := false
	for _, p := range published {
		found = found || p == platform
	}
	if !found {
		t.Skipf("no release archive is published for %s", platform)
	}
	bin := filepath.Join(t.TempDir(), "perfgate")
	// The release's own flags, from .goreleaser.yaml.
	ldflags := releaseLdflags(t, readGoreleaser(t), "v1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-11-30T12:00:00Z")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "-ldflags", ldflags, "../../cmd/perfgate")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	real, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	rel := newRelease(t, "v1.2.3", func(p string) []byte {
		if p == platform {
			return real
		}
		return fakeBinary(p)
	})
	url := rel.serve(t)
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	osName := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	res := newRunner(t, osName, arch).install(t, url, "v1.2.3")
	if res.err != nil {
		t.Fatalf("install.sh: %v\nstdout:\n%s\nstderr:\n%s", res.err, res.stdout, res.stderr)
	}
	if want := "perfgate v1.2.3 (commit 0123456789ab, 2026-11-30T12:00:00Z, "; !strings.Contains(res.stdout, want) {
		t.Errorf("installed perfgate's version line lacks %q; stdout:\n%s", want, res.stdout)
	}
}
