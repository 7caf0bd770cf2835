package main

import (
	"bytes"
	"context"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolveVersion(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  buildVersion
	}{
		{
			name:    "release build: stamped values win over build info",
			version: "v1.2.3", commit: "0123456789abcdef0123456789abcdef01234567", date: "2026-11-30T12:00:00Z",
			bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
				Settings: settings("vcs.revision", "ffffffffffffffffffffffffffffffffffffffff", "vcs.modified", "true",
					"CGO_ENABLED", "1", "GOOS", "linux", "GOARCH", "arm64")},
			want: buildVersion{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567",
				Date: "2026-11-30T12:00:00Z", Go: "go1.26.8", OS: "linux", Arch: "arm64", CGO: true},
		},
		{
			name:    "go build in a checkout: the VCS revision, dirty",
			version: devVersion,
			bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"},
				Settings: settings("vcs.revision", "abcdefabcdefabcdefabcdefabcdefabcdefabcd", "vcs.time", "2026-11-29T08:00:00Z",
					"vcs.modified", "true", "CGO_ENABLED", "0", "GOOS", "darwin", "GOARCH", "arm64")},
			want: buildVersion{Version: devVersion, Commit: "abcdefabcdefabcdefabcdefabcdefabcdefabcd", Dirty: true,
				Date: "2026-11-29T08:00:00Z", Go: "go1.26.8", OS: "darwin", Arch: "arm64"},
		},
		{
			// go install records the module version but no VCS settings.
			name:    "go install module@version: the module version",
			version: devVersion,
			bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"},
				Settings: settings("CGO_ENABLED", "1", "GOOS", "linux", "GOARCH", "amd64")},
			want: buildVersion{Version: "v1.4.0", Go: "go1.26.8", OS: "linux", Arch: "amd64", CGO: true},
		},
		{
			// GoReleaser stamps these when git could not be read.
			name:    "GoReleaser without git: none and the zero time are unknown",
			version: "v0.0.1-snapshot", commit: "none", date: "0001-01-01T00:00:00Z",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			want: buildVersion{Version: "v0.0.1-snapshot", Go: "go1.26.8", OS: runtime.GOOS, Arch: runtime.GOARCH},
		},
		{
			name:    "no build info: the stamped values and the runtime's platform",
			version: devVersion,
			want:    buildVersion{Version: devVersion, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolveVersion(tt.version, tt.commit, tt.date, tt.bi)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("resolveVersion(...) (-want +got):\n%s", d)
			}
		})
	}
}

func TestBuildVersionString(t *testing.T) {
	tests := []struct {
		name string
		v    buildVersion
		want string
	}{
		{"release", buildVersion{Version: "v1.2.3", Commit: "0123456789abcdef0123", Date: "2026-11-30T12:00:00Z",
			Go: "go1.26.8", OS: "linux", Arch: "amd64", CGO: true},
			"perfgate v1.2.3 (commit 0123456789ab, 2026-11-30T12:00:00Z, go1.26.8 linux/amd64, cgo)"},
		{"darwin without cgo", buildVersion{Version: "v1.2.3", Commit: "0123456789abcdef0123",
			Go: "go1.26.8", OS: "darwin", Arch: "arm64"},
			"perfgate v1.2.3 (commit 0123456789ab, go1.26.8 darwin/arm64, no cgo (no NVML telemetry))"},
		{"unknown commit, dirty", buildVersion{Version: devVersion, Dirty: true, Go: "go1.26.8", OS: "linux", Arch: "amd64", CGO: true},
			"perfgate " + devVersion + " (commit unknown+dirty, go1.26.8 linux/amd64, cgo)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.v.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVersionCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	e := &env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errOut}
	if err := run(context.Background(), []string{"version"}, e); err != nil {
		t.Fatalf("perfgate version: %v", err)
	}
	if !strings.HasPrefix(out.String(), "perfgate "+version+" (commit ") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("perfgate version printed %q, want one line starting %q", out.String(), "perfgate "+version+" (commit ")
	}
	err := run(context.Background(), []string{"version", "extra"}, e)
	if got := exitCode(err, &errOut); got != exitUsage {
		t.Errorf("perfgate version extra: exit %d, want %d", got, exitUsage)
	}
}

// A binary built with the release's -ldflags (.goreleaser.yaml) is checked
// end to end by action.TestInstallRealBinary.
