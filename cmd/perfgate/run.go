package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/knee"
	"github.com/perfgate/perfgate/protocol"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// cmdRun is `perfgate run`: a config's scenarios, or one quick test of a URL.
func cmdRun(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	setUsage(fs, "run")
	var (
		cfgPath   = fs.String("config", "", "perfgate.yaml to run")
		scenarios stringList
		out       = fs.String("out", "", "output: the results `folder` with --config (default perfgate-out/results), a file with --url")
		genCPUs   = fs.String("generator-cpus", "", "CPU `LIST` the load generator (perfgate) runs on, such as 0 or 0-1 (Linux); overrides the config's generator_cpus")
		noBuild   = fs.Bool("no-build", false, noBuildUsage)
		q         quickFlags
		sc        scaleFlags
	)
	fs.Var(&scenarios, "scenario", "run only this scenario (repeatable)")
	q.register(fs)
	sc.register(fs)
	e.engine.register(fs)
	if err := fs.Parse(args); err != nil {
		return usageErr("run: %v", err)
	}
	if fs.NArg() > 0 {
		return usageErr("run: unexpected argument %q", fs.Arg(0))
	}
	if err := checkFlagRanges("run", fs); err != nil {
		return err
	}
	if err := e.engine.check("run"); err != nil {
		return err
	}
	switch {
	case *cfgPath != "" && q.url != "":
		return usageErr("run: give --config or --url, not both")
	case *cfgPath == "" && q.url == "":
		return usageErr("run: give --config perfgate.yaml or --url URL")
	}
	var cfg *config.Config
	outDir, outFile := *out, ""
	if *cfgPath != "" {
		c, err := config.ReadFile(*cfgPath)
		if err != nil {
			return withCode(exitUsage, err)
		}
		cfg = c
		if outDir == "" {
			outDir = defaultResults
		}
	} else {
		c, err := q.config(fs)
		if err != nil {
			return withCode(exitUsage, err)
		}
		cfg = c
		outDir, outFile = "", *out
	}
	plan, err := sc.plan(e, cfg, *cfgPath != "", scenarios)
	if err != nil || plan.done {
		return err
	}
	iso, err := pinGenerator(cfg, *genCPUs, e.stderr)
	if err != nil {
		return err
	}
	outs, err := runSuite(ctx, e, cfg, plan.names, outDir, plan.apply, func(so *suite.Options) { so.CPUs, so.NoBuild = iso, *noBuild })
	if err != nil {
		return err
	}
	if outFile != "" && len(outs) == 1 && outs[0].Result != nil {
		if err := outs[0].Result.WriteFile(outFile); err != nil {
			return withCode(exitRunFailed, err)
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", outFile)
	}
	return runEnd(ctx, e, outs)
}

// runEnd prints a run's table and spectra and returns its error: a
// scenario that failed (exit 3, or 2 for bad input), else a result marked
// invalid (exit 3), else nil.
func runEnd(ctx context.Context, e *env, outs []suite.Outcome) error {
	printResults(e.stdout, outs)
	printSpectrum(e, outs)
	if err := gate.RunFailure(ctx, outs); err != nil {
		return err
	}
	return gate.InvalidRuns(outs)
}

// noBuildUsage is --no-build's help, the same for run and gate.
const noBuildUsage = "do not run the targets' build: steps first; start whatever each target's folder holds"

// runSuite runs cfg's scenarios with progress on e.stderr.
// Each opt adjusts the suite's options (a part, a generator).
func runSuite(ctx context.Context, e *env, cfg *config.Config, names []string, outDir string, opts ...func(*suite.Options)) (outs []suite.Outcome, err error) {
	if outDir != "" {
		created := firstMissing(outDir)
		if err := result.MkdirOut(outDir, e.workdir); err != nil {
			return nil, usageErr("--out: %v", err)
		}
		// A run refused before it measured (a scenario that cannot be
		// split over generators) leaves no empty folder behind.
		defer func() {
			if err != nil {
				removeEmpty(outDir, created)
			}
		}()
	}
	prog := newProgress(e)
	defer prog.close()
	so := e.suiteOptions(cfg, outDir, prog, nil)
	so.Scenarios = names
	for _, opt := range opts {
		opt(&so)
	}
	plan, err := config.Compile(cfg)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	outs, err = suite.Run(ctx, plan, so)
	if err != nil {
		return nil, gate.SuiteErr(err, outs)
	}
	gate.LogOutcomes(prog, outs)
	return outs, nil
}

// quickFlags are `perfgate run --url`'s flags.
type quickFlags struct {
	url, layer, protocol, model, endpoint, method, body, arrival, dataset, trace, datatype, shape, client string
	rate, speed                                                                                           float64
	concurrency, trials, promptTokens, maxTokens, connections                                             int
	seed                                                                                                  int64
	sweep                                                                                                 bool
	duration, warmup, timeout, sloP99, sloTTFT, sloTPOT                                                   time.Duration
	maxErrorRate                                                                                          string
	headers                                                                                               stringList
	// TLS: a private CA, a client certificate and key (mTLS), the name
	// to verify, or verification off.
	caCert, cert, key, serverName string
	insecure                      bool
	// The knee search's bounds (--sweep only).
	sweepStart, sweepMax float64
	sweepBudget          time.Duration
	sweepEstimates       int
}

func (q *quickFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&q.url, "url", "", "the service to test (http: whole URL; kserve-http, openai: base address; kserve-grpc: host:port)")
	fs.StringVar(&q.layer, "layer", "", "the layer this run exercises (model, engine, service, system); default: unlabelled")
	fs.StringVar(&q.protocol, "protocol", config.Defaults().Protocol, "http | kserve-http | kserve-grpc | openai")
	fs.StringVar(&q.model, "model", "", "model name (kserve-*, openai; required there, checked against the server's before any load)")
	fs.StringVar(&q.endpoint, "endpoint", "", "openai endpoint: chat or completions (default chat)")
	fs.StringVar(&q.method, "method", "", "HTTP method (default GET, or POST with a body)")
	fs.Var(&q.headers, "header", "request header \"Name: value\" (repeatable)")
	fs.StringVar(&q.body, "body", "", "request body: @FILE")
	fs.Float64Var(&q.rate, "rate", 0, "open loop: requests per second (one of --rate, --concurrency, --sweep, --trace is required)")
	fs.StringVar(&q.arrival, "arrival", "constant", "open-loop arrivals: constant or poisson")
	fs.Int64Var(&q.seed, "seed", 1, "seed for poisson arrivals and random payloads")
	fs.IntVar(&q.concurrency, "concurrency", 0, "closed loop: requests in flight")
	fs.BoolVar(&q.sweep, "sweep", false, "search the knee: the highest rate whose P99 meets --slo-p99")
	fs.DurationVar(&q.sloP99, "slo-p99", 0, "P99 objective (required with --sweep; default none)")
	fs.Float64Var(&q.sweepStart, "start", 0, fmt.Sprintf("--sweep: the first rate probed, req/s (0: the default, %g; the search then jumps by Little's Law)", knee.DefaultStart))
	fs.Float64Var(&q.sweepMax, "max-rate", 0, "--sweep: never offer more than this rate, req/s (default: no cap)")
	fs.DurationVar(&q.sweepBudget, "budget", 0, "--sweep: stop searching after this much time (default 5m)")
	fs.IntVar(&q.sweepEstimates, "estimates", 0, "--sweep: knee estimates, the search's and one per confirmation round (default 5; 1: the search alone, no interval)")
	fs.DurationVar(&q.sloTTFT, "slo-ttft", 0, "openai: time-to-first-token objective for goodput (default none)")
	fs.DurationVar(&q.sloTPOT, "slo-tpot", 0, "openai: time-per-output-token objective for goodput (default none)")
	fs.StringVar(&q.maxErrorRate, "max-error-rate", thresholdString(config.Defaults().MaxErrorRate), "error-rate limit for --sweep")
	fs.DurationVar(&q.duration, "duration", config.Defaults().Duration, "one trial's measurement window")
	fs.DurationVar(&q.warmup, "warmup", config.Defaults().Warmup, "warm-up, excluded from every figure")
	fs.IntVar(&q.trials, "trials", config.Defaults().Trials, "measurement windows (the same default as the config's)")
	fs.DurationVar(&q.timeout, "timeout", protocol.DefaultTimeout, "per-request timeout")
	fs.IntVar(&q.connections, "connections", 0, "connection cap (default: sized from the load: the concurrency, or up to 4096 in open loop)")
	fs.StringVar(&q.dataset, "dataset", "", "openai: JSONL prompts (prompt or messages, max_tokens) (default: synthetic prompts of --prompt-words words)")
	fs.IntVar(&q.promptTokens, "prompt-words", protocol.DefaultPromptTokens, "openai: synthetic prompt length in `words` (the server's tokenizer decides the tokens: the result records its usage.prompt_tokens as prompt_tokens_mean)")
	fs.IntVar(&q.promptTokens, "prompt-tokens", protocol.DefaultPromptTokens, "openai: old name of --prompt-words: it counts words, not tokens")
	fs.IntVar(&q.maxTokens, "max-tokens", protocol.DefaultMaxTokens, "openai: tokens to generate (max_tokens)")
	fs.StringVar(&q.trace, "trace", "", "replay a JSONL trace (offset_ms, body or prompt)")
	fs.Float64Var(&q.speed, "speed", config.Defaults().Speed, "replay speed factor")
	fs.StringVar(&q.client, "client", "fast", "HTTP client for http and kserve-http: fast (lean HTTP/1.1) or std (net/http)")
	fs.StringVar(&q.caCert, "cacert", "", "https, kserve-grpc: PEM `FILE` of CA certificates to trust beside the system's (a private CA)")
	fs.StringVar(&q.cert, "cert", "", "https, kserve-grpc: client certificate PEM `FILE` for mutual TLS (with --key)")
	fs.StringVar(&q.key, "key", "", "https, kserve-grpc: the client certificate's private key PEM `FILE`")
	fs.StringVar(&q.serverName, "tls-server-name", "", "https, kserve-grpc: the name to verify in the server's certificate (default: the URL's host)")
	fs.BoolVar(&q.insecure, "insecure", false, "https, kserve-grpc: do NOT verify the server's certificate (warned loudly; prefer --cacert)")
	fs.StringVar(&q.shape, "shape", "", "kserve: random input tensor shape, e.g. 1,16")
	fs.StringVar(&q.datatype, "datatype", "", "kserve: random input tensor datatype, e.g. FP32")
}

