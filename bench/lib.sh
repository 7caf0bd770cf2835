# bench/lib.sh: what the bench scripts share. Source it; it defines:
#
#   svc_config FILE PERFGATE [fixed] [knee]
#       writes FILE, a perfgate.yaml for issue 27's CPU-bound service:
#       perfgate's reference server (PERFGATE fixture serve) with --sim-cpu,
#       the cost a request read from cost.txt in the target's folder (so an
#       A/B checkout carries its own), one worker, a 10 ms P99 SLO and 5%
#       thresholds; with the scenarios named: `fixed` (cpu-fixed: 100 req/s
#       open loop, 5 trials of 3 s after 1 s warm-ups) and `knee` (cpu-knee:
#       a sweep from 100 req/s, 5 knee estimates over 3 target processes,
#       1 s windows). PIN=1 in the environment puts the target on CPU 1 and
#       perfgate on CPU 0; METRICS=1 gives the target its Prometheus
#       metrics (the reference server's Triton-style compute counters), so
#       that the gate reads and gates the server's own compute time a
#       request (server_compute_ms) beside its latency;
#       P99_EQUIVALENCE=10% sets gate.p99_equivalence (P99 called unchanged
#       within ±10%, a regression still beyond 5%).

svc_config() {
	local file=$1 pg=$2
	shift 2
	local serve='exec '"$pg"' fixture serve --addr 127.0.0.1:$0 --model sim --sim-cpu --sim-fixed $(cat cost.txt) --sim-per-item 0s --max-batch 1 --instances 1'
	cat >"$file" <<EOF
version: 1
gate:
  p99_regression: 5%
${P99_EQUIVALENCE:+  p99_equivalence: $P99_EQUIVALENCE}
  max_qps_regression: 5%
  confidence: 0.95
  on_inconclusive: pass
slo:
  p99: 10ms
targets:
  svc:
    command: ["sh", "-c", '$serve', "{port}"]
    ready: "http://127.0.0.1:{port}/v2/health/ready"
    dir: .
${METRICS:+    metrics: "http://127.0.0.1:{port}/metrics"}
${PIN:+    cpus: "1"}
${PIN:+generator_cpus: "0"}
scenarios:
EOF
	local s
	for s in "$@"; do
		case $s in
		fixed)
			cat >>"$file" <<EOF
  - name: cpu-fixed
    layer: service
    target: svc
    protocol: kserve-http
    model: mlp-sim
    load: {mode: rate, rate: 100, warmup: 1s, duration: 3s, trials: 5}
EOF
			;;
		knee)
			cat >>"$file" <<EOF
  - name: cpu-knee
    layer: service
    target: svc
    protocol: kserve-http
    model: mlp-sim
    restarts: 3
    load: {mode: sweep, start: 100, duration: 1s, warmup: 300ms, budget: 20s, estimates: 5}
EOF
			;;
		*)
			echo "svc_config: unknown scenario $s (fixed or knee)" >&2
			return 2
			;;
		esac
	done
}
