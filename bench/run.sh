#!/usr/bin/env bash
# bench/run.sh: perfgate's generator cost against wrk2, wrk, vegeta and hey,
# side by side in one run, on loopback, with nginx as a target that is not
# the bottleneck.
#
#   bench/run.sh                          # about 5 minutes; writes bench/results-<date>.txt
#   DUR=5 CURVE= SUSTAIN= bench/run.sh    # the side-by-side table only
#   REPEATS=3 bench/run.sh                # three rounds: medians and ranges
#
# Not part of CI. See bench/README.md for what it measures and how.
set -euo pipefail

RATE=${RATE:-20000}         # (a) the fixed open-loop rate, req/s
CONNS=${CONNS:-64}          # connections (wrk/wrk2 -c, hey -c, vegeta workers, perfgate concurrency)
PG_CONNS=${PG_CONNS:-}      # perfgate's open-loop connection cap (empty: its default, a lazy pool)
DUR=${DUR:-10}              # seconds per measurement
WARMUP=${WARMUP:-0}         # perfgate's warm-up, seconds (excluded from its figures; the peers have none)
REPEATS=${REPEATS:-1}       # rounds of (a) and (b); every tool runs once per round
CLIENTS=${CLIENTS:-fast}    # perfgate clients to measure: fast (http1) and/or std (net/http)
CURVE=${CURVE-1000 5000 20000 50000}             # (c) the cost curve's rates ("" skips it)
SUSTAIN=${SUSTAIN-5000 10000 20000 30000 50000 70000 100000} # (d) rates tried, in order, until one fails ("" skips)
SUSTAIN_P99_MS=${SUSTAIN_P99_MS:-1} # (d) the bound on P99 latency from the intended send time
GEN_CPU=${GEN_CPU:-0}       # the core the generator is pinned to
TARGET_CPU=${TARGET_CPU:-1} # the core nginx is pinned to
PORT=${PORT:-18089}
# WRK2, VEGETA, PERFGATE: the binaries (found or built when unset);
# PERFGATE_BEFORE: another perfgate binary (an earlier build) measured in
# the same rounds as "before-<client>", for before/after figures;
# RESULTS: the file the report is written to (default bench/results-<date>.txt).

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
date_tag=$(date -u +%Y-%m-%d)
results=${RESULTS:-$root/bench/results-$date_tag.txt}
tmp=$(mktemp -d /tmp/perfgate-bench.XXXXXX)
nginx_pid=""
cleanup() {
	if [[ -n $nginx_pid ]]; then kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

log() { printf '%s\n' "$*" >&2; }

# --- tools -------------------------------------------------------------------

need=()
command -v wrk >/dev/null || need+=(wrk)
command -v hey >/dev/null || need+=(hey)
command -v taskset >/dev/null || need+=(util-linux)
command -v jq >/dev/null || need+=(jq)
[[ -x /usr/sbin/nginx ]] || command -v nginx >/dev/null || need+=(nginx)
[[ -x /usr/bin/time ]] || need+=(time)
if ((${#need[@]})); then
	log "installing ${need[*]} with apt-get"
	sudo=""; [[ $(id -u) == 0 ]] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

# wrk2 (Gil Tene's wrk with -R: a constant rate, latency counted from the
# intended send time) is not packaged by Debian. A prebuilt one is looked
# for beside the checkout (../shared/tools/wrk2/wrk2), used where it lies.
wrk2_bin=${WRK2:-}
if [[ -z $wrk2_bin ]]; then
	for c in "$(command -v wrk2 || true)" "$root/../shared/tools/wrk2/wrk2" /work/shared/tools/wrk2/wrk2; do
		if [[ -n $c && -x $c ]]; then wrk2_bin=$c; break; fi
	done
fi

vegeta_bin=${VEGETA:-}
if [[ -z $vegeta_bin ]]; then
	gobin=$(go env GOBIN 2>/dev/null || true); [[ -n $gobin ]] || gobin=$(go env GOPATH 2>/dev/null)/bin
	vegeta_bin=$(command -v vegeta || true)
	[[ -n $vegeta_bin ]] || [[ ! -x $gobin/vegeta ]] || vegeta_bin=$gobin/vegeta
	if [[ -z $vegeta_bin ]]; then
		log "installing vegeta v12.13.0 with go install"
		go install github.com/tsenart/vegeta/v12@v12.13.0 && vegeta_bin=$gobin/vegeta
	fi
fi

perfgate=${PERFGATE:-}      # a prebuilt binary, or built here from this tree
if [[ -z $perfgate ]]; then
	log "building perfgate"
	mkdir -p bench/.bin
	go build -o bench/.bin/perfgate ./cmd/perfgate
	perfgate="$root/bench/.bin/perfgate"
fi

# perf stat counts context switches and system calls beside the CPU time
# where the kernel lets it (software events only: no hardware counters
# needed); /usr/bin/time is the fallback.
use_perf=""
if command -v perf >/dev/null && perf stat -x, -e task-clock,context-switches,raw_syscalls:sys_enter true 2>&1 >/dev/null |
	grep -q '^[0-9.]*,,raw_syscalls'; then
	use_perf=1
fi

# --- target ------------------------------------------------------------------

if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
	log "port $PORT is in use; set PORT"
	exit 2
fi
mkdir -p "$tmp/nginx/logs"
cat >"$tmp/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	keepalive_requests 10000000;
	keepalive_timeout 300s;
	client_body_temp_path $tmp/nginx/body;
	proxy_temp_path $tmp/nginx/proxy;
	fastcgi_temp_path $tmp/nginx/fastcgi;
	uwsgi_temp_path $tmp/nginx/uwsgi;
	scgi_temp_path $tmp/nginx/scgi;
	server {
		listen 127.0.0.1:$PORT;
		location / { default_type text/plain; return 200 "ok"; }
	}
}
EOF
taskset -c "$TARGET_CPU" "$nginx_bin" -p "$tmp/nginx" -e "$tmp/nginx/logs/error.log" -c "$tmp/nginx/nginx.conf" &
nginx_pid=$!
for _ in $(seq 100); do
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
	sleep 0.05
done
url="http://127.0.0.1:$PORT/"
curl -fsS "$url" >/dev/null || { log "nginx did not answer on $url"; cat "$tmp/nginx/logs/error.log" >&2; exit 3; }

# --- measuring helpers -------------------------------------------------------

# gen CMD...: runs CMD pinned to GEN_CPU and sets CPU_S (user+sys seconds,
# every thread), CSW (context switches) and SYSC (system calls), the last
# two "" without perf.
gen() {
	if [[ -n $use_perf ]]; then
		taskset -c "$GEN_CPU" perf stat -x, -o "$tmp/stat" -e task-clock,context-switches,raw_syscalls:sys_enter "$@"
		CPU_S=$(awk -F, '$3 == "task-clock" { printf "%.6f", $1 / 1000 }' "$tmp/stat")
		CSW=$(awk -F, '$3 == "context-switches" { print $1 }' "$tmp/stat")
		SYSC=$(awk -F, '$3 == "raw_syscalls:sys_enter" { print $1 }' "$tmp/stat")
	else
		taskset -c "$GEN_CPU" /usr/bin/time -f '%U %S' -o "$tmp/time" "$@"
		CPU_S=$(awk '{ print $1 + $2 }' "$tmp/time")
		CSW="" SYSC=""
	fi
}
per() { awk -v c="$1" -v n="$2" -v k="${3:-1e6}" 'BEGIN { if (c != "" && n > 0) printf "%.1f", c * k / n; else print "n/a" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "n/a" && a != "" && b != "n/a" && b != "" && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# ms VALUE-WITH-UNIT: wrk2's "1.23ms", "850.00us", "2.10s", "1.5m" in ms.
ms() { awk -v v="$1" 'BEGIN { n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
	f = (u == "us") ? 0.001 : (u == "ms") ? 1 : (u == "s") ? 1000 : (u == "m") ? 60000 : 1
	printf "%.3f", n * f }'; }
# med VALUES...: the median (the lower middle of an even count), "n/a" skipped.
med() { printf '%s\n' "$@" | grep -v '^n/a$' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "n/a" }'; }
span() { printf '%s\n' "$@" | grep -v '^n/a$' | grep . | sort -g | awk '{ v[NR] = $1 } END { if (NR > 1) printf "%s-%s", v[1], v[NR] }'; }
hey_total() { awk '/responses/ && $1 ~ /^\[/ { n += $2 } END { print n + 0 }' "$1"; }

# Each run_* sets R_RPS (achieved), R_N (requests counted for the CPU),
# R_CPU (µs per request), R_CSW and R_SYS (per request), R_P99 (P99 latency
# from the intended send time, ms, "n/a" where the tool cannot tell),
# R_NOTE. Arguments: a rate (0: closed loop).

run_perfgate() { # CLIENT RATE [BINARY]
	local client=$1 rate=$2 bin=${3:-$perfgate} f=$tmp/pg.json extra=() rc=0
	[[ $client == default ]] || extra=(--client "$client")
	if ((rate > 0)); then
		extra+=(--rate "$rate")
		[[ -z $PG_CONNS ]] || extra+=(--connections "$PG_CONNS")
	else
		extra+=(--concurrency "$CONNS")
	fi
	rm -f "$f"
	gen "$bin" run --url "$url" "${extra[@]}" --duration "${DUR}s" --warmup "${WARMUP}s" --trials 1 \
		--out "$f" >"$tmp/pg.out" 2>&1 || rc=$?
	if [[ ! -s $f ]]; then
		log "perfgate failed (exit $rc):"; tail -20 "$tmp/pg.out" >&2
		R_RPS=n/a R_N=0 R_CPU=n/a R_CSW=n/a R_SYS=n/a R_P99=n/a R_NOTE="failed (exit $rc)"
		return 0
	fi
	local reqs rps lag
	reqs=$(jq '.summary.requests' "$f")
	rps=$(jq '.summary.achieved_rps' "$f")
	lag=$(jq '.summary.schedule_lag_p99_ms // 0' "$f")
	R_N=$(awk -v r="$reqs" -v a="$rps" -v w="$WARMUP" 'BEGIN { printf "%d", r + a * w }')
	R_RPS=$(printf '%.0f' "$rps")
	R_CPU=$(per "$CPU_S" "$R_N") R_CSW=$(per "$CSW" "$R_N" 1) R_SYS=$(per "$SYSC" "$R_N" 1)
	R_P99=$(jq '.summary.latency_ms.p99' "$f")
	R_NOTE="self $(per "$(jq '.summary.generator_cpu_cores' "$f")" "$rps") µs/req in the window"
	if ((rate > 0)); then R_NOTE+=", lag P99 ${lag} ms"; fi
	if [[ $(jq '.valid' "$f") == false ]]; then
		R_NOTE+="; invalid: $(jq -r '[.trials[].invalid // [] | .[]] | join("; ")' "$f" | cut -c1-160)"
	fi
}

run_wrk2() { # RATE
	gen "$wrk2_bin" -t1 -c "$CONNS" -d "${DUR}s" -R "$1" --latency "$url" >"$tmp/wrk2.out" 2>&1 || true
	R_N=$(awk '/requests in/ { print $1 }' "$tmp/wrk2.out"); R_N=${R_N:-0}
	R_RPS=$(awk -v n="$R_N" -v d="$DUR" 'BEGIN { printf "%.0f", n / d }')
	R_CPU=$(per "$CPU_S" "$R_N") R_CSW=$(per "$CSW" "$R_N" 1) R_SYS=$(per "$SYSC" "$R_N" 1)
	R_P99=$(ms "$(awk '$1 == "99.000%" { print $2; exit }' "$tmp/wrk2.out")")
	R_NOTE="-t1 -c$CONNS -R$1"
}

run_wrk() {
	gen wrk -t1 -c "$CONNS" -d "${DUR}s" "$url" >"$tmp/wrk.out" 2>&1 || true
	R_N=$(awk '/requests in/ { print $1 }' "$tmp/wrk.out"); R_N=${R_N:-0}
	R_RPS=$(awk '/Requests\/sec/ { printf "%.0f", $2 }' "$tmp/wrk.out")
	R_CPU=$(per "$CPU_S" "$R_N") R_CSW=$(per "$CSW" "$R_N" 1) R_SYS=$(per "$SYSC" "$R_N" 1)
	R_P99=n/a R_NOTE="-t1 -c$CONNS"
}

# vegeta's latency counts from the actual send; the intended send of hit i
# is the first send plus i/rate, so the latency from it is worked out per
# request from the results (sequence, send time, latency).
run_vegeta() { # RATE
	local rate=$1 args=()
	if ((rate > 0)); then
		args=(-rate="$rate" -max-connections="$CONNS")
	else
		args=(-rate=0 -workers="$CONNS" -max-workers="$CONNS" -max-connections="$CONNS")
	fi
	echo "GET $url" >"$tmp/targets"
	gen "$vegeta_bin" attack -targets="$tmp/targets" "${args[@]}" -duration="${DUR}s" -output="$tmp/vegeta.bin" 2>"$tmp/vegeta.err" || true
	"$vegeta_bin" report -type=json "$tmp/vegeta.bin" >"$tmp/vegeta.json" 2>/dev/null || echo '{}' >"$tmp/vegeta.json"
	R_N=$(jq '.requests // 0' "$tmp/vegeta.json")
	R_RPS=$(jq '.throughput // 0 | round' "$tmp/vegeta.json")
	R_CPU=$(per "$CPU_S" "$R_N") R_CSW=$(per "$CSW" "$R_N" 1) R_SYS=$(per "$SYSC" "$R_N" 1)
	R_P99=n/a R_NOTE="-max-connections $CONNS"
	if ((rate > 0)); then
		R_P99=$("$vegeta_bin" encode --to csv "$tmp/vegeta.bin" |
			awk -F, -v r="$rate" '$9 == 0 { t0 = $1 } { ts[NR] = $1; lat[NR] = $3; seq[NR] = $9 }
				END { for (i = 1; i <= NR; i++) printf "%.3f\n", (ts[i] - t0 - seq[i] * 1e9 / r + lat[i]) / 1e6 }' |
			sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int(NR * 0.99 + 0.999)]; else print "n/a" }')
	fi
}

run_hey() { # RATE
	local args=(-z "${DUR}s" -c "$CONNS")
	if (($1 > 0)); then args+=(-q "$(((${1} + CONNS - 1) / CONNS))"); fi
	gen hey "${args[@]}" "$url" >"$tmp/hey.out" 2>&1 || true
	R_N=$(hey_total "$tmp/hey.out")
	R_RPS=$(awk -v n="$R_N" -v d="$DUR" 'BEGIN { printf "%.0f", n / d }')
	R_CPU=$(per "$CPU_S" "$R_N") R_CSW=$(per "$CSW" "$R_N" 1) R_SYS=$(per "$SYSC" "$R_N" 1)
	R_P99=n/a R_NOTE="-c $CONNS"
	if (($1 > 0)); then R_NOTE+=" -q $((($1 + CONNS - 1) / CONNS)) (a per-worker ticker: a closed loop that hides stalls)"; fi
}

# tools RATE: the names measured at RATE (0: closed loop).
tools() {
	local t=()
	for c in $CLIENTS; do t+=("perfgate-$c"); done
	if [[ -n ${PERFGATE_BEFORE:-} ]]; then for c in $CLIENTS; do t+=("before-$c"); done; fi
	if (($1 > 0)); then
		[[ -z $wrk2_bin ]] || t+=(wrk2)
	else
		t+=(wrk)
	fi
	[[ -z $vegeta_bin ]] || t+=(vegeta)
	t+=(hey)
	printf '%s\n' "${t[@]}"
}

# measure TOOL RATE: one run of TOOL, figures in R_*.
measure() {
	log "  $1 at ${2/#0/closed loop} req/s"
	case $1 in
	perfgate-*) run_perfgate "${1#perfgate-}" "$2" ;;
	before-*) run_perfgate "${1#before-}" "$2" "$PERFGATE_BEFORE" ;;
	wrk2) run_wrk2 "$2" ;;
	wrk) run_wrk ;;
	vegeta) run_vegeta "$2" ;;
	hey) run_hey "$2" ;;
	esac
}

