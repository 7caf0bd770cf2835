// Command stream measures perfgate's generator on LLM streams of known
// timings (issue 22): it starts a streaming server of known TTFT, TPOT and
// length (internal/ssestub) in a child process, runs a perfgate binary
// against it at each concurrency (or open-loop rate) given, and prints, per
// load, the in-flight mean, the requests measured beside the number the
// truth predicts, the TTFT and TPOT error against the truth, the
// generator's CPU per stream and per token, its peak memory, and whether
// perfgate judged the run valid (and why not).
//
//	go run ./bench/stream -perfgate bench/.bin/perfgate -c 50,200,500,1000,2000
//	go run ./bench/stream -perfgate bench/.bin/perfgate -rate 200 -arrival poisson
//	go run ./bench/stream serve -addr 127.0.0.1:9000   # the server alone
//
// The generator's CPU is the perfgate process's own (user + system, from
// wait4's rusage) over the whole run, warm-up included, divided by every
// stream and token it received; its self-reported figure for the measured
// window (generator_cpu_cores) is shown beside it. Peak memory is the
// process's maximum resident set.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/perfgate/perfgate/internal/ssestub"
	"github.com/perfgate/perfgate/result"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "stream:", err)
		os.Exit(2)
	}
}

func run(args []string, out io.Writer) error {
	if len(args) > 0 && args[0] == "serve" {
		return serve(args[1:])
	}
	fs := flag.NewFlagSet("stream", flag.ContinueOnError)
	var (
		bin      = fs.String("perfgate", "bench/.bin/perfgate", "the perfgate binary to measure")
		cs       = fs.String("c", "50,200,500,1000,2000", "closed-loop concurrencies, comma-separated")
		rates    = fs.String("rate", "", "open-loop rates instead of -c, comma-separated")
		arrival  = fs.String("arrival", "poisson", "open-loop arrivals: constant or poisson")
		ttft     = fs.Duration("ttft", 200*time.Millisecond, "the server's time to first token")
		tpot     = fs.Duration("tpot", 20*time.Millisecond, "the server's time per output token")
		tokens   = fs.Int("tokens", 100, "tokens per stream (--max-tokens)")
		hang     = fs.Int64("hang-every", 0, "the server never answers every n-th request")
		duration = fs.Duration("duration", 8*time.Second, "perfgate --duration")
		warmup   = fs.Duration("warmup", 3*time.Second, "perfgate --warmup")
		genCPU   = fs.String("gen-cpu", "", "taskset CPU list for perfgate (empty: not pinned)")
		srvCPU   = fs.String("server-cpu", "", "taskset CPU list for the server (empty: not pinned)")
		procs    = fs.Int("gomaxprocs", 0, "GOMAXPROCS for perfgate (0: its default)")
		extra    = fs.String("args", "", "extra perfgate run arguments, space-separated")
		keep     = fs.String("out", "", "folder to keep the result files in (default: a temporary one)")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "perfgate-stream-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	addr, stop, err := startServer(*srvCPU, *ttft, *tpot, *tokens, *hang)
	if err != nil {
		return err
	}
	defer stop()
	truth := ssestub.Timings{TTFT: *ttft, TPOT: *tpot}
	e2e := truth.E2E(*tokens)
	fmt.Fprintf(out, "server %s: TTFT %v, TPOT %v, %d tokens (%.2f s a stream); perfgate %s, --duration %v --warmup %v, gen cpu %q, GOMAXPROCS %d\n",
		addr, *ttft, *tpot, *tokens, e2e.Seconds(), *bin, *duration, *warmup, *genCPU, *procs)
	fmt.Fprintf(out, "%-9s %9s %8s %8s %8s %9s %9s %9s %8s %8s %9s %9s %9s %7s %10s  %s\n",
		"load", "inflight", "requests", "expect", "errors", "ttft_p50", "tpot_p50", "err%", "lag99", "sched99", "cpu/strm", "cpu/tok", "selfcpu", "rss_MB", "valid", "why")
	fmt.Fprintln(out, "(valid: the result's validity / how many trials were valid; err%: TTFT/TPOT P50 against the truth; lag99, sched99: ms)")
	loads, closed := *cs, true
	if *rates != "" {
		loads, closed = *rates, false
	}
	for _, f := range strings.Split(loads, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 {
			return fmt.Errorf("load %q: want a positive number", f)
		}
		pa := []string{"run", "--url", "http://" + addr, "--protocol", "openai", "--model", "stub",
			"--max-tokens", strconv.Itoa(*tokens), "--duration", duration.String(), "--warmup", warmup.String(),
			"--trials", "1", "--timeout", "60s"}
		name := ""
		if closed {
			pa = append(pa, "--concurrency", strconv.Itoa(int(v)))
			name = fmt.Sprintf("C=%d", int(v))
		} else {
			pa = append(pa, "--rate", f, "--arrival", *arrival)
			name = fmt.Sprintf("R=%s", f)
		}
		if *extra != "" {
			pa = append(pa, strings.Fields(*extra)...)
		}
		file := filepath.Join(dir, strings.ReplaceAll(name, "=", "")+".json")
		pa = append(pa, "--out", file)
		st0 := serverStats(addr)
		ru, runErr := runPerfgate(*bin, *genCPU, *procs, pa)
		st1 := serverStats(addr)
		res, err := readResult(file)
		if err != nil {
			fmt.Fprintf(out, "%-9s perfgate failed: %v; %v\n", name, runErr, err)
			continue
		}
		window := *duration
		expect := v * window.Seconds() // open loop: the rate
		if closed {
			expect = v * window.Seconds() / e2e.Seconds()
		}
		row(out, name, res, ru, expect, truth, runErr)
		if late := st1.Late - st0.Late; late > 0 {
			fmt.Fprintf(out, "%-9s   the server wrote %d of %d tokens more than %v late (worst so far %.1f ms): part of the error is the server's\n",
				"", late, st1.Tokens-st0.Tokens, ssestub.LateAfter, st1.MaxLateMs)
		}
	}
	return nil
}

// serverStats reads the server's own account (zero on failure).
func serverStats(addr string) ssestub.Stats {
	var st ssestub.Stats
	resp, err := http.Get("http://" + addr + "/stats")
	if err != nil {
		return st
	}
	defer resp.Body.Close()
	json.NewDecoder(resp.Body).Decode(&st)
	return st
}

// usage is what the perfgate process used.
type usage struct {
	cpu    time.Duration
	maxRSS int64 // bytes
}

func runPerfgate(bin, cpus string, procs int, args []string) (usage, error) {
	argv := append([]string{bin}, args...)
	if cpus != "" {
		argv = append([]string{"taskset", "-c", cpus}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = os.Environ()
	if procs > 0 {
		cmd.Env = append(cmd.Env, "GOMAXPROCS="+strconv.Itoa(procs))
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var u usage
	if ps := cmd.ProcessState; ps != nil {
		u.cpu = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			u.maxRSS = ru.Maxrss * 1024
		}
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		return u, fmt.Errorf("%v: %s", err, msg)
	}
	return u, nil
}

func readResult(path string) (*result.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r result.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

func row(out io.Writer, name string, r *result.Result, u usage, expect float64, truth ssestub.Timings, runErr error) {
	s := r.Summary
	ttft, tpot, errPct := "—", "—", "—"
	var tokens float64
	if l := r.LLM; l != nil {
		ttft, tpot = fmt.Sprintf("%.1f", l.TTFT.P50), "n/a"
		if l.TPOT != nil {
			tpot = fmt.Sprintf("%.2f", l.TPOT.P50)
		}
		et := 100 * (l.TTFT.P50/ms(truth.TTFT) - 1)
		errPct = fmt.Sprintf("%+.0f/n/a", et)
		if l.TPOT != nil {
			errPct = fmt.Sprintf("%+.0f/%+.0f", et, 100*(l.TPOT.P50/ms(truth.TPOT)-1))
		}
		tokens = l.OutputTokensPerS * r.Load.DurationS * float64(r.Load.Trials)
	}
	// Whole-process CPU over every stream it received: the measured ones
	// scaled to the whole run (warm-up included) by time.
	total := r.Load.DurationS*float64(r.Load.Trials) + r.Load.WarmupS
	scale := total / (r.Load.DurationS * float64(r.Load.Trials))
	perStream, perTok := "—", "—"
	if n := float64(s.Requests-s.Errors) * scale; n > 0 {
		perStream = fmt.Sprintf("%.0fµs", float64(u.cpu.Microseconds())/n)
	}
	if tok := tokens * scale; tok > 0 {
		perTok = fmt.Sprintf("%.1fµs", float64(u.cpu.Microseconds())/tok)
	}
	why := strings.Join(r.Warnings, "; ")
	if runErr != nil {
		why = runErr.Error() + "; " + why
	}
	if len(why) > 160 {
		why = why[:160] + "…"
	}
	fmt.Fprintf(out, "%-9s %9.1f %8d %8.0f %8d %9s %9s %9s %8.2f %8.2f %9s %9s %9.2f %7.0f %10s  %s\n",
		name, s.InFlightMean, s.Requests, expect, s.Errors, ttft, tpot, errPct, s.LagP99Ms, s.GeneratorSchedP99Ms,
		perStream, perTok, s.GeneratorCPU, float64(u.maxRSS)/(1<<20), validity(r), why)
}

// validity is "true 1/1": the result's validity and its valid trials.
func validity(r *result.Result) string {
	n := 0
	for _, t := range r.Trials {
		if t.Valid {
			n++
		}
	}
	return fmt.Sprintf("%v %d/%d", r.Valid, n, len(r.Trials))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// startServer starts this program's serve subcommand in a child process
// (so that its CPU is not the generator's) on a free port.
func startServer(cpus string, ttft, tpot time.Duration, tokens int, hang int64) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := l.Addr().String()
	l.Close()
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	argv := []string{self, "serve", "-addr", addr, "-ttft", ttft.String(), "-tpot", tpot.String(),
		"-tokens", strconv.Itoa(tokens), "-hang-every", strconv.FormatInt(hang, 10)}
	if cpus != "" {
		argv = append([]string{"taskset", "-c", cpus}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			return addr, stop, nil
		}
	}
	stop()
	return "", nil, errors.New("the stream server did not become ready in 10 s")
}

// serve runs the server until SIGTERM or SIGINT.
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:9000", "listen address")
	ttft := fs.Duration("ttft", 200*time.Millisecond, "time to first token")
	tpot := fs.Duration("tpot", 20*time.Millisecond, "time per output token")
	tokens := fs.Int("tokens", 100, "tokens per stream when the request sets no max_tokens")
	hang := fs.Int64("hang-every", 0, "never answer every n-th request (0: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	srv := &http.Server{Addr: *addr, Handler: ssestub.New(ssestub.Timings{TTFT: *ttft, TPOT: *tpot, Tokens: *tokens, HangEvery: *hang}),
		ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signalContext()
	defer stop()
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
}
