#!/bin/sh
# pin-release.sh pins a release's checksums in the action's own tree: the
# trust anchor ghaction/steps/install.sh verifies every download against (see
# ghaction/steps/checksums/README.md and docs/action.md, "What the download
# trusts"). .github/workflows/release.yml runs it after the release is
# published; the tests in pin_release_test.go run it with real git against
# a bare repository.
#
# The binaries embed the commit they were built from (C, the tagged
# commit), so the pin cannot be in C itself. This script:
#
#   1. checks the checksums file: sha256sum lines naming this release's
#      archives; each archive in PIN_DIST hashes to its line; and it is
#      byte-identical to every file in PIN_MATCH (the checksums.txt the
#      release published, a rebuild's);
#   2. checks the remote's tag still points at C (PIN_COMMIT): a tag moved
#      by anyone else since the build is refused, and nothing is pushed;
#   3. creates C' = C + ghaction/steps/checksums/TAG.txt (one commit, parent C, by
#      the bot identity below), without touching the work tree or index;
#      a pin already in C with other content is refused;
#   4. moves TAG, and the major tag (v1) when TAG is the newest final
#      release of its major, to C', in one atomic push that leases both
#      refs at the values read in 2 (git push --force-with-lease=REF:OLD),
#      so a concurrent move fails the push instead of being overwritten;
#   5. gets the pin onto the default branch (PIN_BRANCH), so later releases
#      keep earlier pins: a fast-forward to C' when the branch is still at
#      C, else a commit adding the one file on top of the branch; a plain
#      (never forced) push, retried on rejection after fetching the branch
#      again. A push directly to the branch, not a pull request: the pin
#      must be in the next release's tree, and a pull request left open
#      would silently drop it from there; the file is new, so it cannot
#      conflict with anyone's work.
#
# Run it again after a partial failure: a tag already at a C' holding the
# same pin is taken as done, and the remaining steps continue.
#
# Environment:
#   PIN_TAG        the release tag, vX.Y.Z or vX.Y.Z-pre (required)
#   PIN_COMMIT     the full SHA the binaries were built from (default
#                  GITHUB_SHA)
#   PIN_CHECKSUMS  the release's checksums.txt (required)
#   PIN_DIST       a folder holding the archives: each is hashed (optional)
#   PIN_MATCH      files that must equal PIN_CHECKSUMS byte for byte,
#                  separated by spaces (optional)
#   PIN_CHECKSUMS_SHA256  the SHA-256 PIN_CHECKSUMS must hash to: the
#                  release job's, of the checksums.txt it built (optional)
#   PIN_REMOTE     the remote (default origin)
#   PIN_BRANCH     the default branch (default main; empty: skip step 5)
#   PIN_NAME, PIN_EMAIL  the identity of C' and of a moved annotated tag
#                  (default github-actions[bot])
#
# Exit 1 on any refusal or failure, with an ::error line naming the tag or
# file and what to do next; a refusal before step 4 pushes nothing.
set -eu

fail() {
	printf '::error title=perfgate pin-release::%s\n' "$(printf '%s' "$*" | tr '\r\n' '  ')" >&2
	exit 1
}
notice() { printf '::notice title=perfgate pin-release::%s\n' "$*"; }

tag="${PIN_TAG:-}"
commit="${PIN_COMMIT:-${GITHUB_SHA:-}}"
sums="${PIN_CHECKSUMS:-}"
dist="${PIN_DIST:-}"
match="${PIN_MATCH:-}"
sums_sha256="${PIN_CHECKSUMS_SHA256:-}"
remote="${PIN_REMOTE:-origin}"
branch="${PIN_BRANCH-main}"
name="${PIN_NAME:-github-actions[bot]}"
email="${PIN_EMAIL:-41898282+github-actions[bot]@users.noreply.github.com}"

printf '%s\n' "$tag" | grep -Eqx 'v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?' ||
	fail "PIN_TAG is \"$tag\": want a release tag such as v1.2.3"
printf '%s\n' "$commit" | grep -Eqx '[0-9a-f]{40}' ||
	fail "PIN_COMMIT is \"$commit\": want the full SHA the release was built from (GITHUB_SHA)"
[ -n "$sums" ] || fail "PIN_CHECKSUMS is empty: set it to the release's checksums.txt (dist/checksums.txt)"
[ -f "$sums" ] || fail "PIN_CHECKSUMS $sums: no such file"
version="${tag#v}"
major="${tag%%.*}"
pin="ghaction/steps/checksums/$tag.txt"

if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d' ' -f1; }
else
	sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
fi

