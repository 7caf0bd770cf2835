package harness

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/perfgate/perfgate/result"
)

// gitTimeout bounds each git command GitInfo runs.
const gitTimeout = 2 * time.Second

// Environment fingerprints the machine a run happens on: host name, OS
// ("linux/amd64 6.1.0-18-amd64 (Debian GNU/Linux 12 (bookworm))": GOOS/GOARCH,
// kernel release, distribution), CPU model, logical cores, the Go version
// perfgate was built with, perfgate's version, and the GPUs gpus reports
// (none when gpus is nil). Fields that cannot be read are left empty. ctx is
// for probes that may block; the ones here only read local files.
func Environment(ctx context.Context, version string, gpus func() []result.GPU) result.Environment {
	host, _ := os.Hostname()
	env := result.Environment{
		Host:     host,
		OS:       osDescription(readFile("/proc/sys/kernel/osrelease"), readFile("/etc/os-release")),
		CPU:      cpuModel(readFile("/proc/cpuinfo")),
		Cores:    runtime.NumCPU(),
		Perfgate: version,
		Go:       runtime.Version(),
	}
	if gpus != nil {
		env.GPUs = gpus()
	}
	return env
}

// readFile returns a file's text, or "" when it cannot be read.
func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

// osDescription joins GOOS/GOARCH, the kernel release (the text of
// /proc/sys/kernel/osrelease) and the distribution's PRETTY_NAME (from the
// text of /etc/os-release), leaving out what is empty.
func osDescription(kernel, osRelease string) string {
	s := runtime.GOOS + "/" + runtime.GOARCH
	if k := strings.TrimSpace(kernel); k != "" {
		s += " " + k
	}
	if d := prettyName(osRelease); d != "" {
		s += " (" + d + ")"
	}
	return s
}

// prettyName returns PRETTY_NAME from os-release text, unquoted, or NAME
// when PRETTY_NAME is missing.
func prettyName(osRelease string) string {
	vars := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(osRelease))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		vars[k] = strings.ReplaceAll(v, `\"`, `"`)
	}
	if v := vars["PRETTY_NAME"]; v != "" {
		return v
	}
	return vars["NAME"]
}

// cpuModel returns the CPU model from /proc/cpuinfo text: the first "model
// name" (x86), else "Hardware" or "Processor" (older ARM kernels), else the
// implementer and part numbers that arm64 kernels give, with runs of spaces
// squeezed. It returns "" when none is there.
func cpuModel(cpuinfo string) string {
	fields := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.Join(strings.Fields(v), " ")
		if _, seen := fields[k]; !seen && v != "" {
			fields[k] = v
		}
	}
	for _, k := range []string{"model name", "Hardware", "Processor", "cpu model", "cpu"} {
		if v := fields[k]; v != "" {
			return v
		}
	}
	if impl, part := fields["CPU implementer"], fields["CPU part"]; impl != "" && part != "" {
		return "CPU implementer " + impl + " part " + part
	}
	return ""
}

// GitInfo identifies the commit a run measured: the sha of HEAD and the
// branch checked out in dir, from git itself (each command bounded by 2 s).
// git is preferred to the GITHUB_* variables because on a pull request
// GITHUB_SHA is the merge commit GitHub made, which may not be what was
// checked out and built. When HEAD is detached (as in most CI checkouts) the
// ref comes from GITHUB_HEAD_REF, GITHUB_REF_NAME or GITHUB_REF, in that
// order. When git cannot answer (not installed, or the checkout has no .git)
// the sha comes from GITHUB_SHA. GitInfo returns nil when dir is not in a
// repository and GITHUB_SHA is not set. getenv may be nil.
func GitInfo(ctx context.Context, dir string, getenv func(string) string) *result.Git {
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
