#!/usr/bin/env bash
# perfgate's partition check on a real GPU: is the model cheaper on device
# partitions or on whole devices? Needs what run.sh needs (an NVIDIA GPU,
# python3 with PyTorch, a perfgate binary).
#
#   PERFGATE=./perfgate OUT=/tmp/gpu-part bash bench/gpu/partition.sh
#
# 1. whole: serve.py on the whole GPU; `perfgate run --sweep` finds its knee.
# 2. slices: if the GPU already has MIG instances (nvidia-smi -L lists
#    "MIG ..." devices), serve.py pinned to one of them (CUDA_VISIBLE_DEVICES=
#    MIG-uuid): MIG isolates slices, so one slice's knee is every slice's,
#    and per_device is the number of instances of that profile listed.
#    Without MIG the script does NOT enable it (that needs a GPU reset, which
#    is not ours to do): PER_DEVICE (default 2) servers share the GPU
#    (time-sliced, no isolation) and are swept at the same time, one perfgate
#    each; the slowest slice's knee stands for all of them.
# 3. `perfgate size --result slice.json --whole whole.json` compares the
#    devices each way for PEAK_QPS (default 20000) and recommends one.
#
# Everything goes under $OUT (default perfgate-out/gpu-partition). Each
# server gets START_TIMEOUT (default 120 s) to start and each sweep
# SWEEP_BUDGET (default 120 s, killed at SWEEP_TIMEOUT, default 150 s;
# about 7 minutes in all at worst). device-run.sh sets all three shorter. Exit status 0 when both knees were found and sizing ran.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-perfgate-out/gpu-partition}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PEAK=${PEAK_QPS:-20000}
PER_DEVICE=${PER_DEVICE:-2}
SLO=${SLO_P99:-50ms}
SWEEP_BUDGET=${SWEEP_BUDGET:-120s} # each knee search stops here (under SWEEP_TIMEOUT)
SWEEP_TIMEOUT=${SWEEP_TIMEOUT:-150} # seconds: each perfgate sweep is killed after this
START_TIMEOUT=${START_TIMEOUT:-120} # seconds each server gets to answer ready
PROBE=${PROBE_DURATION:-3s}          # one probe of the knee search
START_RATE=${SWEEP_START:-}          # the search's first rate (perfgate's default when empty)
START=$SECONDS

log() { echo "[$(date -u +%T) +$((SECONDS - START))s] $*" | tee -a "$OUT/run.log"; }
# serve runs in $(...), a subshell: its server's pid comes back in a file.
cleanup() {
	for f in "$OUT"/*.pid; do [ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null && rm -f "$f"; done
	return 0
}
trap cleanup EXIT

PERFGATE=${PERFGATE:-./perfgate}
if [ ! -x "$PERFGATE" ]; then log "no perfgate binary: set PERFGATE=path/to/perfgate"; exit 1; fi
PERFGATE=$(cd "$(dirname "$PERFGATE")" && pwd)/$(basename "$PERFGATE")
python3 "$HERE/util.py" payload "$OUT/payload.json" 1 64

# serve NAME DEVICE: start serve.py on DEVICE ("" = default), print its base URL.
serve() {
	local port
	port=$(python3 "$HERE/util.py" freeport)
	# An empty CUDA_VISIBLE_DEVICES hides every GPU: set it only to name one.
	(
		if [ -n "$2" ]; then export CUDA_VISIBLE_DEVICES="$2"; fi
		exec python3 "$HERE/serve.py" --port "$port" --variant bf16 --max-batch 32 --batch-window-ms 2
	) > "$OUT/$1_server.log" 2>&1 &
	echo "$!" > "$OUT/$1.pid"
	if ! python3 "$HERE/util.py" wait "http://127.0.0.1:$port/v2/health/ready" "$START_TIMEOUT" "$!"; then
		log "server $1 did not start:"; tail -5 "$OUT/$1_server.log" | tee -a "$OUT/run.log"
		return 1
	fi
	echo "http://127.0.0.1:$port"
}

# sweep NAME URL: the knee search, into $OUT/NAME.json.
sweep() {
	timeout "$SWEEP_TIMEOUT" "$PERFGATE" run --url "$2" --protocol kserve-http --model mlp --body "@$OUT/payload.json" \
		--sweep ${START_RATE:+--start "$START_RATE"} --slo-p99 "$SLO" --budget "$SWEEP_BUDGET" --duration "$PROBE" --warmup 1s --out "$OUT/$1.json" > "$OUT/$1_perfgate.txt" 2>&1
}

nvidia-smi -L > "$OUT/devices.txt" 2>&1
log "devices:"; tee -a "$OUT/run.log" < "$OUT/devices.txt"
MIG=$(grep -o 'MIG-[0-9a-f-]*' "$OUT/devices.txt" | head -1)

log "whole device"
url=$(serve whole "") || exit 1
sweep whole "$url" || { log "whole sweep failed"; tail -5 "$OUT/whole_perfgate.txt"; exit 1; }
cleanup

if [ -n "$MIG" ]; then
	profile=$(grep "$MIG" "$OUT/devices.txt" | sed -E 's/.*MIG ([^ ]+) .*/\1/')
	PER_DEVICE=$(grep -c "MIG $profile " "$OUT/devices.txt")
	NAME=$profile
	log "MIG slice $profile ($PER_DEVICE listed): $MIG"
	url=$(serve slice "$MIG") || exit 1
	sweep slice "$url" || { log "slice sweep failed"; exit 1; }
else
	NAME="shared-$PER_DEVICE"
	log "no MIG instances (MIG mode left as it is): $PER_DEVICE servers share the GPU, swept together"
	urls=()
	for i in $(seq 1 "$PER_DEVICE"); do urls+=("$(serve "slice$i" "")") || exit 1; done
	spids=()
	for i in $(seq 1 "$PER_DEVICE"); do sweep "slice$i" "${urls[$((i - 1))]}" & spids+=("$!"); done
	for p in "${spids[@]}"; do wait "$p" || log "a slice sweep failed"; done
	# The slowest slice stands for every slice.
	python3 - "$OUT" "$PER_DEVICE" <<'EOF' || exit 1
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
rs = [json.load(open("%s/slice%d.json" % (out, i))) for i in range(1, n + 1)]
slow = min(rs, key=lambda r: (r.get("capacity") or {}).get("max_qps", 0))
json.dump(slow, open(out + "/slice.json", "w"), indent=1)
EOF
fi
python3 - "$OUT/slice.json" "$NAME" "$PER_DEVICE" <<'EOF' || exit 1
import json, sys
path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(open(path))
r["partition"] = {"name": name, "per_device": n}
json.dump(r, open(path, "w"), indent=1)
EOF
"$PERFGATE" size --result "$OUT/slice.json" --whole "$OUT/whole.json" --peak-qps "$PEAK" | tee "$OUT/partition.txt"
status=${PIPESTATUS[0]}
"$PERFGATE" size --result "$OUT/slice.json" --whole "$OUT/whole.json" --peak-qps "$PEAK" --format json > "$OUT/partition.json"
log "done in $((SECONDS - START)) s, status $status"
exit "$status"
