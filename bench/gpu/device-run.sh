#!/usr/bin/env bash
# perfgate on a real GPU, end to end, in ONE device call. Needs: an NVIDIA
# GPU, python3 with PyTorch (CUDA), git, and a perfgate binary built with
# cgo (NVML) carried in; builds nothing. README.md in this folder says how
# to call it with the `run` tool.
#
#   bash bench/gpu/device-run.sh PATH/TO/perfgate            # on the GPU
#   DEVICE_RUN_SHORT=1 bash bench/gpu/device-run.sh /tmp/pg  # CPU check
#
# Stages, in order (STAGES="env suite-a suite-b baseline gate-aa ab
# summary partition" by default; a rerun may name fewer):
#   env        GPU, driver, MIG mode (read only), torch, grpcio, perfgate
#   suite-a/b  perfgate run --config perfgate.yaml (the layered suite:
#              precision bf16 → fp8, batching off → on), twice
#   baseline   perfgate baseline update --from A --from B (two-run baseline)
#   gate-aa    perfgate gate against that baseline: an A/A (expect pass)
#   ab         perfgate gate --ab between two commits of a throwaway git
#              repository in $OUT/ab-repo: batching on (base), then off
#              (head): the regression it should catch, and in how long
#   summary    per scenario P99, throughput, mean batch, the bottleneck
#              class and its evidence; the A/A and A/B verdicts
#   partition  partition.sh, time-sliced only (MIG is never touched), and
#              perfgate size on its whole-device knee (the sizing plan)
#
# Everything goes under $OUT (default perfgate-out/device). Each stage is
# bounded by `timeout` and skipped, with a line saying so, when less time is
# left than it needs; the script stays within BUDGET_S (default 520 s, 480
# with DEVICE_RUN_SHORT=1). Nothing it starts outlives it: every stage runs
# in its own process group, and on exit the script kills its stages' groups
# and then any process still carrying its DEVICE_RUN_TAG (the targets that
# perfgate starts inherit it). Exit status 0 when every stage ran and the
# A/A passed and the A/B caught the regression, 1 otherwise, 2 on usage.
set -uo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
	echo "usage: [OUT=DIR] [DEVICE_RUN_SHORT=1] [STAGES='...'] bash $0 PATH/TO/perfgate" >&2
	exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
PG=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=${OUT:-perfgate-out/device}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SHORT=${DEVICE_RUN_SHORT:-0}
if [ "$SHORT" = 1 ]; then BUDGET=${BUDGET_S:-480}; else BUDGET=${BUDGET_S:-520}; fi
STAGES=${STAGES:-env suite-a suite-b baseline gate-aa ab summary partition}
START=$SECONDS
status=0
export DEVICE_RUN_TAG="perfgate-device-run-$$"
GROUPS_STARTED=()

