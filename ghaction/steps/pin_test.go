package steps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evilBinary is what a tampered mirror serves instead.
func evilBinary(string) []byte { return []byte("#!/bin/sh\necho \"perfgate v1.2.3 (EVIL)\"\n") }

// installPinned runs install.sh with the pins in pins.
func (rn runner) installPinned(t *testing.T, url, version, pins string) result {
	t.Helper()
	return runScript(t, "install.sh", map[string]string{
		"PERFGATE_VERSION":      version,
		"PERFGATE_REPOSITORY":   "perfgate/perfgate",
		"PERFGATE_RELEASES_URL": url,
		"PERFGATE_PINS_DIR":     pins,
		"RUNNER_OS":             rn.os,
		"RUNNER_ARCH":           rn.arch,
		"RUNNER_TOOL_CACHE":     rn.toolCache,
		"RUNNER_TEMP":           rn.temp,
	})
}

// pinsOf writes rel's checksums.txt as the action's pin for its tag.
func pinsOf(t *testing.T, rel *release) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, rel.tag+".txt"), rel.files["checksums.txt"], 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// With checksums pinned in the action's tree, a mirror that serves
// another binary with matching checksums.txt is refused (issue 28: it was
// installed "verified"), and a tool cache poisoned by an earlier job is
// never run: every use hashes the cached archive against the pin.
func TestInstallPinned(t *testing.T) {
	genuine := newRelease(t, "v1.2.3", fakeBinary)
	pins := pinsOf(t, genuine)
	evil := newRelease(t, "v1.2.3", evilBinary) // its own, consistent checksums.txt

	t.Run("tampered mirror, nothing pinned: installed, with a warning", func(t *testing.T) {
		rn := newRunner(t, "Linux", "X64")
		res := rn.installPinned(t, evil.serve(t), "v1.2.3", t.TempDir())
		if res.err != nil || !strings.Contains(res.stdout, "EVIL") {
			t.Fatalf("install.sh = %v, stdout %s; want the unanchored path to install what the mirror serves", res.err, res.stdout)
		}
		if !strings.Contains(res.stderr, "no checksums for perfgate v1.2.3 are pinned") {
			t.Errorf("stderr lacks the warning that nothing anchors the download:\n%s", res.stderr)
		}
	})
	t.Run("tampered mirror, pinned: refused", func(t *testing.T) {
		rn := newRunner(t, "Linux", "X64")
		evil := newRelease(t, "v1.2.3", evilBinary) // hits counted afresh
		res := rn.installPinned(t, evil.serve(t), "v1.2.3", pins)
		if res.err == nil || strings.Contains(res.stdout, "EVIL") {
			t.Fatalf("install.sh = %v, stdout %s; want a refusal", res.err, res.stdout)
		}
		if !strings.Contains(res.stderr, "checksum mismatch for perfgate_1.2.3_linux_amd64.tar.gz: the checksums pinned in the action") {
			t.Errorf("stderr lacks the pinned mismatch:\n%s", res.stderr)
		}
		if n := evil.hitCount("checksums.txt"); n != 0 {
			t.Errorf("the mirror's checksums.txt was fetched %d times, want never (the pin is the anchor)", n)
		}
	})
	t.Run("genuine, cached, then the cache poisoned", func(t *testing.T) {
		rn := newRunner(t, "Linux", "X64")
		url := genuine.serve(t)
		const archive = "perfgate_1.2.3_linux_amd64.tar.gz"
		for i, want := range []string{"verified sha256", "from the tool cache"} {
			res := rn.installPinned(t, url, "v1.2.3", pins)
			if res.err != nil || !strings.Contains(res.stdout, want) || !strings.Contains(res.stdout, "fake linux_amd64") {
				t.Fatalf("install %d = %v; want %q and the genuine binary:\n%s%s", i+1, res.err, want, res.stdout, res.stderr)
			}
			if bin := res.outputs["bin"]; !strings.HasPrefix(bin, rn.temp) {
				t.Errorf("bin = %s, want it unpacked into RUNNER_TEMP %s, not run from the cache", bin, rn.temp)
			}
		}
		if n := genuine.hitCount(archive); n != 1 {
			t.Errorf("archive downloaded %d times over two installs, want 1", n)
		}
		// An earlier job on a self-hosted runner rewrites the cache: the
		// archive, and a binary with a matching marker beside it.
		cached := filepath.Join(rn.toolCache, "perfgate", "1.2.3", "x64.archive", archive)
		if err := os.WriteFile(cached, evil.files[archive], 0o644); err != nil {
			t.Fatal(err)
		}
		res := rn.installPinned(t, url, "v1.2.3", pins)
		if res.err != nil || strings.Contains(res.stdout, "EVIL") || !strings.Contains(res.stdout, "does not match the pinned checksum") {
			t.Fatalf("install over a poisoned cache = %v:\n%s%s", res.err, res.stdout, res.stderr)
		}
		if n := genuine.hitCount(archive); n != 2 {
			t.Errorf("archive downloaded %d times, want 2 (again after the poisoning)", n)
		}
	})
}
