package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/perfgate/perfgate/baselines"
	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/config"
	"github.com/perfgate/perfgate/gate"
	"github.com/perfgate/perfgate/refserver"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/suite"
)

// demoPairs are the demo's per-layer comparisons: the baseline variant and
// the candidate variant of each layer, measured in the same run.
var demoPairs = []struct{ layer, base, cand string }{
	{"model: fp32 → int8", "model-fp32", "model-int8"},
	{"service: batching off → on", "service-batch1", "service-batch32"},
	{"system: JSON/HTTP → protobuf/gRPC", "system-json-http", "system-protobuf-grpc"},
	{"LLM model: fp32 → int8", "llm-fp32", "llm-int8"},
	{"LLM service: continuous batching off → on", "llm-batching-off", "llm-batching-on"},
}

// cmdDemo is `perfgate demo`: the embedded default. It starts the
// reference server variants, runs the layered suite, compares each layer's
// candidate with its baseline variant, sizes capacity, prints the report,
// and stores what it measured as a baseline folder to gate against.
func cmdDemo(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	setUsage(fs, "demo")
	quick := fs.Bool("quick", false, "shorter windows: about a minute and a half, with wider intervals")
	out := fs.String("out", "perfgate-demo", "folder for results, baselines and the config to gate with")
	var scenarios stringList
	fs.Var(&scenarios, "scenario", "run only this scenario (repeatable)")
	if err := fs.Parse(args); err != nil {
		return usageErr("demo: %v", err)
	}
	cfg, err := config.Parse("refserver/perfgate.yaml (embedded)", refserver.DemoConfig())
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("demo config: %w", err))
	}
	if *quick {
		shrink(cfg)
	}
	self, err := os.Executable()
	if err != nil {
		return withCode(exitRunFailed, fmt.Errorf("demo: finding the perfgate binary to start the reference server: %w", err))
	}
	start := time.Now()
	fmt.Fprintf(e.stdout, "perfgate demo: %d scenarios against the reference server (perfgate fixture serve), %s, planned about %s\n",
		len(cfg.Scenarios), map[bool]string{true: "quick", false: "full"}[*quick], demoPlanned(cfg, scenarios).Round(time.Second))
	resultsDir := filepath.Join(*out, "results")
	plan, err := config.Compile(cfg)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("demo config: %w", err))
	}
	prog := newProgress(e)
	so := e.suiteOptions(cfg, resultsDir, prog, nil)
	so.Scenarios = scenarios
	outs, err := suite.Run(ctx, plan, so)
	prog.close()
	if err != nil {
		return withCode(exitUsage, err)
	}
	fmt.Fprintln(e.stdout)
	printResults(e.stdout, outs)

	byName := map[string]*result.Result{}
	var all []*result.Result
	for _, o := range outs {
		if o.Result != nil {
			byName[o.Scenario.Name] = o.Result
			all = append(all, o.Result)
		}
	}
	var base, cand []*result.Result
	for _, p := range demoPairs {
		b, c := byName[p.base], byName[p.cand]
		if b == nil || c == nil {
			continue
		}
		// Compare the two variants as one scenario, named for the change.
		bb, cc := *b, *c
		bb.Scenario, cc.Scenario = p.layer, p.layer
		base, cand = append(base, &bb), append(cand, &cc)
	}
	if len(cand) > 0 {
		// Both variants ran in this one run: no run-to-run noise between them.
		inRun := *cfg
		inRun.Gate.RunToRun = 0
		rep, err := gate.Evaluate(&inRun, base, cand, all, false)
		if err != nil {
			return withCode(exitRunFailed, err)
		}
		demoHostBusy(rep.Comparison, base, cand)
		rep.Title = "perfgate demo: baseline variant → candidate variant, per layer"
		fmt.Fprintln(e.stdout)
		if err := report.Text(e.stdout, rep); err != nil {
			return withCode(exitRunFailed, err)
		}
		if page := filepath.Join(*out, "report.html"); writeHTML(page, rep) == nil {
			fmt.Fprintf(e.stdout, "\nthe charts: open %s (one file, works offline)\n", page)
		}
	}
	storeDemoBaselines(ctx, e, cfg, *out, resultsDir, self, byName)
	fmt.Fprintf(e.stdout, "\ndemo took %s\n", time.Since(start).Round(time.Second))
	return gate.RunFailure(ctx, outs)
}