log() { echo "[$(date -u +%T) +$((SECONDS - START))s] $*" | tee -a "$OUT/device-run.log"; }
left() { echo $((BUDGET - (SECONDS - START))); }
want() { case " $STAGES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# tagged_pids: processes other than this shell that carry DEVICE_RUN_TAG.
# shellcheck disable=SC2317 # called from the EXIT trap
tagged_pids() {
	local f pid ppid
	for f in /proc/[0-9]*/environ; do
		pid=${f#/proc/}
		pid=${pid%/environ}
		[ "$pid" = "$$" ] && continue
		[ "$pid" = "$BASHPID" ] && continue
		# this shell's own helpers (the $(...) running this function, tr, grep)
		ppid=$({ cut -d' ' -f4 < "/proc/$pid/stat"; } 2> /dev/null) || continue
		[ "$ppid" = "$$" ] || [ "$ppid" = "$BASHPID" ] && continue
		if { tr '\0' '\n' < "$f"; } 2> /dev/null | grep -qx "DEVICE_RUN_TAG=$DEVICE_RUN_TAG"; then echo "$pid"; fi
	done
}
# shellcheck disable=SC2317 # the EXIT trap
cleanup() {
	local g p left_over
	for g in "${GROUPS_STARTED[@]}"; do kill -TERM -- "-$g" 2> /dev/null; done
	sleep 1
	for g in "${GROUPS_STARTED[@]}"; do kill -KILL -- "-$g" 2> /dev/null; done
	left_over=$(tagged_pids)
	for p in $left_over; do kill -TERM "$p" 2> /dev/null; done
	[ -n "$left_over" ] && sleep 2
	for p in $(tagged_pids); do kill -KILL "$p" 2> /dev/null; done
	left_over=$(tagged_pids)
	echo "cleanup: processes still tagged: ${left_over:-none}" >> "$OUT/device-run.log"
	return 0
}
trap cleanup EXIT
trap 'log "interrupted"; exit 1' INT TERM

# bounded SECONDS NAME CMD...: CMD in its own process group (timeout's),
# TERM after SECONDS (perfgate then stops its targets), KILL 15 s later;
# stdout and stderr to $OUT/NAME.txt. Returns CMD's status (124: timed out).
bounded() {
	local secs=$1 name=$2 rc room
	shift 2
	room=$(($(left) - 3)) # never past the script's own budget
	[ "$secs" -gt "$room" ] && secs=$room
	[ "$secs" -lt 5 ] && secs=5
	timeout -k 15 "$secs" "$@" > "$OUT/$name.txt" 2>&1 &
	local pid=$!
	GROUPS_STARTED+=("$pid")
	wait "$pid"
	rc=$?
	[ "$rc" = 124 ] && log "$name: timed out after ${secs}s"
	return "$rc"
}

# stage NAME NEED: true when NAME is wanted and NEED seconds are left (a
# stage's timeout is then cut to what is left, so NEED is its least useful
# length, not its timeout).
stage() {
	want "$1" || return 1
	if [ "$(left)" -lt "$2" ]; then
		log "skipping $1: $(left) s left, it needs $2"
		status=1
		return 1
	fi
	log "stage $1"
	return 0
}

# Sizes of things, full and short (the CPU check with the pure-Python model).
if [ "$SHORT" = 1 ]; then
	RUN_S=90 AA_S=90 AB_S=60 PART_S=75 SWEEP_BUDGET=15s SWEEP_TIMEOUT=25 SLO=200ms AB_TRIALS=6 AB_BUDGET=30s SWEEP_START=20
else
	RUN_S=130 AA_S=130 AB_S=110 PART_S=110 SWEEP_BUDGET=40s SWEEP_TIMEOUT=55 SLO=150ms AB_TRIALS=10 AB_BUDGET=90s SWEEP_START=200
fi

CFG_DIR=$OUT/suite
mkdir -p "$CFG_DIR"
CFG=$CFG_DIR/perfgate.yaml
# The suite's config, its target dir made absolute; shortened in short mode.
python3 - "$HERE/perfgate.yaml" "$CFG" "$HERE" "$SHORT" << 'EOF' || { log "could not write the suite config"; exit 1; }
import sys
src, dst, here, short = sys.argv[1:5]
s = open(src).read().replace("    dir: .\n", "    dir: %s\n" % here)
if short == "1":
    s = s.replace("concurrency: 64, warmup: 1s, duration: 2s", "concurrency: 4, warmup: 500ms, duration: 1s")
open(dst, "w").write(s)
EOF

if stage env 5; then
	{
		echo "perfgate: $PG"
		"$PG" version 2>&1 || true
		echo "short: $SHORT, budget: $BUDGET s, stages: $STAGES"
		nproc
		nvidia-smi --query-gpu=index,name,driver_version,memory.total,mig.mode.current,clocks.max.sm --format=csv 2>&1 || echo "nvidia-smi: not available"
		nvidia-smi -L 2>&1 || true
		python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1 | tail -1
		python3 -c 'import grpc; print("grpcio", grpc.__version__)' 2>&1 | tail -1
		python3 -c 'import grpc_tools; print("grpcio-tools: importable")' 2>&1 | tail -1
		git --version
	} > "$OUT/env.txt" 2>&1
	tee -a "$OUT/device-run.log" < "$OUT/env.txt"
	bounded 20 gpu-sample-probe "$PG" gpu-sample --duration 1s --interval 100ms || log "perfgate gpu-sample failed (see gpu-sample-probe.txt): no GPU telemetry"
fi

for ab in a b; do
	if stage "suite-$ab" $((RUN_S * 2 / 3)); then
		T0=$SECONDS
		bounded "$RUN_S" "suite-$ab" "$PG" run --config "$CFG" --out "$OUT/suite-$ab" || { log "suite-$ab failed: $(tail -3 "$OUT/suite-$ab.txt")"; status=1; }
		log "suite-$ab: $((SECONDS - T0)) s"
	fi
done

if stage baseline 5; then
	bounded 30 baseline "$PG" baseline update --from "$OUT/suite-a" --from "$OUT/suite-b" \
		--to "$OUT/baseline" --config "$CFG" || { log "baseline failed: $(tail -3 "$OUT/baseline.txt")"; status=1; }
fi

AA_RC=
if stage gate-aa $((AA_S * 2 / 3)); then
	T0=$SECONDS
	bounded "$AA_S" gate-aa "$PG" gate --config "$CFG" --baselines "$OUT/baseline" --out "$OUT/gate-aa" --format markdown
	AA_RC=$?
	log "gate-aa: exit $AA_RC (0 pass, 1 regression, 2 usage, 3 run failed) in $((SECONDS - T0)) s"
	[ "$AA_RC" = 0 ] || status=1
fi

AB_RC=
if stage ab $((AB_S * 2 / 3)); then
	# A throwaway repository: commit 1 batching on (the base), commit 2
	# batching off (the head, the regression). perfgate gate --ab HEAD~1
	# checks the base out in a worktree of its own and runs both, ABBA.
	REPO=$OUT/ab-repo
	rm -rf "$REPO"
	mkdir -p "$REPO"
	cp "$HERE/serve.py" "$REPO/serve.py"
	python3 - "$HERE/perfgate.yaml" "$REPO/perfgate.yaml" "$SHORT" "$AB_TRIALS" "$AB_BUDGET" << 'EOF'
import sys
src, dst, short, trials, budget = sys.argv[1:6]
s = open(src).read()
head, rest = s.split("scenarios:\n", 1)
load = "{mode: concurrency, concurrency: 64, warmup: 1s, duration: 2s, trials: 4}"
if short == "1":
    load = "{mode: concurrency, concurrency: 4, warmup: 500ms, duration: 1s, trials: 4}"
head = head.replace("    dir: .\n", "    dir: .\n    build: [\"python3\", \"-m\", \"py_compile\", \"serve.py\"]\n")
open(dst, "w").write(head + """scenarios:
  - name: mlp-service
    layer: service
    target: serve
    protocol: kserve-http
    model: mlp
    shape: [1, 64]
    datatype: FP32
    load: %s
ab:
  resident: both
  max_trials: %s
  budget: %s
""" % (load, trials, budget))
EOF
	g() { git -C "$REPO" -c user.name=perfgate -c user.email=perfgate@localhost "$@"; }
	{
		g init -q && g add serve.py perfgate.yaml && g commit -qm "serve: dynamic batching on (max batch 32)" &&
			sed -i 's/ap.add_argument("--max-batch", type=int, default=32)/ap.add_argument("--max-batch", type=int, default=1)/' "$REPO/serve.py" &&
			grep -q 'default=1)' "$REPO/serve.py" && g commit -qam "serve: batching off (max batch 1): the regression" &&
			g log --oneline
	} > "$OUT/ab-repo.txt" 2>&1 || { log "could not make the A/B repository: $(tail -3 "$OUT/ab-repo.txt")"; status=1; }
	T0=$SECONDS
	cd "$REPO" || exit 1
	bounded "$AB_S" gate-ab "$PG" gate --config perfgate.yaml --ab HEAD~1 --out "$OUT/gate-ab" --format markdown
	AB_RC=$?
	cd - > /dev/null || exit 1
	log "gate-ab: exit $AB_RC (1 = the regression was caught) in $((SECONDS - T0)) s"
	[ "$AB_RC" = 1 ] || status=1
fi

if stage summary 5; then
	python3 "$HERE/device_summary.py" "$OUT" "${AA_RC:-}" "${AB_RC:-}" > "$OUT/summary.md" 2> "$OUT/summary.err" || { log "summary failed: $(tail -3 "$OUT/summary.err")"; status=1; }
	tee -a "$OUT/device-run.log" < "$OUT/summary.md"
fi

if stage partition $((PART_S * 2 / 3)); then
	# Time-sliced: partition.sh never changes MIG settings (none is enabled
	# on the device machine: it then shares the GPU between two servers).
	T0=$SECONDS
	bounded "$PART_S" partition env PERFGATE="$PG" OUT="$OUT/partition" SWEEP_BUDGET="$SWEEP_BUDGET" \
		SWEEP_TIMEOUT="$SWEEP_TIMEOUT" SWEEP_START="$SWEEP_START" START_TIMEOUT=60 SLO_P99="$SLO" PROBE_DURATION=2s PER_DEVICE=2 \
		bash "$HERE/partition.sh" || { log "partition failed: $(tail -3 "$OUT/partition.txt")"; status=1; }
	log "partition: $((SECONDS - T0)) s"
	if [ -f "$OUT/partition/whole.json" ]; then
		bounded 20 size "$PG" size --result "$OUT/partition/whole.json" --peak-qps 20000 --headroom 1.3 --format markdown ||
			{ log "size failed: $(tail -3 "$OUT/size.txt")"; status=1; }
		tee -a "$OUT/device-run.log" < "$OUT/size.txt"
	fi
fi

log "done in $((SECONDS - START)) s of $BUDGET, status $status"
exit "$status"