// config builds a one-scenario configuration from the quick flags.
func (q *quickFlags) config(fs *flag.FlagSet) (*config.Config, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	modes := 0
	for _, set := range []bool{q.rate > 0, q.concurrency > 0, q.sweep, q.trace != ""} {
		if set {
			modes++
		}
	}
	if !q.sweep && (set["start"] || set["max-rate"] || set["budget"] || set["estimates"]) {
		return nil, errors.New("run: --start, --max-rate, --budget and --estimates shape a knee search: add --sweep --slo-p99 DUR")
	}
	if modes != 1 {
		return nil, errors.New("run: give exactly one of --rate R, --concurrency C, --sweep --slo-p99 DUR or --trace FILE")
	}
	s := &config.Scenario{
		Name: "run", Layer: q.layer, URL: q.url, Protocol: q.protocol, Model: q.model,
		Endpoint: q.endpoint, Method: q.method, Dataset: q.dataset,
		PromptTokens: q.promptTokens, MaxTokens: q.maxTokens, Datatype: q.datatype,
		Timeout: config.Duration(q.timeout), Client: q.client,
		Load: config.Load{Rate: q.rate, Arrival: q.arrival, Seed: q.seed, Concurrency: q.concurrency,
			Duration: config.Duration(q.duration), Warmup: config.Duration(q.warmup), Trials: q.trials,
			Connections: q.connections, Trace: q.trace, Speed: q.speed},
	}
	switch {
	case q.rate > 0:
		s.Load.Mode = "rate"
	case q.concurrency > 0:
		s.Load.Mode = "concurrency"
	case q.sweep:
		s.Load.Mode = "sweep"
		s.Load.Trials = 1
		s.Load.Start, s.Load.MaxRate, s.Load.Budget = q.sweepStart, q.sweepMax, config.Duration(q.sweepBudget)
		s.Load.Estimates = q.sweepEstimates
	default:
		// A trace is replayed once, whole, as one window, unless the flags
		// say otherwise.
		s.Load.Mode = "replay"
		if !set["duration"] {
			s.Load.Duration = 0
		}
		if !set["warmup"] {
			s.Load.Warmup = 0
		}
		if !set["trials"] {
			s.Load.Trials = 1
		}
	}
	if q.body != "" {
		if !strings.HasPrefix(q.body, "@") {
			return nil, fmt.Errorf("run: --body %q: give a file as @FILE", q.body)
		}
		s.Body = q.body[1:]
	}
	for _, h := range q.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("run: --header %q: want \"Name: value\"", h)
		}
		if s.Headers == nil {
			s.Headers = map[string]string{}
		}
		s.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if q.shape != "" {
		for _, d := range strings.Split(q.shape, ",") {
			var n int64
			if _, err := fmt.Sscan(strings.TrimSpace(d), &n); err != nil {
				return nil, fmt.Errorf("run: --shape %q: want numbers like 1,16", q.shape)
			}
			s.Shape = append(s.Shape, n)
		}
	}
	if q.caCert != "" || q.cert != "" || q.key != "" || q.serverName != "" || q.insecure {
		s.TLS = &config.TLS{CA: q.caCert, Cert: q.cert, Key: q.key, ServerName: q.serverName, Insecure: q.insecure}
	}
	maxErr, err := config.ParsePercent(q.maxErrorRate)
	if err != nil {
		return nil, fmt.Errorf("run: --max-error-rate: %v", err)
	}
	c := &config.Config{
		Path: "command line", Version: config.Version, LayerOptional: true,
		SLO:       config.SLO{P99: config.Duration(q.sloP99), TTFT: config.Duration(q.sloTTFT), TPOT: config.Duration(q.sloTPOT), MaxErrorRate: config.Percent(maxErr)},
		Scenarios: []*config.Scenario{s},
	}
	if set["warmup"] {
		c.MarkSet("scenarios[0].load.warmup") // --warmup 0s means none
	}
	if err := c.Check(); err != nil {
		return nil, flagError(err)
	}
	return c, nil
}

// firstMissing is the outermost folder of dir's path that does not exist
// ("" when dir exists): what creating dir creates.
func firstMissing(dir string) string {
	missing := ""
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			return missing
		}
		missing = d
		if parent := filepath.Dir(d); parent == d {
			return missing
		}
	}
}

// removeEmpty removes dir and its parents up to and including top, each
// only while empty: the folders a refused run created.
func removeEmpty(dir, top string) {
	if top == "" {
		return
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if os.Remove(d) != nil || d == filepath.Clean(top) {
			return
		}
	}
}
