#!/usr/bin/env bash
# bench/soak.sh: a long fixed-rate run against the reference server, to show
# that perfgate's own memory (RSS) and goroutine count stay flat: a leak per
# request or per connection would grow with time.
#
#   bench/soak.sh                        # 10 minutes at 200 req/s, kserve-http, model mlp
#   FIXTURE_ARGS="--model sim --instances 8" MODEL=mlp-sim bench/soak.sh   # a target that uses little CPU
#   MINUTES=2 RATE=100 bench/soak.sh     # shorter (WARMUP=60: minute 1 starts after a longer warm-up)
#   PERFGATE=/path/to/perfgate bench/soak.sh
#
# Not part of CI. It samples perfgate's VmRSS (from /proc) and its goroutine
# count (perfgate serves it on PERFGATE_DEBUG_ADDR, loopback only) once a
# minute, prints one row per minute and the verdict: the last minute within
# 10% of the first (goroutines: equal or within 10%). RSS is shown whole and
# as its anonymous part (RssAnon), which is what a leak grows.
set -euo pipefail

RATE=${RATE:-200}           # fixed open-loop rate, req/s
MINUTES=${MINUTES:-10}      # measured minutes (one trial of this length)
PROTOCOL=${PROTOCOL:-kserve-http}
MODEL=${MODEL:-mlp}         # the KServe model: mlp (computed), mlp-sim (declared cost, little CPU)
FIXTURE_ARGS=${FIXTURE_ARGS:-}  # extra reference-server flags, e.g. "--model sim --instances 8"
PORT=${PORT:-18391}
DEBUG_PORT=${DEBUG_PORT:-18392}
TOLERANCE=${TOLERANCE:-10}  # percent

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
results=${RESULTS:-$root/bench/soak-$(date -u +%Y-%m-%d).txt}
tmp=$(mktemp -d /tmp/perfgate-soak.XXXXXX)
server_pid="" pg_pid=""
cleanup() {
	for p in $pg_pid $server_pid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
log() { printf '%s\n' "$*" >&2; }

perfgate=${PERFGATE:-}
if [[ -z $perfgate ]]; then
	perfgate=$tmp/perfgate
	log "building perfgate"
	go build -o "$perfgate" ./cmd/perfgate
fi

# shellcheck disable=SC2086
"$perfgate" fixture serve --addr "127.0.0.1:$PORT" $FIXTURE_ARGS >"$tmp/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
	curl -fs "http://127.0.0.1:$PORT/v2/health/ready" >/dev/null 2>&1 && break
	sleep 0.1
done
curl -fs "http://127.0.0.1:$PORT/v2/health/ready" >/dev/null || { log "reference server did not start:"; cat "$tmp/server.log" >&2; exit 1; }

warmup=${WARMUP:-5}  # seconds of warm-up before minute 1 (the connection pool fills)
log "soak: $PROTOCOL at $RATE req/s for $MINUTES min (+${warmup}s warm-up) against the reference server on :$PORT"
PERFGATE_DEBUG_ADDR=127.0.0.1:$DEBUG_PORT "$perfgate" run --url "http://127.0.0.1:$PORT" \
	--protocol "$PROTOCOL" --model "$MODEL" --rate "$RATE" --duration "${MINUTES}m" \
	--warmup "${warmup}s" --trials 1 --out "$tmp/soak.json" >"$tmp/run.out" 2>"$tmp/run.err" &
pg_pid=$!

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
# RssAnon is the anonymous part of the RSS: what perfgate allocated. The
# rest (RssFile) is the binary's pages, faulted in as code paths first run
# and shared with the page cache: it grows in the first minutes of any
# process and is not a leak.
anon_kib() { awk '/^RssAnon:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
goroutines() { curl -fs "http://127.0.0.1:$DEBUG_PORT/debug/stats" | jq -r .goroutines 2>/dev/null || echo 0; }
heap_mib() { curl -fs "http://127.0.0.1:$DEBUG_PORT/debug/stats" | jq -r '.heap_inuse_bytes/1048576*10|floor/10' 2>/dev/null || echo 0; }

sleep "$warmup"
start=$(date +%s)
rows=()
header=$(printf '%-7s %10s %10s %12s %14s %14s' minute rss_mib goroutines heap_inuse_mib threads rss_anon_mib)
log "$header"
for m in $(seq 1 "$MINUTES"); do
	# Sample just before the end of each minute, so the last sample is
	# taken while the run is still measuring.
	target=$((start + m * 60 - 2))
	while (($(date +%s) < target)); do
		kill -0 "$pg_pid" 2>/dev/null || { log "perfgate ended early:"; cat "$tmp/run.err" >&2; exit 1; }
		sleep 1
	done
	rss=$(rss_kib "$pg_pid")
	row=$(printf '%-7s %10.1f %10s %12s %14s %14.1f' "$m" "$(echo "$rss/1024" | bc -l)" "$(goroutines)" "$(heap_mib)" \
		"$(awk '/^Threads:/ {print $2}' /proc/$pg_pid/status)" "$(echo "$(anon_kib "$pg_pid")/1024" | bc -l)")
	rows+=("$row")
	log "$row"
done
wait "$pg_pid" || log "perfgate exited with status $?"
pg_pid=""

first=(${rows[0]}) last=(${rows[${#rows[@]}-1]})
verdict() { # name first last
	awk -v n="$1" -v a="$2" -v b="$3" -v t="$TOLERANCE" 'BEGIN {
		d = (a > 0) ? (b - a) / a * 100 : 0
		printf "%s: minute 1 %s, minute %s %s (%+.1f%%): %s\n", n, a, ENVIRON["MINUTES"], b, d, (d <= t && d >= -t) ? "flat" : "NOT flat" }'
}
summary=$(jq -r '"requests \(.summary.requests), errors \(.summary.errors), achieved \(.summary.achieved_rps|floor) req/s, p99 \(.summary.latency_ms.p99) ms"' "$tmp/soak.json" 2>/dev/null || echo "no result file")
{
	echo "# perfgate soak, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -sr), $(nproc) cores"
	echo "# $PROTOCOL model $MODEL at $RATE req/s for $MINUTES min against perfgate fixture serve $FIXTURE_ARGS; $perfgate"
	echo "$header"
	printf '%s\n' "${rows[@]}"
	echo "# run: $summary"
	MINUTES=$MINUTES verdict rss_mib "${first[1]}" "${last[1]}"
	MINUTES=$MINUTES verdict rss_anon_mib "${first[5]}" "${last[5]}"
	MINUTES=$MINUTES verdict goroutines "${first[2]}" "${last[2]}"
} | tee "$results"
log "wrote $results"
