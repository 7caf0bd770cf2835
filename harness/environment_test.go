package harness

import (
	"os"
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
