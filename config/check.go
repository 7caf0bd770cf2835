package config

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/result"
)

// validateRanges checks every numeric setting against its Bound.
func (c *Config) validateRanges() error {
	type check struct {
		path, key string
		v         float64
	}
	checks := []check{
		{"slo.p99", "slo.p99", float64(c.SLO.P99)},
		{"slo.max_error_rate", "slo.max_error_rate", float64(c.SLO.MaxErrorRate)},
		{"slo.ttft", "slo.ttft", float64(c.SLO.TTFT)},
		{"slo.tpot", "slo.tpot", float64(c.SLO.TPOT)},
		{"capacity.peak_qps", "capacity.peak_qps", c.Capacity.PeakQPS},
		{"capacity.headroom", "capacity.headroom", c.Capacity.Headroom},
		{"capacity.cost_per_instance_hour", "capacity.cost_per_instance_hour", c.Capacity.CostPerInstanceHour},
		{"gate.p99_regression", "gate.p99_regression", float64(c.Gate.P99Regression)},
		{"gate.p99_equivalence", "gate.p99_equivalence", float64(c.Gate.P99Equivalence)},
		{"gate.p50_regression", "gate.p50_regression", float64(c.Gate.P50Regression)},
		{"gate.server_compute_regression", "gate.server_compute_regression", float64(c.Gate.ServerComputeRegression)},
		{"gate.max_qps_regression", "gate.max_qps_regression", float64(c.Gate.MaxQPSRegression)},
		{"gate.run_to_run", "gate.run_to_run", float64(c.Gate.RunToRun)},
		{"gate.run_to_run_median", "gate.run_to_run_median", float64(c.Gate.RunToRunMedian)},
		{"gate.confidence", "gate.confidence", c.Gate.Confidence},
		{"gate.rerun_budget", "gate.rerun_budget", float64(c.Gate.RerunBudget)},
		{"gate.rerun_max_trials", "gate.rerun_max_trials", float64(c.Gate.RerunMaxTrials)},
		{"ab.max_trials", "ab.max_trials", float64(c.AB.MaxTrials)},
		{"ab.budget", "ab.budget", float64(c.AB.Budget)},
		{"loop_spin", "loop_spin", float64(c.LoopSpin)},
	}
	if c.LoopBatch != nil {
		checks = append(checks, check{"loop_batch", "loop_batch", float64(*c.LoopBatch)})
	}
	names := make([]string, 0, len(c.Targets))
	for n := range c.Targets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if t := c.Targets[n]; t != nil {
			checks = append(checks, check{"targets." + n + ".ready_timeout", "targets.ready_timeout", float64(t.ReadyTimeout)})
		}
	}
	for i, s := range c.Scenarios {
		if s == nil {
			continue
		}
		sp := fmt.Sprintf("scenarios[%d]", i)
		lp := sp + ".load"
		l := s.Load
		checks = append(checks,
			check{sp + ".prompt_tokens", "scenarios.prompt_tokens", float64(s.PromptTokens)},
			check{sp + ".max_tokens", "scenarios.max_tokens", float64(s.MaxTokens)},
			check{sp + ".timeout", "scenarios.timeout", float64(s.Timeout)},
			check{sp + ".restarts", "scenarios.restarts", float64(s.Restarts)},
			check{lp + ".estimates", "load.estimates", float64(l.Estimates)},
			check{lp + ".rate", "load.rate", l.Rate},
			check{lp + ".concurrency", "load.concurrency", float64(l.Concurrency)},
			check{lp + ".warmup_max", "load.warmup_max", float64(l.WarmupMax)},
			check{lp + ".duration_max", "load.duration_max", float64(l.DurationMax)},
			check{lp + ".trials", "load.trials", float64(l.Trials)},
			check{lp + ".connections", "load.connections", float64(l.Connections)},
			check{lp + ".speed", "load.speed", l.Speed},
			check{lp + ".start", "load.start", l.Start},
			check{lp + ".max_rate", "load.max_rate", l.MaxRate},
			check{lp + ".resolution", "load.resolution", float64(l.Resolution)},
			check{lp + ".budget", "load.budget", float64(l.Budget)},
		)
		// auto is checked by validateAuto; a written duration here.
		if l.Duration != Auto {
			checks = append(checks, check{lp + ".duration", "load.duration", float64(l.Duration)})
		}
		if l.Warmup != Auto {
			checks = append(checks, check{lp + ".warmup", "load.warmup", float64(l.Warmup)})
		}
		if len(s.Shape) > 0 {
			elems := 1.0
			for j, d := range s.Shape {
				checks = append(checks, check{fmt.Sprintf("%s.shape[%d]", sp, j), "scenarios.shape", float64(d)})
				elems *= float64(d)
			}
			checks = append(checks, check{sp + ".shape", "scenarios.shape", math.Abs(elems)})
		}
	}
	for _, k := range checks {
		if err := c.checkRange(k.path, k.key, k.v); err != nil {
			return err
		}
	}
	return nil
}

// MaxNameLen is the longest scenario name, in bytes: its result file
// (name.json) and target log (name.target.log) stay under the 255 bytes
// most file systems allow, and a name cannot flood the logs and reports
// that repeat it (issue 28: a 64 MB name took 1.2 GB).
const MaxNameLen = 200

// checkFileNames refuses two scenarios whose results would go to one file:
// result and baseline files are named after scenarios with the characters
// a file name cannot hold replaced ("a/b" and "a b" are both a_b.json), and
// the names are compared without case, since macOS and Windows file
// systems do.
func (c *Config) checkFileNames() error {
	seen := map[string]int{}
	for i, s := range c.Scenarios {
		if len(s.Name) > MaxNameLen {
			return c.errAt(fmt.Sprintf("scenarios[%d].name", i),
				"the name is %d bytes long, more than %d: shorten it (it names files, and every report line)", len(s.Name), MaxNameLen)
		}
		f := strings.ToLower(result.FileName(s.Name))
		if j, dup := seen[f]; dup {
			return c.errAt(fmt.Sprintf("scenarios[%d].name", i),
				"scenario names %q and %q (scenarios[%d]) both map to the result file %s: rename one",
				s.Name, c.Scenarios[j].Name, j, result.FileName(s.Name))
		}
		seen[f] = i
	}
	return nil
}
