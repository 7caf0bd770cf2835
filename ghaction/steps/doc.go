// Package steps holds the shell steps of the perfgate GitHub Action
// (action.yml at the repository root) and their tests; it has no Go API.
//
// The action gets its perfgate binary one of two ways:
//
//   - resolve.sh decides: a release ref (v1, v1.2.3) or the input
//     perfgate-version means the release binary; a branch, a commit, a
//     local action (uses: ./) or build-from-source: true means building
//     from the action's own source with Go, as before.
//   - install.sh fetches the archive for runner.os/runner.arch
//     (perfgate_X.Y.Z_GOOS_GOARCH.tar.gz, the names .goreleaser.yaml gives
//     them), verifies its SHA-256 against the checksums pinned in the
//     action's tree (checksums/vX.Y.Z.txt; a release without a pin: its own
//     checksums.txt, with a warning), and runs `perfgate version`.
//
// pin-release.sh is the release workflow's half: it writes that pin into
// the commit after the tagged one and moves the release tag (and v1) there.
//
// Both are POSIX sh, because the point of the release path is to need no Go
// toolchain on the runner. The tests run them with /bin/sh against a
// release server on 127.0.0.1 that serves real archives.
package steps
