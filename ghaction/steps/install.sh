#!/bin/sh
# install.sh downloads a perfgate release binary for this runner into the
# tool cache, verifies its SHA-256 against the release's checksums.txt, and
# checks that it runs. Nothing secret is needed: release assets are public.
#
# Environment:
#   PERFGATE_VERSION       the release tag, vX.Y.Z (required)
#   PERFGATE_REPOSITORY    owner/name (default perfgate/perfgate)
#   PERFGATE_RELEASES_URL  where releases are downloaded from: a mirror, or
#                          a local server in tests (default
#                          $GITHUB_SERVER_URL/OWNER/NAME/releases/download);
#                          files are fetched from URL/TAG/FILE
#   RUNNER_OS, RUNNER_ARCH the runner's (Linux, macOS; X64, ARM64)
#   RUNNER_TOOL_CACHE      the tool cache (default $RUNNER_TEMP/toolcache)
#   RUNNER_TEMP            scratch space (default /tmp)
#   GITHUB_OUTPUT          where bin=PATH goes (default: stdout)
#   PERFGATE_PINS_DIR      the pinned checksums (default: checksums/ beside
#                          this script, in the action's own tree)
#
# The trust anchor: ghaction/steps/checksums/vX.Y.Z.txt in the action's tree at the
# commit `uses:` names holds the release's checksums, so a mirror or a
# tampered release cannot swap the binary: the downloaded checksums.txt is
# then not used at all. With a pin, the tool cache keeps the archive, and
# every use hashes it against the pin and unpacks the binary into this
# job's RUNNER_TEMP: nothing an earlier job left in the cache is trusted.
# A release without a pin (older than the pins) is checked against its own
# checksums.txt as before, with a warning that nothing anchors it.
#
# The cache follows actions/tool-cache's layout:
# $RUNNER_TOOL_CACHE/perfgate/X.Y.Z/ARCH/perfgate, with ARCH.complete
# beside it holding the binary's SHA-256, written last. A cached binary is
# used again only while it still hashes to that.
#
# Exit 1 when the download fails, the checksum does not match, or no binary
# is published for this runner; each says what to do next.
set -eu

fail() {
	printf '::error title=perfgate install::%s\n' "$(printf '%s' "$*" | tr '\r\n' '  ')" >&2
	exit 1
}

tag="${PERFGATE_VERSION:-}"
[ -n "$tag" ] || fail "PERFGATE_VERSION is empty: set the release tag to install, such as v1.2.3"
case "$tag" in v*) ;; *) tag="v$tag" ;; esac
case "$tag" in *[!0-9A-Za-z.+-]*) fail "PERFGATE_VERSION is \"$tag\": want a release tag such as v1.2.3" ;; esac
version="${tag#v}"
repo="${PERFGATE_REPOSITORY:-perfgate/perfgate}"
base="${PERFGATE_RELEASES_URL:-${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download}"
base="${base%/}"
out="${GITHUB_OUTPUT:-/dev/stdout}"
runner_os="${RUNNER_OS:-$(uname -s)}"
runner_arch="${RUNNER_ARCH:-$(uname -m)}"
temp="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
cache="${RUNNER_TOOL_CACHE:-$temp/toolcache}"

# The runner's names → Go's, as the release archives are named.
case "$runner_os" in
Linux | linux) goos=linux ;;
macOS | Darwin | darwin) goos=darwin ;;
Windows | windows) goos=windows ;;
*) goos=$(printf '%s' "$runner_os" | tr '[:upper:]' '[:lower:]') ;;
esac
case "$runner_arch" in
X64 | x64 | x86_64 | amd64) goarch=amd64 ;;
ARM64 | arm64 | aarch64) goarch=arm64 ;;
X86 | x86 | i386 | i686) goarch=386 ;;
ARM | arm | armv7l) goarch=arm ;;
*) goarch=$(printf '%s' "$runner_arch" | tr '[:upper:]' '[:lower:]') ;;
esac
arch_dir=$(printf '%s' "$runner_arch" | tr '[:upper:]' '[:lower:]')

if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
	fail "neither sha256sum nor shasum is on PATH: install coreutils, or set build-from-source: true"
fi

# fetch URL FILE: download, or fail naming the URL and the HTTP status.
fetch() {
	if command -v curl >/dev/null 2>&1; then
		code=$(curl -sSL --retry 3 --retry-delay 2 --connect-timeout 20 --max-time 300 \
			-o "$2" -w '%{http_code}' "$1") || code="${code:-000}"
	elif command -v wget >/dev/null 2>&1; then
		if wget -q -T 60 -t 3 -O "$2" "$1"; then code=200; else code="an error"; fi
	else
		fail "neither curl nor wget is on PATH: install one, or set build-from-source: true"
	fi
	case "$code" in
	200) ;;
	404) fail "$1: not found (HTTP 404): is $tag a published perfgate release of $repo? Check the input perfgate-version, or wait until the release workflow has published it" ;;
	*) fail "$1: download failed (HTTP $code): check the runner can reach $base (a mirror can be set with the input release-url), or set build-from-source: true" ;;
	esac
}

pins="${PERFGATE_PINS_DIR:-$(dirname "$0")/checksums}"
pin="$pins/$tag.txt"
archive="perfgate_${version}_${goos}_${goarch}.tar.gz"

# pinned_sum: the pinned sha256 of this runner's archive, or fail.
pinned_sum() {
	want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$pin")
	if [ -z "$want" ]; then
		published=$(sed -n "s/^[0-9a-fA-F]*[ *]*perfgate_${version}_\([a-z0-9]*\)_\([a-z0-9]*\)\.tar\.gz\$/\1\/\2/p" "$pin" | sort | tr '\n' ' ' | sed 's/ $//')
		fail "perfgate $tag publishes no binary for $runner_os/$runner_arch ($goos/$goarch); published: ${published:-none}. Run on one of those, or set build-from-source: true to build it with Go"
	fi
	printf '%s' "$want" | tr '[:upper:]' '[:lower:]'
}