# 1. The checksums: install.sh's format, this release's archives, each
# archive in dist, every copy that must agree.
bad=$(grep -Evn "^[0-9a-f]{64}  [A-Za-z0-9._-]+\$" "$sums" | head -n 1) || true
[ -z "$bad" ] || fail "$sums line ${bad%%:*} is \"${bad#*:}\": want \"SHA256  FILE\" (sha256sum format, as GoReleaser writes checksums.txt)"
grep -Eq "  perfgate_${version}_[a-z0-9]+_[a-z0-9]+\.tar\.gz\$" "$sums" ||
	fail "$sums names no archive of $tag (perfgate_${version}_OS_ARCH.tar.gz): is it this release's checksums.txt?"
if [ -n "$dist" ]; then
	while read -r want file; do
		[ -f "$dist/$file" ] || fail "$sums lists $file, which is not in $dist: pin the checksums of what was built"
		got=$(sha256 "$dist/$file")
		[ "$got" = "$want" ] || fail "$dist/$file hashes to $got, but $sums says $want: the file is not what was built; nothing was pinned"
	done <"$sums"
fi
if [ -n "$sums_sha256" ]; then
	got=$(sha256 "$sums")
	[ "$got" = "$sums_sha256" ] || fail "$sums hashes to $got, but the release job built a checksums.txt hashing to $sums_sha256 (PIN_CHECKSUMS_SHA256): the published file is not the one built; nothing was pinned"
fi
for other in $match; do
	cmp -s "$sums" "$other" || fail "$other differs from $sums: the published (or rebuilt) checksums are not the ones built; nothing was pinned. Compare them: diff $sums $other"
done

# 2. The remote's refs, read once: the leases of step 4 are these values.
refs=$(git ls-remote "$remote" 'refs/tags/*' "refs/heads/$branch") ||
	fail "git ls-remote $remote failed: check the remote and the token's contents: write permission"
ref_value() { printf '%s\n' "$refs" | awk -v r="$1" '$2 == r { print $1; exit }'; }
peeled() { # the commit a tag ref points at, through an annotated tag
	v=$(ref_value "$1^{}")
	[ -n "$v" ] || v=$(ref_value "$1")
	printf '%s' "$v"
}
tag_old=$(ref_value "refs/tags/$tag")
[ -n "$tag_old" ] || fail "tag $tag is not on $remote: push the tag first (the release is built from it)"
tag_commit=$(peeled "refs/tags/$tag")

git fetch -q --no-tags "$remote" "refs/tags/$tag" ||
	fail "git fetch $remote refs/tags/$tag failed"

blob=$(git hash-object -w --no-filters "$sums")
# same_pin REV: REV's tree holds the pin with exactly this content.
same_pin() { [ "$(git rev-parse -q --verify "$1:$pin" 2>/dev/null)" = "$blob" ]; }

if [ "$tag_commit" = "$commit" ]; then
	if git cat-file -e "$commit:$pin" 2>/dev/null && ! same_pin "$commit"; then
		fail "$pin already exists at $tag ($commit) with other content: a pin is written once and never changed. Check how it got there; remove it and tag a new release"
	fi
	pinned=""
elif [ "$(git rev-parse -q --verify "$tag_commit^" 2>/dev/null || true)" = "$commit" ] && same_pin "$tag_commit"; then
	# A run before this one got as far as moving the tag.
	pinned="$tag_commit"
	echo "tag $tag already points at $pinned, $commit plus this pin: continuing"
else
	fail "tag $tag on $remote points at ${tag_commit}, not at $commit, the commit the binaries were built from: it was moved after the build. Nothing was pushed. Find out who moved it; then delete the release and tag again"
fi

git cat-file -e "$commit^{commit}" 2>/dev/null ||
	fail "commit $commit (PIN_COMMIT) is not in this clone: fetch it (actions/checkout with fetch-depth: 0)"

# 3. C' = C + the pin, written straight into the object store.
if [ -z "$pinned" ]; then
	if same_pin "$commit"; then
		# The tagged commit already holds this very pin: nothing to add.
		pinned="$commit"
	else
		work=$(mktemp -d "${TMPDIR:-/tmp}/pin-release.XXXXXX")
		trap 'rm -rf "$work"' EXIT
		GIT_INDEX_FILE="$work/index" git read-tree "$commit"
		GIT_INDEX_FILE="$work/index" git update-index --add --cacheinfo "100644,$blob,$pin"
		tree=$(GIT_INDEX_FILE="$work/index" git write-tree)
		pinned=$(printf 'release %s: pin its checksums\n\nAdds %s, the checksums.txt of release %s, whose binaries were\nbuilt from %s (perfgate version prints it). ghaction/steps/install.sh\nverifies every download against this file (docs/action.md, "What the\ndownload trusts").\n' "$tag" "$pin" "$tag" "$commit" |
			GIT_AUTHOR_NAME="$name" GIT_AUTHOR_EMAIL="$email" GIT_COMMITTER_NAME="$name" GIT_COMMITTER_EMAIL="$email" \
				git commit-tree "$tree" -p "$commit")
	fi
