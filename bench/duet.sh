#!/usr/bin/env bash
# bench/duet.sh: the concurrent A/B design (both sides at once, one
# schedule to each) against the interleaved one (ABBA), issue 44 item 5,
# on decisive.sh's CPU-bound service: perfgate's reference server with
# --sim-cpu, 2 ms of CPU a request on one worker, 100 req/s open loop
# (about 20% utilisation), trials of 3 s after 1 s warm-ups
# (bench/lib.sh's fixed scenario; an A/B trial is one window).
#
# In a throwaway repository whose committed service costs 2 ms a request,
# `gate --ab HEAD --design D` with the head costing 2 ms (A/A) or COST_10
# (default 2.2 ms: 10% more CPU a request), for each design D and host
# state (quiet; beside a CPU hog at normal priority). The runs go round
# robin (each round: every state, in it every design, A/A then +10%), so
# that a drift of the runner over the minutes reaches every cell alike.
# One line per run; per design and state at the end:
#   - A/A: decided (unchanged) and false decisions (regressed, improved);
#   - +10%: caught (regressed) and false decisions (unchanged, improved);
#   - runner time per decided verdict: the median runner_s of the decided
#     runs, and the runner time of all runs over the decided ones (the
#     comparison's runner_s_per_decided, summed: undecided runs charged);
#   - the median wall time of a run, starts and builds included;
#   - the interleaved design's order effect (ab.md#the-order-effect): how
#     much slower the side measured first in a pair was, P50 and P99, each
#     run's on its line and the A/A runs' mean per state (DESIGNS=interleaved
#     CASES=aa measures it alone: quietly, and beside the hog).
#
# Not part of CI (about an hour at the defaults). Settings (environment):
# RUNS (5: A/A and +10% runs per design and state), CASES ("aa r10":
# A/A and +10%), DESIGNS
# ("interleaved concurrent"), STATES ("quiet hog"), COST (2ms: the
# service's CPU a request), RATE (100: req/s; keep COST × RATE at 20% of
# a core to compare cells), COST_10 (2.2ms: 1.1 × COST),
# MAX_TRIALS (20: ab.max_trials), DURATION (3s: the window), WARMUP (1s:
# each window's warm-up), PIN (empty;
# 1: the target on CPU 1 and perfgate on CPU 0, bench/lib.sh; split: the
# targets on CPUs 0-1 and perfgate unpinned, so that the concurrent
# design gives each side one CPU, swapped at every start), METRICS (empty;
# 1: the service's Prometheus metrics, so that the gate reads its compute
# time a request, server_compute_ms, bench/lib.sh), P99_EQUIVALENCE
# (empty; 10%: gate.p99_equivalence, bench/lib.sh), NICE (empty; -10:
# perfgate and the targets it starts at that niceness, a higher CPU
# weight than a neighbour's at normal priority; needs CAP_SYS_NICE),
# PERFGATE (a
# built binary; default: built here), RESULTS (default
# bench/duet-<date>.txt), WORK (the scratch folder; KEEP=1 keeps it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
RUNS=${RUNS:-5}
DESIGNS=${DESIGNS:-interleaved concurrent}
STATES=${STATES:-quiet hog}
CASES=${CASES:-aa r10}
COST=${COST:-2ms}
RATE=${RATE:-100}
COST_10=${COST_10:-2.2ms}
MAX_TRIALS=${MAX_TRIALS:-20}
DURATION=${DURATION:-3s}
WARMUP=${WARMUP:-1s}
RESULTS=${RESULTS:-$root/bench/duet-$(date -u +%F).txt}
work=${WORK:-$(mktemp -d /tmp/perfgate-duet.XXXXXX)}
hog=
stop_hog() {
	if [ -n "$hog" ]; then
		kill "$hog" 2>/dev/null || true
		wait "$hog" 2>/dev/null || true
		hog=
	fi
}
cleanup() {
	stop_hog
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${PERFGATE:-}" ]; then
	go build -o "$work/perfgate" ./cmd/perfgate
	PERFGATE=$work/perfgate
fi
pg=$PERFGATE
say() { echo "$*" | tee -a "$RESULTS"; }
say "# bench/duet.sh $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) cores $(nproc) runs $RUNS designs '$DESIGNS' states '$STATES' cases '$CASES' cost $COST at $RATE req/s, +10% cost $COST_10 max_trials $MAX_TRIALS window $DURATION after $WARMUP pinned ${PIN:-no} metrics ${METRICS:-no} p99_equivalence ${P99_EQUIVALENCE:-threshold} nice ${NICE:-0} load $(cut -d' ' -f1-3 /proc/loadavg)"

. "$root/bench/lib.sh"
d=$work/repo
mkdir -p "$d"
git -C "$d" init -q
if [ "${PIN:-}" = split ]; then
	PIN='' svc_config "$d/perfgate.yaml" "$pg" fixed
	sed -i 's|^    dir: \.$|    dir: .\n    cpus: "0-1"|' "$d/perfgate.yaml"
else
	svc_config "$d/perfgate.yaml" "$pg" fixed
fi
sed -i "s|rate: 100, warmup: 1s, duration: 3s|rate: $RATE, warmup: $WARMUP, duration: $DURATION|" "$d/perfgate.yaml"
printf 'ab:\n  max_trials: %s\n' "$MAX_TRIALS" >>"$d/perfgate.yaml"
echo "$COST" >"$d/cost.txt"
git -C "$d" add -A
git -C "$d" -c user.name=bench -c user.email=bench@localhost commit -qm base
runs=$work/runs.tsv
: >"$runs"

ab() { # ab STATE DESIGN CASE I HEADCOST
	local label=$1-$2-$3-$4 rc=0 t0 secs
	echo "$5" >"$d/cost.txt"
	t0=$(date +%s.%N)
	(cd "$d" && ${NICE:+nice -n "$NICE"} "$pg" gate --config perfgate.yaml --ab HEAD --design "$2" --out "$work/out-$label" >"$work/$label.log" 2>&1) || rc=$?
	secs=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)")
	echo "$COST" >"$d/cost.txt"
	python3 - "$work/out-$label/comparison.json" "$1" "$2" "$3" "$rc" "$secs" "$runs" <<'PY' | tee -a "$RESULTS"
import json, sys
path, state, design, case, rc, secs, runs = sys.argv[1:]
try:
    c = json.load(open(path))
    s, ab = c["scenarios"][0], c["ab"]["scenarios"][0]
except (OSError, KeyError, IndexError, ValueError) as e:
    print(f"  {state} {design} {case}: exit {rc}, {secs} s, no comparison ({e})")
    sys.exit(0)
ms = [f"{m['metric']} {m['delta_pct']:+.1f}% [{m['ci_pct'][0]:+.1f}, {m['ci_pct'][1]:+.1f}] {m['verdict']}"
      for m in s["metrics"] if m.get("gated") and m["metric"] in ("p50_ms", "p99_ms", "server_compute_ms")]
oe = ab.get("order_effect")
oe_text, oe50, oe99 = "no order effect", "", ""
if oe:
    oe_text = (f"order effect (first measured) P50 {oe['p50_pct']:+.1f}% [{oe['p50_ci_pct'][0]:+.1f}, {oe['p50_ci_pct'][1]:+.1f}], "
               f"P99 {oe['p99_pct']:+.1f}% [{oe['p99_ci_pct'][0]:+.1f}, {oe['p99_ci_pct'][1]:+.1f}] over {oe['blocks']} blocks")
    oe50, oe99 = oe["p50_pct"], oe["p99_pct"]
print(f"  {state} {design} {case}: exit {rc}, {secs} s: {s['verdict']} after {ab['pairs']} pairs "
      f"({ab.get('design', 'interleaved')}, stopped {ab['stopped']}), runner {ab['runner_s']:.0f} s; {'; '.join(ms)}; {oe_text}")
with open(runs, "a") as f:
    f.write(f"{state}\t{design}\t{case}\t{s['verdict']}\t{ab['runner_s']}\t{secs}\t{ab.get('design', '')}\t{oe50}\t{oe99}\n")
PY
}

