#!/bin/sh
# resolve.sh decides how the perfgate action gets its binary: download a
# release (fast, no Go toolchain) or build from the action's source.
#
#   release  the action ref is a release tag (v1, v1.4, v1.2.3) or the input
#            perfgate-version pins one; the version is the tag itself, or,
#            for a moving major or minor tag, the newest release heading of
#            the CHANGELOG.md in the action's own tree (the release workflow
#            refuses a tag that does not match it, so the tree a moving tag
#            points at always names its own release)
#   source   a branch or commit ref, a local action (uses: ./), or the
#            input build-from-source: true
#
# Environment (the action maps these; all optional but ACTION_PATH):
#   INPUT_BUILD_FROM_SOURCE  "true" or "false" (default false)
#   INPUT_PERFGATE_VERSION   a release to pin, vX.Y.Z (default: the action's)
#   INPUT_ALLOW_NEWER_VERSION "true" lets perfgate-version name a release
#                            newer than the action's tree (default false)
#   ACTION_REF               github.action_ref (v1, v1.2.3, main, a sha)
#   ACTION_REPOSITORY        github.action_repository (owner/name)
#   ACTION_PATH              github.action_path, the action's source tree
#   GITHUB_OUTPUT            where the outputs go (default: stdout)
#
# Outputs: method=release|source, version=vX.Y.Z (release only),
# repository=owner/name. Exit 2 on a bad input, with a message naming it.
set -eu

die() {
	# One line: an input's newline must not start a workflow command.
	printf '::error title=perfgate action::%s\n' "$(printf '%s' "$*" | tr '\r\n' '  ')" >&2
	exit 2
}

out="${GITHUB_OUTPUT:-/dev/stdout}"
build_from_source="${INPUT_BUILD_FROM_SOURCE:-false}"
pin="${INPUT_PERFGATE_VERSION:-}"
allow_newer="${INPUT_ALLOW_NEWER_VERSION:-false}"
ref="${ACTION_REF:-}"
repo="${ACTION_REPOSITORY:-}"
path="${ACTION_PATH:-}"
[ -n "$path" ] || die "ACTION_PATH is empty: resolve.sh runs inside the action, with github.action_path"

# github.action_ref and github.action_repository are not promised inside a
# composite action (actions/runner#2473); the runner's checkout layout,
# .../_actions/OWNER/NAME/REF, says the same thing.
case "$path" in
*/_actions/*/*/*)
	if [ -z "$ref" ]; then ref="${path##*/}"; fi
	if [ -z "$repo" ]; then
		rest="${path%/*}"
		name="${rest##*/}"
		rest="${rest%/*}"
		repo="${rest##*/}/$name"
	fi
	;;
esac
[ -n "$repo" ] || repo="perfgate/perfgate"

case "$build_from_source" in
true | false) ;;
*) die "input build-from-source is \"$build_from_source\": want true or false" ;;
esac
case "$allow_newer" in
true | false) ;;
*) die "input allow-newer-version is \"$allow_newer\": want true or false" ;;
esac

semver='^v[0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*(-[0-9A-Za-z.-]+)?$'
nl='
'
# matches VALUE ERE: the whole value, which must be one line (grep alone
# would match any one of its lines).
matches() {
	case "$1" in *"$nl"* | *"$(printf '\r')"*) return 1 ;; esac
	printf '%s\n' "$1" | grep -Eq "$2"
}

emit() { # method version
	{
		echo "method=$1"
		echo "version=$2"
		echo "repository=$repo"
	} >>"$out"
	if [ "$1" = release ]; then
		echo "perfgate action: the $2 release binary from $repo"
	else
		echo "perfgate action: building from the action's source ($repo${ref:+@$ref})"
	fi
}

if [ "$build_from_source" = true ]; then
	emit source ""
	exit 0
fi

# newest_release prints the newest released heading of the action's
# CHANGELOG.md ("## [1.4.2] - 2026-12-01" gives 1.4.2), or nothing.
newest_release() {
	[ -f "$path/CHANGELOG.md" ] || return 0
	sed -n 's/^## \[\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][^]]*\)\].*/\1/p' "$path/CHANGELOG.md" | head -n 1
}

# newer A B: whether release A (X.Y.Z, any -suffix ignored) is newer than B.
newer() {
	a="${1%%-*}"
	b="${2%%-*}"
	a1="${a%%.*}" a2="${a#*.}" b1="${b%%.*}" b2="${b#*.}"
	a3="${a2#*.}" a2="${a2%%.*}" b3="${b2#*.}" b2="${b2%%.*}"
	[ "$a1" -gt "$b1" ] && return 0
	[ "$a1" -lt "$b1" ] && return 1
	[ "$a2" -gt "$b2" ] && return 0
	[ "$a2" -lt "$b2" ] && return 1
	[ "$a3" -gt "$b3" ]
}

if [ -n "$pin" ]; then
	case "$pin" in v*) ;; *) pin="v$pin" ;; esac
	matches "$pin" "$semver" ||
		die "input perfgate-version is \"${INPUT_PERFGATE_VERSION}\": want a release such as v1.2.3"
	# A release newer than the action's tree has no checksums pinned in it
	# (ghaction/steps/checksums/): only the release's own checksums.txt,
	# served beside the binary, would vouch for the download. Refused
	# unless asked for; an older release without a pin (older than the
	# pins) installs with install.sh's warning, as before.
	if [ ! -f "$path/ghaction/steps/checksums/$pin.txt" ] && [ "$allow_newer" != true ]; then
		latest=$(newest_release)
		if [ -z "$latest" ] || newer "${pin#v}" "$latest"; then
			die "input perfgate-version is $pin, newer than the newest release this action's tree knows (${latest:+v}${latest:-none}): no checksums for it are pinned in the action, so nothing it trusts vouches for the download; use the action at that release (uses: $repo@$pin), or set allow-newer-version: true to accept the release's own checksums"
		fi
	fi
	emit release "$pin"
	exit 0
fi

if matches "$ref" "$semver"; then
	emit release "$ref"
	exit 0
fi

if matches "$ref" '^v[0-9]+(\.[0-9]+)?$'; then
	# A moving tag (v1, v1.4): the release it points at is the newest
	# released heading of its own CHANGELOG.md, "## [1.4.2] - 2026-12-01".
	changelog="$path/CHANGELOG.md"
	[ -f "$changelog" ] || die "the action at $ref has no CHANGELOG.md to name its release: pin one with perfgate-version, or set build-from-source: true"
	latest=$(sed -n 's/^## \[\([0-9][0-9]*\.[0-9][0-9]*\.[0-9][^]]*\)\].*/\1/p' "$changelog" | head -n 1)
	[ -n "$latest" ] || die "$changelog names no release (no \"## [X.Y.Z]\" heading): pin one with perfgate-version, or set build-from-source: true"
	case "v$latest" in
	"$ref".*) ;;
	*) die "the action ref $ref points at a tree whose newest release is v$latest: the tag was moved by hand; pin a release with perfgate-version" ;;
	esac
	emit release "v$latest"
	exit 0
fi

emit source ""