// demoStartCost is what one start and stop of the reference server
// costs the demo's plan: it is ready in 0.1 to 0.2 s (measured on a
// loaded 2-core machine); the rest is for stopping it.
const demoStartCost = 400 * time.Millisecond

// demoPlanned is the demo's planned time: the sum of its scenarios'
// (only, when not empty) suite.PlannedDuration.
func demoPlanned(cfg *config.Config, only []string) time.Duration {
	var d time.Duration
	for _, s := range cfg.Scenarios {
		if len(only) == 0 || slices.Contains(only, s.Name) {
			d += suite.PlannedDuration(s, demoStartCost)
		}
	}
	return d
}

// shrink makes the demo's windows short for --quick.
func shrink(cfg *config.Config) {
	for _, s := range cfg.Scenarios {
		l := &s.Load
		if l.Mode == "sweep" {
			l.Duration, l.Warmup, l.Budget = config.Duration(600*time.Millisecond), config.Duration(200*time.Millisecond), config.Duration(12*time.Second)
			continue
		}
		l.Duration, l.Warmup = config.Duration(500*time.Millisecond), config.Duration(100*time.Millisecond)
		// As few trials as the gate accepts: 4 for one gated latency
		// test, 5 for streaming (three share α), so the config the quick
		// demo writes can still gate.
		tests := 1
		if s.Protocol == "openai" {
			tests = 3
		}
		l.Trials = compare.MinTrials(cfg.Gate.Confidence, tests)
	}
}

// storeDemoBaselines writes the run as a baseline folder, and the config
// that gates against it, and prints the command to do so. On a busy host
// some results cannot be a baseline (an invalid run, a knee search that
// found no knee): the others are stored all the same, and one line names
// those left out, why, and the command that measures them again.
func storeDemoBaselines(ctx context.Context, e *env, cfg *config.Config, out, resultsDir, self string, byName map[string]*result.Result) {
	baseDir := filepath.Join(out, "baselines")
	if ctx.Err() != nil {
		fmt.Fprintf(e.stdout, "\nbaselines not stored: the demo was interrupted before every scenario ran; run it again to store them: %s\n",
			demoCommand(self, demoArgs(out, nil)...))
		return
	}
	written, skipped, err := baselines.UpdateValid(resultsDir, baseDir, result.Provenance{Tag: "demo", ConfigHash: cfg.Hash})
	again := demoCommand(self, demoArgs(out, skipped)...)
	if err != nil {
		if len(skipped) > 0 {
			fmt.Fprintf(e.stdout, "\nbaselines not stored: no result of this run can be a baseline (%s); run instead, on a quieter machine: %s\n",
				demoSkipped(skipped, byName), demoCommand(self, demoArgs(out, nil)...))
			return
		}
		fmt.Fprintf(e.stdout, "\nbaselines not stored: %v; run the demo again: %s\n", err, demoCommand(self, demoArgs(out, nil)...))
		return
	}
	cfg.Baselines = "baselines"
	b, err := yaml.Marshal(cfg)
	if err == nil {
		err = os.WriteFile(filepath.Join(out, "perfgate.yaml"), b, 0o644)
	}
	if err != nil {
		fmt.Fprintf(e.stdout, "\nwriting the demo config: %v\n", err)
		return
	}
	fmt.Fprintf(e.stdout, "\nstored %d baselines in %s; gate the next run against them with:\n  %s\n",
		len(written), baseDir, demoCommand(self, "gate", "--config", filepath.Join(out, "perfgate.yaml")))
	if len(skipped) > 0 {
		fmt.Fprintf(e.stdout, "not stored, so not gated until measured again: %s; measure them again, on a quieter machine, with: %s\n",
			demoSkipped(skipped, byName), again)
	}
}

