#!/usr/bin/env bash
# bench/scale.sh: N generator processes at R/N each, started at one
# --start-at instant and merged with perfgate merge, side by side with one
# process at the whole rate R, at the same time, each against its own copy
# of the reference server with a known cost (the sim model: a fixed 20 ms
# per request, 256 workers, so no queueing at these rates).
#
#   bench/scale.sh                          # R=1500, N=3, 3 trials of 5 s
#   RATE=3000 GENS=4 DUR=10s bench/scale.sh
#
# Prints both results' request counts, P50, P99, P99.9, schedule lag and
# the merged start skew. Not part of CI; the test that holds the targets is
# TestGeneratorsMatchOneProcess in cmd/perfgate.
set -euo pipefail

RATE=${RATE:-1500}
GENS=${GENS:-3}
DUR=${DUR:-5s}
WARMUP=${WARMUP:-2s}
TRIALS=${TRIALS:-3}
PORT_ONE=${PORT_ONE:-18561}
PORT_GENS=${PORT_GENS:-18562}

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/perfgate-scale.XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

(cd "$root" && go build -o "$tmp/perfgate" ./cmd/perfgate)
pg=$tmp/perfgate
for port in "$PORT_ONE" "$PORT_GENS"; do
	"$pg" fixture serve --addr "127.0.0.1:$port" --model sim --instances 256 --max-batch 1 \
		--queue 100000 --sim-fixed 20ms --sim-per-item 0 >"$tmp/server-$port.log" 2>&1 &
	pids+=($!)
done
sleep 1

load=(--protocol kserve-http --model mlp --rate "$RATE" --duration "$DUR" --warmup "$WARMUP" --trials "$TRIALS")
start_at=$(date -u -d '+2 seconds' +%Y-%m-%dT%H:%M:%S.%NZ)
"$pg" run --url "http://127.0.0.1:$PORT_ONE" "${load[@]}" --out "$tmp/one.json" >"$tmp/one.log" 2>&1 &
runs=($!)
for i in $(seq 1 "$GENS"); do
	mkdir -p "$tmp/shards/g$i"
	"$pg" run --url "http://127.0.0.1:$PORT_GENS" "${load[@]}" --generator "$i/$GENS" --start-at "$start_at" \
		--out "$tmp/shards/g$i/run.json" >"$tmp/g$i.log" 2>&1 &
	runs+=($!)
done
for p in "${runs[@]}"; do wait "$p" || echo "a generator exited $? (see its log; invalid runs still write results)"; done
"$pg" merge --out "$tmp/merged" "$tmp/shards"

python3 - "$tmp" "$RATE" "$GENS" <<'PY'
import json, sys
d, rate, gens = sys.argv[1], sys.argv[2], sys.argv[3]
one = json.load(open(d + "/one.json"))
m = json.load(open(d + "/merged/run.json"))
print(f"{'':28} {'requests':>9} {'achieved':>9} {'P50 ms':>8} {'P99 ms':>8} {'P99.9 ms':>9} {'lag P99':>8} {'valid':>6}")
for name, r in ((f"1 process at {rate} rps", one), (f"{gens} generators merged", m)):
    s = r["summary"]; l = s["latency_ms"]
    print(f"{name:28} {s['requests']:>9} {s['achieved_rps']:>9.1f} {l['p50']:>8.3f} {l['p99']:>8.3f} {l['p999']:>9.3f} {s.get('schedule_lag_p99_ms', 0):>8.1f} {str(r['valid']):>6}")
print(f"start skew {m['merged']['start_skew_ms']:.3f} ms (bound {m['merged']['max_start_skew_ms']:.0f} ms); load average {open('/proc/loadavg').read().split()[0]}")
PY
