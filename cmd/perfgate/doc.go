// Command perfgate load-tests an inference service, gates performance
// regressions on pull requests, and sizes capacity.
//
// Usage:
//
//	perfgate demo [--quick] [--out DIR] [--verbose]
//	perfgate run --config perfgate.yaml [--scenario NAME]... [--out DIR] [--generator-cpus LIST]
//	perfgate run --url URL [--protocol http|kserve-http|kserve-grpc|openai] [--model NAME]
//	             [--rate R | --concurrency C | --sweep --slo-p99 DUR | --trace FILE]
//	             [--duration 30s] [--warmup 5s] [--trials 5] [--body @FILE] [--out FILE]
//	perfgate run --config perfgate.yaml --part I/N [--list]
//	perfgate run --url URL ... --generator I/N [--start-at RFC3339]
//	perfgate compare [--config perfgate.yaml] --baseline FILE|DIR --candidate FILE|DIR [--format text|markdown|json]
//	                 [--allow-env-mismatch] [--p99-threshold 5%] [--confidence 0.95] [--fail-on-inconclusive] [--verbose]
//	perfgate compare [flags] BASELINE CANDIDATE
//	perfgate size [--config perfgate.yaml] --result FILE --peak-qps N [--headroom 1.3] [--cost-per-hour X] [--format text|markdown|json]
//	perfgate size [--config perfgate.yaml] --result FILE --traffic curve.csv [--lead-time 1h] [--scale-in-after 1h] [--emit keda|hpa]
//	perfgate gate --config perfgate.yaml [--baselines DIR] [--out DIR] [--allow-env-mismatch] [--results DIR] [--on-inconclusive pass|fail|rerun] [--verbose]
//	perfgate gate --config perfgate.yaml --ab REF [--design interleaved|concurrent] [--out DIR]
//	perfgate merge --out DIR [--max-skew 100ms] PATH...
//	perfgate baseline update --from DIR [--from DIR2]... --to DIR [--tag T] [--config perfgate.yaml] [--history DIR] [--force]
//	perfgate history show|changes [--history DIR|REF] [--scenario S] [--metric p99_ms] [--format text|markdown|json]
//	perfgate history add|push --from DIR [--history DIR] [--branch perfgate-data] [--commit SHA]
//	perfgate history compact [--history DIR] [--keep N] [--keep-histograms N]
//	perfgate bisect --good A [--bad B] [--config perfgate.yaml] [--scenario S]... [--out DIR] [--format text|json]
//	perfgate export --format bmf|github-action-benchmark|openmetrics [--tool customSmallerIsBetter|customBiggerIsBetter] RESULTS…
//	perfgate report --html OUT.html [--baseline FILE|DIR] [--config perfgate.yaml] RESULTS…
//	perfgate fixture serve --addr 127.0.0.1:8000 [--grpc-addr 127.0.0.1:8001] [--precision fp32|int8]
//	             [--batch-window 5ms] [--max-batch 32] [--model mlp|sim|large] ...
//	perfgate action [--comment-from DIR]
//	perfgate gpu-sample [--duration 8s] [--interval 100ms]
//	perfgate version
//
// # demo
//
// The embedded default. It starts the reference inference server
// (perfgate fixture serve) in one variant per scenario and measures the
// layered suite in refserver/perfgate.yaml (model fp32 → int8, batching
// off → on, JSON/HTTP → protobuf/gRPC, LLM streaming, and an attribution
// ladder): each declared pair (pairs:) by the engine of gate --ab,
// interleaved in ABBA order with fresh processes every block and compared
// pair by pair until decided. Then it plants a regression (the same
// server with --item-overhead 2ms, a slower batcher, inert with batching
// off) and measures it the same way, the batched variant at a fixed 200
// req/s and at its knee: the gate must call both regressed and recompute
// the instance count. It sizes capacity, prints
// the reports, and stores the run as a baseline folder with the command
// that gates against it. About four minutes on 2 cores; --quick (about
// two and a half) shortens the knee searches and leaves the ladder and
// the planted knee out.
// Its terminal output fits one screen: a live progress line (plain lines
// when stderr is not a terminal), the results' figures, each report in
// brief; every log line, each result's notes and the full reports go to
// OUT/demo.log, and --verbose prints them too.
//
// # run
//
// With --config, runs the config's scenarios (or those named by
// --scenario) and writes one perfgate.result/v1 file per scenario into --out
// (default perfgate-out/results, where gate writes them too), each as soon
// as it is measured. An --out folder that is a symbolic link, or lies below
// one inside the working directory, is refused (exit 2), never written
// through. A target inherits only an allow-list of the environment (PATH,
// HOME, LANG, ...; docs/hardening.md) and what its env_passthrough names. compare --candidate and baseline update --from take
// that folder or perfgate-out above it. --generator-cpus LIST (or the
// config's generator_cpus; gate reads the config's) pins perfgate, the
// load generator, to those CPUs on Linux, disjoint from each target's
// cpus (docs/configuration.md); on a host without them it runs unpinned
// and the results say so. Before a target first starts, its build: argv
// runs once per run (run --config, gate, the Action), in the target's
// folder, its output kept in the results folder as <target>.build.log; a
// failed build is exit 3, quoting the end of its output, before any load.
// --no-build (run, gate) skips it. --engine event-loop|workers, --loop-batch DUR
// and --loop-spin DUR (run and gate) choose and tune the open-loop engine
// over PERFGATE_ENGINE, PERFGATE_LOOP_BATCH and PERFGATE_LOOP_SPIN, which
// override the config's engine, loop_batch and loop_spin
// (docs/event-loop.md). With --url, runs
// one quick test: --rate R is open loop at R requests per second (latency
// counted from the intended send time, --arrival poisson for Poisson
// arrivals), --concurrency C is closed loop with C requests in flight,
// --sweep searches the highest rate whose P99 meets --slo-p99 (the knee),
// and --trace replays a JSONL trace (--speed scales it). --out writes the
// result file. For kserve-http and openai, --url is the server's base
// address and the protocol adds its paths; for kserve-grpc it is host:port;
// for http it is the whole URL. openai takes --endpoint completions,
// --dataset FILE, --prompt-words (synthetic prompts' length in words; the
// result records the server's own token count; --prompt-tokens is its old
// name), --max-tokens, --slo-ttft and --slo-tpot. Before any load, one TCP
// connection is opened to the URL's address (a url: scenario's too):
// nothing listening there is exit 3 at once ("nothing listens on
// 127.0.0.1:8081"); and the model name is checked against the server's
// (GET /v1/models, or the KServe model's metadata): a model it does not
// serve is exit 3.
// https and kserve-grpc over TLS take --cacert FILE (a private CA),
// --cert FILE --key FILE (mutual TLS), --tls-server-name NAME, and
// --insecure (verification off, warned in the log and the result); a
// scenario's tls: {ca, cert, key, server_name, insecure} is the same.
// --sweep takes --start, --max-rate, --budget and --estimates (knee
// estimates: the search's and one per confirmation round; default 5);
// --layer labels the run.
// A search in which no rate met the SLO exits 0, as the exit codes below
// define them: the run did not fail, and its finding (no knee: the
// capacity under that SLO is below the lowest rate tried) is in the
// result; the output says it plainly, with the P99 reached at each rate
// tried and the SLO that would have been met. size refuses such a result
// (exit 2).
//
// A result marked invalid ("valid": false: the load generator was
// saturated or starved of CPU, every request failed, the run was
// interrupted) is still written, its table row says INVALID, and run
// exits 3: no gate compares such a result and baseline update refuses it.
//
// # compare, size, gate, baseline
//
// compare judges a candidate against a baseline with statistics over the
// units that carry the noise (target processes, else trials; knee
// estimates for max QPS; docs/verdicts.md) and exits 1 on a regression. size turns a sweep's knee into
// an instance count: instances = ceil(peak × headroom / max QPS). gate runs
// a config, compares with its baselines, sizes, and reports; its exit code
// is the verdict. baseline update stores a run's results as baselines,
// atomically, refusing invalid or interrupted runs; given several --from
// folders (independent runs of one config) it stores their combined
// trials and their disagreement as each scenario's noise floor, and
// refuses (exit 2, naming the scenario, the metric and both runs' values)
// runs that disagree beyond their noise, as a gate with the --config's
// thresholds (or the defaults) would find between them; --force stores
// them anyway.
//
// A comparison is inconclusive (exit 0, or 1 with --fail-on-inconclusive)
// when nothing regressed but a gated change beyond its threshold could not
// be decided (too few trials, too much noise, a busy host) or every result
// was invalid. gate refuses (exit 2) a scenario whose trials can never
// reach the configured confidence. See docs/verdicts.md.
//
// compare and gate print a verdict a person reads in five seconds: one
// headline line (the verdict, the scenarios by verdict, the one thing to
// do next), the table, and at most three lines on what would decide the
// undecided scenarios. --verbose prints the rest (every metric, the
// method, the environment, the warnings); gate always writes it to
// OUT/gate.log beside comparison.json, report.md and report.html, whose
// details hold it collapsed.
//
// A baselines folder that does not exist (gate --baselines, the config's
// baselines:, compare --baseline) is an error, exit 2, naming it: a
// mistyped path would otherwise pass as a first run and switch the gate
// off. On the first run, before any baseline is stored, say so with
// --first-run, or commit the folder empty (with a .gitkeep): with no
// baseline the verdict is no-baseline, exit 0, and perfgate prints the
// folder it looked in and the exact baseline update command that stores
// the run there.
//
// gate --ab REF is the same-runner A/B (docs/ab.md): instead of reading
// baselines it checks git revision REF out in a temporary worktree (removed
// on every exit), runs each target's build: in both checkouts, measures the
// base and the current checkout interleaved (ABBA) and compares them pair by
// pair (paired t-test on log ratios, Holm), stopping each scenario once a
// gated metric regresses or every one is decided, or once the pairs left
// could hardly decide it (ab: max_trials, budget). A REF that
// does not exist and url: targets are usage errors (2); a failed build
// is 3, its output quoted. --design concurrent (or ab.design: concurrent)
// measures a fixed-rate scenario's two sides at once instead: fresh
// processes for both every block, one generator each sending the same
// open-loop schedule from the same instant, the sides' CPUs (their
// targets' cpus, or the CPUs outside generator_cpus) split in halves and
// swapped at every start; the paired test is the same. Knee searches,
// closed loops and warmup: auto stay interleaved. --design interleaved is
// the default; --design without --ab, or concurrent with ab.resident: one,
// is a usage error (2).
//
// # report
//
// report --html renders result files or folders (and, with --baseline,
// the baselines they are compared with; with --config, that config's gate
// thresholds, capacity plan and ladder) as one self-contained HTML page:
// the load curve with the SLO and the knees, the percentile spectrum, the
// per-trial P99 with the interval of the change, the achieved rate and P99
// second by second, TTFT/TPOT/ITL for streams, instances and cost, and the
// ladder's waterfall. It opens offline (nothing is fetched), in a light or
// a dark theme, and prints. gate and the Action write the same page as
// perfgate-out/report.html beside report.md. See docs/html-report.md.
//
// # scaling out: run --part, run --generator, merge, gate --results
//
// run --config F --part I/N runs the I-th of N parts of the suite: a
// deterministic partition balanced by expected duration (warm-up plus
// trials, or a knee search's budget), in which the variants compared with
// each other stay together (a scenario's `group:`, else the scenarios of
// one layer under one load; the ladder's rungs); --list prints the part's
// scenario names, one a line, and runs nothing. run --generator I/N sends
// 1/N of the load: open loop, every N-th request of the schedule from the
// I-th (rate R/N, phase-shifted; the union is the whole schedule); closed
// loop, its share of the concurrency. --start-at RFC3339 begins the
// warm-up at that instant on every generator, so their trials cover the
// same windows. merge --out DIR PATH... adds generator shards of a
// scenario into one result (trial histograms added exactly, counts and
// rates summed, a trial invalid if any shard's was, the start skew
// recorded and held to --max-skew and the warm-up) and gathers results of
// different scenarios into DIR; it refuses shards of different configs,
// loads or trial counts (exit 2). PATHs are result files or folders,
// searched recursively. gate --results DIR gates results measured
// elsewhere, running nothing: the last job of a matrix. See
// docs/scale-out.md.
//
// # fixture serve
//
// The reference inference server: KServe v2 over HTTP and gRPC for the
// model mlp (--model mlp: a real MLP on the CPU; large: an image-sized
// input where serialization dominates; sim: a declared, deterministic cost
// model whose every response says it is simulated), and OpenAI-compatible
// streaming for two models: tiny-llm, a real decoder-only transformer
// computed on the CPU (--precision int8 quantizes its weights), and sim-llm,
// a cost model whose responses say they are simulated; both with continuous
// batching (--max-num-seqs; 1 turns it off) and tiny-llm with chunked
// prefill (--max-num-batched-tokens). Prometheus /metrics uses Triton's and
// vLLM's names.
// Layers: --precision fp32|int8 (model), --max-batch and --batch-window
// (Triton-style dynamic batching), --batch-overhead DUR (CPU time the
// batcher spends on every batch when --max-batch > 1), --item-overhead DUR
// (CPU time it spends on every item it batches: the planted service-layer
// regression `perfgate demo` catches), --instances, --queue (rejects with 429 /
// RESOURCE_EXHAUSTED when full), --cache (exact-match response cache). Every
// flag may also come from FIXTURE_<FLAG> in the environment (for example
// FIXTURE_PRECISION=int8); flags win.
//
// # gpu-sample
//
// Samples NVML for --duration and prints one telemetry JSON object (no_gpu
// when libnvidia-ml or a device is missing), for checking perfgate's GPU
// figures against nvidia-smi.
//
// # version
//
// Prints one line: the release tag, the commit, the commit's date, and the
// Go toolchain and platform the binary was built for (cgo or not: without
// cgo there is no NVML telemetry), for example
//
//	perfgate v1.2.3 (commit 0123456789ab, 2026-11-30T12:00:00Z, go1.26.8 linux/amd64, cgo)
//
// Release builds stamp the tag and commit; a build from source falls back
// to the module version and VCS revision the Go toolchain recorded.
//
// # history
//
// The run history across commits, format perfgate.history/v1 (one JSON
// Lines file per scenario, docs/history.md). show prints each series
// (scenario, runner, metric) with its intervals; changes runs E-Divisive
// change-point detection with a permutation test over each and reports
// every change with its commit window, size and confidence; add appends a
// results folder to a history folder; push appends it to the branch
// perfgate-data of the remote (retrying when another writer pushed
// first); compact applies the retention (--keep records per scenario and
// runner, histograms on the newest --keep-histograms). --history reads a
// folder or a git ref (origin/perfgate-data). baseline update --history
// DIR appends the baselines it stores; gate --history DIR|REF (and compare
// --history) learns each
// scenario's run-to-run noise from it instead of assuming gate.run_to_run.
//
// # bisect
//
// Finds the commit between --good and --bad (default HEAD) that caused a
// change: a binary search over the first-parent commits, each step a
// same-runner A/B of two commits (gate --ab's paired statistics and
// adaptive stopping), each commit built with its targets' build: and
// measured with its own config. It reports the culprit, its own change
// with the interval, the steps and the runner time, or "inconclusive" with
// the narrowest window when a step cannot decide (docs/history.md).
// bisect.json and each step's results and logs go into --out.
//
// # export
//
// Writes the run-level figures of result files or folders for other
// tools: Bencher's Metric Format (bmf), github-action-benchmark's custom
// JSON (--tool customSmallerIsBetter for latencies and the error rate,
// customBiggerIsBetter for throughputs), or OpenMetrics text for a
// Pushgateway (docs/history.md).
//
// # action
//
// The GitHub Action's entry point: it reads INPUT_* and GITHUB_* variables,
// runs the gate (or, in baseline mode, updates the baselines), writes the
// step summary and outputs, and keeps one pull-request comment up to date.
// Gate and baseline mode refuse (exit 2) to start a target while a process
// above perfgate holds the token in its environment: run it with exec
// (run: exec perfgate action), as action.yml does.
//
// Exit codes: 0 pass, 1 a regression failed the gate, 2 usage or
// configuration error, 3 the run itself failed (target did not start, all
// requests failed, interrupted).
package main
