#!/usr/bin/env bash
# bench/action-start.sh: how long the GitHub Action takes from the start of
# its job to the first line perfgate prints, by the release path (download
# and verify the release binary) against the source path (build with Go),
# both run here the way action.yml runs them.
#
#   bench/action-start.sh              # writes bench/results-action-start-<date>.txt
#   RUNS=5 bench/action-start.sh       # release-path repetitions (default 5)
#   SOURCE_RUNS=1 bench/action-start.sh
#
# Release path: ghaction/steps/resolve.sh then ghaction/steps/install.sh against a release
# server on 127.0.0.1 serving a real release archive (this machine's
# platform, built with .goreleaser.yaml's flags before the clock starts), a
# fresh tool cache each run. Source path: `go build -trimpath ./cmd/perfgate`
# as action.yml does, with a cleared Go build cache (a fresh GOCACHE
# directory; the shared ~/.cache/go-build is not touched) and the module
# cache as it is. Not counted, and all in the source path's favour on a real
# runner: actions/setup-go's toolchain download and module download; the
# release path's download here is over loopback, not the internet.
# Not part of CI.
set -euo pipefail

RUNS=${RUNS:-5}
SOURCE_RUNS=${SOURCE_RUNS:-1}
PORT=${PORT:-18765}
TAG=${TAG:-v1.2.3}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
results=${RESULTS:-$root/bench/results-action-start-$(date -u +%Y-%m-%d).txt}
tmp=$(mktemp -d /tmp/perfgate-action-start.XXXXXX)
server_pid=""
cleanup() {
	if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
	chmod -R u+w "$tmp" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

now() { date +%s%N; }
ms() { echo $((($2 - $1) / 1000000)); }

# first_line_ms CMD...: runs CMD, returns (in $first) the ms from the call
# to the first line perfgate itself prints ("perfgate vX.Y.Z (commit ...",
# from `perfgate version`), and fails if none came.
first_line_ms() {
	local t0 line
	t0=$(now)
	first=""
	while IFS= read -r line; do
		if [[ -z $first && $line == "perfgate v"*" (commit "* ]]; then
			first=$(ms "$t0" "$(now)")
			echo "    $line"
		fi
	done < <("$@" 2>&1)
	[[ -n $first ]] || { echo "no perfgate line from: $*" >&2; exit 1; }
}

goos=$(go env GOOS)
goarch=$(go env GOARCH)
version=${TAG#v}
echo "preparing the release archive ($goos/$goarch, $TAG), not timed"
mkdir -p "$tmp/releases/$TAG" "$tmp/pkg"
go build -trimpath -o "$tmp/pkg/perfgate" \
	-ldflags "-s -w -X main.version=$TAG -X main.commit=$(git rev-parse HEAD) -X main.date=$(git log -1 --format=%cI)" ./cmd/perfgate
archive="perfgate_${version}_${goos}_${goarch}.tar.gz"
tar -czf "$tmp/releases/$TAG/$archive" -C "$tmp/pkg" perfgate
(cd "$tmp/releases/$TAG" && sha256sum "$archive" > checksums.txt)
archive_bytes=$(stat -c %s "$tmp/releases/$TAG/$archive")
(cd "$tmp/releases" && exec python3 -m http.server "$PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
server_pid=$!
for _ in $(seq 50); do curl -fsS -o /dev/null "http://127.0.0.1:$PORT/$TAG/checksums.txt" 2>/dev/null && break; sleep 0.1; done

runner_arch=$(case $goarch in amd64) echo X64 ;; arm64) echo ARM64 ;; *) echo "$goarch" ;; esac)
release_path() {
	local cache=$1
	mkdir -p "$cache/temp"
	local out=$cache/github_output
	ACTION_REF=$TAG ACTION_REPOSITORY=perfgate/perfgate ACTION_PATH=$root GITHUB_OUTPUT=$out sh ghaction/steps/resolve.sh
	PERFGATE_VERSION=$(sed -n 's/^version=//p' "$out") PERFGATE_REPOSITORY=perfgate/perfgate \
		PERFGATE_RELEASES_URL="http://127.0.0.1:$PORT" RUNNER_OS=Linux RUNNER_ARCH=$runner_arch \
		RUNNER_TOOL_CACHE=$cache/toolcache RUNNER_TEMP=$cache/temp GITHUB_OUTPUT=$out sh ghaction/steps/install.sh
}

release_ms=()
for i in $(seq "$RUNS"); do
	echo "release path, run $i (fresh tool cache)"
	first_line_ms release_path "$tmp/rel$i"
	release_ms+=("$first")
	echo "    first perfgate line after $first ms"
done

source_path() {
	local cache=$1
	mkdir -p "$cache/bin"
	GOCACHE=$cache/gocache go build -trimpath -o "$cache/bin/perfgate" ./cmd/perfgate
	"$cache/bin/perfgate" version
}
source_ms=()
for i in $(seq "$SOURCE_RUNS"); do
	echo "source path, run $i (cleared build cache: a fresh GOCACHE)"
	first_line_ms source_path "$tmp/src$i"
	source_ms+=("$first")
	echo "    first perfgate line after $first ms"
done

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
rel=$(median "${release_ms[@]}")
src=$(median "${source_ms[@]}")
{
	echo "# bench/action-start.sh, $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD)"
	echo "# $(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); $(go version)"
	echo "# time from the job's first action step to the first 'perfgate v...' line, ms"
	echo "path     runs  median_ms  all_ms"
	echo "release  ${#release_ms[@]}     $rel  ${release_ms[*]}   (archive $archive_bytes bytes from 127.0.0.1, sha256 verified, fresh tool cache)"
	echo "source   ${#source_ms[@]}     $src  ${source_ms[*]}   (go build -trimpath ./cmd/perfgate, fresh GOCACHE, warm module cache)"
	awk -v r="$rel" -v s="$src" 'BEGIN { printf "ratio source/release: %.0fx\n", s / r }'
} | tee "$results"
