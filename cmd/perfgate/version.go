package main

import (
	"errors"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// commit and date are stamped by the release build (.goreleaser.yaml):
//
//	-ldflags "-X main.version=v1.2.3 -X main.commit=<sha> -X main.date=<RFC 3339>"
//
// A build without them falls back to what the Go toolchain recorded in the
// binary (runtime/debug.BuildInfo): the module version of `go install
// github.com/perfgate/perfgate/cmd/perfgate@v1.2.3`, and the VCS revision of
// a build inside a git checkout.
var (
	commit = ""
	date   = ""
)

// devVersion is version's value when nothing stamped it.
const devVersion = "v0.1.0-dev"

// buildVersion is what `perfgate version` prints.
type buildVersion struct {
	Version string // the release tag (v1.2.3), or a dev or module version
	Commit  string // full commit hash; "" when unknown
	Dirty   bool   // built from a work tree with uncommitted changes
	Date    string // commit or build time, RFC 3339; "" when unknown
	Go      string // the Go toolchain, e.g. go1.26.8
	OS      string
	Arch    string
	CGO     bool // false means no NVML telemetry (the darwin build)
}

// String is the one line `perfgate version` prints, for example
//
//	perfgate v1.2.3 (commit 0123456789ab, 2026-11-30T12:00:00Z, go1.26.8 linux/amd64, cgo)
func (v buildVersion) String() string {
	c := v.Commit
	if c == "" {
		c = "unknown"
	} else if len(c) > 12 {
		c = c[:12]
	}
	if v.Dirty {
		c += "+dirty"
	}
	parts := []string{"commit " + c}
	if v.Date != "" {
		parts = append(parts, v.Date)
	}
	platform := v.Go + " " + v.OS + "/" + v.Arch
	if v.CGO {
		platform += ", cgo"
	} else {
		platform += ", no cgo (no NVML telemetry)"
	}
	parts = append(parts, platform)
	return fmt.Sprintf("perfgate %s (%s)", v.Version, strings.Join(parts, ", "))
}

// resolveVersion combines the ldflags-stamped values with the toolchain's
// build info (bi may be nil): stamped values win; build info fills the gaps.
func resolveVersion(stampedVersion, stampedCommit, stampedDate string, bi *debug.BuildInfo) buildVersion {
	// GoReleaser stamps "none" and the zero time when it could not read git.
	if stampedCommit == "none" {
		stampedCommit = ""
	}
	if strings.HasPrefix(stampedDate, "0001-01-01") {
		stampedDate = ""
	}
	v := buildVersion{Version: stampedVersion, Commit: stampedCommit, Date: stampedDate,
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi == nil {
		return v
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	// `go install module@v1.2.3` records the module version; a build in a
	// checkout records "(devel)", which says nothing.
	if (v.Version == "" || v.Version == devVersion) && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	if v.Version == "" {
		v.Version = devVersion
	}
	var revision, vcsTime string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.time":
			vcsTime = s.Value
		case "vcs.modified":
			// Only trust the flag when the revision is the toolchain's too.
			if stampedCommit == "" {
				v.Dirty = s.Value == "true"
			}
		case "CGO_ENABLED":
			v.CGO = s.Value == "1"
		case "GOOS":
			v.OS = s.Value
		case "GOARCH":
			v.Arch = s.Value
		}
	}
	if v.Commit == "" {
		v.Commit = revision
	}
	if v.Date == "" {
		v.Date = vcsTime
	}
	return v
}

// cmdVersion prints the version, the commit and the build platform.
func cmdVersion(e *env, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { fmt.Fprint(e.stderr, commandUsage("version")) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageErr("version: %v", err)
	}
	if fs.NArg() > 0 {
		return usageErr("version takes no arguments, got %q", fs.Args())
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(e.stdout, resolveVersion(version, commit, date, bi))
	return nil
}
