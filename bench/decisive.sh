#!/usr/bin/env bash
# bench/decisive.sh: how often the gate decides, measured on a real
# CPU-bound service (issue 27's design): perfgate's reference server with
# --sim-cpu, 2 ms of CPU a request on one worker, 100 req/s open loop
# (about 20% utilisation), 5 trials of 3 s, each trial its own process.
#
#   stored  N runs of the service as it is (A) and M runs of each slower
#           build (B: 10% and 25% more CPU a request, about +4% and +10%
#           at P99, whose ~4 ms includes the HTTP path), measured with
#           `perfgate run`; then gates
#           of the A runs (A/A) and of the B runs against baselines stored
#           from two A runs, from one A run (the assumed run-to-run noise),
#           and from one A run with the noise learned from a history of
#           the other A runs (`--history`). Every gate is `gate --results`
#           over runs measured once, so one measurement serves each mode.
#   ab      `gate --ab` in a throwaway repository whose head is the base
#           (A/A), or costs 2.5 ms (AB_COST_10: about +10% at P99) or 3.5 ms
#           (AB_COST_30: about +30%) a request, on a two-scenario suite (the
#           fixed-rate one and a knee search), each timed; and (AB_SLOW)
#           with a head of 12 ms a request, slower than the 10 ms SLO at
#           any rate: its knee search meets the SLO nowhere, and max QPS is
#           compared with its lowest failing rate as a bound.
#   llm     `gate --ab` of an LLM stream scenario (the reference server's
#           sim-llm, 80 requests/s, 16 tokens each): LLM_AA (2) A/A runs,
#           then LLM_10 (2) whose decode step costs LLM_STEP_10 (4.5ms, 4ms
#           in A: TPOT about +10%); LLM_PROCS (1) sets the server's
#           GOMAXPROCS (one core, the other for the load generator, as
#           the demo runs its server; empty: both cores shared, as
#           sessions 10 to 12 measured), LLM_MAX_TRIALS (40; 20 before
#           session 13) its ab.max_trials: on its own core the stream's
#           TTFT P99 is bound by its own sampling and needs about 30
#           pairs (bench/decisive-2026-12-07-s12.txt).
#   demo    DEMO_RUNS runs of `perfgate demo` (its layer pairs and ladder
#           steps measured interleaved and paired, then the planted
#           regression: the service layer's batched variant at 200 req/s
#           and its unbatched knee, each against the same server with
#           --item-overhead 2ms), each timed; per run, each pair's verdict
#           and the planted pairs', and at the end how many runs decided
#           every pair, caught the planted regression in both its pairs
#           and recomputed its instance count (issue 44's targets: 4 of 5
#           each), and the median wall time (target: about 3 min on 2
#           cores).
#
# Not part of CI (tens of minutes). Prints one line per gate and a table
# per mode; RESULTS names the output file (default
# bench/decisive-<date>.txt). Settings (environment): PHASES ("stored ab"),
# AB_SCENARIOS ("fixed knee": the ab phase's scenarios), RUNS_A (10), RUNS_B (6), STORED_COST_1 and STORED_COST_2 (the B builds'
# costs: 2.2ms and 2.5ms; 2.6ms is the newcomer's +30%), AB_AA (3), AB_10 (3), AB_30 (2), AB_SLOW (0),
# DEMO_RUNS (5; the demo phase runs only when PHASES names it),
# HOG (empty;
# 1 runs a CPU hog at normal priority throughout), PIN (empty; 1 puts
# the target on CPU 1 and perfgate on CPU 0: `cpus`, `generator_cpus`),
# PERFGATE (a built binary; default: built here), WORK (the scratch
# folder; KEEP=1 keeps it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
PHASES=${PHASES:-stored ab}
RUNS_A=${RUNS_A:-10}
RUNS_B=${RUNS_B:-6}
AB_AA=${AB_AA:-3}
AB_10=${AB_10:-3}
AB_30=${AB_30:-2}
AB_SLOW=${AB_SLOW:-0}
RESULTS=${RESULTS:-$root/bench/decisive-$(date -u +%F).txt}
work=${WORK:-$(mktemp -d /tmp/perfgate-decisive.XXXXXX)}
mkdir -p "$work"
hog=
cleanup() {
	[ -n "$hog" ] && kill "$hog" 2>/dev/null || true
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${PERFGATE:-}" ]; then
	go build -o "$work/perfgate" ./cmd/perfgate
	PERFGATE=$work/perfgate
fi
pg=$PERFGATE
say() { echo "$*" | tee -a "$RESULTS"; }
if [ -n "${HOG:-}" ]; then
	(while :; do :; done) &
	hog=$!
fi
say "# bench/decisive.sh $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) cores $(nproc) hog ${HOG:-none} pinned ${PIN:-no} phases '$PHASES' llm_procs '${LLM_PROCS-1}' llm_max_trials ${LLM_MAX_TRIALS:-40} load $(cut -d' ' -f1-3 /proc/loadavg)"

# The service and its config (bench/lib.sh): the cost comes from the
# target's folder (cost.txt), so an A/B checkout carries its own.
. "$root/bench/lib.sh"
config() { # config FILE [knee]
	if [ "${2:-}" = knee ]; then svc_config "$1" "$pg" fixed knee; else svc_config "$1" "$pg" fixed; fi
}
verdicts() { # verdicts COMPARISON.json: "headline scenario=verdict …"
	python3 - "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
parts = [c.get("verdict", "?")]
for s in c.get("scenarios", []):
    ms = [m for m in s.get("metrics", []) if m["metric"] in ("p50_ms", "p99_ms", "max_qps") and m.get("gated")]
    d = "".join(f" {m['metric']} {m['delta_pct']:+.1f}% [{m['ci_pct'][0]:+.1f}, {m['ci_pct'][1]:+.1f}] {m.get('verdict', '?')}, mde {m.get('mde_pct', float('nan')):.1f}%{' censored:' + m['censored'] if m.get('censored') else ''};" for m in ms)
    noise = s.get('run_to_run_source', '-')
    if s.get('run_to_run_median_source'):
        noise += f", medians {s['run_to_run_median_source']}"
    parts.append(f"{s['scenario']}={s['verdict']}{d} noise: {noise}")
print(" ".join(parts))
PY
}

# ab_gate PHASE DIR FILE BASE LABEL HEAD: `gate --ab HEAD` in the
# repository DIR, whose committed FILE holds BASE, with FILE holding HEAD
# in the checkout; one line of verdicts (or why there was none), then FILE
# back to BASE.
ab_gate() {
	local phase=$1 dir=$2 file=$3 base=$4 label=$5 head=$6
	echo "$head" >"$dir/$file"
	local t0 rc=0
	t0=$(date +%s)
	(cd "$dir" && "$pg" gate --config perfgate.yaml --ab HEAD --out "$dir/out-$label" >"$dir/$label.log" 2>&1) || rc=$?
	local secs=$(($(date +%s) - t0))
	if [ -f "$dir/out-$label/comparison.json" ]; then
		say "  $phase $label (head $head): exit $rc, $secs s: $(verdicts "$dir/out-$label/comparison.json")"
	else
		say "  $phase $label (head $head): exit $rc, $secs s, no comparison: $(tail -n 2 "$dir/$label.log" | tr '\n' ' ')"
	fi
	echo "$base" >"$dir/$file"
}

if [[ " $PHASES " == *" stored "* ]]; then
	d=$work/stored
	mkdir -p "$d"
	config "$d/perfgate.yaml"
	measure() { # measure NAME COST
		echo "$2" >"$d/cost.txt"
		if ! "$pg" run --config "$d/perfgate.yaml" --out "$d/$1" >"$d/$1.log" 2>&1; then
			say "run $1 (cost $2) failed: $(tail -n 3 "$d/$1.log" | tr '\n' ' ')"
			return 1
		fi
	}
	t0=$(date +%s)
	# The baselines' four A runs first (a real baseline is older than its
	# candidates), then the candidates interleaved, A with each B, so that
	# a drift of the runner over the minutes reaches the A/A gates and the
	# B gates alike instead of reading as the B builds' slowdown.
	for i in $(seq 1 "$((RUNS_A > RUNS_B + 4 ? RUNS_A : RUNS_B + 4))"); do
		if [ "$i" -le "$RUNS_A" ]; then measure "a$i" 2ms || true; fi
		j=$((i - 4))
		if [ "$j" -ge 1 ] && [ "$j" -le "$RUNS_B" ]; then measure "b10-$j" "${STORED_COST_1:-2.2ms}" || true; measure "b25-$j" "${STORED_COST_2:-2.5ms}" || true; fi
	done
	say "stored: $RUNS_A runs at 2 ms, $RUNS_B at ${STORED_COST_1:-2.2ms} (b10) and at ${STORED_COST_2:-2.5ms} (b25), measured in $(($(date +%s) - t0)) s"
	# The run-to-run spread of the A runs' P99 (what a one-run baseline
	# cannot see), with the CPU placement they ran under.
	python3 - "$d" "$RUNS_A" <<'PY' | tee -a "$RESULTS"
import json, math, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
p50, p99, bad = [], [], 0
for i in range(1, n + 1):
    try:
        r = json.load(open(f"{d}/a{i}/cpu-fixed.json"))
    except OSError:
        continue
    if not r.get("valid", False):
        bad += 1
        continue
    p50.append(r["summary"]["latency_ms"]["p50"])
    p99.append(r["summary"]["latency_ms"]["p99"])
def sd(v):
    logs = [math.log(x) for x in v]
    return 100 * statistics.stdev(logs) if len(logs) > 1 else float("nan")
print(f"stored: A runs' P50 (ms) {' '.join(f'{v:.3f}' for v in p50)}; run-to-run SD {sd(p50):.1f}% (log scale)")
print(f"stored: A runs' P99 (ms) {' '.join(f'{v:.2f}' for v in p99)}; run-to-run SD {sd(p99):.1f}% (log scale), {bad} invalid")
PY
	# Baselines: two from two runs each (a1+a2, a3+a4), two from one run
	# (a1, a3), and the one-run baselines again with the noise learned from
	# a history of every other A run (its own candidate left out).
	"$pg" baseline update --config "$d/perfgate.yaml" --from "$d/a1" --from "$d/a2" --to "$d/bl-two-1" >>"$d/baselines.log" 2>&1 || say "baseline update failed: $(tail -n 1 "$d/baselines.log")"
	"$pg" baseline update --config "$d/perfgate.yaml" --from "$d/a3" --from "$d/a4" --to "$d/bl-two-2" >>"$d/baselines.log" 2>&1 || say "baseline update failed: $(tail -n 1 "$d/baselines.log")"
	"$pg" baseline update --config "$d/perfgate.yaml" --from "$d/a1" --to "$d/bl-one-1" >>"$d/baselines.log" 2>&1 || say "baseline update failed: $(tail -n 1 "$d/baselines.log")"
	"$pg" baseline update --config "$d/perfgate.yaml" --from "$d/a3" --to "$d/bl-one-2" >>"$d/baselines.log" 2>&1 || say "baseline update failed: $(tail -n 1 "$d/baselines.log")"
	gate() { # gate MODE BASELINES CANDIDATE [history]
		local out=$d/g-$1-$(basename "$2")-$(basename "$3")
		local extra=()
		if [ -n "${4:-}" ]; then extra=(--history "$4"); fi
		"$pg" gate --config "$d/perfgate.yaml" --baselines "$2" --results "$d/$3" --out "$out" "${extra[@]}" >"$out.log" 2>&1 || true
		if [ -f "$out/comparison.json" ]; then
			say "  $1 $(basename "$2") vs $3: $(verdicts "$out/comparison.json")"
		else
			say "  $1 $(basename "$2") vs $3: no comparison: $(tail -n 2 "$out.log" | tr '\n' ' ')"
		fi
	}
	hist() { # hist SKIP: a history of the A runs except a1, a3 and SKIP
		local h=$d/hist-$1
		rm -rf "$h"
		local n=0
		for i in $(seq 1 "$RUNS_A"); do
			[ "a$i" = "$1" ] && continue
			n=$((n + 1))
			"$pg" history add --history "$h" --commit "$(printf '%040d' "$n")" --from "$d/a$i" >/dev/null 2>&1 || true
		done
		echo "$h"
	}
	for cand in $(seq 5 "$RUNS_A"); do
		for bl in bl-two-1 bl-two-2; do gate two "$d/$bl" "a$cand"; done
		for bl in bl-one-1 bl-one-2; do gate one "$d/$bl" "a$cand"; done
		gate one-history "$d/bl-one-1" "a$cand" "$(hist "a$cand")"
	done
	for i in $(seq 1 "$RUNS_B"); do
		for b in b10 b25; do
			for bl in bl-two-1 bl-two-2; do gate two "$d/$bl" "$b-$i"; done
			for bl in bl-one-1 bl-one-2; do gate one "$d/$bl" "$b-$i"; done
			gate one-history "$d/bl-one-1" "$b-$i" "$(hist none)"
		done
	done
fi

if [[ " $PHASES " == *" ab "* ]]; then
	d=$work/ab
	mkdir -p "$d"
	git -C "$d" init -q
	svc_config "$d/perfgate.yaml" "$pg" ${AB_SCENARIOS:-fixed knee}
	echo 2ms >"$d/cost.txt"
	git -C "$d" add -A
	git -C "$d" -c user.name=bench -c user.email=bench@localhost commit -qm base
	ab() { ab_gate ab "$d" cost.txt 2ms "$@"; }
	for i in $(seq 1 "$AB_AA"); do ab "aa-$i" 2ms; done
	for i in $(seq 1 "$AB_10"); do ab "r10-$i" "${AB_COST_10:-2.5ms}"; done
	for i in $(seq 1 "$AB_30"); do ab "r30-$i" "${AB_COST_30:-3.5ms}"; done
	for i in $(seq 1 "$AB_SLOW"); do ab "slow-$i" 12ms; done
fi
if [[ " $PHASES " == *" llm "* ]]; then
	# An LLM stream scenario under `gate --ab`: the reference server's
	# sim-llm (a vLLM-style continuous-batching scheduler whose decode step
	# costs the step read from step.txt), streamed over the OpenAI API at
	# 80 requests/s, 16 tokens each (320 requests a trial: a TTFT P99 of 100
	# stayed ±10% after 20 pairs); A/A, then a head whose step costs
	# LLM_STEP_10 (4.5 ms against 4 ms: a step also pays for each running
	# sequence, so TPOT moves about +10%; the comparison says by how much).
	d=$work/llm
	mkdir -p "$d"
	llm_env=
	[ -n "${LLM_PROCS-1}" ] && llm_env=$'\n'"    env: {GOMAXPROCS: \"${LLM_PROCS-1}\"}"
	git -C "$d" init -q
	cat >"$d/perfgate.yaml" <<EOF
version: 1
gate:
  p99_regression: 5%
  confidence: 0.95
  on_inconclusive: pass
ab: {max_trials: ${LLM_MAX_TRIALS:-40}}
targets:
  llm:
    command: ["sh", "-c", 'exec $pg fixture serve --addr 127.0.0.1:\$0 --model sim --llm-step \$(cat step.txt)', "{port}"]
    ready: "http://127.0.0.1:{port}/v2/health/ready"
    dir: .$llm_env
scenarios:
  - name: llm-stream
    layer: model
    target: llm
    protocol: openai
    model: sim-llm
    endpoint: completions
    prompt_tokens: 8
    max_tokens: 16
    load: {mode: rate, rate: 80, arrival: poisson, seed: 5, warmup: 500ms, duration: 4s, trials: 5}
EOF
	echo 4ms >"$d/step.txt"
	git -C "$d" add -A
	git -C "$d" -c user.name=bench -c user.email=bench@localhost commit -qm base
	llm() { ab_gate llm "$d" step.txt 4ms "$@"; }
	for i in $(seq 1 "${LLM_AA:-2}"); do llm "aa-$i" 4ms; done
	for i in $(seq 1 "${LLM_10:-2}"); do llm "r10-$i" "${LLM_STEP_10:-4.5ms}"; done
fi
demo_verdicts() { # demo_verdicts COMPARISON.json: per pair, its verdict and the metrics that decided it
	python3 - "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for s in c.get("scenarios", []):
    ms = [m for m in s.get("metrics", []) if m.get("gated") and m.get("verdict") == s["verdict"]] or [m for m in s.get("metrics", []) if m.get("gated")][:1]
    why = "; ".join(f"{m['metric']} {m['delta_pct']:+.1f}% [{m['ci_pct'][0]:+.1f}, {m['ci_pct'][1]:+.1f}]" for m in ms[:2] if m.get("ci_pct"))
    print(f"    {s['scenario']}: {s['verdict']} ({why})")
PY
}
if [[ " $PHASES " == *" demo "* ]]; then
	say "# demo: ${DEMO_RUNS:-5} runs of perfgate demo$([ -n "$hog" ] && echo ', beside a CPU hog')"
	for i in $(seq 1 "${DEMO_RUNS:-5}"); do
		d=$work/demo-$i
		t0=$(date +%s)
		rc=0
		(cd "$work" && "$pg" demo --out "$d" >"$d.log" 2>&1) || rc=$?
		secs=$(($(date +%s) - t0))
		say "  demo $i: exit $rc, $secs s"
		for c in "$d/comparison.json" "$d/planted/comparison.json"; do
			if [ -f "$c" ]; then say "$(demo_verdicts "$c")"; else say "    no $c"; fi
		done
	done
	python3 - "$work" "${DEMO_RUNS:-5}" <<'PY' | tee -a "$RESULTS"
import json, os, re, statistics, sys
work, n = sys.argv[1], int(sys.argv[2])
decided = caught = sized = 0
for i in range(1, n + 1):
    d = os.path.join(work, f"demo-{i}")
    try:
        c = json.load(open(os.path.join(d, "comparison.json")))
        decided += all(s["verdict"] in ("regressed", "improved", "unchanged") for s in c["scenarios"])
    except (OSError, KeyError, ValueError):
        pass
    try:
        p = json.load(open(os.path.join(d, "planted", "comparison.json")))
        caught += len(p["scenarios"]) == 2 and all(s["verdict"] == "regressed" for s in p["scenarios"])
    except (OSError, KeyError, ValueError, IndexError):
        pass
    try:
        out = open(d + ".log").read()
        planted = out[out.index("the planted regression:"):]
        sized += re.search(r"the knee \(service layer\): instances \d+ → \d+ \(\+\d+\)", planted) is not None
    except (OSError, ValueError):
        pass
print(f"  demo: every pair decided in {decided} of {n} runs; the planted regression caught (both its pairs regressed) in {caught} of {n}; its instance count recomputed (more instances) in {sized} of {n}")
PY
fi
say "# done $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
