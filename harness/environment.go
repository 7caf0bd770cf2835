package harness

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strings"

	"github.com/perfgate/perfgate/internal/capread"
	"github.com/perfgate/perfgate/result"
)

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
	b, err := capread.ReadFile(path, 64<<10) // a line or a few: /proc/sys/kernel/osrelease, /etc/os-release
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
