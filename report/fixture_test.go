package report

import (
	"fmt"
	"testing"
	"time"

	"github.com/perfgate/perfgate/compare"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/sizing"
)

func ptr(f float64) *float64 { return &f }

// sweep returns a result of scenario name whose knee search found kneeQPS,
// with P99 growing with load like a queue: p99 = base / (1 − load/limit).
func sweep(name, layer string, kneeQPS, baseMs float64, gpu string) *result.Result {
	r := &result.Result{
		Schema: result.Schema, Scenario: name, Layer: layer, Protocol: "kserve-http", Valid: true,
		StartedAt: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC),
		Environment: result.Environment{CPU: "AMD EPYC 9454", Cores: 16, OS: "linux",
			GPUs: []result.GPU{{Name: gpu, Driver: "560.35"}}, Perfgate: "v0.1.0"},
		Load:    result.Load{Mode: "sweep", Trials: 1},
		Summary: result.Summary{Latency: result.Latency{P99: baseMs * 2}},
		Trials:  []result.Trial{{Valid: true}},
	}
	limit := kneeQPS * 1.25
	c := &result.Capacity{SLOP99Ms: 50, MaxQPS: kneeQPS, Bracket: [2]float64{kneeQPS, kneeQPS * 1.05}, Found: true, Windows: 6}
	for _, f := range []float64{0.25, 0.5, 0.75, 1, 1.05, 1.2} {
		load := kneeQPS * f
		p99 := baseMs / (1 - load/limit)
		if f >= 1.2 {
			p99 = 900 // a saturated probe, above 4× the SLO
		}
		c.Points = append(c.Points, result.Point{OfferedRPS: load, AchievedRPS: load, Pass: f <= 1,
			Latency: result.Latency{P50: p99 / 3, P99: p99, Mean: p99 / 2.5}})
	}
	r.Capacity = c
	return r
}