for i in $(seq 1 "$RUNS"); do
	for state in $STATES; do
		case $state in
		quiet) stop_hog ;;
		hog)
			(while :; do :; done) &
			hog=$!
			;;
		*)
			echo "bench/duet.sh: unknown state $state (quiet or hog)" >&2
			exit 2
			;;
		esac
		for design in $DESIGNS; do
			for case in $CASES; do
				case $case in
				aa) ab "$state" "$design" aa "$i" "$COST" ;;
				r10) ab "$state" "$design" r10 "$i" "$COST_10" ;;
				*)
					echo "bench/duet.sh: unknown case $case (aa or r10)" >&2
					exit 2
					;;
				esac
			done
		done
		stop_hog
	done
done

python3 - "$runs" <<'PY' | tee -a "$RESULTS"
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
cells = {}
oes = {}
for state, design, case, verdict, runner, wall, measured, oe50, oe99 in rows:
    cells.setdefault((state, design), []).append((case, verdict, float(runner), float(wall)))
    if case == "aa" and oe99 != "":
        oes.setdefault((state, design), []).append((float(oe50), float(oe99)))
print("# per design and host state: A/A decided unchanged, +10% caught, false decisions; runner time per decided verdict (median over decided runs | all runs' runner time over the decided); median wall time a run")
print(f"{'state':6} {'design':12} {'A/A unchanged':>14} {'+10% regressed':>15} {'false':>6} {'s/decided (median)':>19} {'s/decided (total)':>18} {'wall (median)':>14}")
for (state, design), rs in sorted(cells.items()):
    aa = [r for r in rs if r[0] == "aa"]
    r10 = [r for r in rs if r[0] == "r10"]
    aa_ok = sum(r[1] == "unchanged" for r in aa)
    r10_ok = sum(r[1] == "regressed" for r in r10)
    false = sum(r[1] in ("regressed", "improved") for r in aa) + sum(r[1] in ("unchanged", "improved") for r in r10)
    decided = [r for r in rs if r[1] in ("regressed", "improved", "unchanged")]
    med = statistics.median(r[2] for r in decided) if decided else float("nan")
    total = sum(r[2] for r in rs) / len(decided) if decided else float("nan")
    wall = statistics.median(r[3] for r in rs)
    print(f"{state:6} {design:12} {aa_ok:>6} of {len(aa):<5} {r10_ok:>7} of {len(r10):<5} {false:>6} {med:>19.0f} {total:>18.0f} {wall:>14.0f}")
if oes:
    print("# order effect of the A/A runs (the first-measured side against the second; ABBA cancels it in the verdict): mean over runs, and the runs whose P99 figure was positive")
    for (state, design), xs in sorted(oes.items()):
        n = len(xs)
        print(f"{state:6} {design:12} P50 {statistics.fmean(x[0] for x in xs):+.1f}%  P99 {statistics.fmean(x[1] for x in xs):+.1f}%  "
              f"(P99 positive in {sum(x[1] > 0 for x in xs)} of {n} runs)")
PY
say "# done $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