declare -A V # V[table|tool|field|round]

# --- (a) fixed rate and (b) closed loop, REPEATS rounds side by side ----------

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((r = 1; r <= REPEATS; r++)); do
	log "round $r of $REPEATS"
	for tb in a b; do
		rate=$RATE; [[ $tb == a ]] || rate=0
		for t in $(tools "$rate"); do
			measure "$t" "$rate"
			for k in RPS CPU CSW SYS P99; do v=R_$k; V[$tb|$t|$k|$r]=${!v}; done
			V[$tb|$t|NOTE]=$R_NOTE
		done
	done
done

# all TABLE TOOL FIELD: the values of every round.
all() { local i; for ((i = 1; i <= REPEATS; i++)); do echo "${V[$1|$2|$3|$i]:-n/a}"; done; }
cell() { local m s; m=$(med $(all "$@")); s=$(span $(all "$@")); [[ -z $s ]] && echo "$m" || echo "$m ($s)"; }
# ratios TABLE FIELD A B: A/B per round, then the median and range.
ratios() {
	local i x=()
	for ((i = 1; i <= REPEATS; i++)); do x+=("$(ratio "${V[$1|$3|$2|$i]:-n/a}" "${V[$1|$4|$2|$i]:-n/a}")"); done
	local m s; m=$(med "${x[@]}"); s=$(span "${x[@]}"); [[ -z $s ]] && echo "$m" || echo "$m ($s)"
}

