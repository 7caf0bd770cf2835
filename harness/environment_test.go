package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/perfgate/perfgate/result"
)

func TestEnvironment(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc and /etc/os-release")
	}
	gpus := []result.GPU{{Name: "NVIDIA H200", Driver: "570.1", MemoryMiB: 143771}}
	env := Environment(t.Context(), "v1.2.3", func() []result.GPU { return gpus })

	kernel, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Fatal(err)
	}
	wantOS := runtime.GOOS + "/" + runtime.GOARCH + " " + strings.TrimSpace(string(kernel))
	if !strings.HasPrefix(env.OS, wantOS) {
		t.Errorf("OS = %q, want it to start with %q", env.OS, wantOS)
	}
	if env.Host == "" || env.CPU == "" {
		t.Errorf("Host = %q, CPU = %q, want both set", env.Host, env.CPU)
	}
	want := result.Environment{
		Host: env.Host, OS: env.OS, CPU: env.CPU, // checked above
		Cores: runtime.NumCPU(), GPUs: gpus, Perfgate: "v1.2.3", Go: runtime.Version(),
	}
	if d := cmp.Diff(want, env); d != "" {
		t.Errorf("Environment (-want +got):\n%s", d)
	}
	if got := Environment(t.Context(), "v1.2.3", nil).GPUs; got != nil {
		t.Errorf("Environment with no GPU callback: GPUs = %v, want none", got)
	}
}

func TestCPUModel(t *testing.T) {
	tests := []struct {
		name, cpuinfo, want string
	}{
		{
			name:    "x86",
			cpuinfo: "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC  9654 96-Core Processor\n\nprocessor\t: 1\nmodel name\t: AMD EPYC 9654 96-Core Processor\n",
			want:    "AMD EPYC 9654 96-Core Processor",
		},
		// arm64 kernels name no model: the implementer and part identify it.
		{
			name:    "arm64",
			cpuinfo: "processor\t: 0\nBogoMIPS\t: 243.75\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd40\n",
			want:    "CPU implementer 0x41 part 0xd40",
		},
		{name: "old arm", cpuinfo: "Processor\t: ARMv7 Processor rev 4 (v7l)\nHardware\t: BCM2835\n", want: "BCM2835"},
		{name: "empty model name", cpuinfo: "model name\t:\n", want: ""},
		{name: "nothing", cpuinfo: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cpuModel(tt.cpuinfo); got != tt.want {
				t.Errorf("cpuModel(%q) = %q, want %q", tt.cpuinfo, got, tt.want)
			}
		})
	}
}

func TestOSDescription(t *testing.T) {
	base := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name, kernel, osRelease, want string
	}{
		{
			name:      "debian",
			kernel:    "6.1.0-18-amd64\n",
			osRelease: "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n",
			want:      base + " 6.1.0-18-amd64 (Debian GNU/Linux 12 (bookworm))",
		},
		{name: "unquoted and commented", kernel: "6.8.0", osRelease: "# comment\nPRETTY_NAME=Alpine\n", want: base + " 6.8.0 (Alpine)"},
		{name: "single quotes", kernel: "6.8.0", osRelease: "PRETTY_NAME='Arch Linux'\n", want: base + " 6.8.0 (Arch Linux)"},
		{name: "name without pretty name", kernel: "6.8.0", osRelease: "NAME=Fedora\n", want: base + " 6.8.0 (Fedora)"},
		// Not Linux, or a minimal container: only what Go knows.
		{name: "nothing to read", want: base},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := osDescription(tt.kernel, tt.osRelease); got != tt.want {
				t.Errorf("osDescription(%q, %q) = %q, want %q", tt.kernel, tt.osRelease, got, tt.want)
			}
		})
	}
}

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

func TestGitInfo(t *testing.T) {
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
			got := GitInfo(t.Context(), tt.dir, func(k string) string { return tt.env[k] })
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("GitInfo(%q) (-want +got):\n%s", tt.dir, d)
			}
		})
	}
	if got := GitInfo(t.Context(), outside, nil); got != nil {
		t.Errorf("GitInfo(%q, nil getenv) = %+v, want nil", outside, got)
	}
}