if [ -f "$pin" ]; then
	# The anchored path: the archive is hashed against the pin on every use.
	want=$(pinned_sum)
	adir="$cache/perfgate/$version/$arch_dir.archive"
	cached="$adir/$archive"
	if [ -f "$cached" ] && [ "$(sha256 "$cached")" = "$want" ]; then
		echo "perfgate $tag for $goos/$goarch: from the tool cache ($cached), sha256 $want matches the checksums pinned in the action ($pin)"
	else
		[ -f "$cached" ] && echo "perfgate $tag in the tool cache does not match the pinned checksum: downloading it again"
		work=$(mktemp -d "$temp/perfgate-install.XXXXXX")
		trap 'rm -rf "$work"' EXIT
		echo "perfgate $tag for $goos/$goarch: downloading from $base/$tag/"
		fetch "$base/$tag/$archive" "$work/$archive"
		got=$(sha256 "$work/$archive")
		if [ "$got" != "$want" ]; then
			fail "checksum mismatch for $archive: the checksums pinned in the action ($pin) say sha256 $want, the download hashes to $got. The file is not the released one (a tampered mirror, or damage on the way): it was not installed. Re-run the job; if it happens again, report it at https://github.com/$repo/issues"
		fi
		echo "verified sha256 $got of $archive against the checksums pinned in the action"
		mkdir -p "$adir"
		cp "$work/$archive" "$cached.tmp.$$" && mv "$cached.tmp.$$" "$cached"
	fi
	# Unpack into this job's own temp: what runs is what was just hashed.
	jobdir=$(mktemp -d "$temp/perfgate-bin.XXXXXX")
	cp "$cached" "$jobdir/$archive"
	[ "$(sha256 "$jobdir/$archive")" = "$want" ] || fail "$cached changed while it was copied: re-run the job"
	tar -xzf "$jobdir/$archive" -C "$jobdir" perfgate ||
		fail "$archive holds no perfgate binary: report it at https://github.com/$repo/issues"
	rm -f "$jobdir/$archive"
	chmod 0755 "$jobdir/perfgate"
	bin="$jobdir/perfgate"
	"$bin" version || fail "$bin does not run on this runner ($runner_os/$runner_arch): set build-from-source: true to build it with Go"
	echo "bin=$bin" >>"$out"
	exit 0
fi

printf '::warning title=perfgate install::%s\n' "no checksums for perfgate $tag are pinned in the action ($pin): the download is checked only against the release's own checksums.txt, from the same place as the binary" >&2
case "$base" in
http://*) printf '::warning title=perfgate install::%s\n' "release-url $base is plain http and nothing is pinned: anyone on the path can replace the binary and its checksums" >&2 ;;
esac

dir="$cache/perfgate/$version/$arch_dir"
marker="$dir.complete"
bin="$dir/perfgate"

installed=""
if [ -f "$marker" ] && [ -x "$bin" ]; then
	if [ "$(sha256 "$bin")" = "$(cat "$marker")" ]; then
		installed=cache
		echo "perfgate $tag for $goos/$goarch: from the tool cache ($dir)"
	else
		echo "perfgate $tag in the tool cache does not match its recorded hash: downloading it again"
	fi
fi

if [ -z "$installed" ]; then
	work=$(mktemp -d "$temp/perfgate-install.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	echo "perfgate $tag for $goos/$goarch: downloading from $base/$tag/"
	fetch "$base/$tag/checksums.txt" "$work/checksums.txt"

	want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$work/checksums.txt")
	if [ -z "$want" ]; then
		published=$(sed -n "s/^[0-9a-fA-F]*[ *]*perfgate_${version}_\([a-z0-9]*\)_\([a-z0-9]*\)\.tar\.gz\$/\1\/\2/p" "$work/checksums.txt" | sort | tr '\n' ' ' | sed 's/ $//')
		fail "perfgate $tag publishes no binary for $runner_os/$runner_arch ($goos/$goarch); published: ${published:-none}. Run on one of those, or set build-from-source: true to build it with Go"
	fi

	fetch "$base/$tag/$archive" "$work/$archive"
	got=$(sha256 "$work/$archive")
	if [ "$got" != "$(printf '%s' "$want" | tr '[:upper:]' '[:lower:]')" ]; then
		fail "checksum mismatch for $archive: checksums.txt says sha256 $want, the download hashes to $got. The file was altered or truncated on the way: it was not installed. Re-run the job; if it happens again, report it at https://github.com/$repo/issues"
	fi
	echo "verified sha256 $got of $archive against checksums.txt"

	mkdir -p "$work/x"
	tar -xzf "$work/$archive" -C "$work/x" perfgate ||
		fail "$archive holds no perfgate binary: report it at https://github.com/$repo/issues"
	chmod 0755 "$work/x/perfgate"

	# Into the cache; the marker is written last, so a half-copied directory
	# (RUNNER_TEMP and the tool cache may be on different file systems) is
	# never trusted.
	mkdir -p "$cache/perfgate/$version"
	rm -rf "$dir" "$marker"
	mv "$work/x" "$dir"
	sha256 "$bin" >"$marker"
fi

# The first perfgate line of the job, and proof the binary runs here.
if ! "$bin" version; then
	rm -f "$marker"
	fail "$bin does not run on this runner ($runner_os/$runner_arch): set build-from-source: true to build it with Go"
fi
echo "bin=$bin" >>"$out"
