#!/usr/bin/env bash
# bench/run.sh: perfgate's generator cost against wrk and hey, side by side,
# on loopback, with nginx as a target that is not the bottleneck.
#
#   bench/run.sh                      # about 2-3 minutes; writes bench/results-<date>.txt
#   DUR=5 RATE=10000 bench/run.sh     # shorter
#
# Not part of CI. See bench/README.md for what it measures and how.
set -euo pipefail

RATE=${RATE:-20000}        # (a) the fixed open-loop rate, req/s
CONNS=${CONNS:-64}         # connections (hey workers, wrk connections, perfgate concurrency)
DUR=${DUR:-10}             # seconds per measurement
WARMUP=${WARMUP:-2}        # perfgate's warm-up, seconds (excluded from its figures)
GEN_CPU=${GEN_CPU:-0}      # the core the generator is pinned to
TARGET_CPU=${TARGET_CPU:-1} # the core nginx is pinned to
PORT=${PORT:-18089}
# RESULTS: the file the table is written to (default bench/results-<date>.txt)

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
[[ -x /usr/sbin/nginx ]] || command -v nginx >/dev/null || need+=(nginx)
[[ -x /usr/bin/time ]] || need+=(time)
if ((${#need[@]})); then
	log "installing ${need[*]} with apt-get"
	sudo=""; [[ $(id -u) == 0 ]] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

# wrk2 (wrk with -R, a constant-throughput, coordinated-omission-corrected
# mode) is not packaged by Debian; its wrk 4.x has no rate option.
wrk2_bin=""
if command -v wrk2 >/dev/null; then
	wrk2_bin=$(command -v wrk2)
elif grep -q -- '--rate\|-R,' <<<"$(wrk --help 2>&1 || true)"; then
	wrk2_bin=$(command -v wrk)
fi

perfgate=${PERFGATE:-}      # a prebuilt binary, or built here from this tree
if [[ -z $perfgate ]]; then
	log "building perfgate"
	mkdir -p bench/.bin
	go build -o bench/.bin/perfgate ./cmd/perfgate
	perfgate="$root/bench/.bin/perfgate"
fi
clients=(default)
help=$("$perfgate" run -h 2>&1 || true) # captured first: grep -q would cut the pipe
if grep -q -- '-client' <<<"$help"; then
	clients=(fast std)
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

gen() { taskset -c "$GEN_CPU" /usr/bin/time -f '%U %S' -o "$tmp/time" "$@"; }
cpu_s() { awk '{print $1 + $2}' "$tmp/time"; }
# jnum FILE KEY: the first number stored under KEY in a JSON file (the
# result's summary comes before its trials).
jnum() { grep -o "\"$2\": *[-0-9.eE+]*" "$1" | head -1 | sed 's/.*: *//'; }
us_per() { awk -v c="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.1f", c * 1e6 / n; else print "n/a" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "n/a" && b != "n/a" && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# hey_total OUT: responses hey received, from its status code distribution.
hey_total() { awk '/responses/ && $1 ~ /^\[/ { n += $2 } END { print n + 0 }' "$1"; }

declare -A rate_rps rate_cpu rate_note max_rps max_cpu max_note

# perfgate_run NAME CLIENT MODE-FLAGS...: one perfgate run; CPU per
# request from the process's CPU (user+sys, warm-up and start-up included)
# over every request it sent, warm-up ones estimated at the achieved rate.
perfgate_run() {
	local name=$1 client=$2 kind=$3; shift 3
	local extra=()
	[[ $client == default ]] || extra=(--client "$client")
	log "$name"
	local rc=0 rps reqs cores cpu total self why
	gen "$perfgate" run --url "$url" "$@" --duration "${DUR}s" --warmup "${WARMUP}s" --trials 1 \
		--out "$tmp/$client-$kind.json" "${extra[@]}" >"$tmp/$client-$kind.out" 2>&1 || rc=$?
	if [[ ! -s $tmp/$client-$kind.json ]]; then
		log "perfgate failed (exit $rc):"; tail -20 "$tmp/$client-$kind.out" >&2
		return 0
	fi
	rps=$(jnum "$tmp/$client-$kind.json" achieved_rps)
	reqs=$(jnum "$tmp/$client-$kind.json" requests)
	cores=$(jnum "$tmp/$client-$kind.json" generator_cpu_cores)
	cpu=$(cpu_s)
	total=$(awk -v r="$reqs" -v a="$rps" -v w="$WARMUP" 'BEGIN { printf "%d", r + a * w }')
	self=$(awk -v c="${cores:-0}" -v r="$rps" 'BEGIN { if (r > 0 && c > 0) printf "%.1f", c * 1e6 / r; else print "n/a" }')
	self="self-reported $self µs/req in the window; exit $rc"
	if grep -q '"valid": *false' "$tmp/$client-$kind.json"; then
		why=""
		command -v jq >/dev/null && why=": $(jq -r '[.trials[].invalid // [] | .[]] | join("; ")' "$tmp/$client-$kind.json")"
		self="$self; marked invalid$why"
	fi
	rps=$(awk -v r="$rps" 'BEGIN { printf "%.0f", r }')
	if [[ $kind == rate ]]; then
		rate_rps[$name]=$rps; rate_cpu[$name]=$(us_per "$cpu" "$total"); rate_note[$name]=$self
	else
		max_rps[$name]=$rps; max_cpu[$name]=$(us_per "$cpu" "$total"); max_note[$name]=$self
	fi
}

# --- (a) CPU per request at a fixed rate ---------------------------------------

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
per_worker=$(( (RATE + CONNS - 1) / CONNS ))
for c in "${clients[@]}"; do
	perfgate_run "perfgate ($c)" "$c" rate --rate "$RATE"
done
log "hey -q $per_worker"
gen hey -z "${DUR}s" -c "$CONNS" -q "$per_worker" "$url" >"$tmp/hey-rate.out"
n=$(hey_total "$tmp/hey-rate.out")
rate_rps[hey]=$(awk -v n="$n" -v d="$DUR" 'BEGIN { printf "%.0f", n / d }')
rate_cpu[hey]=$(us_per "$(cpu_s)" "$n")
rate_note[hey]="-c $CONNS -q $per_worker (per-worker ticker: closed loop, hides stalls)"
if [[ -n $wrk2_bin ]]; then
	log "wrk2 -R $RATE"
	gen "$wrk2_bin" -t1 -c "$CONNS" -d "${DUR}s" -R "$RATE" "$url" >"$tmp/wrk2.out"
	n=$(awk '/requests in/ { print $1 }' "$tmp/wrk2.out")
	rate_rps[wrk2]=$(awk -v n="$n" -v d="$DUR" 'BEGIN { printf "%.0f", n / d }')
	rate_cpu[wrk2]=$(us_per "$(cpu_s)" "$n")
fi

# --- (b) the highest closed-loop rate on one core ------------------------------------

log "wrk -t1 -c$CONNS"
gen wrk -t1 -c "$CONNS" -d "${DUR}s" "$url" >"$tmp/wrk.out"
n=$(awk '/requests in/ { print $1 }' "$tmp/wrk.out")
max_rps[wrk]=$(awk '/Requests\/sec/ { printf "%.0f", $2 }' "$tmp/wrk.out")
max_cpu[wrk]=$(us_per "$(cpu_s)" "$n")
log "hey -c$CONNS"
gen hey -z "${DUR}s" -c "$CONNS" "$url" >"$tmp/hey-max.out"
n=$(hey_total "$tmp/hey-max.out")
max_rps[hey]=$(awk -v n="$n" -v d="$DUR" 'BEGIN { printf "%.0f", n / d }')
max_cpu[hey]=$(us_per "$(cpu_s)" "$n")
for c in "${clients[@]}"; do
	perfgate_run "perfgate ($c)" "$c" max --concurrency "$CONNS"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report ----------------------------------------------------------------------

best_pg=${clients[0]}
{
	printf 'perfgate bench  %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)"
	printf 'host: %s, %s, %s cores; generator on cpu %s, nginx (1 worker) on cpu %s\n' \
		"$(hostname)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)" "$GEN_CPU" "$TARGET_CPU"
	printf 'perfgate %s; wrk %s; hey (Debian); nginx %s\n' "$(git rev-parse --short HEAD 2>/dev/null || echo '?')" \
		"$(wrk -v 2>&1 | head -1 | awk '{print $2}')" "$("$nginx_bin" -v 2>&1 | sed 's/.*\///')"
	printf 'load average before %s, after %s (other work on the machine adds noise)\n\n' "$load_before" "$load_after"

	printf '(a) fixed %s req/s, %ss, CPU per request (user+sys over requests completed)\n' "$RATE" "$DUR"
	printf '%-18s %12s %12s  %s\n' tool 'req/s' 'CPU µs/req' notes
	for k in "${!rate_rps[@]}"; do
		printf '%-18s %12s %12s  %s\n' "$k" "${rate_rps[$k]}" "${rate_cpu[$k]}" "${rate_note[$k]:-}"
	done | sort
	[[ -n $wrk2_bin ]] || printf '%-18s %12s %12s  %s\n' wrk2 n/a n/a "not installed: Debian's wrk is 4.x, without -R (wrk2); reference 13.8 µs/req"
	printf '\n(b) closed loop, %s connections, %ss, one generator core\n' "$CONNS" "$DUR"
	printf '%-18s %12s %12s  %s\n' tool 'req/s' 'CPU µs/req' notes
	for k in "${!max_rps[@]}"; do
		printf '%-18s %12s %12s  %s\n' "$k" "${max_rps[$k]}" "${max_cpu[$k]}" "${max_note[$k]:-}"
	done | sort
	printf '\nratios (perfgate client: %s)\n' "$best_pg"
	printf '  perfgate CPU/req / hey CPU/req at %s req/s: %s (goal <= 1)\n' "$RATE" \
		"$(ratio "${rate_cpu[perfgate ($best_pg)]:-n/a}" "${rate_cpu[hey]}")"
	printf '  perfgate CPU/req at %s req/s vs wrk2 reference 13.8 µs: %s\n' "$RATE" \
		"$(ratio "${rate_cpu[perfgate ($best_pg)]:-n/a}" 13.8)"
	printf '  perfgate max rate / wrk max rate: %s (goal >= 0.7)\n' \
		"$(ratio "${max_rps[perfgate ($best_pg)]:-n/a}" "${max_rps[wrk]}")"
	printf '  perfgate max rate / hey max rate: %s\n' \
		"$(ratio "${max_rps[perfgate ($best_pg)]:-n/a}" "${max_rps[hey]}")"
} | tee "$results"
log "written to $results"