# --- (c) the cost curve and (d) the highest sustained rate ---------------------

curve_tools=()
for c in $CLIENTS; do curve_tools+=("perfgate-$c"); done
if [[ -n ${PERFGATE_BEFORE:-} ]]; then for c in $CLIENTS; do curve_tools+=("before-$c"); done; fi
[[ -z $wrk2_bin ]] || curve_tools+=(wrk2)
[[ -z $vegeta_bin ]] || curve_tools+=(vegeta)
declare -A C S
if [[ -n $CURVE ]]; then
	log "cost curve"
	for rate in $CURVE; do
		for t in "${curve_tools[@]}"; do
			measure "$t" "$rate"
			C[$t|$rate]=$(printf '%s µs, %s req/s, P99 %s ms' "$R_CPU" "$R_RPS" "$R_P99")
		done
	done
fi
if [[ -n $SUSTAIN ]]; then
	log "highest sustained rate"
	for t in "${curve_tools[@]}"; do
		S[$t]="none of $SUSTAIN"
		for rate in $SUSTAIN; do
			measure "$t" "$rate"
			ok=$(awk -v a="$R_RPS" -v r="$rate" -v p="$R_P99" -v b="$SUSTAIN_P99_MS" \
				'BEGIN { print (a != "n/a" && p != "n/a" && a >= 0.99 * r && p < b) ? 1 : 0 }')
			S[$t|$rate]="$R_RPS req/s, P99 $R_P99 ms, $R_CPU µs/req"
			if ((ok)); then S[$t]=$rate; else break; fi
		done
	done
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report ----------------------------------------------------------------------

