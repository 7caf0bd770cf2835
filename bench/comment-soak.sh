#!/usr/bin/env bash
# bench/comment-soak.sh: the Action's comment mode (the trusted half of the
# fork-safe pair) over 1,000 hostile comment bundles: random fields, and
# sizes at each cap (pr.json, report.json, 1,000 result files, a result
# file at its cap), four rounds of the caps. It runs cmd/perfgate's
# TestCommentModeSoak with PERFGATE_SOAK_BUNDLES; go test runs 50 of them.
#
#   bench/comment-soak.sh                 # 1,000 bundles (several minutes)
#   BUNDLES=200 bench/comment-soak.sh
#
# The bound: the test fails when the Go heap in use (runtime.ReadMemStats,
# sampled every 2 ms) passes soakHeapBound (1.5 GiB); this script also
# prints the test process's peak RSS (GNU time's "Maximum resident set
# size"). The results go to bench/comment-soak-<date>.txt. The time taken
# depends on the host; the heap does not much.
set -euo pipefail

BUNDLES=${BUNDLES:-1000}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
results=${RESULTS:-$root/bench/comment-soak-$(date -u +%Y-%m-%d).txt}
timev=()
if /usr/bin/time -v true 2>/dev/null; then timev=(/usr/bin/time -v); fi
{
	echo "# bench/comment-soak.sh: $BUNDLES hostile bundles through comment mode, $(git rev-parse --short HEAD), $(date -u +%FT%TZ)"
	PERFGATE_SOAK_BUNDLES=$BUNDLES "${timev[@]}" go test ./cmd/perfgate -run '^TestCommentModeSoak$' -count=1 -v -timeout 60m 2>&1 |
		grep -E 'commentsoak_test|^(ok|FAIL|--- )|Maximum resident|Elapsed'
} | tee "$results"
