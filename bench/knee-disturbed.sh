#!/usr/bin/env bash
# bench/knee-disturbed.sh: stored-baseline A/A gates of a knee search, the
# candidate's first seconds disturbed by a neighbour that the host-busy
# check cannot see, two builds of perfgate side by side.
#
# The service is issue 27's: perfgate's reference server with --sim-cpu,
# 2 ms of CPU a request on one worker, swept for its max QPS under a 10 ms
# P99 SLO (5 knee estimates, 3 target processes, 1 s windows). The
# baseline is stored from two quiet runs measured with NEW. Then, N times,
# a run with REF and a run with NEW (interleaved), each with a duty-cycle
# CPU hog at normal priority for its first DISTURB seconds (BUSY ms
# spinning, IDLE ms asleep: 0.4 of a core by default, under the 0.5-core
# busy threshold of a 2-core host), each gated with NEW against the
# baseline. Every run is of the same code, so any `regressed` or
# `improved` is a false call. DISTURB=0 measures quiet A/A gates.
#
# Not part of CI (about 90 s a pair). Settings (environment): REF and NEW
# (built binaries; required), N (3), DISTURB (20), BUSY (40), IDLE (60),
# WORK (the scratch folder, kept; a baseline there is reused).
set -euo pipefail
: "${REF:?REF: a perfgate binary to compare against}" "${NEW:?NEW: a perfgate binary}"
N=${N:-3}
DISTURB=${DISTURB:-20}
BUSY=${BUSY:-40}
IDLE=${IDLE:-60}
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-$(mktemp -d /tmp/perfgate-knee.XXXXXX)}
mkdir -p "$work"
cd "$work"
echo 2ms >cost.txt
. "$here/lib.sh"
svc_config perfgate.yaml "$NEW" knee
# duty SECONDS: the neighbour.
duty() {
	local end=$(($(date +%s) + $1))
	python3 - "$BUSY" "$IDLE" "$end" <<'PY'
import sys, time
busy, idle, end = float(sys.argv[1]) / 1000, float(sys.argv[2]) / 1000, float(sys.argv[3])
while time.time() < end:
    t = time.time()
    while time.time() - t < busy:
        pass
    time.sleep(idle)
PY
}
echo "# bench/knee-disturbed.sh $(date -u +%FT%TZ) cores $(nproc) load $(cut -d' ' -f1-3 /proc/loadavg) N=$N disturb ${DISTURB}s duty ${BUSY}/${IDLE} ms work $work"
if [ ! -d bl ]; then
	for r in b1 b2; do "$NEW" run --config perfgate.yaml --out $r >$r.log 2>&1; done
	"$NEW" baseline update --config perfgate.yaml --from b1 --from b2 --to bl >bl.log 2>&1
fi
for b in b1 b2; do
	python3 -c "import json; c=json.load(open('$b/cpu-knee.json'))['capacity']; print('baseline $b estimates', [round(x) for x in c.get('estimates', [])])"
done
for i in $(seq 1 "$N"); do
	for v in ref new; do
		pg=$REF
		[ $v = new ] && pg=$NEW
		r=$v-$i
		rm -rf $r g-$r
		[ "$DISTURB" -gt 0 ] && duty "$DISTURB" &
		t0=$(date +%s)
		"$pg" run --config perfgate.yaml --out $r >$r.log 2>&1 || true
		t1=$(date +%s)
		wait
		ec=0
		"$NEW" gate --config perfgate.yaml --baselines bl --results $r --out g-$r >g-$r.log 2>&1 || ec=$?
		python3 - $r $ec $((t1 - t0)) <<'PY'
import json, sys
r, ec, dt = sys.argv[1], sys.argv[2], sys.argv[3]
c = json.load(open(r + '/cpu-knee.json'))['capacity']
cmp = json.load(open('g-' + r + '/comparison.json'))
sc = cmp['scenarios'][0]
ms = [m for m in sc['metrics'] if m['metric'] == 'max_qps']
busy = sum(1 for p in c['points'] if (p.get('host') or {}).get('busy'))
if not ms:
    print(f"{r}: {dt}s exit {ec} {cmp['verdict']}: no max_qps ({sc.get('reason', '')})")
else:
    m = ms[0]
    print(f"{r}: {dt}s exit {ec} {cmp['verdict']}: max_qps {m['delta_pct']:+.1f}% [{m['ci_pct'][0]:+.1f}, {m['ci_pct'][1]:+.1f}] {m['verdict']}; "
          f"estimates {[round(x) for x in c.get('estimates', [])]}; {c['windows']} windows, {busy} busy; {(sc.get('reason') or '')[:100]}")
PY
	done
done
echo "# done $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)"