pg=perfgate-${CLIENTS%% *}
{
	printf 'perfgate bench  %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)"
	printf 'host: %s, %s, %s cores; generator on cpu %s, nginx (1 worker) on cpu %s\n' \
		"$(hostname)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)" "$GEN_CPU" "$TARGET_CPU"
	printf 'perfgate %s; wrk2 %s; wrk %s; vegeta %s; hey (Debian); nginx %s\n' \
		"$(git rev-parse --short HEAD 2>/dev/null || echo '?')" "${wrk2_bin:-absent}" \
		"$(wrk -v 2>&1 | head -1 | awk '{print $2}')" "${vegeta_bin:-absent}" \
		"$("$nginx_bin" -v 2>&1 | sed 's/.*\///')"
	printf 'CPU: %s; %s round(s), median (range) per cell; load average before %s, after %s\n\n' \
		"$([[ -n $use_perf ]] && echo 'perf stat task-clock (user+sys, all threads)' || echo '/usr/bin/time user+sys')" \
		"$REPEATS" "$load_before" "$load_after"

	for tb in a b; do
		if [[ $tb == a ]]; then
			rate=$RATE
			printf '(a) open loop at %s req/s, %ss; CPU per request over the requests sent\n' "$RATE" "$DUR"
		else
			rate=0
			printf '\n(b) closed loop, %s connections, %ss, one generator core\n' "$CONNS" "$DUR"
		fi
		printf '%-18s %20s %20s %14s %14s %18s  %s\n' tool 'req/s' 'CPU µs/req' 'switches/req' 'syscalls/req' 'P99 from intended' notes
		for t in $(tools "$rate"); do
			printf '%-18s %20s %20s %14s %14s %18s  %s\n' "$t" "$(cell $tb "$t" RPS)" "$(cell $tb "$t" CPU)" \
				"$(cell $tb "$t" CSW)" "$(cell $tb "$t" SYS)" "$(cell $tb "$t" P99)" "${V[$tb|$t|NOTE]:-}"
		done
	done

	printf '\nratios, %s over each peer, same rounds (median, range)\n' "$pg"
	for p in wrk2 vegeta hey before-${CLIENTS%% *}; do
		[[ -z ${V[a|$p|CPU|1]:-} ]] || printf '  CPU per request at %s req/s vs %-7s %s\n' "$RATE" "$p:" "$(ratios a CPU "$pg" "$p")"
	done
	for p in wrk vegeta hey before-${CLIENTS%% *}; do
		[[ -z ${V[b|$p|RPS|1]:-} ]] || printf '  closed-loop max rate vs %-7s %s\n' "$p:" "$(ratios b RPS "$pg" "$p")"
	done
	printf '  goals: CPU/req vs wrk2 <= 1 (0.8 moonshot); max rate vs wrk >= 0.9\n'

	if [[ -n $CURVE ]]; then
		printf '\n(c) cost curve: CPU µs per request, achieved req/s, P99 from the intended send (%ss each)\n' "$DUR"
		for rate in $CURVE; do
			for t in "${curve_tools[@]}"; do printf '  %6s req/s  %-16s %s\n' "$rate" "$t" "${C[$t|$rate]}"; done
		done
	fi
	if [[ -n $SUSTAIN ]]; then
		printf '\n(d) highest rate one core sustains (of %s): achieved >= 99%% and P99 from the intended send < %s ms\n' "$SUSTAIN" "$SUSTAIN_P99_MS"
		for t in "${curve_tools[@]}"; do
			printf '  %-16s %s\n' "$t" "${S[$t]}"
			for rate in $SUSTAIN; do
				[[ -z ${S[$t|$rate]:-} ]] || printf '  %16s at %6s: %s\n' '' "$rate" "${S[$t|$rate]}"
			done
		done
	fi
} | tee "$results"
log "written to $results"
