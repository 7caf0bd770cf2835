#!/usr/bin/env bash
# perfgate's real-GPU check. Needs: an NVIDIA GPU with its driver, python3
# with PyTorch (CUDA), and a perfgate binary built with cgo (for NVML).
#
#   PERFGATE=./perfgate OUT=/tmp/gpu-out bash bench/gpu/run.sh
#
# Part 1, telemetry: runs a bf16 matrix product, then a device-to-device
# copy (load.py), and while each runs samples the GPU with
# `perfgate gpu-sample` and `nvidia-smi dmon -s u`; compare.py sets the two
# side by side and expects perfgate to call the first compute-bound and the
# second bandwidth-bound.
#
# Part 2, serving: serves an MLP over KServe v2 HTTP (serve.py) in bf16 and
# quantized (fp8, else int8 weight-only), each without and with dynamic
# batching, load-tests it with `perfgate run --protocol kserve-http`, scrapes
# the server's Triton-style /metrics before and after, samples the GPU, and
# writes a table (summarize.py).
#
# Everything goes under $OUT (default perfgate-out/gpu). The whole script
# stays under BUDGET_S seconds (default 510, under 9 minutes). Exit status 0
# when every step ran and both classes matched, 1 otherwise.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-perfgate-out/gpu}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUDGET=${BUDGET_S:-510}
START=$SECONDS
status=0
PIDS=()

log() { echo "[$(date -u +%T) +$((SECONDS - START))s] $*" | tee -a "$OUT/run.log"; }
left() { echo $((BUDGET - (SECONDS - START))); }
# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	return 0
}
trap cleanup EXIT

if [ -z "${PERFGATE:-}" ]; then
	for c in ./perfgate "$HERE/../../perfgate" "$(command -v perfgate || true)"; do
		if [ -n "$c" ] && [ -x "$c" ]; then PERFGATE=$c; break; fi
	done
fi
if [ -z "${PERFGATE:-}" ] || [ ! -x "$PERFGATE" ]; then
	log "no perfgate binary: set PERFGATE=path/to/perfgate"
	exit 1
fi
PERFGATE=$(cd "$(dirname "$PERFGATE")" && pwd)/$(basename "$PERFGATE")

log "environment"
{
	echo "perfgate: $PERFGATE"
	nvidia-smi --query-gpu=index,name,driver_version,memory.total,mig.mode.current,clocks.max.sm --format=csv
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())'
} > "$OUT/env.txt" 2>&1
tee -a "$OUT/run.log" < "$OUT/env.txt"

# perfgate gpu-sample prints the telemetry of one sampling window as JSON.
HAVE_SAMPLE=0
if "$PERFGATE" gpu-sample --duration 1s --interval 100ms > "$OUT/gpu_sample_probe.json" 2>&1; then
	HAVE_SAMPLE=1
else
	log "perfgate gpu-sample failed (see gpu_sample_probe.json): GPU figures will be missing"
	status=1
fi

gpu_sample() { # DURATION_S FILE
	if [ "$HAVE_SAMPLE" = 1 ]; then
		timeout $(($1 + 20)) "$PERFGATE" gpu-sample --duration "${1}s" --interval 100ms > "$2" 2> "$2.err"
	else
		echo '{"error": "perfgate gpu-sample not available"}' > "$2"
	fi
}

# Part 1: telemetry against known loads.
for kind in matmul copy; do
	log "part 1: $kind"
	python3 "$HERE/load.py" --kind "$kind" --seconds 14 > "$OUT/${kind}_load.txt" 2>&1 &
	lp=$!
	PIDS+=("$lp")
	for _ in $(seq 1 180); do # torch import, allocation, warm-up: at most 90 s
		grep -q READY "$OUT/${kind}_load.txt" && break
		kill -0 "$lp" 2>/dev/null || break
		sleep 0.5
	done
	if ! grep -q READY "$OUT/${kind}_load.txt"; then
		log "$kind load did not start:"; tail -5 "$OUT/${kind}_load.txt" | tee -a "$OUT/run.log"
		kill "$lp" 2>/dev/null; status=1; continue
	fi
	sleep 1
	timeout 30 nvidia-smi dmon -s u -d 1 -c 8 > "$OUT/${kind}_dmon.txt" 2>&1 &
	dp=$!
	gpu_sample 8 "$OUT/${kind}_perfgate.json"
	wait "$dp"
	wait "$lp" || { log "$kind load failed"; status=1; }
	tail -1 "$OUT/${kind}_load.txt" | tee -a "$OUT/run.log"
done
python3 "$HERE/compare.py" "$OUT" matmul:compute-bound copy:bandwidth-bound | tee "$OUT/telemetry_check.txt"
[ "${PIPESTATUS[0]}" = 0 ] || { log "part 1: perfgate's classes did not match the loads"; status=1; }

# Part 2: serve a model over KServe v2 and load-test it.
python3 "$HERE/util.py" payload "$OUT/payload.json" 1 64
names=()
for spec in "bf16 1" "bf16 32" "quant 1" "quant 32"; do
	read -r variant mb <<< "$spec"
	name="$variant-b$mb"
	if [ "$(left)" -lt 75 ]; then log "skipping $name: out of time"; status=1; continue; fi
	log "part 2: $name"
	port=$(python3 "$HERE/util.py" freeport)
	python3 "$HERE/serve.py" --port "$port" --variant "$variant" --max-batch "$mb" --batch-window-ms 2 \
		> "$OUT/${name}_server.log" 2>&1 &
	sp=$!
	PIDS+=("$sp")
	base="http://127.0.0.1:$port"
	if ! python3 "$HERE/util.py" wait "$base/v2/health/ready" 120 "$sp"; then
		log "server $name did not start:"; tail -5 "$OUT/${name}_server.log" | tee -a "$OUT/run.log"
		kill "$sp" 2>/dev/null; status=1; continue
	fi
	head -1 "$OUT/${name}_server.log" | tee -a "$OUT/run.log"
	python3 "$HERE/util.py" get "$base/metrics" "$OUT/${name}_metrics_before.txt"
	(sleep 3; gpu_sample 12 "$OUT/${name}_gpu.json") &
	gp=$!
	if ! timeout 90 "$PERFGATE" run --url "$base" --protocol kserve-http --model mlp \
		--body "@$OUT/payload.json" --concurrency 32 --duration 8s --warmup 2s --trials 2 \
		--out "$OUT/${name}.json" > "$OUT/${name}_perfgate.txt" 2>&1; then
		log "perfgate run $name failed:"; tail -5 "$OUT/${name}_perfgate.txt" | tee -a "$OUT/run.log"
		status=1
	fi
	wait "$gp"
	python3 "$HERE/util.py" get "$base/metrics" "$OUT/${name}_metrics_after.txt"
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	names+=("$name")
done
if [ "${#names[@]}" -gt 0 ]; then
	python3 "$HERE/summarize.py" "$OUT" "${names[@]}" | tee -a "$OUT/run.log"
fi
log "done in $((SECONDS - START)) s, status $status"
exit "$status"