fi

# 4. The tag and, for the newest final release of its major, the major tag.
set -- # the push's arguments
if [ "$tag_commit" != "$pinned" ]; then
	new="$pinned"
	if [ "$(git cat-file -t "$tag_old" 2>/dev/null || echo commit)" = tag ]; then
		# An annotated tag stays annotated: its message, on the new commit.
		git cat-file tag "$tag_old" | sed '1,/^$/d' | sed '/^-----BEGIN PGP SIGNATURE-----$/,$d' >"${work:?}/msg"
		printf 'object %s\ntype commit\ntag %s\ntagger %s <%s> %s +0000\n\n' "$pinned" "$tag" "$name" "$email" "$(date +%s)" >"$work/tag"
		cat "$work/msg" >>"$work/tag"
		printf '\nMoved from %s to %s, which adds %s.\n' "$commit" "$pinned" "$pin" >>"$work/tag"
		new=$(git mktag <"$work/tag")
	fi
	set -- "$@" "--force-with-lease=refs/tags/$tag:$tag_old" "$new:refs/tags/$tag"
fi
case "$tag" in
*-*) echo "$major stays where it is: $tag is a pre-release" ;;
*)
	newest=$(printf '%s\n' "$refs" | awk '{ print $2 }' | sed -n 's|^refs/tags/\(v[0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*\)$|\1|p' |
		grep "^$major\." | sort -V | tail -n 1)
	if [ "$newest" != "$tag" ]; then
		echo "$major stays where it is: ${newest:-another release} is newer than $tag"
	elif [ "$(peeled "refs/tags/$major")" = "$pinned" ]; then
		echo "$major already points at $pinned"
	else
		set -- "$@" "--force-with-lease=refs/tags/$major:$(ref_value "refs/tags/$major")" "$pinned:refs/tags/$major"
		moved_major=yes
	fi
	;;
esac
if [ $# -gt 0 ]; then
	git push --atomic "$remote" "$@" ||
		fail "git push to $remote refused the move of $tag${moved_major:+ and $major} (a ref changed since it was read, or the token cannot push tags): nothing was moved. Run the release's pin job again"
fi
notice "$tag${moved_major:+ and $major} now point at $pinned: $commit plus $pin"

# 5. The default branch keeps every pin.
[ -n "$branch" ] || exit 0
tries=0
while :; do
	tries=$((tries + 1))
	git fetch -q --no-tags "$remote" "refs/heads/$branch" ||
		fail "git fetch $remote $branch failed"
	head=$(git rev-parse FETCH_HEAD)
	if same_pin "$head"; then
		echo "$branch already holds $pin"
		exit 0
	fi
	git cat-file -e "$head:$pin" 2>/dev/null &&
		fail "$branch holds $pin with other content than $tag's pin: fix $branch by hand (git checkout $tag -- $pin)"
	if [ "$head" = "$commit" ]; then
		next="$pinned" # a fast-forward: the branch is then the tag's commit
	else
		work2=$(mktemp -d "${TMPDIR:-/tmp}/pin-release.XXXXXX")
		GIT_INDEX_FILE="$work2/index" git read-tree "$head"
		GIT_INDEX_FILE="$work2/index" git update-index --add --cacheinfo "100644,$blob,$pin"
		tree=$(GIT_INDEX_FILE="$work2/index" git write-tree)
		rm -rf "$work2"
		next=$(printf 'release %s: keep its pinned checksums\n\nAdds %s, as tag %s holds it, so that later releases keep it.\n' "$tag" "$pin" "$tag" |
			GIT_AUTHOR_NAME="$name" GIT_AUTHOR_EMAIL="$email" GIT_COMMITTER_NAME="$name" GIT_COMMITTER_EMAIL="$email" \
				git commit-tree "$tree" -p "$head")
	fi
	if git push -q "$remote" "$next:refs/heads/$branch"; then
		notice "$branch now holds $pin ($next)"
		exit 0
	fi
	[ "$tries" -lt 5 ] ||
		fail "$branch refused the pin $tries times (branch protection, or it keeps moving): the tags are pinned; add the file by hand: git checkout $branch && git checkout $tag -- $pin && git commit -m 'release $tag: keep its pinned checksums' && git push"
	echo "$branch moved while the pin was added (try $tries): fetching it again"
	sleep "$tries"
done