// sampleReport is a failing gate over three scenarios: a service-layer
// regression with a sweep, a model-layer improvement, and a scenario
// without a baseline.
func sampleReport(t testing.TB) *Report {
	t.Helper()
	base := []*result.Result{
		sweep("service/batching", "service", 1234.5, 8, "NVIDIA H200"),
		sweep("model/int8", "model", 800, 12, "NVIDIA H200"),
	}
	cand := []*result.Result{
		sweep("service/batching", "service", 962.9, 9.5, "NVIDIA H200"),
		sweep("model/int8", "model", 880, 10, "NVIDIA H200"),
		sweep("system/grpc", "system", 1500, 5, "NVIDIA H200"),
	}
	cand[0].Telemetry = &result.Telemetry{Bottleneck: &result.Bottleneck{Class: result.ServerSide,
		Evidence: []string{"queue time 4.1 ms of 6.0 ms server time", "GPU SM 31% busy"}, Next: "tune the batch window"}}
	cand[0].Warnings = []string{"schedule lag P99 2.1 ms"}
	cmp := &compare.Comparison{
		Schema: compare.Schema, Verdict: compare.Fail,
		Reason: "service/batching regressed (p99_ms +18.0%, max_qps -22.0%)",
		Scenarios: []compare.ScenarioComparison{
			{Scenario: "model/int8", Layer: "model", Verdict: compare.Improved, BaseTrials: 5, CandTrials: 5, Metrics: []compare.Metric{
				{Metric: compare.MetricP99, Baseline: 24, Candidate: 20, DeltaPct: -16.7, CIPct: [2]float64{-21.0, -12.2}, PValue: ptr(0.008), Verdict: compare.Improved, ThresholdPct: 5, Gated: true},
				{Metric: compare.MetricMaxQPS, Baseline: 800, Candidate: 880, DeltaPct: 10, CIPct: [2]float64{4.8, 15.5}, Verdict: compare.Improved, ThresholdPct: 5, Gated: true},
			}},
			{Scenario: "service/batching", Layer: "service", Verdict: compare.Regressed, BaseTrials: 5, CandTrials: 5,
				Warnings: []string{"trial 3 lagged its schedule"}, Metrics: []compare.Metric{
					{Metric: compare.MetricP99, Baseline: 11.8, Candidate: 13.924, DeltaPct: 18, CIPct: [2]float64{12.1, 23.5}, PValue: ptr(0.008), Verdict: compare.Regressed, ThresholdPct: 5, Gated: true},
					{Metric: compare.MetricMaxQPS, Baseline: 1234.5, Candidate: 962.9, DeltaPct: -22, CIPct: [2]float64{-25.6, -18.3}, Verdict: compare.Regressed, ThresholdPct: 5, Gated: true},
				}},
			{Scenario: "system/grpc", Layer: "system", Verdict: compare.NoBaseline, Reason: "no baseline for this scenario", CandTrials: 1},
		},
		Layers: []compare.LayerAttribution{
			{Layer: "model", Scenarios: []string{"model/int8"}, P99: &compare.Change{DeltaPct: -16.7, CIPct: [2]float64{-21, -12.2}, Verdict: compare.Improved},
				MaxQPS: &compare.Change{DeltaPct: 10, CIPct: [2]float64{4.8, 15.5}, Verdict: compare.Improved}},
			{Layer: "service", Scenarios: []string{"service/batching"}, P99: &compare.Change{DeltaPct: 18, CIPct: [2]float64{12.1, 23.5}, Verdict: compare.Regressed},
				MaxQPS: &compare.Change{DeltaPct: -22, CIPct: [2]float64{-25.6, -18.3}, Verdict: compare.Regressed}},
		},
		Environment: &compare.EnvCheck{Baseline: "NVIDIA H200 ×1, driver 560.35, AMD EPYC 9454 ×16", Candidate: "NVIDIA H200 ×1, driver 560.35, AMD EPYC 9454 ×16", Match: true},
		Settings:    compare.DefaultSettings(),
		Warnings:    []string{"baseline scenario \"engine/trt\" was not measured: not compared"},
	}
	in := sizing.Input{PeakQPS: 5000, Headroom: 1.3, CostPerInstanceHour: 2.5}
	var plans []Plan
	for _, c := range cand {
		p := Plan{Scenario: c.Scenario}
		var err error
		if p.Candidate, err = sizing.Plan(c, in); err != nil {
			t.Fatal(err)
		}
		if b := find(base, c.Scenario); b != nil {
			if p.Baseline, err = sizing.Plan(b, in); err != nil {
				t.Fatal(err)
			}
			d := sizing.Compare(p.Baseline, p.Candidate)
			p.Diff = &d
		}
		plans = append(plans, p)
	}
	return &Report{Title: "perfgate.yaml", Comparison: cmp, Plans: plans, Baseline: base, Candidate: cand,
		Commit:     "4f2c1e0d9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e",
		RunURL:     "https://github.com/acme/svc/actions/runs/42",
		SummaryURL: "https://github.com/acme/svc/actions/runs/42/attempts/1#summary"}
}

// manyScenarios returns a report with n unchanged scenarios and one
// regression listed last, to overflow the comment limit.
func manyScenarios(t testing.TB, n int) *Report {
	r := sampleReport(t)
	var extra []compare.ScenarioComparison
	for i := range n {
		name := fmt.Sprintf("service/variant-%04d-with-a-rather-long-descriptive-name", i)
		extra = append(extra, compare.ScenarioComparison{Scenario: name, Layer: "service", Verdict: compare.Unchanged,
			BaseTrials: 5, CandTrials: 5, Metrics: []compare.Metric{{Metric: compare.MetricP99, Baseline: 10, Candidate: 10.1,
				DeltaPct: 1, CIPct: [2]float64{-2, 3}, Verdict: compare.Unchanged, ThresholdPct: 5, Gated: true}}})
		r.Candidate = append(r.Candidate, sweep(name, "service", 1000, 8, "NVIDIA H200"))
		r.Baseline = append(r.Baseline, sweep(name, "service", 1000, 8, "NVIDIA H200"))
	}
	r.Comparison.Scenarios = append(extra, r.Comparison.Scenarios...)
	return r
}