// demoSkipped names the results a baseline could not be made of, each
// with the short reason: no knee, or an invalid run, and "host busy" when
// the host's other work was measured during it.
func demoSkipped(skipped []baselines.Skipped, byName map[string]*result.Result) string {
	var parts []string
	for _, s := range skipped {
		why := "cannot be a baseline"
		if r := byName[s.Scenario]; r != nil {
			switch {
			case r.Capacity != nil && !r.Capacity.Found:
				why = "no knee: no probe met the SLO"
			case !r.Valid:
				why = "invalid run"
			}
			if demoBusy(r) {
				why += ", host busy"
			}
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", s.Scenario, why))
	}
	return strings.Join(parts, ", ")
}

// demoArgs are the arguments of a demo into folder out that measures the
// skipped scenarios (all, when none), storing their baselines beside the
// others.
func demoArgs(out string, skipped []baselines.Skipped) []string {
	args := []string{"demo"}
	if out != "perfgate-demo" {
		args = append(args, "--out", out)
	}
	for _, s := range skipped {
		args = append(args, "--scenario", s.Scenario)
	}
	return args
}

// demoCommand is how to run perfgate with args: "go run ./cmd/perfgate"
// when the demo itself runs from go run (a binary in the go build cache),
// else "perfgate".
func demoCommand(self string, args ...string) string {
	cmd := "perfgate"
	if strings.Contains(filepath.ToSlash(self), "/go-build") {
		cmd = "go run ./cmd/perfgate"
	}
	return strings.Join(append([]string{cmd}, args...), " ")
}

// demoBusy reports whether r rests on a trial or a knee probe measured
// while other work used the host (result.HostLoad).
func demoBusy(r *result.Result) bool {
	for _, t := range r.Trials {
		if t.Host != nil && t.Host.Busy {
			return true
		}
	}
	if r.Capacity != nil {
		for _, p := range r.Capacity.Points {
			if p.Host != nil && p.Host.Busy {
				return true
			}
		}
	}
	return false
}

// demoHostBusy holds the demo to a stricter rule than the gate: a layer
// effect measured while the host was busy is never shown as a result,
// whatever its direction (the gate only turns regressions and
// improvements resting on a busy host into inconclusive, since only they
// would change its exit code). Every layer whose baseline or candidate
// variant rests on a busy trial or knee probe and that is not already
// inconclusive (host busy) becomes so, and the comparison's verdict is
// inconclusive with the reason naming them.
func demoHostBusy(c *compare.Comparison, base, cand []*result.Result) {
	var busy []string
	for i := range c.Scenarios {
		sc := &c.Scenarios[i]
		var b, k *result.Result
		for j := range base {
			if base[j].Scenario == sc.Scenario {
				b, k = base[j], cand[j]
			}
		}
		if b == nil || !(demoBusy(b) || demoBusy(k)) {
			continue
		}
		busy = append(busy, sc.Scenario)
		if sc.HostBusy {
			continue
		}
		sc.HostBusy, sc.Verdict = true, compare.Inconclusive
		sc.Reason = "inconclusive (host busy): measured while other work used the host; rerun on a quiet machine"
		for m := range sc.Metrics {
			if v := sc.Metrics[m].Verdict; v == compare.Regressed || v == compare.Improved || v == compare.Unchanged {
				sc.Metrics[m].Verdict = compare.Inconclusive
			}
		}
	}
	if len(busy) > 0 && c.Verdict != compare.Fail {
		c.Verdict = compare.Undecided
		c.Reason = "the host was busy with other work while these layers were measured, so their effects are not shown as results: " +
			strings.Join(busy, "; ") + "; run the demo on a quiet machine"
	}
}
